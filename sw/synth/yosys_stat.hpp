// Reads the cell, flop and area counts of every module from Yosys' `stat`, and
// runs Yosys' generic `synth` on a file list (hierarchy kept) to get them.
// Benchmarks use it to report the size of control logic with RAM submodules
// excluded; the liberty flow (synth_flow.hpp) reads its `stat -liberty` with it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace cello::synth {

struct CellStat {
  uint64_t cells = 0;   // cells (gates, muxes, flops or liberty cells; a submodule instance counts 1)
  uint64_t flops = 0;   // flip-flop cells among them
  double area_um2 = 0;  // from `stat -liberty`; 0 without a liberty
};

struct SynthStat {
  std::map<std::string, CellStat> modules;    // per module, own cells only
  CellStat total;                             // whole hierarchy under the top
  std::map<std::string, uint64_t> instances;  // module -> instances under the top (hierarchical designs)
  double seconds = 0;                         // Yosys' wall time (yosys_synth_stat)
};

// A flip-flop cell: a generic one ($_DFF_P_, $_SDFFE_..., $_DFFSR_...) or a
// sky130 HD one (dfxtp, dfrtp, edfxtp, sdf* ...).
bool is_flop_cell(const std::string& cell);

// The last statistics pass of a Yosys log. Throws cello::Error naming
// `log_name` when the log holds no statistics for `top`.
SynthStat parse_stat_log(const std::string& log_text, const std::string& top, const std::string& log_name = "");

// read_verilog, `prelude` (e.g. "chparam -set STAGES 4 fp32_fma"), hierarchy,
// synth, stat; the script is written beside the log (<log> with extension
// ".ys"). Throws cello::Error naming the log when Yosys fails or the top has no
// cells. Modules in `blackboxes` (e.g. RAM primitives) are read as black boxes:
// not synthesised, not counted.
SynthStat yosys_synth_stat(const std::vector<std::filesystem::path>& files, const std::string& top,
                           const std::filesystem::path& log, const std::vector<std::filesystem::path>& blackboxes = {},
                           const std::string& yosys = "yosys", const std::string& prelude = "");

}  // namespace cello::synth
