#include "sw/cli/sweep_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>

#include "gen/hw_config.hpp"
#include "gen/top/top_config.hpp"
#include "sw/cli/sweep_point.hpp"
#include "sw/common/output_file.hpp"
#include "sw/common/read_file.hpp"
#include "sw/plot/svg.hpp"
#include "sw/traffic/models.hpp"

namespace cello::cli::sweep {

namespace fs = std::filesystem;
using nlohmann::json;
using ojson = nlohmann::ordered_json;

namespace {

const std::vector<std::string> kChordCounters = {"read_hits", "read_misses", "write_hits", "spills", "evicted_words",
                                                 "bypass_tensors"};

// The last line of a point's log that is not empty: why a point without a report stopped.
std::string last_log_line(const std::string& dir, const Point& p) {
  std::ifstream in(fs::path(point_dir(dir, p.id)) / "log.txt");
  if (!in) return "not run";
  std::string line, last;
  while (std::getline(in, line))
    if (line.find_first_not_of(" \t\r") != std::string::npos) last = line;
  return last.empty() ? "no report, and an empty log.txt" : "no report; log.txt ends: " + last;
}

const json* tool(const json& r, const char* name) { return r.contains(name) && r[name].is_object() ? &r[name] : nullptr; }

// One table row: the sweep's columns, null where a tool did not run or did not say.
ojson make_row(const Sweep& s, const Point& p, const json& r, const std::string& dir) {
  ojson row;
  row["id"] = p.id;
  row["label"] = p.label;
  for (const auto& a : s.axes) row[a.key] = p.at.at(a.key);
  row["workload"] = p.workload.at("label");
  row["seed"] = p.seed;
  row["status"] = r.is_null() ? "MISSING" : r.value("status", "FAIL");
  const json* ex = r.is_null() ? nullptr : tool(r, "exec");
  const json* sim = r.is_null() ? nullptr : tool(r, "sim");
  const json* ar = r.is_null() ? nullptr : tool(r, "area");
  const json* mo = r.is_null() ? nullptr : tool(r, "model");
  const json* meas = sim && sim->contains("read_bytes") ? sim : ex;  // the RTL's figures when it ran
  auto get = [](const json* j, const char* k) { return j && j->contains(k) ? json((*j)[k]) : json(nullptr); };
  row["cycles"] = sim ? get(sim, "cycles") : get(ex, "cycles");
  row["exec_cycles"] = get(ex, "cycles");
  row["sim_cycles"] = get(sim, "cycles");
  row["roofline_cycles"] = get(ex, "roofline_cycles");
  row["macs"] = get(ex, "macs");
  const json fmax = get(ar, "fmax_mhz");
  row["time_us"] = row["cycles"].is_number() && fmax.is_number() && fmax.get<double>() > 0
                       ? json(row["cycles"].get<double>() / fmax.get<double>())
                       : json(nullptr);
  row["dram_read_bytes"] = get(meas, "read_bytes");
  row["dram_write_bytes"] = get(meas, "write_bytes");
  row["dram_bytes"] = row["dram_read_bytes"].is_number() && row["dram_write_bytes"].is_number()
                          ? json(row["dram_read_bytes"].get<uint64_t>() + row["dram_write_bytes"].get<uint64_t>())
                          : json(nullptr);
  const arch::Arch arch = gen::arch_of(gen::parse_hw_config(p.config, "config"), "config");
  row["chord_bytes"] = arch.has_chord() ? arch.chord_bytes : 0;
  const json* chord = meas && meas->contains("chord") && (*meas)["chord"].is_object() ? &(*meas)["chord"] : nullptr;
  for (const auto& c : kChordCounters) row["chord_" + c] = get(chord, c.c_str());
  for (auto sys : traffic::all_systems()) {
    const std::string k = traffic::key(sys);
    const json* m = mo && mo->contains("systems") && (*mo)["systems"].contains(k) ? &(*mo)["systems"][k] : nullptr;
    row["model_" + k + "_bytes"] =
        m ? json((*m).value("read_bytes", uint64_t{0}) + (*m).value("write_bytes", uint64_t{0})) : json(nullptr);
  }
  row["area_um2"] = get(ar, "area_um2");
  row["fmax_mhz"] = fmax;
  row["error"] = r.is_null() ? json(last_log_line(dir, p)) : get(&r, "error");
  return row;
}

std::string csv_cell(const ojson& v) {
  if (v.is_null()) return "";
  std::string s = v.is_string() ? v.get<std::string>() : v.dump();
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

bool all_numeric(const std::vector<json>& vs) {
  return std::all_of(vs.begin(), vs.end(), [](const json& v) { return v.is_number(); });
}

bool log_scale(const std::vector<double>& xs) {
  if (xs.empty()) return false;
  const auto [lo, hi] = std::minmax_element(xs.begin(), xs.end());
  return *lo > 0 && *hi / *lo >= 8;
}

// The series a row belongs to: its workload, seed and every varied key but `skip`.
std::string series_of(const Sweep& s, const ojson& row, const std::function<bool(const std::string&)>& skip) {
  std::string name = row["workload"].get<std::string>() + fmt::format(" seed {}", row["seed"].get<uint64_t>());
  for (const auto& a : s.axes)
    if (!skip(a.key)) name += " " + a.key + "=" + value_text(row[a.key]);
  return name;
}

std::string file_key(const std::string& key) {
  std::string out;
  for (char c : key) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return out;
}

// Line series of `y` against `x`, one per series name, points in x order.
std::vector<plot::LineSeries> series(const std::vector<std::pair<std::string, plot::XY>>& pts) {
  std::vector<plot::LineSeries> out;
  std::map<std::string, size_t> at;
  for (const auto& [name, xy] : pts) {
    if (!at.count(name)) {
      at[name] = out.size();
      out.push_back({name, {}});
      out.back().markers = true;
    }
    out[at[name]].points.push_back(xy);
  }
  for (auto& s : out)
    std::stable_sort(s.points.begin(), s.points.end(), [](const plot::XY& a, const plot::XY& b) { return a.x < b.x; });
  return out;
}

bool passed(const ojson& row) { return row["status"] == "PASS"; }

// Cycles (or time, where every passing point knows its Fmax) against each varied key.
void axis_plots(const Sweep& s, const std::vector<ojson>& rows, const fs::path& plots, ReportSummary& out) {
  bool time = false, any = false;
  for (const auto& r : rows)
    if (passed(r) && r["cycles"].is_number()) {
      time = any ? time && r["time_us"].is_number() : r["time_us"].is_number();
      any = true;
    }
  if (!any) return;
  for (const auto& a : s.axes) {
    const bool numeric = all_numeric(a.values);
    std::vector<std::pair<std::string, plot::XY>> pts;
    std::vector<double> xs;
    for (const auto& r : rows) {
      if (!passed(r) || !r["cycles"].is_number()) continue;
      double x = 0;
      if (numeric) x = r[a.key].get<double>();
      else
        for (size_t i = 0; i < a.values.size(); ++i)
          if (json(r[a.key]) == a.values[i]) x = static_cast<double>(i);
      xs.push_back(x);
      pts.push_back({series_of(s, r, [&](const std::string& k) { return k == a.key; }),
                     {x, time ? r["time_us"].get<double>() : r["cycles"].get<double>()}});
    }
    plot::LineChart c;
    c.title = fmt::format("{} against {}", time ? "Time to solution" : "Cycles", a.key);
    c.x_label = a.key;
    if (!numeric) {
      c.x_label += " (value number:";
      for (size_t i = 0; i < a.values.size(); ++i) c.x_label += fmt::format(" {}={}", i, value_text(a.values[i]));
      c.x_label += ")";
    }
    c.y_label = time ? "time at Fmax (us)" : "cycles";
    c.log_x = numeric && log_scale(xs);
    c.series = series(pts);
    const fs::path f = plots / ((time ? "time_vs_" : "cycles_vs_") + file_key(a.key) + ".svg");
    write_output(f.string(), plot::line_chart_svg(c));
    out.files.push_back(f.string());
  }
}

// DRAM bytes against the CHORD capacity, one line per workload, seed and value
// of every varied key outside the chords section.
void capacity_plot(const Sweep& s, const std::vector<ojson>& rows, const fs::path& plots, ReportSummary& out) {
  std::vector<std::pair<std::string, plot::XY>> pts;
  std::vector<double> xs;
  for (const auto& r : rows) {
    if (!passed(r) || !r["dram_bytes"].is_number() || r["chord_bytes"].get<uint64_t>() == 0) continue;
    const double x = r["chord_bytes"].get<double>() / 1024;
    xs.push_back(x);
    pts.push_back({series_of(s, r, [](const std::string& k) { return k.rfind("chords.", 0) == 0; }),
                   {x, r["dram_bytes"].get<double>() / 1e6}});
  }
  if (pts.empty()) return;
  plot::LineChart c;
  c.title = "DRAM traffic against CHORD capacity";
  c.x_label = "CHORD capacity (KiB)";
  c.y_label = "DRAM bytes (MB, read + written)";
  c.log_x = log_scale(xs);
  c.series = series(pts);
  const fs::path f = plots / "dram_vs_chord_capacity.svg";
  write_output(f.string(), plot::line_chart_svg(c));
  out.files.push_back(f.string());
}

// Area against time to solution, with the Pareto front (no other point is both
// smaller and faster).
void pareto_plot(const std::vector<ojson>& rows, const fs::path& plots, ReportSummary& out) {
  std::vector<plot::XY> all;
  for (const auto& r : rows)
    if (passed(r) && r["area_um2"].is_number() && r["time_us"].is_number())
      all.push_back({r["area_um2"].get<double>() / 1e6, r["time_us"].get<double>()});
  if (all.empty()) return;
  std::vector<plot::XY> sorted = all, front;
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const plot::XY& a, const plot::XY& b) { return a.x < b.x || (a.x == b.x && a.y < b.y); });
  for (const auto& p : sorted)
    if (front.empty() || p.y < front.back().y) front.push_back(p);
  plot::LineChart c;
  c.title = "Area against time to solution";
  c.x_label = "area of the top (mm2, logic + RAMs)";
  c.y_label = "time to solution at Fmax (us)";
  plot::LineSeries pts{"points", all, false, true}, line{"Pareto front", front, true, true};
  c.series = {pts, line};
  const fs::path f = plots / "pareto_area_time.svg";
  write_output(f.string(), plot::line_chart_svg(c));
  out.files.push_back(f.string());
}

}  // namespace

