// Runs Yosys' generic `synth` on a file list (hierarchy kept) and reads the cell
// and flop counts of every module from `stat`. Benchmarks use it to report the
// size of control logic with RAM submodules excluded.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace cello::synth {

struct ModuleStat {
  unsigned long long cells = 0;  // generic cells (gates, muxes, flops; a submodule instance counts 1)
  unsigned long long flops = 0;  // flip-flop cells ($_DFF*, $_SDFF*, $_DFFE* ...)
};

struct SynthStat {
  std::map<std::string, ModuleStat> modules;  // per module, own cells only
  ModuleStat total;                           // whole hierarchy under the top
  double seconds = 0;
};

// Throws cello::Error naming the log when Yosys fails. Modules in `blackboxes`
// (e.g. RAM primitives) are read as black boxes: not synthesised, not counted.
SynthStat yosys_synth_stat(const std::vector<std::filesystem::path>& files, const std::string& top,
                           const std::filesystem::path& log, const std::vector<std::filesystem::path>& blackboxes = {},
                           const std::string& yosys = "yosys");

}  // namespace cello::synth
