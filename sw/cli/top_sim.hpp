// The engine of `cello sim`, `cello demo` and `cello bench sim`: compiles a
// workload for a hardware config, runs its command stream on the generated top
// in Verilator (the simulator prebuilt for the default design, or one built at
// run time per generated RTL into a cache folder), and checks the run against
// the executor (docs/sim.md).
#pragma once

#include <CLI/CLI.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

#include "sw/stream/problem.hpp"

namespace cello::cli {

struct SimOptions {
  std::string config;          // "" = the embedded default design
  stream::ProblemSpec problem;
  uint64_t seed = 1;           // DRAM timing and host latency draws
  uint64_t latency_min = 0, latency_max = 0;  // 0: the config's dram_latency
  double dram_bw = 0;          // bytes/cycle; 0: the config's
  uint64_t max_cycles = 2000000000;
  std::string trace, cache, dump_dir, counters_csv;
  std::string timeline_csv;      // the counters' growth per window of timeline_every cycles
  uint64_t timeline_every = 10000;
  bool progress = true;
};

struct SimRun {
  bool pass = false;
  nlohmann::json report;  // what --json writes
};

// Runs and checks one simulation, printing as it goes. Throws cello::Error for
// bad options, inputs or a simulator that cannot be built.
SimRun run_sim(const SimOptions& o);

// Default cache folder: $XDG_CACHE_HOME/cello or ~/.cache/cello.
std::string default_sim_cache();

// a / b, with b taken as at least 1 (a figure over an empty count reads as the figure).
double ratio(double a, double b);

// The options every CG benchmark on the RTL shares (`cello bench sim`,
// `cello bench scale`): --iters, --max-cycles, --cache and --json.
void add_sim_bench_options(CLI::App* cmd, int& iters, uint64_t& max_cycles, std::string& cache, std::string& json);

}  // namespace cello::cli
