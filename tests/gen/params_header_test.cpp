// The parameter header write_design() emits (gen/params_header.hpp). The build
// generates tests/gen/params_test.json with `cello gen` (tests/gen/CMakeLists.txt)
// and compiles this file against the header it wrote, so the header compiling
// is itself a check; the cases compare its constants with the manifest and the
// config of the same run, and its port macros with the manifest's ports.
#include <catch2/catch.hpp>

#include <string>

#include "params_test_params.hpp"
#include "gen/config_reader.hpp"
#include "gen/params_header.hpp"
#include "sw/common/bits.hpp"

namespace P = cello::params;
using cello::gen::parse_json_file;

namespace {

const nlohmann::json& manifest() {
  static const nlohmann::json m = parse_json_file(PARAMS_TEST_DIR "/manifest.json");
  return m;
}

const nlohmann::json& config() {
  static const nlohmann::json c = parse_json_file(PARAMS_TEST_CONFIG);
  return c;
}

// The manifest entry of a generated module.
const nlohmann::json& block(const std::string& module) {
  for (const auto& b : manifest().at("blocks"))
    if (b.at("module") == module) return b;
  throw std::runtime_error("no block " + module + " in the manifest");
}

bool has_port(const std::string& module, const std::string& port) {
  for (const auto& p : block(module).at("ports"))
    if (p.at("name") == port) return true;
  return false;
}

int port_width(const std::string& module, const std::string& port) {
  for (const auto& p : block(module).at("ports"))
    if (p.at("name") == port) return p.at("width").get<int>();
  throw std::runtime_error("no port " + port + " on " + module);
}

// The port macros, read in #if as a testbench does: present ports are 1,
// absent ones 0 (the expectations are checked against the manifest below).
#if CELLO_HAS_PORT(pt_buf, cfg_base) && !CELLO_HAS_PORT(pt_pb, del_req_valid) && \
    !CELLO_HAS_PORT(pt_mac, op_last) && CELLO_HAS_PORT(pt_mac, op_a)
constexpr bool kPortMacrosAsExpected = true;
#else
constexpr bool kPortMacrosAsExpected = false;
#endif

}  // namespace

// A header constant equals the manifest's value of the same name.
#define CHECK_PARAM(module, key) CHECK(nlohmann::json(P::module::key) == block(#module).at("params").at(#key))
#define CHECK_FIELD(module, key) CHECK(nlohmann::json(P::module::key) == block(#module).at(#key))
#define CHECK_PORT(module, port) CHECK(P::module::ports::port == port_width(#module, #port))

TEST_CASE("params header: every kind's parameters equal the manifest's") {
  CHECK_PARAM(pt_buf, depth);
  CHECK_PARAM(pt_buf, data_width);
  CHECK_PARAM(pt_buf, index_width);
  CHECK_PARAM(pt_buf, update);
  CHECK_PARAM(pt_buf, scoreboard);
  CHECK_PARAM(pt_buf, scoreboard_entries);
  CHECK_PARAM(pt_buf, write_port);
  CHECK_PARAM(pt_buf, shrink_sync);
  CHECK_PARAM(pt_buf, base_bound);
  CHECK_PARAM(pt_buf, ram);
  CHECK_PARAM(pt_pb, tile);
  CHECK_PARAM(pt_pb, hold_tiles);
  CHECK_PARAM(pt_pb, data_width);
  CHECK_PARAM(pt_pb, ram);
  CHECK_FIELD(pt_pb, buffet_module);
  CHECK_PARAM(pt_mac, rows);
  CHECK_PARAM(pt_mac, cols);
  CHECK_PARAM(pt_mac, fma_stages);
  CHECK_PARAM(pt_mac, rf_rows);
  CHECK_PARAM(pt_mac, gram);
  CHECK_PARAM(pt_mac, spmm);
  CHECK_FIELD(pt_mac, pe_module);
  CHECK_FIELD(pt_mac, rf_module);
  CHECK_PARAM(pt_chord, depth);
  CHECK_PARAM(pt_chord, entries);
  CHECK_PARAM(pt_chord, counter_width);
  CHECK_PARAM(pt_chord, victim);
  CHECK_FIELD(pt_chord, entry_bits);
  CHECK_FIELD(pt_chord, table_bits);
}

TEST_CASE("params header: values are the config's, resolved") {
  const auto& buf = config()["buffets"][0];
  static_assert(P::pt_buf::depth == 12 && P::pt_buf::base_bound, "usable in constant expressions");
  CHECK(P::pt_buf::depth == buf["depth"].get<int>());
  CHECK(P::pt_buf::data_width == buf["data_width"].get<int>());
  CHECK(P::pt_buf::index_width == cello::bits_for(P::pt_buf::depth - 1));  // absent from the config: derived
  CHECK(P::pt_buf::write_port == buf["write_port"].get<std::string>());
  CHECK(P::pt_buf::scoreboard_entries == buf["scoreboard_entries"].get<int>());
  const auto& mac = config()["mac_arrays"][0];
  CHECK(P::pt_mac::rows == mac["rows"].get<int>());
  CHECK(P::pt_mac::rf_rows == mac["rf_rows"].get<int>());
  CHECK(P::pt_mac::gram);  // the default
  CHECK_FALSE(P::pt_mac::spmm);
  CHECK(P::pt_pb::tile == config()["pipeline_buffers"][0]["tile"].get<int>());
}

TEST_CASE("params header: port widths and port macros follow the manifest's ports") {
  CHECK_PORT(pt_buf, credit_num);  // the occupancy/credit counter width
  CHECK_PORT(pt_buf, rd_req_idx);
  CHECK_PORT(pt_buf, fill_data);
  CHECK_PORT(pt_mac, op_a);
  CHECK_PORT(pt_pb, imm_req_idx);
  CHECK(has_port("pt_buf", "cfg_base"));  // base_bound
  CHECK_FALSE(has_port("pt_pb", "del_req_valid"));  // hold_tiles 0
  CHECK_FALSE(has_port("pt_mac", "op_last"));  // no SpMM
  CHECK(has_port("pt_mac", "op_a"));
  CHECK(kPortMacrosAsExpected);
}

TEST_CASE("params header: C++ keywords are renamed, non-scalar fields left out") {
  nlohmann::json blocks = nlohmann::json::array();
  blocks.push_back({{"kind", "test"},
                    {"module", "new"},
                    {"params", {{"default", 3}, {"big", 1LL << 40}, {"list", {1, 2}}, {"label", "a\"b"}}},
                    {"ports", {{{"name", "clk"}, {"dir", "input"}, {"width", 1}}}}});
  const std::string h = cello::gen::params_header("d", "0", blocks);
  CHECK(cello::gen::params_header_name("d") == "d_params.hpp");
  CHECK(h.find("namespace new_ {") != std::string::npos);
  CHECK(h.find("int default_ = 3;") != std::string::npos);
  CHECK(h.find("std::int64_t big = 1099511627776;") != std::string::npos);
  CHECK(h.find("label = \"a\\\"b\";") != std::string::npos);
  CHECK(h.find("list") == std::string::npos);
  CHECK(h.find("#define CELLO_new_HAS_clk 1") != std::string::npos);
}
