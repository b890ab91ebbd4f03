#include "sw/synth/yosys_stat.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <regex>
#include <sstream>

#include "sw/common/error.hpp"
#include "sw/common/run_process.hpp"
#include "sw/synth/yosys_run.hpp"

namespace cello::synth {

bool is_flop_cell(const std::string& cell) {
  // sky130 HD flip-flops: dfxtp, dfrtp, dfstp, dfbbp, edfxtp, sdf*, sedf* ...
  static const std::regex re(R"(__(s?e?df|dfb|dfr|dfs|dfx)\w*)");
  return std::regex_search(cell, re) || (cell.rfind('$', 0) == 0 && cell.find("DFF") != std::string::npos);
}

SynthStat parse_stat_log(const std::string& log_text, const std::string& top, const std::string& log_name) {
  // Only the last statistics pass counts (the `stat` at the end of the script).
  size_t start = log_text.rfind("Printing statistics.");
  if (start == std::string::npos) throw Error(log_name, top, "no statistics in the yosys log");
  std::istringstream in(log_text.substr(start));
  static const std::regex header(R"(^=== (.+) ===\s*$)"), cells(R"(^\s+Number of cells:\s+(\d+))"),
      cell(R"(^\s+(\S+)\s+(\d+)\s*$)"), area(R"(^\s+Chip area for (top )?module '\\?(.+)': ([0-9.eE+-]+))");
  SynthStat st;
  std::string line, current;
  std::smatch m;
  bool hierarchy = false;
  while (std::getline(in, line)) {
    if (std::regex_search(line, m, header)) {
      current = m[1];
      hierarchy = current == "design hierarchy";
      if (!hierarchy) st.modules[current] = {};
      continue;
    }
    if (current.empty()) continue;
    CellStat& s = hierarchy ? st.total : st.modules[current];
    if (std::regex_search(line, m, cells)) {
      s.cells = std::stoull(m[1]);
    } else if (std::regex_search(line, m, area)) {
      s.area_um2 = std::stod(m[3]);
    } else if (std::regex_search(line, m, cell)) {
      if (hierarchy && s.cells == 0) st.instances[m[1]] += std::stoull(m[2]);  // the module list comes first
      else if (is_flop_cell(m[1])) s.flops += std::stoull(m[2]);
    }
  }
  if (!st.modules.count(top)) throw Error(log_name, top, "no statistics for the top module in the yosys log");
  if (st.total.cells == 0) st.total = st.modules[top];  // a flat design prints no hierarchy block
  return st;
}

SynthStat yosys_synth_stat(const std::vector<std::filesystem::path>& files, const std::string& top,
                           const std::filesystem::path& log, const std::vector<std::filesystem::path>& blackboxes,
                           const std::string& yosys, const std::string& prelude) {
  std::string script, reads;
  for (const auto& f : blackboxes) script += fmt::format("read_verilog -sv -lib {}\n", yosys_quote(f.string()));
  for (const auto& f : files)
    if (std::find(blackboxes.begin(), blackboxes.end(), f) == blackboxes.end()) reads.append(" ").append(yosys_quote(f.string()));
  script += fmt::format("read_verilog -sv{}\n", reads);
  if (!prelude.empty()) script += prelude + "\n";
  script += fmt::format("hierarchy -check -top {}\nsynth -top {}\nstat\n", top, top);
  auto run = run_yosys({script, std::filesystem::path(log).replace_extension(".ys"), log, top, yosys, {}});
  SynthStat st = parse_stat_log(run.log, top, log.string());
  if (st.modules[top].cells == 0) throw Error(log.string(), top, "no statistics for the top module in the yosys log");
  st.seconds = run.seconds;
  return st;
}

}  // namespace cello::synth
