// `cello gen`: config file -> SystemVerilog + files.f + manifest.json.
#pragma once

#include <string>

#include "gen/hw_config.hpp"

namespace cello::gen {

struct GenResult {
  HwConfig config;
  std::string out_dir;
  size_t files = 0;     // SystemVerilog files
  size_t sdc_files = 0;  // DIR/<module>.sdc, one per generated block
  double period_ns = 0;  // the clock period those constrain to
  std::string hash;
  nlohmann::json blocks;  // manifest entry per generated block (kind, module, params, ports)
};

// config_path empty = the embedded default config. period_ns > 0 overrides the
// config's clock_period_ns in the SDC files written beside the RTL. Throws cello::Error.
GenResult run_gen(const std::string& config_path, const std::string& out_dir, double period_ns = 0);

}  // namespace cello::gen
