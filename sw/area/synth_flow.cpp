#include "area/synth_flow.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <regex>
#include <sstream>

#include "common/error.hpp"
#include "common/run_process.hpp"

namespace cello::area {

namespace fs = std::filesystem;

namespace {

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write_text(const fs::path& p, const std::string& text) {
  std::ofstream out(p);
  if (!out || !(out << text)) throw Error(p.string(), "", "cannot write file");
}

// A path as one Yosys script argument.
std::string yq(const fs::path& p) {
  std::string s = fs::absolute(p).lexically_normal().string();
  if (s.find('"') != std::string::npos) throw Error(s, "", "paths with '\"' are not supported by the yosys script");
  return "\"" + s + "\"";
}
// A path as one Tcl word (OpenSTA).
std::string tq(const fs::path& p) {
  std::string s = fs::absolute(p).lexically_normal().string();
  if (s.find_first_of("{}\\") != std::string::npos)
    throw Error(s, "", "paths with braces or backslashes are not supported by the OpenSTA script");
  return "{" + s + "}";
}

bool is_flop_cell(const std::string& cell) {
  // sky130 HD flip-flops: dfxtp, dfrtp, dfstp, dfbbp, edfxtp, sdf*, sedf* ...
  static const std::regex re(R"(__(s?e?df|dfb|dfr|dfs|dfx)\w*)");
  return std::regex_search(cell, re) || cell.find("$_DFF") != std::string::npos ||
         cell.find("$_SDFF") != std::string::npos;
}

std::string prim_of(const fs::path& f) {
  std::string stem = f.stem().string();
  return stem == "ram_sram" || stem == "ram_flop" ? stem : "";
}

}  // namespace

void parse_yosys_stat(const std::string& log_text, const std::string& top, FlowReport& r) {
  // Only the last statistics pass counts (stat -liberty at the end of the script).
  size_t start = log_text.rfind("Printing statistics.");
  if (start == std::string::npos) throw Error("", top, "no statistics in the yosys log");
  std::istringstream in(log_text.substr(start));
  static const std::regex header(R"(^=== (.+) ===\s*$)"), cells(R"(^\s+Number of cells:\s+(\d+))"),
      cell(R"(^\s+(\S+)\s+(\d+)\s*$)"), area(R"(^\s+Chip area for (top )?module '\\?(.+)': ([0-9.eE+-]+))");
  std::string line, current;
  std::smatch m;
  bool hierarchy = false;
  std::map<std::string, uint64_t> instances;  // module -> instances under the top (design hierarchy)
  r.modules.clear();
  r.total = {};
  while (std::getline(in, line)) {
    if (std::regex_search(line, m, header)) {
      current = m[1];
      hierarchy = current == "design hierarchy";
      if (!hierarchy) r.modules[current] = {};
      continue;
    }
    if (current.empty()) continue;
    CellStat& s = hierarchy ? r.total : r.modules[current];
    if (std::regex_search(line, m, cells)) {
      s.cells = std::stoull(m[1]);
    } else if (std::regex_search(line, m, area)) {
      s.area_um2 = std::stod(m[3]);
    } else if (std::regex_search(line, m, cell)) {
      if (hierarchy && s.cells == 0) instances[m[1]] += std::stoull(m[2]);  // the module list comes first
      else if (is_flop_cell(m[1])) s.flops += std::stoull(m[2]);
    }
  }
  if (!r.modules.count(top)) throw Error("", top, "no statistics for the top module in the yosys log");
  if (r.total.cells == 0) r.total = r.modules[top];  // a flat design prints no hierarchy block
  // Flop RAMs that were synthesised: their own modules ($paramod...\ram_flop).
  r.control = r.total;
  for (const auto& [name, st] : r.modules) {
    if (name.size() < 8 || name.compare(name.size() - 8, 8, "ram_flop") != 0) continue;
    uint64_t n = instances.count(name) ? instances[name] : 1;
    r.control.cells -= std::min(r.control.cells, st.cells * n);
    r.control.flops -= std::min(r.control.flops, st.flops * n);
    r.control.area_um2 -= st.area_um2 * double(n);
  }
}

void parse_netlist_rams(const std::string& dump_text, FlowReport& r) {
  // `dump t:ram_*` after hierarchy: "cell \ram_flop \u_ram" then "parameter signed \DEPTH 64" lines.
  std::istringstream in(dump_text);
  static const std::regex cell(R"(^\s*cell \\(ram_flop|ram_sram) \\(\S+))"),
      param(R"(^\s*parameter (?:signed )?\\(\w+) (\d+))");
  std::string line;
  std::smatch m;
  RamInstance* cur = nullptr;
  while (std::getline(in, line)) {
    if (std::regex_search(line, m, cell)) {
      r.rams.push_back({});
      cur = &r.rams.back();
      cur->primitive = m[1];
      cur->parent = m[2];  // the instance name (yosys' dump does not name the module)
    } else if (cur && std::regex_search(line, m, param)) {
      uint64_t v = std::stoull(m[2]);
      if (m[1] == "DEPTH") cur->depth = v;
      else if (m[1] == "WIDTH") cur->width = int(v);
      else if (m[1] == "NWR") cur->write_ports = int(v);
    } else if (line.find("end") != std::string::npos && line.find_first_not_of(" \t") == line.find("end")) {
      cur = nullptr;
    }
  }
}

TimingReport parse_sta_report(const std::string& text, double period_ns) {
  TimingReport t;
  t.ran = true;
  t.period_ns = period_ns;
  static const std::regex start(R"(Startpoint: (\S+))"), end(R"(Endpoint: (\S+))"),
      slack(R"(^\s*(-?[0-9.]+)\s+slack \((MET|VIOLATED)\))");
  std::istringstream in(text);
  std::string line;
  std::smatch m;
  while (std::getline(in, line)) {
    if (t.startpoint.empty() && std::regex_search(line, m, start)) t.startpoint = m[1];
    else if (t.endpoint.empty() && std::regex_search(line, m, end)) t.endpoint = m[1];
    else if (!t.constrained && std::regex_search(line, m, slack)) {
      t.constrained = true;
      t.worst_slack_ns = std::stod(m[1]);
    }
  }
  if (t.constrained) {
    t.path_ns = period_ns - t.worst_slack_ns;
    t.fmax_mhz = t.path_ns > 0 ? 1000.0 / t.path_ns : 0;
  }
  return t;
}

FlowReport run_synth_flow(const std::vector<fs::path>& files, const std::string& top, const fs::path& work,
                          const FlowOptions& o) {
  std::error_code ec;
  fs::create_directories(work, ec);
  if (ec) throw Error(work.string(), "", "cannot create directory: " + ec.message());
  FlowReport r;
  r.top = top;
  r.netlist = work / (top + ".mapped.v");
  r.yosys_log = work / (top + ".yosys.log");

  // abc's -constr file: the driving cell and output load it buffers and sizes for.
  const fs::path constr = work / (top + ".abc.constr");
  write_text(constr, fmt::format("set_driving_cell {}\nset_load {:g}\n", o.driving_cell, o.load_pf));
  const fs::path rams_dump = work / (top + ".rams.txt");  // yosys' tee cannot take a quoted path: relative to work
  const fs::path sta_netlist = work / (top + ".sta.v");

  std::string reads_bb, reads_all, reads_logic;
  for (const auto& f : files) {
    std::string prim = prim_of(f);
    bool bb = prim == "ram_sram" || (prim == "ram_flop" && o.flop_rams_as_macros);
    reads_bb += fmt::format("read_verilog -sv {}{}\n", prim.empty() ? "" : "-lib ", yq(f));
    reads_logic += fmt::format("read_verilog -sv {}{}\n", bb ? "-lib " : "", yq(f));
  }
  const long delay_ps = std::lround(o.period_ns * 1000.0);
  std::string script;
  // Pass 1: every RAM primitive as a black box, to list RAM instances with their parameters.
  script += reads_bb + fmt::format("hierarchy -check -top {}\ntee -q -o {} dump t:ram_flop t:ram_sram\ndesign -reset\n",
                                   top, rams_dump.filename().string());
  // Pass 2: the flow.
  script += reads_logic;
  script += fmt::format("hierarchy -check -top {}\nsynth -noabc -top {}\n", top, top);  // one abc run: the liberty one
  script += fmt::format("dfflibmap -liberty {}\n", yq(o.liberty));
  if (o.buffering) script += fmt::format("abc -D {} -constr {} -liberty {}\n", delay_ps, yq(constr), yq(o.liberty));
  else script += fmt::format("abc -D {} -liberty {}\n", delay_ps, yq(o.liberty));
  script += "opt_clean\n";
  script += fmt::format("stat -liberty {}\n", yq(o.liberty));
  script += fmt::format("write_verilog -noattr -noexpr -nohex -nodec {}\n", yq(r.netlist));
  // A netlist OpenSTA's reader accepts: no parameterised black-box instances
  // (the RAM macros' pins become timing boundaries, see docs/area.md), no
  // constants, no concatenations on the left of assigns, no wire-to-wire assigns.
  script += "delete t:ram_sram t:ram_flop\nsetundef -zero\nsplitnets -ports\n";
  script += "hilomap -singleton -hicell sky130_fd_sc_hd__conb_1 HI -locell sky130_fd_sc_hd__conb_1 LO\n";
  script += "insbuf -buf sky130_fd_sc_hd__buf_1 A X\nopt_clean -purge\n";
  script += fmt::format("write_verilog -noattr -noexpr -nohex -nodec {}\n", yq(sta_netlist));
  const fs::path ys = work / (top + ".ys");
  write_text(ys, script);

  auto y = run_process({o.yosys, "-q", "-l", fs::absolute(r.yosys_log).string(), "-s", fs::absolute(ys).string()},
                       work / (top + ".yosys.out"), "apt-get install yosys", work);
  r.synth_seconds = y.seconds;
  if (y.exit_code != 0) throw Error(r.yosys_log.string(), top, fmt::format("yosys failed (exit {}), see the log", y.exit_code));
  parse_yosys_stat(read_text(r.yosys_log), top, r);
  parse_netlist_rams(read_text(rams_dump), r);
  for (auto& ram : r.rams) {
    ram.synthesised = ram.primitive == "ram_flop" && !o.flop_rams_as_macros;
    if (!ram.synthesised) continue;
    // The derived flop RAM module with these parameters: match it by its flop count.
    for (const auto& [name, st] : r.modules)
      if (name.size() >= 8 && name.compare(name.size() - 8, 8, "ram_flop") == 0 &&
          st.flops == ram.depth * uint64_t(ram.width))
        ram.logic = st;
  }

  if (o.sdc.empty()) return r;
  const fs::path sdc = work / (top + ".sdc"), tcl = work / (top + ".sta.tcl");
  r.sta_log = work / (top + ".sta.log");
  write_text(sdc, o.sdc);
  write_text(tcl, fmt::format("read_liberty {}\nread_verilog {}\nlink_design {}\nread_sdc {}\n"
                              "report_checks -path_delay max -digits 3\nexit\n",
                              tq(o.liberty), tq(sta_netlist), top, tq(sdc)));
  auto s = run_process({o.sta, "-no_init", "-no_splash", "-exit", tcl.string()}, r.sta_log,
                       "apt-get install opensta");
  std::string text = read_text(r.sta_log);
  if (s.exit_code != 0 || text.find("Error:") != std::string::npos)
    throw Error(r.sta_log.string(), top, "OpenSTA failed, see the log");
  r.timing = parse_sta_report(text, o.period_ns);
  r.timing.seconds = s.seconds;
  return r;
}

}  // namespace cello::area
