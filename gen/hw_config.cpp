#include "gen/hw_config.hpp"

#include <fmt/format.h>

#include <set>

#include "gen/buffet/buffet_gen.hpp"
#include "gen/chord/chord_gen.hpp"
#include "sw/common/error.hpp"
#include "gen/design.hpp"
#include "gen/mac_array/mac_array_gen.hpp"
#include "gen/pipeline_buffer/pipeline_buffer_gen.hpp"
#include "gen/regfile/regfile_gen.hpp"
#include "gen/top/top_gen.hpp"

namespace cello::gen {

nlohmann::json HwConfig::to_json() const {
  nlohmann::json j = {{"name", name}};
  if (clock_period_ns != kDefaultClockPeriodNs) j["clock_period_ns"] = clock_period_ns;
  j["buffets"] = nlohmann::json::array();
  for (const auto& b : buffets) j["buffets"].push_back(b.to_json());
  if (!chords.empty()) {
    j["chords"] = nlohmann::json::array();
    for (const auto& ch : chords) j["chords"].push_back(ch.to_json());
  }
  if (!mac_arrays.empty()) {
    j["mac_arrays"] = nlohmann::json::array();
    for (const auto& a : mac_arrays) j["mac_arrays"].push_back(a.to_json());
  }
  if (!regfiles.empty()) {
    j["regfiles"] = nlohmann::json::array();
    for (const auto& f : regfiles) j["regfiles"].push_back(f.to_json());
  }
  if (!pipeline_buffers.empty()) {
    j["pipeline_buffers"] = nlohmann::json::array();
    for (const auto& b : pipeline_buffers) j["pipeline_buffers"].push_back(b.to_json());
  }
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

}  // namespace

HwConfig parse_hw_config(const nlohmann::json& j, const std::string& file) {
  ConfigReader r(j, file, "");
  HwConfig c;
  // The design name becomes <name>_top and is printed in summaries: an identifier.
  c.name = r.identifier("name", c.name, NameKind::design);
  c.clock_period_ns = r.number("clock_period_ns", c.clock_period_ns, 0.1, 1e6);
  std::set<std::string> names;
  for (auto& b : r.objects("buffets")) {
    c.buffets.push_back(BuffetConfig::parse(b));
    if (!names.insert(c.buffets.back().name).second)
      b.fail("name", "duplicate module name \"" + c.buffets.back().name + "\"");
    check_not_primitive(b, c.buffets.back().name);
  }
  if (r.has("chord")) r.fail("chord", "renamed to \"chords\" (every list of blocks has a plural key)");
  for (auto& ch : r.objects("chords")) {
    c.chords.push_back(ChordConfig::parse(ch));
    const std::string& n = c.chords.back().name;
    for (const std::string& m : {n, n + "_riff_table", n + "_prelude"})
      if (!names.insert(m).second) ch.fail("name", "duplicate module name \"" + m + "\"");
      else check_not_primitive(ch, m);
  }
  for (auto& a : r.objects("mac_arrays")) {
    c.mac_arrays.push_back(MacArrayConfig::parse(a));
    const auto& ma = c.mac_arrays.back();
    for (const std::string& m : {ma.name, ma.pe_name(), ma.rf_name()})
      if (!names.insert(m).second) a.fail("name", "duplicate module name \"" + m + "\"");
      else check_not_primitive(a, m);
  }
  for (auto& f : r.objects("regfiles")) {
    c.regfiles.push_back(RegfileConfig::parse(f));
    if (!names.insert(c.regfiles.back().name).second)
      f.fail("name", "duplicate module name \"" + c.regfiles.back().name + "\"");
    check_not_primitive(f, c.regfiles.back().name);
  }
  for (auto& pb : r.objects("pipeline_buffers")) {
    c.pipeline_buffers.push_back(PipelineBufferConfig::parse(pb));
    const auto& b = c.pipeline_buffers.back();
    for (const std::string& m : {b.name, b.buffet_name()})
      if (!names.insert(m).second) pb.fail("name", "duplicate module name \"" + m + "\"");
      else check_not_primitive(pb, m);
  }
  if (r.has("top")) {
    ConfigReader t = r.object("top");
    c.top = TopConfig::parse(t, c.name);
    if (!names.insert(c.top->name).second) t.fail("name", "duplicate module name \"" + c.top->name + "\"");
  }
  r.finish();
  check_top(c, file);
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
  // The top and its parts (docs/top.md).
  if (cfg.top) add_top(d, cfg);
  return d;
}

}  // namespace cello::gen
