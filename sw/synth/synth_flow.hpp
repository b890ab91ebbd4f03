// The area and timing flow of `cello area` (docs/area.md) for one top module:
//   yosys: synth -> dfflibmap -liberty -> abc -D <period> -constr (buffer,
//          upsize, dnsize under the delay target) -liberty -> stat -liberty
//   OpenSTA: the mapped netlist + the block's SDC -> worst path, slack, Fmax.
// SRAM primitives (ram_sram) are black boxes priced by the SRAM model; flop RAMs
// (ram_flop) are synthesised like any logic unless told to treat them as macros.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sw/synth/yosys_stat.hpp"

namespace cello::synth {

// One RAM primitive instance found in the mapped netlist.
struct RamInstance {
  std::string parent;     // module that instantiates it
  std::string primitive;  // ram_sram or ram_flop
  uint64_t depth = 0;
  int width = 0;
  int write_ports = 1;
  bool synthesised = false;  // a flop RAM mapped to cells (its area is in `logic`)
  CellStat logic;            // synthesised flop RAM: its cells and area
};

struct TimingReport {
  bool ran = false;
  bool constrained = false;  // false when OpenSTA found no constrained path
  double period_ns = 0;
  double worst_slack_ns = 0;
  double critical_path_ns = 0;  // period - worst slack: the delay the clock must cover
  double fmax_mhz = 0;          // 1000 / critical_path_ns (exact for flop-to-flop paths, see docs/area.md)
  std::string startpoint, endpoint;
  double sta_seconds = 0;  // OpenSTA's run time
};
// The JSON form (`cello area --json`, "timing"): every field but `ran`.
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(TimingReport, period_ns, constrained, worst_slack_ns, critical_path_ns, fmax_mhz,
                                   startpoint, endpoint, sta_seconds)

struct FlowReport {
  std::string top;
  std::map<std::string, CellStat> modules;  // per module, own cells only
  CellStat total;                           // whole hierarchy under the top, black boxes excluded
  CellStat control;                         // total minus synthesised flop RAMs
  std::vector<RamInstance> rams;
  TimingReport timing;
  double synth_seconds = 0;
  std::filesystem::path netlist, yosys_log, sta_log;
};

struct FlowOptions {
  std::filesystem::path liberty;  // plain-text liberty (see area::unpacked_liberty)
  double period_ns = 10.0;        // abc delay target and the SDC clock
  std::string sdc;                // SDC text for OpenSTA (gen::block_sdc); empty = no timing
  std::string driving_cell = "sky130_fd_sc_hd__buf_1";  // for abc's buffering (-constr)
  double load_pf = 0.01;
  bool buffering = true;  // abc -constr: buffer / upsize / dnsize; off only to show why it matters
  bool flop_rams_as_macros = false;  // black-box ram_flop too (large flop RAMs take yosys very long)
  std::string yosys = "yosys", sta = "sta";
};

// Runs the flow in `work_dir` (created): Yosys through run_yosys (yosys_run.hpp),
// the script in <top>.ys. Throws cello::Error naming the log on any tool
// failure, and "<tool>: not found ..." when yosys or sta is missing.
FlowReport run_synth_flow(const std::vector<std::filesystem::path>& files, const std::string& top,
                          const std::filesystem::path& work_dir, const FlowOptions& o);

// Readers of the tools' output, exposed for tests.
// parse_stat_log, then the control logic: the total less the synthesised flop RAMs.
void parse_yosys_stat(const std::string& log_text, const std::string& top, FlowReport& r,
                      const std::string& log_name = "");
void parse_netlist_rams(const std::string& netlist_text, FlowReport& r);
TimingReport parse_sta_report(const std::string& text, double period_ns);

}  // namespace cello::synth
