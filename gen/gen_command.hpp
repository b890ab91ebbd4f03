// `cello gen`: config file -> SystemVerilog + files.f + manifest.json.
#pragma once

#include <string>

#include "hw_config.hpp"

namespace cello::gen {

struct GenResult {
  HwConfig config;
  std::string out_dir;
  size_t files = 0;
  std::string hash;
  nlohmann::json blocks;  // manifest entry per generated block (kind, module, params, ports)
};

// config_path empty = the embedded default config. Throws cello::Error.
GenResult run_gen(const std::string& config_path, const std::string& out_dir);

}  // namespace cello::gen
