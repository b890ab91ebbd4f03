// `cello bench score`: SCORE compile time for CG (10 iterations) and for a
// generated 10,000-op DAG, and a linearity check: time per (nodes + edges) over
// random DAGs of growing size (CELLO claims O(nodes + edges)).
#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "sw/cli/commands.hpp"
#include "sw/cli/options.hpp"
#include "sw/common/clock.hpp"
#include "sw/common/error.hpp"
#include "sw/ir/cello_format.hpp"
#include "sw/mtx/matrix_market.hpp"
#include "sw/score/compile.hpp"
#include "sw/workloads/random_dag.hpp"
#include "sw/workloads/workloads.hpp"

namespace cello::cli {

namespace {

struct Timing {
  size_t nodes = 0, edges = 0;
  double seconds = 0;  // CPU time, best of the repetitions
  double wall = 0;     // wall time of the same repetition
  uint64_t steps = 0;  // loop-order search steps (deterministic work count)
};

// Times score::compile alone (the program copy it consumes is made outside).
Timing time_compile(const ir::Program& p, int reps) {
  Timing t;
  t.seconds = 1e30;
  for (int r = 0; r < reps; ++r) {
    ir::Program copy = p;
    auto w0 = std::chrono::steady_clock::now();
    double c0 = thread_cpu_seconds();
    score::Schedule s = score::compile(std::move(copy));
    double cpu = thread_cpu_seconds() - c0;
    double wall = seconds_since(w0);
    if (cpu < t.seconds) t.seconds = cpu, t.wall = wall;
    t.nodes = s.program.ops.size();
    t.edges = s.dag.edges.size();
    t.steps = s.search_steps;
  }
  return t;
}

ir::Program random_program(int ops, uint64_t seed) {
  workloads::RandomDagParams rp;
  rp.ops = ops;
  rp.seed = seed;
  return ir::parse_cello(workloads::random_dag_text(rp), "<random>");
}

void run_bench(const std::string& matrix, const std::string& json_path) {
  nlohmann::json report = {{"command", "bench score"}};

  workloads::Params prm = workloads::default_params("cg");
  std::string mname = "hpcg 16^3";
  if (!matrix.empty()) {
    mtx::Csr m = mtx::read_matrix_market(matrix, true);
    prm.m = m.rows;
    prm.nnz = m.nnz();
    mname = matrix;
  }
  prm.iters = 10;
  auto t0 = std::chrono::steady_clock::now();
  ir::Program cg = workloads::make_workload("cg", prm);
  double build = seconds_since(t0);
  Timing tc = time_compile(cg, 20);
  fmt::print("SCORE compile time (CPU time, best of repeated runs)\n");
  fmt::print("  CG, 10 iterations ({}, N={}): {} ops, {} edges: {:.3f} ms (building the DAG from text: {:.3f} ms)\n",
             mname, prm.n, tc.nodes, tc.edges, tc.seconds * 1e3, build * 1e3);
  report["cg"] = {{"matrix", mname},  {"n", prm.n},         {"iters", 10},
                  {"ops", tc.nodes},   {"edges", tc.edges},  {"compile_cpu_seconds", tc.seconds},
                  {"compile_wall_seconds", tc.wall}, {"build_seconds", build}};

  Timing t10 = time_compile(random_program(10000, 1), 5);
  fmt::print("  generated DAG, 10000 ops: {} edges: {:.1f} ms\n", t10.edges, t10.seconds * 1e3);
  report["random_10000"] = {{"ops", t10.nodes},
                            {"edges", t10.edges},
                            {"compile_cpu_seconds", t10.seconds},
                            {"compile_wall_seconds", t10.wall}};

  fmt::print("linearity: random DAGs, per (nodes + edges): CPU time, and loop-order search steps\n");
  std::vector<double> lx, ly;
  nlohmann::json sizes = nlohmann::json::array();
  double lo = 1e30, hi = 0, slo = 1e30, shi = 0;
  for (int ops : {1250, 2500, 5000, 10000, 20000, 40000}) {
    Timing t = time_compile(random_program(ops, 7), ops <= 10000 ? 7 : 3);
    const double ne = static_cast<double>(t.nodes + t.edges);
    const double per = t.seconds / ne * 1e9, steps = static_cast<double>(t.steps) / ne;
    lo = std::min(lo, per), hi = std::max(hi, per);
    slo = std::min(slo, steps), shi = std::max(shi, steps);
    lx.push_back(std::log(ne));
    ly.push_back(std::log(t.seconds));
    fmt::print("  {:>6} ops {:>7} edges  {:>9.2f} ms  {:>7.1f} ns  {:>6.1f} steps\n", t.nodes, t.edges, t.seconds * 1e3,
               per, steps);
    std::fflush(stdout);
    sizes.push_back({{"ops", t.nodes},
                     {"edges", t.edges},
                     {"compile_cpu_seconds", t.seconds},
                     {"compile_wall_seconds", t.wall},
                     {"ns_per_element", per},
                     {"search_steps_per_element", steps}});
  }
  // Least-squares slope of log(time) against log(nodes + edges): 1 = linear, 2 = quadratic.
  const double n = static_cast<double>(lx.size());
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (size_t i = 0; i < lx.size(); ++i) sx += lx[i], sy += ly[i], sxx += lx[i] * lx[i], sxy += lx[i] * ly[i];
  const double slope = (n * sxy - sx * sy) / (n * sxx - sx * sx);
  // Work must be flat per element; time may drift up a little once the data
  // outgrows the caches (every pass shows it, even copying the program).
  const bool linear = shi <= 1.5 * slo && slope < 1.35;
  fmt::print("  time: log-log slope {:.2f} (1 = linear, 2 = quadratic), {:.0f} to {:.0f} ns per node+edge\n", slope, lo,
             hi);
  fmt::print("  work: {:.1f} to {:.1f} search steps per node+edge: {}\n", slo, shi, linear ? "linear" : "NOT linear");
  report["linearity"] = {{"sizes", sizes},
                         {"slope", slope},
                         {"steps_per_element_min", slo},
                         {"steps_per_element_max", shi},
                         {"linear", linear}};
  write_json_report(json_path, report);
}

void add_bench_score(CLI::App& bench) {
  auto* cmd = bench.add_subcommand("score", "SCORE compile time: CG 10 iterations, 10,000-op DAG, linearity");
  auto matrix = std::make_shared<std::string>();
  auto json = std::make_shared<std::string>();
  cmd->add_option("--matrix", *matrix, "Matrix Market file for the CG case (default: HPCG 16^3)");
  add_json_option(cmd, *json);
  cmd->callback([=] { run_bench(*matrix, *json); });
}

}  // namespace

CELLO_BENCH("score", add_bench_score);

}  // namespace cello::cli
