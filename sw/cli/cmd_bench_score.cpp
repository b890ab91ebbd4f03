// `cello bench score`: SCORE compile time for CG (10 iterations) and for a
// generated 10,000-op DAG, and a linearity check: time per (nodes + edges) over
// random DAGs of growing size (CELLO claims O(nodes + edges)).
#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "cli/commands.hpp"
#include "common/error.hpp"
#include "ir/cello_format.hpp"
#include "mtx/hpcg.hpp"
#include "mtx/matrix_market.hpp"
#include "score/compile.hpp"
#include "workloads/random_dag.hpp"
#include "workloads/workloads.hpp"

namespace cello::cli {

namespace {

struct Timing {
  size_t nodes = 0, edges = 0;
  double seconds = 0;  // best of the repetitions
};

Timing time_compile(const ir::Program& p, int reps) {
  Timing t;
  t.seconds = 1e30;
  for (int r = 0; r < reps; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    score::Schedule s = score::compile(p);
    t.seconds = std::min(t.seconds, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    t.nodes = s.program.ops.size();
    t.edges = s.dag.edges.size();
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
  double build = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  Timing tc = time_compile(cg, 20);
  fmt::print("SCORE compile time (best of repeated runs)\n");
  fmt::print("  CG, 10 iterations ({}, N={}): {} ops, {} edges: {:.3f} ms (building the DAG from text: {:.3f} ms)\n",
             mname, prm.n, tc.nodes, tc.edges, tc.seconds * 1e3, build * 1e3);
  report["cg"] = {{"matrix", mname}, {"n", prm.n}, {"iters", 10}, {"ops", tc.nodes}, {"edges", tc.edges},
                  {"compile_seconds", tc.seconds}, {"build_seconds", build}};

  Timing t10 = time_compile(random_program(10000, 1), 3);
  fmt::print("  generated DAG, 10000 ops: {} edges: {:.1f} ms\n", t10.edges, t10.seconds * 1e3);
  report["random_10000"] = {{"ops", t10.nodes}, {"edges", t10.edges}, {"compile_seconds", t10.seconds}};

  fmt::print("linearity: random DAGs, time per (nodes + edges)\n");
  std::vector<double> lx, ly;
  nlohmann::json sizes = nlohmann::json::array();
  double lo = 1e30, hi = 0;
  for (int ops : {1250, 2500, 5000, 10000, 20000, 40000}) {
    Timing t = time_compile(random_program(ops, 7), 3);
    const double ne = static_cast<double>(t.nodes + t.edges);
    const double per = t.seconds / ne * 1e9;
    lo = std::min(lo, per);
    hi = std::max(hi, per);
    lx.push_back(std::log(ne));
    ly.push_back(std::log(t.seconds));
    fmt::print("  {:>6} ops {:>7} edges  {:>9.2f} ms  {:>7.1f} ns per node+edge\n", t.nodes, t.edges, t.seconds * 1e3, per);
    std::fflush(stdout);
    sizes.push_back({{"ops", t.nodes}, {"edges", t.edges}, {"compile_seconds", t.seconds}, {"ns_per_element", per}});
  }
  // Least-squares slope of log(time) against log(nodes + edges): 1 = linear.
  const double n = static_cast<double>(lx.size());
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (size_t i = 0; i < lx.size(); ++i) sx += lx[i], sy += ly[i], sxx += lx[i] * lx[i], sxy += lx[i] * ly[i];
  const double slope = (n * sxy - sx * sy) / (n * sxx - sx * sx);
  const bool linear = slope < 1.2;
  fmt::print("  log-log slope {:.2f} (1.00 = linear), ns per node+edge from {:.1f} to {:.1f}: {}\n", slope, lo, hi,
             linear ? "linear" : "NOT linear");
  report["linearity"] = {{"sizes", sizes}, {"slope", slope}, {"linear", linear}};
  write_json_report(json_path, report);
}

void add_bench_score(CLI::App& bench) {
  auto* cmd = bench.add_subcommand("score", "SCORE compile time: CG 10 iterations, 10,000-op DAG, linearity");
  auto matrix = std::make_shared<std::string>();
  auto json = std::make_shared<std::string>();
  cmd->add_option("--matrix", *matrix, "Matrix Market file for the CG case (default: HPCG 16^3)");
  cmd->add_option("--json", *json, "write a JSON report here");
  cmd->callback([=] { run_bench(*matrix, *json); });
}

}  // namespace

CELLO_BENCH("score", add_bench_score);

}  // namespace cello::cli
