#include "sw/synth/synth_flow.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <regex>
#include <sstream>

#include "sw/common/error.hpp"
#include "sw/common/output_file.hpp"
#include "sw/common/run_process.hpp"
#include "sw/synth/yosys_run.hpp"

namespace cello::synth {

namespace fs = std::filesystem;

namespace {

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write_text(const fs::path& p, const std::string& text) { write_output(p.string(), text); }

// A path as one Yosys script argument.
std::string yq(const fs::path& p) { return yosys_quote(fs::absolute(p).lexically_normal().string()); }
// A path as one Tcl word (OpenSTA).
std::string tq(const fs::path& p) {
  std::string s = fs::absolute(p).lexically_normal().string();
  if (s.find_first_of("{}\\") != std::string::npos)
    throw Error(s, "", "paths with braces or backslashes are not supported by the OpenSTA script");
  return "{" + s + "}";
}

std::string prim_of(const fs::path& f) {
  std::string stem = f.stem().string();
  return stem == "ram_sram" || stem == "ram_flop" ? stem : "";
}

bool is_flop_ram_module(const std::string& name) {
  return name.size() >= 8 && name.compare(name.size() - 8, 8, "ram_flop") == 0;
}

}  // namespace

void parse_yosys_stat(const std::string& log_text, const std::string& top, FlowReport& r, const std::string& log_name) {
  SynthStat st = parse_stat_log(log_text, top, log_name);
  r.modules = st.modules;
  r.total = st.total;
  // Flop RAMs that were synthesised: their own modules ($paramod...\ram_flop).
  r.control = r.total;
  for (const auto& [name, m] : r.modules) {
    if (!is_flop_ram_module(name)) continue;
    uint64_t n = st.instances.count(name) ? st.instances[name] : 1;
    r.control.cells -= std::min(r.control.cells, m.cells * n);
    r.control.flops -= std::min(r.control.flops, m.flops * n);
    r.control.area_um2 -= m.area_um2 * double(n);
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
    t.critical_path_ns = period_ns - t.worst_slack_ns;
    t.fmax_mhz = t.critical_path_ns > 0 ? 1000.0 / t.critical_path_ns : 0;
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

  std::string reads_bb, reads_logic;
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
  auto y = run_yosys({script, work / (top + ".ys"), r.yosys_log, top, o.yosys, work});
  r.synth_seconds = y.seconds;
  parse_yosys_stat(y.log, top, r, r.yosys_log.string());
  parse_netlist_rams(read_text(rams_dump), r);
  for (auto& ram : r.rams) {
    ram.synthesised = ram.primitive == "ram_flop" && !o.flop_rams_as_macros;
    if (!ram.synthesised) continue;
    // The derived flop RAM module with these parameters: match it by its flop count.
    for (const auto& [name, st] : r.modules)
      if (is_flop_ram_module(name) && st.flops == ram.depth * uint64_t(ram.width))
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
  r.timing.sta_seconds = s.seconds;
  return r;
}

}  // namespace cello::synth
