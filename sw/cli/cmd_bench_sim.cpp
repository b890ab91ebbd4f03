// `cello bench sim`: CG on the generated RTL (fv1, N = 8, 10 iterations by
// default) on the default top and, as the baseline measured in the same run, on
// the same design without CHORD (every tensor to DRAM, Flexagon-like). Prints
// simulated cycles against the roofline, the RTL's DRAM bytes against the
// executor's prediction for that top and CELLO's (= cello model CELLO), and
// simulation speed.
#include <fmt/core.h>

#include <chrono>
#include <filesystem>

#include "sw/cli/commands.hpp"
#include "sw/cli/options.hpp"
#include "sw/cli/output_files.hpp"
#include "sw/cli/top_sim.hpp"
#include "sw/common/clock.hpp"
#include "sw/common/error.hpp"
#include "gen/hw_config.hpp"
#include "sw/traffic/experiment.hpp"

namespace cello::cli {

namespace {

struct BenchSimArgs {
  std::string matrix, config, json, cache;
  int n = 8, iters = 10;
  uint64_t max_cycles = 20000000000ULL;
};

struct Figures {
  uint64_t cycles = 0, roofline = 0, bytes = 0, predicted = 0, cello = 0;
  double seconds = 0, wall = 0;
  bool pass = false;
};

Figures run_one(const BenchSimArgs& a, const std::string& config, const std::string& matrix) {
  SimOptions o;
  o.config = config;
  o.cache = a.cache;
  o.max_cycles = a.max_cycles;
  o.problem.workload = "cg";
  o.problem.matrix = matrix;
  o.problem.n = a.n;
  o.problem.iters = a.iters;
  const auto t0 = std::chrono::steady_clock::now();
  const SimRun r = run_sim(o);
  Figures f;
  f.wall = seconds_since(t0);
  const auto& j = r.report;
  f.pass = r.pass;
  f.cycles = j.value("cycles", uint64_t{0});
  f.seconds = j.value("seconds", 0.0);
  f.roofline = j.value("roofline_cycles", uint64_t{0});
  if (j.contains("dram_bytes")) {
    const auto& d = j["dram_bytes"];
    f.bytes = d["rtl_read"].get<uint64_t>() + d["rtl_written"].get<uint64_t>();
    f.predicted = d["executor_read"].get<uint64_t>() + d["executor_written"].get<uint64_t>();
    f.cello = d["cello_read"].get<uint64_t>() + d["cello_written"].get<uint64_t>();
  }
  return f;
}

// The DRAM bytes against the executor's prediction for that top and against
// `model`'s (CELLO's walk, = `cello model` CELLO, on the default top; the
// CHORD-less machine's, the same prediction, on the baseline).
nlohmann::json print_figures(const char* what, const char* model, const Figures& f) {
  auto over = [](uint64_t x, uint64_t y) { return static_cast<double>(x) / static_cast<double>(std::max<uint64_t>(1, y)); };
  const double roof = over(f.cycles, f.roofline);
  const double speed = static_cast<double>(f.cycles) / std::max(f.seconds, 1e-9);
  fmt::print("  {:<28} {:>14} cycles  {:>9.2f}x roofline (target <= 1.15x)  DRAM {:>12} B = {:>5.2f}x the executor's "
             "prediction for this top, {:>5.2f}x {:<10}  {:.3g} cycles/s, {:.1f} s wall (target < 120 s)  {}\n",
             what, f.cycles, roof, f.bytes, over(f.bytes, f.predicted), over(f.bytes, f.cello), model, speed, f.wall,
             f.pass ? "PASS" : "FAIL");
  return {{"cycles", f.cycles}, {"roofline_cycles", f.roofline}, {"cycles_over_roofline", roof},
          {"dram_bytes", f.bytes}, {"predicted_dram_bytes", f.predicted}, {"model_dram_bytes", f.cello},
          {"cycles_per_second", speed}, {"wall_seconds", f.wall}, {"pass", f.pass}};
}

void run_bench(const BenchSimArgs& a) {
  const std::string matrix = traffic::data_matrix(a.matrix, "fv1.mtx");
  // The baseline: the same design with the top's CHORD removed.
  nlohmann::json j = a.config.empty() ? gen::default_hw_config_json() : gen::parse_json_file(a.config);
  if (j.contains("top")) j["top"].erase("chord");
  const std::string cache = a.cache.empty() ? default_sim_cache() : a.cache;
  const std::string chordless = (std::filesystem::path(cache) / "bench-sim-chordless.json").string();
  write_output_file(chordless, j.dump(2) + "\n");

  const Figures cello = run_one(a, a.config, matrix);
  const Figures flex = run_one(a, chordless, matrix);
  fmt::print("cello bench sim: CG on {}, N={}, {} iteration{}\n", matrix, a.n, a.iters, a.iters == 1 ? "" : "s");
  nlohmann::json rep = {{"bench", "sim"}, {"matrix", matrix}, {"n", a.n}, {"iters", a.iters}};
  rep["cello"] = print_figures("default top (CHORD)", "CELLO's", cello);
  rep["chordless"] = print_figures("CHORD-less top (baseline)", "CHORD-less", flex);
  const double reduction = static_cast<double>(flex.bytes) / static_cast<double>(std::max<uint64_t>(1, cello.bytes));
  fmt::print("  DRAM bytes, CHORD-less / default top: {:.2f}x (the executor predicts {:.2f}x; CELLO's walk {:.2f}x)\n",
             reduction, static_cast<double>(flex.predicted) / static_cast<double>(std::max<uint64_t>(1, cello.predicted)),
             static_cast<double>(flex.predicted) / static_cast<double>(std::max<uint64_t>(1, cello.cello)));
  rep["traffic_reduction"] = reduction;
  write_json_report(a.json, rep);
  if (!cello.pass || !flex.pass) throw CLI::RuntimeError(1);
}

void add_bench_sim(CLI::App& bench) {
  auto* cmd = bench.add_subcommand("sim", "CG on the generated RTL: cycles vs roofline, DRAM bytes, simulation speed");
  auto a = std::make_shared<BenchSimArgs>();
  cmd->add_option("--matrix", a->matrix, "Matrix Market file (default: fv1 from the data folder)");
  cmd->add_option("--config", a->config, "hardware config (default: the embedded default design)");
  cmd->add_option("--n", a->n, "block width")->capture_default_str()->check(CLI::Range(1, 64));
  add_sim_bench_options(cmd, a->iters, a->max_cycles, a->cache, a->json);
  cmd->callback([a] { run_bench(*a); });
}

}  // namespace

CELLO_BENCH("sim", add_bench_sim);

}  // namespace cello::cli
