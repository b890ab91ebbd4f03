// `cello area --sweep SECTION.KEY=v1,v2,...` (repeatable): sets KEY in every
// block of a config section (e.g. buffets.depth=64,256,1024) and expands the
// cartesian product of all sweeps into one config per point. A top-level key
// (e.g. clock_period_ns=5,10) has no section; the `top` section is one object
// (top.granule_bytes=16,32). `cello sweep` manifests use the same key paths.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace cello::area {

struct SweepAxis {
  std::string spec;     // as given, for messages
  std::string section;  // "" for a top-level key
  std::string key;
  std::vector<nlohmann::json> values;
  std::string name() const { return section.empty() ? key : section + "." + key; }
};

// Throws cello::Error("--sweep", spec, reason) on a malformed spec or an unknown section.
SweepAxis parse_sweep(const std::string& spec);

// An axis from a key path ("chords.depth", "top.granule_bytes", "clock_period_ns")
// and its values; a bad path throws cello::Error(file, place, reason).
SweepAxis make_axis(const std::string& path, std::vector<nlohmann::json> values, const std::string& file,
                    const std::string& place);

struct SweepPoint {
  nlohmann::json config;
  std::string label;               // "buffets.depth=64 buffets.scoreboard=false"
  std::vector<nlohmann::json> at;  // the value of each axis at this point
};

// Every combination, first axis varying slowest. Throws when a section is absent
// from `base`. Keys and values are checked later by the config parser.
std::vector<SweepPoint> expand_sweeps(const nlohmann::json& base, const std::vector<SweepAxis>& axes);

}  // namespace cello::area
