#include "sw/traffic/report.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <functional>
#include <utility>

#include "sw/plot/svg.hpp"

namespace cello::traffic {

namespace {

const char* kClassNames[] = {"seq", "pipe", "hold", "wb", "mcast"};

std::string mb(uint64_t bytes) { return fmt::format("{:.3f}", static_cast<double>(bytes) / 1e6); }

std::string detail(const ConfigResult& c) {
  const Traffic& t = c.traffic;
  if (t.cache_accesses)
    return fmt::format("{:.1f}% hits of {} line accesses", 100.0 * static_cast<double>(t.cache_hits) /
                                                              static_cast<double>(t.cache_accesses),
                       t.cache_accesses);
  if (t.chord.accesses)
    return fmt::format("CHORD {} accesses, {} read hits, {} spills, {} evicted{}", t.chord.accesses,
                       t.chord.read_hits, t.chord.spills, t.chord.evicted_words,
                       t.chord.bypass_tensors ? fmt::format(", {} tensors bypassed", t.chord.bypass_tensors) : "");
  return "";
}

// Tensor t's DRAM bytes in one run: read, write.
std::pair<uint64_t, uint64_t> tensor_bytes(const Traffic& x, size_t t) {
  return {t < x.tensor_read_bytes.size() ? x.tensor_read_bytes[t] : 0,
          t < x.tensor_write_bytes.size() ? x.tensor_write_bytes[t] : 0};
}

// The name and bytes of the traffic no tensor is charged with: the caches'
// write-backs (a written-back line is not traced to the tensor that dirtied it).
constexpr const char* kUnattributed = "(write-backs)";
uint64_t unattributed_bytes(const Traffic& t) {
  uint64_t sum = 0;
  for (uint64_t x : t.tensor_read_bytes) sum += x;
  for (uint64_t x : t.tensor_write_bytes) sum += x;
  return t.total_bytes() > sum ? t.total_bytes() - sum : 0;
}

}  // namespace

std::string table_text(const StudyResult& r) {
  std::string s;
  for (const auto& pr : r.problems) {
    const auto& p = pr.problem;
    s += fmt::format("\n== {}{} ==\n", p.label(), p.dataset.proxy ? "  [PROXY: generated stand-in]" : "");
    if (pr.rows) s += fmt::format("   matrix {} rows, {} nnz ({})\n", pr.rows, pr.nnz, p.dataset.source);
    s += fmt::format("   {} MACs, {} B words, bound (compulsory) {} MB, SCORE edges:", pr.macs, p.word_bytes,
                     mb(pr.bound_bytes));
    for (size_t i = 0; i < pr.edge_class_counts.size() && i < 5; ++i)
      s += fmt::format(" {} {}", kClassNames[i], pr.edge_class_counts[i]);
    s += "\n";
    s += fmt::format("   {:<14} {:>11} {:>10} {:>10} {:>8}", "config", "DRAM MB", "read MB", "write MB", "x bound");
    for (double bw : r.bandwidths_gbs) s += fmt::format(" {:>9}", fmt::format("spd@{:g}", bw));
    s += fmt::format(" {:>8}  {}\n", "energy", "detail");
    for (const auto& c : pr.configs) {
      s += fmt::format("   {:<14} {:>11} {:>10} {:>10} {:>8.2f}", c.name, mb(c.traffic.total_bytes()),
                       mb(c.traffic.read_bytes), mb(c.traffic.write_bytes),
                       pr.bound_bytes ? static_cast<double>(c.traffic.total_bytes()) / static_cast<double>(pr.bound_bytes)
                                      : 0.0);
      for (double x : c.speedup) s += fmt::format(" {:>8.2f}x", x);
      s += fmt::format(" {:>8.3f}  {}\n", c.energy_rel, detail(c));
    }
    const ConfigResult* opt = pr.find(to_string(MemorySystem::OPT));
    const ConfigResult* cel = pr.find(to_string(MemorySystem::CELLO));
    if (opt && cel && opt->traffic.total_bytes())
      s += fmt::format("   CELLO / OPT = {:.3f} (OPT: Belady MIN with bypass on CHORD's trace at the same capacity)\n",
                       static_cast<double>(cel->traffic.total_bytes()) / static_cast<double>(opt->traffic.total_bytes()));
  }
  return s;
}

std::string tensor_table_text(const StudyResult& r) {
  std::string s;
  for (const auto& pr : r.problems) {
    auto bytes = [](const ConfigResult& c, size_t t) {
      const auto [rd, wr] = tensor_bytes(c.traffic, t);
      return rd + wr;
    };
    std::vector<std::pair<uint64_t, size_t>> rows;  // (largest over the configurations, tensor)
    for (size_t t = 0; t < pr.tensor_names.size(); ++t) {
      uint64_t most = 0;
      for (const auto& c : pr.configs) most = std::max(most, bytes(c, t));
      if (most) rows.push_back({most, t});
    }
    std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    s += fmt::format("\n== {}: DRAM kB per tensor (read + write) ==\n   {:<14}", pr.problem.label(), "tensor");
    for (const auto& c : pr.configs) s += fmt::format(" {:>13}", c.name);
    s += "\n";
    for (const auto& [most, t] : rows) {
      s += fmt::format("   {:<14}", pr.tensor_names[t]);
      for (const auto& c : pr.configs) s += fmt::format(" {:>13.1f}", static_cast<double>(bytes(c, t)) / 1e3);
      s += "\n";
    }
    bool rest = false;
    for (const auto& c : pr.configs) rest = rest || unattributed_bytes(c.traffic);
    if (rest) {
      s += fmt::format("   {:<14}", kUnattributed);
      for (const auto& c : pr.configs) s += fmt::format(" {:>13.1f}", static_cast<double>(unattributed_bytes(c.traffic)) / 1e3);
      s += "\n";
    }
  }
  return s;
}

std::string summary_text(const StudyResult& r) {
  std::string s = "\nCELLO vs Flexagon-like (geomean over the problems above";
  s += r.bandwidths_gbs.size() > 1 ? " and both bandwidths)\n" : ")\n";
  s += fmt::format("  speedup            {:.2f}x        paper: {:.0f}x\n", r.geomean_speedup, kPaperSpeedup);
  if (r.speedup_by_workload.size() > 1)
    for (const auto& [wl, x] : r.speedup_by_workload) s += fmt::format("  speedup {:<10} {:.2f}x\n", wl, x);
  for (const auto& [wl, e] : r.energy_by_workload)
    s += fmt::format("  energy {:<10}  {:.3f} -> {:.0f}% reduction   paper: {:.0f}-{:.0f}% per workload\n", wl, e,
                     100.0 * (1 - e), 100 * kPaperEnergyReductionLo, 100 * kPaperEnergyReductionHi);
  s += fmt::format("  energy overall      {:.3f} -> {:.0f}% reduction ({:.2f}x)\n", r.geomean_energy_ratio,
                   100.0 * (1 - r.geomean_energy_ratio), r.geomean_energy_ratio > 0 ? 1 / r.geomean_energy_ratio : 0);
  bool proxy = false;
  for (const auto& pr : r.problems) proxy = proxy || pr.problem.dataset.proxy;
  if (proxy) s += "  (problems marked PROXY use generated matrices with the published rows and nnz)\n";
  return s;
}

nlohmann::json to_json(const Study& st, const StudyResult& r) {
  nlohmann::json j;
  j["command"] = "model";
  j["machine"] = {{"mac_units", st.machine.mac_units},
                  {"clock_hz", st.machine.clock_hz},
                  {"bandwidths_gbs", r.bandwidths_gbs},
                  {"dram_pj_per_bit", st.machine.dram_pj_per_bit},
                  {"sram_bytes", st.params.sram_bytes},
                  {"line_bytes", st.params.line_bytes},
                  {"ways", st.params.ways},
                  {"chord_entries", st.params.chord_entries},
                  {"chord_extents", st.params.chord_extents},
                  {"chord_policy", st.params.chord_policy()}};
  j["seconds"] = r.seconds;
  j["setup_seconds"] = r.setup_seconds;
  j["geomean"] = {{"cello_speedup", r.geomean_speedup},
                  {"cello_energy_ratio", r.geomean_energy_ratio},
                  {"paper_speedup", kPaperSpeedup},
                  {"paper_energy_reduction", {kPaperEnergyReductionLo, kPaperEnergyReductionHi}}};
  for (const auto& [wl, e] : r.energy_by_workload) j["geomean"]["energy_ratio_by_workload"][wl] = e;
  for (const auto& [wl, x] : r.speedup_by_workload) j["geomean"]["speedup_by_workload"][wl] = x;
  for (const auto& pr : r.problems) {
    nlohmann::json p;
    p["label"] = pr.problem.label();
    p["workload"] = pr.problem.workload;
    p["dataset"] = pr.problem.dataset.name;
    p["source"] = pr.problem.dataset.source;
    p["proxy"] = pr.problem.dataset.proxy;
    p["n"] = pr.problem.n;
    p["iterations"] = pr.problem.iters;
    p["word_bytes"] = pr.problem.word_bytes;
    p["rows"] = pr.rows;
    p["nnz"] = pr.nnz;
    p["macs"] = pr.macs;
    p["bound_bytes"] = pr.bound_bytes;
    p["compile_seconds"] = pr.compile_seconds;
    p["score_edge_classes"] = pr.edge_class_counts;
    for (const auto& c : pr.configs) {
      nlohmann::json x;
      x["config"] = c.name;
      x["sram_bytes"] = c.traffic.sram_bytes;
      x["dram_bytes"] = c.traffic.total_bytes();
      x["read_bytes"] = c.traffic.read_bytes;
      x["write_bytes"] = c.traffic.write_bytes;
      x["energy_j"] = c.perf.empty() ? 0.0 : c.perf[0].energy_j;
      x["energy_rel"] = c.energy_rel;
      x["seconds"] = c.traffic.seconds;
      x["cpu_seconds"] = c.traffic.cpu_seconds;
      for (size_t b = 0; b < c.perf.size(); ++b)
        x["bandwidth"].push_back({{"gbs", r.bandwidths_gbs[b]},
                                  {"time_s", c.perf[b].time_s},
                                  {"macs_per_s", c.perf[b].macs_per_s},
                                  {"memory_bound", c.perf[b].memory_bound},
                                  {"speedup", c.speedup[b]}});
      if (c.traffic.cache_accesses) {
        x["cache_accesses"] = c.traffic.cache_accesses;
        x["cache_hits"] = c.traffic.cache_hits;
      }
      if (c.traffic.chord.accesses) {
        x["chord"] = c.traffic.chord;
      }
      for (size_t t = 0; t < pr.tensor_names.size(); ++t)
        if (const auto [rd, wr] = tensor_bytes(c.traffic, t); rd || wr)
          x["tensors"][pr.tensor_names[t]] = {{"read_bytes", rd}, {"write_bytes", wr}};
      if (const uint64_t rest = unattributed_bytes(c.traffic))
        x["tensors"][kUnattributed] = {{"read_bytes", 0}, {"write_bytes", rest}};
      p["configs"].push_back(x);
    }
    j["problems"].push_back(p);
  }
  return j;
}

std::string to_csv(const StudyResult& r) {
  std::string s =
      "problem,workload,dataset,proxy,n,config,sram_bytes,dram_bytes,read_bytes,write_bytes,bandwidth_gbs,time_s,"
      "macs_per_s,speedup_vs_flexagon,energy_j,energy_rel\n";
  for (const auto& pr : r.problems)
    for (const auto& c : pr.configs)
      for (size_t b = 0; b < c.perf.size(); ++b)
        s += fmt::format("\"{}\",{},\"{}\",{},{},{},{},{},{},{},{:g},{:.6g},{:.6g},{:.6g},{:.6g},{:.6g}\n",
                         pr.problem.label(), pr.problem.workload, pr.problem.dataset.name,
                         pr.problem.dataset.proxy ? 1 : 0, pr.problem.n, c.name, c.traffic.sram_bytes,
                         c.traffic.total_bytes(), c.traffic.read_bytes, c.traffic.write_bytes, r.bandwidths_gbs[b],
                         c.perf[b].time_s, c.perf[b].macs_per_s, c.speedup[b], c.perf[b].energy_j, c.energy_rel);
  return s;
}

std::string to_svg(const StudyResult& r, const std::string& title) {
  std::vector<plot::BarPanel> panels;
  std::vector<std::string> groups, series;
  for (const auto& pr : r.problems) groups.push_back(pr.problem.label() + (pr.problem.dataset.proxy ? " (proxy)" : ""));
  if (!r.problems.empty())
    for (const auto& c : r.problems.front().configs) series.push_back(c.name);
  // One panel of the configurations' value relative to Flexagon-like (the
  // dashed line at 1) per problem, on a log scale; 0 where a problem lacks a
  // configuration.
  auto relative_panel = [&](const std::string& panel_title, const std::string& y_label,
                            const std::function<double(const ConfigResult&)>& f) {
    plot::BarPanel p;
    p.title = panel_title;
    p.y_label = y_label;
    p.log_y = true;
    p.reference = 1;
    p.groups = groups;
    p.series = series;
    for (const auto& pr : r.problems) {
      std::vector<double> row;
      for (const auto& s : series) {
        const ConfigResult* c = pr.find(s);
        row.push_back(c ? f(*c) : 0.0);
      }
      p.values.push_back(row);
    }
    return p;
  };
  for (size_t b = 0; b < r.bandwidths_gbs.size(); ++b)
    panels.push_back(relative_panel(
        fmt::format("Speedup over Flexagon-like at {:g} GB/s (roofline; higher is better)", r.bandwidths_gbs[b]),
        "speedup", [b](const ConfigResult& c) { return c.speedup[b]; }));
  panels.push_back(relative_panel("Off-chip energy relative to Flexagon-like (lower is better)", "relative energy",
                                  [](const ConfigResult& c) { return c.energy_rel; }));
  return plot::bar_chart_svg(title, panels);
}

}  // namespace cello::traffic