ReportSummary write_report(const Sweep& s, const std::string& dir) {
  ReportSummary sum;
  std::vector<ojson> rows;
  std::string timings = "id,label,status";
  for (const auto& t : tool_names()) timings += "," + t + "_s";
  timings += ",total_s\n";
  for (const auto& p : s.points) {
    const json r = complete_report(dir, p);
    rows.push_back(make_row(s, p, r, dir));
    const std::string st = rows.back()["status"];
    ++sum.points;
    if (st == "PASS") ++sum.passed;
    else if (st == "MISSING") ++sum.missing;
    else ++sum.failed;
    timings += csv_cell(p.id) + "," + csv_cell(p.label) + "," + st;
    const json wall = r.is_null() ? json::object() : r.value("wall_seconds", json::object());
    for (const auto& t : tool_names()) timings += wall.contains(t) ? fmt::format(",{:.3f}", wall[t].get<double>()) : ",";
    timings += wall.contains("total") ? fmt::format(",{:.3f}\n", wall["total"].get<double>()) : ",\n";
  }
  std::string csv;
  if (!rows.empty()) {
    bool first = true;
    for (const auto& [k, v] : rows.front().items()) {
      csv += (first ? "" : ",") + csv_cell(k);
      first = false;
    }
    csv += "\n";
  }
  ojson table = ojson::array();
  for (const auto& r : rows) {
    bool first = true;
    for (const auto& [k, v] : r.items()) {
      csv += (first ? "" : ",") + csv_cell(v);
      first = false;
    }
    csv += "\n";
    table.push_back(r);
  }
  ojson rep;
  rep["sweep"] = s.name;
  rep["tool_version"] = kToolVersion;
  rep["points"] = sum.points;
  rep["passed"] = sum.passed;
  rep["failed"] = sum.failed;
  rep["missing"] = sum.missing;
  rep["table"] = table;
  const fs::path d(dir);
  write_output((d / "report.csv").string(), csv);
  write_output((d / "report.json").string(), rep.dump(2) + "\n");
  write_output((d / "timings.csv").string(), timings);
  sum.files = {(d / "report.csv").string(), (d / "report.json").string(), (d / "timings.csv").string()};
  const fs::path plots = d / "plots";
  axis_plots(s, rows, plots, sum);
  capacity_plot(s, rows, plots, sum);
  pareto_plot(rows, plots, sum);
  for (const auto& r : rows)
    if (!passed(r))
      fmt::print("  {} {} {}: {}\n", r["status"].get<std::string>(), r["id"].get<std::string>(),
                 r["label"].get<std::string>(), r["error"].is_string() ? r["error"].get<std::string>() : "");
  return sum;
}

}  // namespace cello::cli::sweep
