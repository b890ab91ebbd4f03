#include "synth/yosys_stat.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <regex>

#include "common/error.hpp"
#include "common/run_process.hpp"

namespace cello::synth {

SynthStat yosys_synth_stat(const std::vector<std::filesystem::path>& files, const std::string& top,
                           const std::filesystem::path& log, const std::vector<std::filesystem::path>& blackboxes,
                           const std::string& yosys) {
  std::string reads, libs;
  for (const auto& f : files)
    if (std::find(blackboxes.begin(), blackboxes.end(), f) == blackboxes.end()) reads.append(" ").append(yosys_quote(f.string()));
  for (const auto& f : blackboxes) libs += fmt::format("read_verilog -sv -lib {}; ", yosys_quote(f.string()));
  std::string script =
      fmt::format("{}read_verilog -sv{}; hierarchy -check -top {}; synth -top {}; stat", libs, reads, top, top);
  auto t0 = std::chrono::steady_clock::now();
  if (run_process({yosys, "-q", "-l", log.string(), "-p", script}, "/dev/null").exit_code != 0)
    throw Error(log.string(), top, "yosys failed (see the log)");
  SynthStat st;
  st.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  std::ifstream in(log);
  std::regex header(R"(^=== (.+) ===\s*$)"), cells(R"(^\s+Number of cells:\s+(\d+))"),
      cell(R"(^\s+(\$\S+)\s+(\d+)\s*$)");
  std::string line, current;
  std::smatch m;
  // `stat` runs last, so later blocks overwrite the counts of earlier passes.
  while (std::getline(in, line)) {
    if (std::regex_search(line, m, header)) {
      current = m[1];
      if (current == "design hierarchy") st.total = {};
      else st.modules[current] = {};
      continue;
    }
    if (current.empty()) continue;
    ModuleStat& s = current == "design hierarchy" ? st.total : st.modules[current];
    if (std::regex_search(line, m, cells)) s.cells = std::stoull(m[1]);
    else if (std::regex_search(line, m, cell) && m[1].str().find("DFF") != std::string::npos)
      s.flops += std::stoull(m[2]);
  }
  if (!st.modules.count(top) || st.modules[top].cells == 0)
    throw Error(log.string(), top, "no statistics for the top module in the yosys log");
  if (st.total.cells == 0) st.total = st.modules[top];  // a flat design prints no hierarchy block
  return st;
}

}  // namespace cello::synth
