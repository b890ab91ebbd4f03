#include "gen/hw_config.hpp"

#include <fmt/format.h>

#include <map>
#include <optional>
#include <set>

#include "gen/buffet/buffet_gen.hpp"
#include "gen/buffet/buffet_group_gen.hpp"
#include "gen/chord/chord_gen.hpp"
#include "sw/common/error.hpp"
#include "gen/design.hpp"
#include "gen/mac_array/mac_array_gen.hpp"
#include "gen/pipeline_buffer/pipeline_buffer_gen.hpp"
#include "gen/regfile/regfile_gen.hpp"
#include "gen/top/top_gen.hpp"

namespace cello::gen {

namespace {

// Puts one JSON object per block under `key`; an empty list is left out unless `always`.
template <class Config>
void put_blocks(nlohmann::json& j, const char* key, const std::vector<Config>& blocks, bool always = false) {
  if (blocks.empty() && !always) return;
  nlohmann::json& list = j[key] = nlohmann::json::array();
  for (const Config& b : blocks) list.push_back(b.to_json());
}

}  // namespace

nlohmann::json HwConfig::to_json() const {
  nlohmann::json j = {{"name", name}};
  if (clock_period_ns != kDefaultClockPeriodNs) j["clock_period_ns"] = clock_period_ns;
  put_blocks(j, "buffets", buffets, /*always=*/true);
  put_blocks(j, "chords", chords);
  put_blocks(j, "mac_arrays", mac_arrays);
  put_blocks(j, "regfiles", regfiles);
  put_blocks(j, "pipeline_buffers", pipeline_buffers);
  put_blocks(j, "buffet_groups", buffet_groups);
  if (top) j["top"] = top->to_json();
  return j;
}

namespace {

// A generated module may not take the name of an rtl/ primitive (its file would
// overwrite the primitive's). Reserved words are refused when the name is read
// (ConfigReader::identifier); the derived names add suffixes (_pe, _rf,
// _riff_table, _prelude, _buffet) that no reserved word ends with.
void check_not_primitive(ConfigReader& r, const std::string& module) {
  for (const auto& p : rtl_primitive_names())
    if (p == module) r.fail("name", fmt::format("module name \"{}\" is taken by the rtl/ primitive {}.sv", module, p));
}

// The module names the config's blocks claim, each with the reader of its block
// (its "name" is where a module-name error points).
using ModuleOwners = std::map<std::string, ConfigReader>;

// Claims a module name for the block `r` reads: a name another block already
// generates, or an rtl/ primitive's, fails at the block's "name".
void claim_module_name(ConfigReader& r, ModuleOwners& owners, const std::string& module) {
  if (!owners.emplace(module, r).second) r.fail("name", "duplicate module name \"" + module + "\"");
  check_not_primitive(r, module);
}

// Parses every object of the list `key` into `blocks`, and claims the names of
// the modules each block generates (`modules(block)`, its own name first).
template <class Config, class Modules>
void parse_blocks(ConfigReader& r, const char* key, std::vector<Config>& blocks, ModuleOwners& owners,
                  Modules modules) {
  for (ConfigReader& b : r.objects(key)) {
    blocks.push_back(Config::parse(b));
    for (const std::string& m : modules(blocks.back())) claim_module_name(b, owners, m);
  }
}

// The generated design's module names: each one unique (a block may not take
// the name of a module the top generates, such as <top>_engine), and none used
// inside its own module (a port, signal or loop variable of that name hides
// the module: Verilator's VARHIDDEN warning), e.g. a MAC array named "busy" or
// a register file named "r". The design is generated once to see every
// module; the error points at the block's "name" (the top's parts, which no
// block claims, at the top's; anything else at the design's).
void check_generated_names(const HwConfig& c, ConfigReader& root, const ModuleOwners& owners, ConfigReader* top) {
  const auto owner = [&](const std::string& module) -> const ConfigReader& {
    const auto it = owners.find(module);
    return it != owners.end() ? it->second : top ? *top : root;
  };
  std::set<std::string> seen;
  for (const SvModule& m : generate_design(c).modules) {
    if (!seen.insert(m.name()).second)
      owner(m.name()).fail("name", fmt::format("duplicate module name \"{}\": the top generates a module of that name",
                                               m.name()));
    if (m.uses_identifier(m.name()))
      owner(m.name()).fail("name", fmt::format("module name \"{}\" is also a name inside that module (a port, "
                                               "signal or variable), which would hide the module; choose another name",
                                               m.name()));
  }
}

template <class Config>
std::vector<std::string> own_name(const Config& block) {
  return {block.name};
}

}  // namespace

HwConfig parse_hw_config(const nlohmann::json& j, const std::string& file) {
  ConfigReader r(j, file, "");
  HwConfig c;
  // The design name becomes <name>_top and is printed in summaries: an identifier.
  c.name = r.identifier("name", c.name, NameKind::design);
  c.clock_period_ns = r.number("clock_period_ns", c.clock_period_ns, 0.1, 1e6);
  ModuleOwners owners;
  parse_blocks(r, "buffets", c.buffets, owners, own_name<BuffetConfig>);
  if (r.has("chord")) r.fail("chord", "renamed to \"chords\" (every list of blocks has a plural key)");
  parse_blocks(r, "chords", c.chords, owners, [](const ChordConfig& ch) {
    return std::vector<std::string>{ch.name, ch.name + "_riff_table", ch.name + "_prelude"};
  });
  parse_blocks(r, "mac_arrays", c.mac_arrays, owners, [](const MacArrayConfig& a) {
    return std::vector<std::string>{a.name, a.pe_name(), a.rf_name()};
  });
  parse_blocks(r, "regfiles", c.regfiles, owners, own_name<RegfileConfig>);
  parse_blocks(r, "pipeline_buffers", c.pipeline_buffers, owners, [](const PipelineBufferConfig& b) {
    return std::vector<std::string>{b.name, b.buffet_name()};
  });
  parse_blocks(r, "buffet_groups", c.buffet_groups, owners, [](const BuffetGroupConfig& g) {
    std::vector<std::string> names{g.name, g.l2_name(), g.l1_name()};
    if (g.multicast()) names.push_back(g.mcast_name());
    return names;
  });
  std::optional<ConfigReader> t;
  if (r.has("top")) {
    t.emplace(r.object("top"));
    c.top = TopConfig::parse(*t, c.name);
    if (!owners.emplace(c.top->name, *t).second) t->fail("name", "duplicate module name \"" + c.top->name + "\"");
  }
  r.finish();
  check_top(c, file);
  check_generated_names(c, r, owners, t ? &*t : nullptr);
  return c;
}

HwConfig load_hw_config(const std::string& path) { return parse_hw_config(parse_json_file(path), path); }

nlohmann::json default_hw_config_json() {
  // configs/default.json, embedded at build time (gen/embed_config.cmake): a 4x4
  // array with a 3-stage FMA, a 128 KB CHORD, a double-buffered 64-word pipeline
  // buffer, and the top that composes them (docs/config.md, "top").
  return nlohmann::json::parse(default_hw_config_text());
}

Design generate_design(const HwConfig& cfg) {
  Design d;
  for (const auto& b : cfg.buffets) add_buffet(d, b);
  for (const auto& ch : cfg.chords) add_chord(d, ch);
  for (const auto& a : cfg.mac_arrays) add_mac_array(d, a);
  for (const auto& f : cfg.regfiles) add_regfile(d, f);
  for (const auto& b : cfg.pipeline_buffers) add_pipeline_buffer(d, b);
  for (const auto& g : cfg.buffet_groups) add_buffet_group(d, g);
  // The top and its parts (docs/top.md).
  if (cfg.top) add_top(d, cfg);
  return d;
}

}  // namespace cello::gen
