// Buffet config parsing and option-to-hardware mapping: options that are off
// remove their ports.
#include <catch2/catch.hpp>

#include <algorithm>
#include <regex>

#include "gen/buffet/buffet_gen.hpp"
#include "sw/common/error.hpp"
#include "gen/hw_config.hpp"

using namespace cello::gen;

namespace {
std::vector<std::string> port_names(const nlohmann::json& buffet) {
  auto cfg = parse_hw_config({{"buffets", {buffet}}}, "t.json");
  Design d = generate_design(cfg);
  std::vector<std::string> names;
  for (const auto& p : d.blocks.at(0)["ports"]) names.push_back(p["name"]);
  return names;
}
// The NWR parameter of the buffet's RAM instance, whatever the spacing of the
// generated text.
int ram_write_ports(const Design& d) {
  std::smatch m;
  const std::string text = d.modules.at(0).render();
  REQUIRE(std::regex_search(text, m, std::regex(R"(\.NWR\s*\(\s*(\d+)\s*\))")));
  return std::stoi(m[1].str());
}
bool has(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }
}  // namespace

TEST_CASE("defaults are filled in and recorded") {
  auto cfg = parse_hw_config({{"buffets", {nlohmann::json::object()}}}, "t.json");
  REQUIRE(cfg.buffets.size() == 1);
  const auto& b = cfg.buffets[0];
  CHECK(b.depth == 64);
  CHECK(b.index_width == 6);
  CHECK(b.scoreboard);
  CHECK(cfg.to_json()["buffets"][0]["write_port"] == "separate");
  // The canonical JSON parses back to the same config.
  auto again = parse_hw_config(cfg.to_json(), "canonical");
  CHECK(again.to_json() == cfg.to_json());
}

TEST_CASE("the port contract: every contract port of a full buffet exists") {
  auto p = port_names({{"name", "b"}});
  for (const char* name : {"clk", "rst_n", "fill_valid", "fill_ready", "fill_data", "rd_req_valid", "rd_req_ready",
                           "rd_req_idx", "rd_req_will_update", "rd_rsp_valid", "rd_rsp_ready", "rd_rsp_data",
                           "upd_valid", "upd_ready", "upd_idx", "upd_data", "shr_valid", "shr_ready", "shr_num",
                           "credit_valid", "credit_ready", "credit_num"})
    CHECK(has(p, name));
  CHECK(!has(p, "cfg_base"));
}

TEST_CASE("options that are off remove their ports") {
  auto ro = port_names({{"update", false}});
  CHECK(!has(ro, "upd_valid"));
  CHECK(!has(ro, "rd_req_will_update"));
  auto nosb = port_names({{"scoreboard", false}});
  CHECK(has(nosb, "upd_valid"));
  CHECK(!has(nosb, "rd_req_will_update"));
  auto bb = port_names({{"base_bound", true}});
  CHECK(has(bb, "cfg_base"));
  CHECK(has(bb, "cfg_bound"));
}

TEST_CASE("the RAM primitive follows the ram option and write ports follow the update option") {
  auto gen = [](const nlohmann::json& b) { return generate_design(parse_hw_config({{"buffets", {b}}}, "t.json")); };
  auto flop = gen(nlohmann::json::object());
  CHECK(flop.primitives.count("ram_flop") == 1);
  CHECK(ram_write_ports(flop) == 2);
  auto sram = gen({{"ram", "sram"}, {"write_port", "shared"}});
  CHECK(sram.primitives.count("ram_sram") == 1);
  CHECK(ram_write_ports(sram) == 1);
  auto ro = gen({{"update", false}});
  CHECK(ro.modules[0].render().find("pending_q") == std::string::npos);
}
