// `cello area --config hw.json`: cells, flops and sky130 area of every generated
// block (RAMs excluded), its RAMs priced by the SRAM model, and the worst path,
// slack and Fmax from OpenSTA. --sweep expands configs; --paper prints the
// papers' claims side by side. See docs/area.md.
#include <fmt/format.h>

#include <chrono>
#include <cstdio>

#include "sw/area/liberty.hpp"
#include "sw/area/sweep.hpp"
#include "sw/cli/area_eval.hpp"
#include "sw/cli/area_paper.hpp"
#include "sw/cli/commands.hpp"
#include "sw/cli/options.hpp"
#include "sw/cli/output_files.hpp"
#include "sw/common/clock.hpp"
#include "sw/common/error.hpp"
#include "sw/common/run_process.hpp"
#include "gen/config_reader.hpp"
#include "sw/plot/svg.hpp"
#include "sw/synth/yosys_run.hpp"

namespace cello::cli {

namespace {

namespace fs = std::filesystem;

struct AreaArgs {
  std::string config, liberty, out = "cello_area_out", json, csv, svg, yosys = "yosys", sta = "sta";
  double period = 0;
  std::vector<std::string> sweeps;
  bool paper = false, no_timing = false, no_buffering = false;
  uint64_t flop_limit = 16384;
  int chord_entries = 64;
};

void write_file(const std::string& path, const std::string& text) { write_output_file(path, text); }

double axis_x(const nlohmann::json& v, size_t i) { return v.is_number() ? v.get<double>() : double(i); }

// Two line charts (control area, Fmax) stacked in one SVG document.
std::string sweep_svg(const std::vector<area::SweepAxis>& axes, const std::vector<area::SweepPoint>& points,
                      const std::vector<std::vector<BlockArea>>& results) {
  plot::LineChart a, f;
  const std::string x = axes.front().name();
  a.title = "Control area against " + x;
  a.x_label = x;
  a.y_label = "control area (um2, RAMs excluded)";
  f.title = "Fmax against " + x;
  f.x_label = x;
  f.y_label = "Fmax (MHz)";
  bool numeric = true;
  for (const auto& v : axes.front().values) numeric = numeric && v.is_number() && v.get<double>() > 0;
  a.log_x = f.log_x = numeric;
  std::map<std::string, std::pair<plot::LineSeries, plot::LineSeries>> series;
  std::vector<std::string> order;
  for (size_t p = 0; p < points.size(); ++p) {
    size_t xi = 0;
    for (size_t k = 0; k < axes.front().values.size(); ++k)
      if (axes.front().values[k] == points[p].at.front()) xi = k;
    std::string rest;
    for (size_t i = 1; i < axes.size(); ++i) rest += " " + axes[i].name() + "=" + points[p].at[i].dump();
    for (const auto& b : results[p]) {
      std::string name = b.module + rest;
      if (!series.count(name)) order.push_back(name);
      auto& s = series[name];
      s.first.name = s.second.name = name;
      s.first.points.push_back({axis_x(points[p].at.front(), xi), b.flow.control.area_um2});
      if (b.flow.timing.constrained) s.second.points.push_back({axis_x(points[p].at.front(), xi), b.flow.timing.fmax_mhz});
    }
  }
  for (const auto& n : order) {
    a.series.push_back(series[n].first);
    if (!series[n].second.points.empty()) f.series.push_back(series[n].second);
  }
  std::string s1 = plot::line_chart_svg(a), s2 = f.series.empty() ? "" : plot::line_chart_svg(f);
  auto attr = [](const std::string& s, const std::string& name) {
    size_t at = s.find(name + "=\"");
    return at == std::string::npos ? 0.0 : std::stod(s.substr(at + name.size() + 2));
  };
  double w = std::max(attr(s1, "width"), attr(s2, "width")), h1 = attr(s1, "height"), h2 = attr(s2, "height");
  std::string out = fmt::format("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{:.0f}\" height=\"{:.0f}\">\n", w, h1 + h2);
  out += s1;
  if (!s2.empty()) out += "<svg y=\"" + fmt::format("{:.0f}", h1) + "\"" + s2.substr(s2.find("<svg") + 4);
  return out + "</svg>\n";
}

std::string csv_row(size_t point, const std::string& label, const BlockArea& b) {
  const auto& t = b.flow.timing;
  return fmt::format("{},\"{}\",{},{},{},{},{:.2f},{},\"{}\",{:.2f},{:.2f},{:.4f},{},{},{},{:.2f},{:.2f}\n", point,
                     label, b.module, b.kind, b.flow.control.cells, b.flow.control.flops, b.flow.control.area_um2,
                     b.flow.total.cells, b.ram, b.ram_um2, b.ram_macro_um2, b.control_to_ram(),
                     t.ran ? fmt::format("{:g}", t.period_ns) : "",
                     t.constrained ? fmt::format("{:.3f}", t.worst_slack_ns) : "",
                     t.constrained ? fmt::format("{:.1f}", t.fmax_mhz) : "", b.flow.synth_seconds, t.sta_seconds);
}

void run_area(const AreaArgs& a) {
  auto t0 = std::chrono::steady_clock::now();
  // Tools and liberty first, so a missing one fails before any work.
  synth::require_yosys(a.yosys);
  if (!a.no_timing && !program_available(a.sta))
    throw Error(a.sta, "", "not found on PATH (apt-get install opensta, or pass --no-timing)");
  std::vector<area::SweepAxis> axes;
  for (const auto& s : a.sweeps) axes.push_back(area::parse_sweep(s));
  nlohmann::json base = a.config.empty() ? gen::default_hw_config_json() : gen::parse_json_file(a.config);
  const std::string cfg_name = a.config.empty() ? "<default config>" : a.config;
  gen::parse_hw_config(base, cfg_name);  // reject a bad config before the liberty work
  auto points = area::expand_sweeps(base, axes);
  std::vector<gen::HwConfig> configs;
  for (const auto& p : points) configs.push_back(gen::parse_hw_config(p.config, axes.empty() ? cfg_name : "--sweep"));

  AreaOptions o;
  fs::path lib = area::find_liberty(a.liberty);
  o.liberty = area::unpacked_liberty(lib, fs::path(a.out) / "liberty");
  o.period_ns = a.period;
  o.timing = !a.no_timing;
  o.buffering = !a.no_buffering;
  o.flop_ram_limit_bits = a.flop_limit;
  o.yosys = a.yosys;
  o.sta = a.sta;
  auto progress = [](const std::string& line) {
    fmt::print("  {}\n", line);
    std::fflush(stdout);
  };

  nlohmann::json report = {{"command", "area"}, {"liberty", lib.string()}};
  if (a.paper) {
    fmt::print("cello area --paper: the papers' area claims next to sky130 (liberty {})\n", lib.string());
    PaperOptions po;
    po.chord_entries = a.chord_entries;
    report["paper"] = run_paper_table(o, po, fs::path(a.out) / "paper", progress, a.svg);
  } else {
    std::string csv =
        "point,label,module,kind,control_cells,control_flops,control_area_um2,total_cells,ram,ram_area_um2,"
        "ram_macro_area_um2,control_to_ram,period_ns,worst_slack_ns,fmax_mhz,synth_s,sta_s\n";
    std::vector<std::vector<BlockArea>> results;
    nlohmann::json jpoints = nlohmann::json::array();
    for (size_t i = 0; i < points.size(); ++i) {
      const auto& cfg = configs[i];
      double period = a.period > 0 ? a.period : cfg.clock_period_ns;
      fmt::print("cello area: {}{}, sky130 HD tt, period {:g} ns{}\n", cfg.name,
                 points.size() > 1 ? fmt::format(" [{}/{}] {}", i + 1, points.size(), points[i].label) : "", period,
                 o.timing ? "" : " (no timing)");
      std::fflush(stdout);
      fs::path work = fs::path(a.out) / (points.size() > 1 ? fmt::format("point{}", i) : std::string("design"));
      results.push_back(evaluate_config(cfg, work, o, progress));
      print_area_table(results.back());
      nlohmann::json blocks = nlohmann::json::array();
      for (const auto& b : results.back()) {
        blocks.push_back(b.to_json());
        csv += csv_row(i, points[i].label, b);
      }
      jpoints.push_back({{"label", points[i].label}, {"config", cfg.to_json()}, {"blocks", blocks}});
    }
    report["points"] = jpoints;
    if (!a.csv.empty()) write_file(a.csv, csv);
    if (!a.svg.empty()) {
      if (axes.empty()) throw Error("--svg", "", "the SVG plots a sweep: give --sweep KEY=v1,v2,... (or use --paper)");
      write_file(a.svg, sweep_svg(axes, points, results));
    }
  }
  double secs = seconds_since(t0);
  fmt::print("cello area: done in {:.1f} s\n", secs);
  report["seconds"] = secs;
  write_json_report(a.json, report);
}

void add_area(CLI::App& app) {
  auto* cmd = app.add_subcommand("area", "area (sky130 cells, SRAM model) and timing (OpenSTA) of every generated block");
  auto a = std::make_shared<AreaArgs>();
  cmd->add_option("--config", a->config, "hardware config (JSON); default: the embedded default")->check(CLI::ExistingFile);
  cmd->add_option("--liberty", a->liberty, "liberty file (.lib or .lib.gz); default: <data>/liberty/ ($CELLO_DATA or ../shared/data)");
  cmd->add_option("--period", a->period, "clock period in ns (default: the config's clock_period_ns, else 10)")
      ->check(CLI::Range(0.1, 1e6));
  cmd->add_option("--sweep", a->sweeps, "SECTION.KEY=v1,v2,... (repeatable; e.g. buffets.depth=64,256,1024)");
  cmd->add_flag("--paper", a->paper, "the papers' area claims side by side (Buffets Table 3, CELLO Fig. 15)");
  cmd->add_option("--chord-entries", a->chord_entries, "RIFF table entries of the --paper CHORD row")
      ->capture_default_str()->check(CLI::Range(2, 256));
  cmd->add_option("--out", a->out, "work directory (RTL, netlists, logs)")->capture_default_str();
  add_json_option(cmd, a->json);
  cmd->add_option("--csv", a->csv, "write one CSV row per block (and sweep point) here");
  cmd->add_option("--svg", a->svg, "write the sweep (or --paper) chart here");
  cmd->add_flag("--no-timing", a->no_timing, "skip OpenSTA");
  cmd->add_flag("--no-buffering", a->no_buffering, "map without abc's buffering and sizing (shows why the flow needs them)");
  cmd->add_option("--flop-ram-limit", a->flop_limit, "flop RAMs larger than this many bits are priced as SRAM macros instead of synthesised")
      ->capture_default_str();
  cmd->add_option("--yosys", a->yosys, "yosys executable")->capture_default_str();
  cmd->add_option("--sta", a->sta, "OpenSTA executable")->capture_default_str();
  cmd->callback([a] { run_area(*a); });
}

}  // namespace

CELLO_COMMAND("area", add_area);

}  // namespace cello::cli
