// `cello bench exec`: the executor's speed and predictions on fv1 CG (N = 8,
// 10 iterations by default): MACs/s and records/s against the plain golden
// fp32 runner timed in the same run, DRAM traffic and predicted cycles beside
// `cello model`'s CELLO and the roofline, and the same stream compiled for a
// CHORD-less top (Flexagon-like) as the traffic baseline.
#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <filesystem>

#include "sw/cli/commands.hpp"
#include "sw/cli/options.hpp"
#include "sw/common/clock.hpp"
#include "sw/common/error.hpp"
#include "sw/exec/prepare.hpp"
#include "gen/hw_config.hpp"
#include "gen/top/top_config.hpp"
#include "sw/perf/roofline.hpp"
#include "sw/traffic/experiment.hpp"
#include "sw/traffic/from_score.hpp"

namespace cello::cli {

namespace {

struct BenchExecArgs {
  std::string matrix, config, json;
  int n = 8, iters = 10, repeat = 3;
};

void run_bench(const BenchExecArgs& a) {
  const std::string matrix = traffic::data_matrix(a.matrix, "fv1.mtx");
  const arch::Arch arch = gen::load_arch(a.config);
  stream::ProblemSpec spec;
  spec.workload = "cg";
  spec.matrix = matrix;
  spec.n = a.n;
  spec.iters = a.iters;
  const stream::Problem pr = stream::make_problem(spec);
  auto t0 = std::chrono::steady_clock::now();
  const exec::Prepared prep = exec::prepare(pr, arch);
  const double compile_s = seconds_since(t0);
  fmt::print("cello bench exec: CG on {} (M={} nnz={}), N={}, {} iterations, config {}\n", matrix, pr.matrix.rows,
             pr.matrix.nnz(), a.n, a.iters, arch.name);
  fmt::print("  compile (SCORE + encoder + image): {:.3f} s, {} records\n", compile_s, prep.compiled.stream.records.size());

  double best = 1e30, best_golden = 1e30, wall = 1e30;
  exec::Result r;
  for (int k = 0; k < a.repeat; ++k) {
    t0 = std::chrono::steady_clock::now();
    double c0 = thread_cpu_seconds();
    r = exec::execute(prep.compiled.stream, "<bench>", arch, prep.image);
    best = std::min(best, thread_cpu_seconds() - c0);
    wall = std::min(wall, seconds_since(t0));
    golden::Fp32Inputs in;
    in.dense = pr.dense;
    in.csr["A"] = &pr.matrix;
    c0 = thread_cpu_seconds();
    (void)golden::run_fp32(prep.schedule.program, in, exec::mac_order(prep.schedule.program, prep.compiled, arch));
    best_golden = std::min(best_golden, thread_cpu_seconds() - c0);
  }
  const double macs_s = static_cast<double>(r.macs) / best;
  fmt::print("  executor: {:.3f} s CPU, {:.3f} s wall (best of {}): {:.3g} MACs/s, {:.3g} records/s (CPU)\n", best, wall,
             a.repeat, macs_s, static_cast<double>(prep.compiled.stream.records.size()) / best);
  fmt::print("  baseline golden fp32 runner (numerics only): {:.3f} s CPU: executor / golden = {:.2f}x\n", best_golden,
             best / best_golden);

  const traffic::Workload w = traffic::from_schedule(prep.schedule, pr.pattern, arch.word_bytes);
  const traffic::Traffic m = traffic::run_model(w, traffic::MemorySystem::CELLO, arch::model_params_of(arch));
  const uint64_t bytes = r.read_bytes + r.write_bytes;
  fmt::print("  DRAM bytes: executor {} , cello model CELLO {} ({})\n", bytes, m.total_bytes(),
             bytes == m.total_bytes() ? "equal" : fmt::format("ratio {:.4f}", static_cast<double>(bytes) / static_cast<double>(m.total_bytes())));
  fmt::print("  predicted cycles {} , roofline {} : {:.2f}x\n", r.cycles, r.roofline_cycles,
             static_cast<double>(r.cycles) / static_cast<double>(std::max<uint64_t>(1, r.roofline_cycles)));
  // cello model's time for the same traffic: its roofline on this top's array and DRAM.
  perf::Machine machine;
  machine.mac_units = arch.macs_per_cycle();
  machine.clock_hz = arch.clock_ghz * 1e9;
  machine.bandwidth_bytes_per_s = arch.dram_bytes_per_cycle * machine.clock_hz;
  const perf::Perf mp = perf::roofline(r.macs, m.total_bytes(), machine);
  const double model_cycles = mp.time_s * machine.clock_hz;
  fmt::print("  cello model (CELLO traffic, roofline on this top): {:.0f} cycles; executor / model = {:.2f}x\n",
             model_cycles, static_cast<double>(r.cycles) / std::max(1.0, model_cycles));

  // Baseline: the same workload on a CHORD-less top (Flexagon-like).
  nlohmann::json j = a.config.empty() ? gen::default_hw_config_json() : gen::parse_json_file(a.config);
  if (j.contains("top")) j["top"].erase("chord");
  const arch::Arch flex = gen::arch_of(gen::parse_hw_config(j, "<chord-less>"), "<chord-less>");
  const exec::Prepared fp = exec::prepare(pr, flex);
  const exec::Result fr = exec::execute(fp.compiled.stream, "<bench flex>", flex, fp.image);
  const uint64_t fbytes = fr.read_bytes + fr.write_bytes;
  fmt::print("  CHORD-less top (Flexagon-like): {} DRAM bytes, {} predicted cycles: CELLO moves {:.2f}x fewer bytes\n",
             fbytes, fr.cycles, static_cast<double>(fbytes) / static_cast<double>(std::max<uint64_t>(1, bytes)));
  write_json_report(a.json, {{"bench", "exec"},
                             {"matrix", matrix},
                             {"n", a.n},
                             {"iters", a.iters},
                             {"records", prep.compiled.stream.records.size()},
                             {"executor_seconds", best},
                             {"model_cycles", model_cycles},
                             {"golden_seconds", best_golden},
                             {"macs", r.macs},
                             {"macs_per_second", macs_s},
                             {"dram_bytes", bytes},
                             {"model_dram_bytes", m.total_bytes()},
                             {"cycles", r.cycles},
                             {"roofline_cycles", r.roofline_cycles},
                             {"chordless_dram_bytes", fbytes},
                             {"chordless_cycles", fr.cycles}});
}

void add_bench_exec(CLI::App& bench) {
  auto* cmd = bench.add_subcommand("exec", "executor speed, traffic and predicted cycles on fv1 CG");
  auto a = std::make_shared<BenchExecArgs>();
  cmd->add_option("--matrix", a->matrix, "Matrix Market file (default: fv1 from the data folder)");
  cmd->add_option("--config", a->config, "hardware config (default: the embedded default design)");
  cmd->add_option("--n", a->n, "block width")->capture_default_str();
  cmd->add_option("--iters", a->iters, "CG iterations")->capture_default_str();
  cmd->add_option("--repeat", a->repeat, "timed runs (best is reported)")->capture_default_str();
  add_json_option(cmd, a->json);
  cmd->callback([a] { run_bench(*a); });
}

}  // namespace

CELLO_BENCH("exec", add_bench_exec);

}  // namespace cello::cli
