// The hardware config that `cello gen` reads: a name plus one section per block
// kind. Each block kind owns its own *_config.hpp with parse() and to_json().
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "gen/buffet/buffet_config.hpp"
#include "gen/buffet/buffet_group_config.hpp"
#include "gen/chord/chord_config.hpp"
#include "gen/design.hpp"
#include "gen/mac_array/mac_array_config.hpp"
#include "gen/pipeline_buffer/pipeline_buffer_config.hpp"
#include "gen/regfile/regfile_config.hpp"
#include "gen/top/top_config.hpp"

namespace cello::gen {

struct HwConfig {
  std::string name = "cello";
  // "clock_period_ns": the clock the SDC files of `cello gen` and `cello area`
  // constrain to (docs/area.md). Written back only when it is not the default,
  // so configs without it keep their hash.
  double clock_period_ns = kDefaultClockPeriodNs;
  static constexpr double kDefaultClockPeriodNs = 10.0;
  std::vector<BuffetConfig> buffets;
  std::vector<ChordConfig> chords;  // "chords": CHORD buffers (docs/config.md)

  std::vector<MacArrayConfig> mac_arrays;  // "mac_arrays": MAC arrays (docs/config.md)
  std::vector<RegfileConfig> regfiles;     // "regfiles": stand-alone register files
  std::vector<PipelineBufferConfig> pipeline_buffers;  // "pipeline_buffers": producer->consumer tile buffers
  std::vector<BuffetGroupConfig> buffet_groups;  // "buffet_groups": L2 buffet filling K L1s (multicast)
  std::optional<TopConfig> top;  // "top": the accelerator that runs command streams (docs/config.md)

  nlohmann::json to_json() const;  // canonical form, all defaults filled in
};

HwConfig parse_hw_config(const nlohmann::json& j, const std::string& file);
HwConfig load_hw_config(const std::string& path);
// The embedded default design used by `cello demo` and when no --config is given:
// configs/default.json as text, and parsed.
const char* default_hw_config_text();
nlohmann::json default_hw_config_json();

// Generates every block of the config.
Design generate_design(const HwConfig& cfg);

}  // namespace cello::gen
