// Which config keys change the hardware of the top (docs/config.md, "What each
// key changes on the top"). Every key of the `top` section and of the MAC
// array, CHORD and pipeline buffer it names is changed one at a time from the
// embedded default config, to a larger and a smaller legal value (a boolean
// flipped, a choice to each other option), and the generated top's hardware
// (every module the top instantiates, with its comments removed, and the rtl/
// primitives they use) is compared with the default's. The table in
// docs/config.md states for each key whether every change alters the top
// (`rtl`), some do and some do not (`partial`), none does (`model`: only the
// compiler, executor, models or testbench read it), no other legal value exists
// on the default top (`fixed`), or it names a block (`name`, not varied). The
// test holds the table to what it measures, so a key the top silently ignores
// cannot be called hardware, and the table cannot go stale.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "gen/design.hpp"
#include "gen/hw_config.hpp"

using namespace cello::gen;
using nlohmann::json;

namespace {

// The module text without comments and blank lines, so only hardware counts;
// the command decoder's CONFIG_HASH (which every key changes, so that a stream
// compiled for another config is refused) is left out too.
std::string logic_only(const std::string& sv) {
  std::istringstream in(sv);
  std::string line, out;
  while (std::getline(in, line)) {
    if (line.find("localparam CONFIG_HASH = ") != std::string::npos) continue;
    if (const size_t c = line.find("//"); c != std::string::npos) line.erase(c);
    while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) line.pop_back();
    if (!line.empty()) out += line + "\n";
  }
  return out;
}

// The top's hardware: its modules' logic and the primitives they use.
std::map<std::string, std::string> top_hardware(const json& config) {
  const HwConfig cfg = parse_hw_config(config, "<mutated>");
  (void)arch_of(cfg, "<mutated>");  // the compiler's view must accept it too
  const Design d = generate_design(cfg);
  std::map<std::string, std::string> hw;
  for (const SvModule* m : hierarchy(d, cfg.top->name)) {
    hw[m->name()] = logic_only(m->render());
    for (const std::string& child : m->instantiated_modules())
      if (d.primitives.count(child)) hw["rtl/" + child] = "";
  }
  return hw;
}

std::optional<std::map<std::string, std::string>> try_hardware(const json& config) {
  try {
    return top_hardware(config);
  } catch (const std::exception&) {
    return std::nullopt;  // not a legal config: this value is not a mutation
  }
}

// The other legal-looking values of one key: for an integer v, a larger (2v,
// else v + 1) and a smaller (v / 2, else v - 1); a boolean flipped; a choice's
// other options. A string key that is not a choice is a name and not varied.
const std::map<std::string, std::vector<std::string>> kChoices = {{"victim", {"distance", "uses"}},
                                                                  {"ram", {"flop", "sram"}}};

std::vector<std::vector<json>> candidates(const std::string& key, const json& v) {
  if (v.is_boolean()) return {{!v.get<bool>()}};
  if (v.is_number_integer()) {
    const int64_t x = v.get<int64_t>();
    return {{json(2 * x), json(x + 1)}, {json(x / 2), json(x - 1)}};
  }
  if (v.is_number()) {
    const double x = v.get<double>();
    return {{json(2 * x)}, {json(x / 2)}};
  }
  if (v.is_string()) {
    const auto it = kChoices.find(key);
    if (it == kChoices.end()) return {};
    std::vector<std::vector<json>> out;
    for (const std::string& o : it->second)
      if (o != v.get<std::string>()) out.push_back({json(o)});
    return out;
  }
  return {};
}

// The table of docs/config.md's section "What each key changes on the top":
// rows "| `section.key` | class | ... |".
std::map<std::string, std::string> documented_classes() {
  std::ifstream in(CELLO_SOURCE_DIR "/docs/config.md");
  REQUIRE(in);
  std::map<std::string, std::string> table;
  std::string line;
  bool inside = false;
  const std::regex row(R"(^\|\s*`([a-z_]+\.[a-z_]+)`\s*\|\s*([a-z]+)\s*\|.*)");
  while (std::getline(in, line)) {
    if (line.rfind("## ", 0) == 0) inside = line == "## What each key changes on the top";
    std::smatch m;
    if (inside && std::regex_match(line, m, row)) table[m[1]] = m[2];
  }
  return table;
}

// Index of the block that the top names in section `array` (by the top's key).
size_t named_block(const json& config, const std::string& array, const std::string& top_key) {
  const std::string want = config["top"][top_key].get<std::string>();
  for (size_t i = 0; i < config[array].size(); ++i)
    if (config[array][i]["name"] == want) return i;
  FAIL("the default top names no " << array << " entry " << want);
  return 0;
}

}  // namespace

TEST_CASE("every key of the top and its blocks is documented as changing the top's hardware, or not", "[gen][top]") {
  const json base = parse_hw_config(default_hw_config_json(), "<default>").to_json();
  const auto base_hw = top_hardware(base);
  const std::map<std::string, std::string> doc = documented_classes();
  REQUIRE(!doc.empty());

  // (section name in the table, JSON pointer of the object, its keys)
  std::vector<std::pair<std::string, json::json_pointer>> sections = {{"top", json::json_pointer("/top")}};
  const std::vector<std::pair<std::string, std::string>> blocks = {
      {"mac_arrays", "mac_array"}, {"chords", "chord"}, {"pipeline_buffers", "pipeline_buffer"}};
  for (const auto& [array, key] : blocks)
    sections.emplace_back(array, json::json_pointer(fmt::format("/{}/{}", array, named_block(base, array, key))));

  std::set<std::string> measured_keys;
  for (const auto& [section, ptr] : sections) {
    for (const auto& [key, value] : base.at(ptr).items()) {
      const std::string name = section + "." + key;
      measured_keys.insert(name);
      INFO("key " << name << " (docs/config.md, \"What each key changes on the top\")");
      REQUIRE(doc.count(name) == 1);
      const std::string& want = doc.at(name);
      const auto choices = candidates(key, value);
      if (choices.empty()) {  // a string that is not a choice: a block's name, not varied
        CHECK(want == "name");
        continue;
      }
      int tried = 0, differ = 0;
      std::string seen;
      for (const auto& direction : choices) {
        for (const json& v : direction) {
          if (v == value) continue;
          json mutated = base;
          mutated[ptr / key] = v;
          const auto hw = try_hardware(mutated);
          if (!hw) continue;  // not legal; try the next value of this direction
          ++tried;
          const bool changed = *hw != base_hw;
          differ += changed ? 1 : 0;
          seen += fmt::format(" {} -> {}: {};", value.dump(), v.dump(), changed ? "differs" : "same");
          break;
        }
      }
      INFO("measured:" << seen);
      const std::string got = tried == 0 ? "fixed" : differ == tried ? "rtl" : differ == 0 ? "model" : "partial";
      if (std::getenv("CELLO_TOP_KEYS_PRINT")) fmt::print("{} {} {}\n", name, got, seen);
      CHECK(got == want);
    }
  }
  for (const auto& [name, cls] : doc) {
    INFO("docs/config.md lists " << name << ", which is not a key of the default top's sections");
    CHECK(measured_keys.count(name) == 1);
  }
}
