// `cello sim`: compiles a workload for a hardware config, runs the command
// stream on the generated top in Verilator and checks the run against the
// executor (docs/sim.md). Exit 0 PASS, 1 FAIL, 2 bad input.
#include <fmt/core.h>

#include <charconv>

#include "sw/cli/commands.hpp"
#include "sw/cli/options.hpp"
#include "sw/cli/top_sim.hpp"
#include "sw/common/error.hpp"

namespace cello::cli {

namespace {

// "L" (fixed) or "MIN:MAX" (uniformly random per request, responses out of order).
void parse_latency(const std::string& v, SimOptions& o) {
  const size_t colon = v.find(':');
  auto num = [&](std::string_view s, uint64_t& out) {
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc() && end == s.data() + s.size() && out >= 1 && out <= (uint64_t{1} << 20);
  };
  const bool ok = colon == std::string::npos
                      ? num(v, o.latency_min) && ((o.latency_max = o.latency_min), true)
                      : num(std::string_view(v).substr(0, colon), o.latency_min) &&
                            num(std::string_view(v).substr(colon + 1), o.latency_max) && o.latency_max >= o.latency_min;
  if (!ok) throw Error("", "--dram-latency", "'" + v + "' is not L or MIN:MAX cycles (1 to 1048576, MIN <= MAX)");
}

void add_sim(CLI::App& app) {
  auto* cmd = app.add_subcommand("sim", "run a workload's command stream on the generated RTL top and check it");
  auto o = std::make_shared<SimOptions>();
  auto latency = std::make_shared<std::string>();
  auto json = std::make_shared<std::string>();
  o->problem.workload = "cg";
  o->problem.grid = 4;
  o->problem.n = 1;
  o->problem.iters = 3;
  add_top_config_option(cmd, o->config);
  cmd->add_option("--workload", o->problem.workload, "cg, bicgstab or gcn")->capture_default_str();
  cmd->add_option("--matrix", o->problem.matrix, "Matrix Market file for A (default: HPCG stencil on --grid)");
  cmd->add_option("--dataset", o->problem.dataset, "gcn graph: cora:DIR or proteins:DIR");
  cmd->add_option("--grid", o->problem.grid, "HPCG grid G (G^3 rows) when no --matrix")->capture_default_str();
  cmd->add_option("--n", o->problem.n, "block width N (cg, bicgstab) or input features (gcn)")->capture_default_str();
  cmd->add_option("--o", o->problem.o, "output features (gcn)");
  cmd->add_option("--iters", o->problem.iters, "iterations (cg, bicgstab) or layers (gcn)")->capture_default_str();
  cmd->add_option("--seed", o->seed, "seed of the dense inputs and the DRAM timing (printed; replays the run)")
      ->capture_default_str();
  cmd->add_option("--dram-latency", *latency, "DRAM latency in cycles: L, or MIN:MAX random (default: the config's)");
  cmd->add_option("--dram-bw", o->dram_bw, "DRAM bytes per cycle (default: the config's)")->check(CLI::Range(0.001, 1e6));
  cmd->add_option("--max-cycles", o->max_cycles, "fail when the top has not reached END after this many cycles")
      ->capture_default_str()->check(CLI::Range(uint64_t{1}, UINT64_MAX));
  cmd->add_option("--trace", o->trace, "write an FST waveform of the whole run here");
  cmd->add_option("--counters", o->counters_csv, "write the perf counters here as CSV");
  auto* timeline = cmd->add_option("--timeline", o->timeline_csv,
                                   "write each perf counter's growth per window of --timeline-every cycles here as CSV");
  cmd->add_option("--timeline-every", o->timeline_every, "cycles per --timeline window")
      ->capture_default_str()->check(CLI::Range(uint64_t{1}, UINT64_MAX))->needs(timeline);
  cmd->add_option("--dump", o->dump_dir, "write B, X0, X and every final tensor here as Matrix Market arrays");
  cmd->add_option("--cache", o->cache, "folder of simulators built at run time (default: ~/.cache/cello)");
  add_json_option(cmd, *json);
  cmd->callback([o, latency, json] {
    if (!latency->empty()) parse_latency(*latency, *o);
    o->problem.seed = o->seed;
    const SimRun r = run_sim(*o);
    write_json_report(*json, r.report);
    if (!r.pass) throw CLI::RuntimeError(1);
  });
}

}  // namespace

CELLO_COMMAND("sim", add_sim);

}  // namespace cello::cli
