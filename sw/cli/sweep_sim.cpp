// The `sim` tool of a sweep point: `cello sim` on the point's config and
// workload, with the simulator built once per RTL into the shared cache under
// its lock (sw/cli/top_sim.cpp, docs/sim.md).
#include <nlohmann/json.hpp>

#include "sw/cli/sweep_point.hpp"
#include "sw/cli/top_sim.hpp"

namespace cello::cli::sweep {

nlohmann::json run_sim_tool(const std::string& config, const Point& p, const PointOptions& o) {
  SimOptions s;
  s.config = config;
  s.cache = o.cache;
  const nlohmann::json& w = p.workload;
  s.problem.workload = w.at("workload").get<std::string>();
  s.problem.matrix = w.at("matrix").get<std::string>();
  s.problem.dataset = w.at("dataset").get<std::string>();
  s.problem.grid = w.at("grid").get<int>();
  s.problem.n = w.at("n").get<int>();
  s.problem.o = w.at("o").get<int>();
  s.problem.iters = w.at("iters").get<int>();
  s.problem.seed = p.seed;
  s.seed = p.seed;
  s.progress = false;
  const SimRun r = run_sim(s);
  const nlohmann::json& rep = r.report;
  nlohmann::json out = {{"pass", r.pass},
                        {"cycles", rep.value("cycles", uint64_t{0})},
                        {"executor_cycles", rep.value("executor_cycles", uint64_t{0})},
                        {"simulator", rep.value("simulator", std::string())}};
  if (rep.contains("dram_bytes")) {
    out["read_bytes"] = rep["dram_bytes"].value("rtl_read", uint64_t{0});
    out["write_bytes"] = rep["dram_bytes"].value("rtl_written", uint64_t{0});
  }
  // The RTL's CHORD counters (the CHORD block's names, exec::chord_counter_values)
  // under the executor's names; a top without CHORD on its datapath reports none.
  if (rep.contains("chord") && rep["chord"].contains("rtl") && rep["chord"]["rtl"].is_object()) {
    const nlohmann::json& rtl = rep["chord"]["rtl"];
    out["chord"] = {{"read_hits", rtl.value("rd_hit", uint64_t{0})},
                    {"read_misses", rtl.value("rd_miss", uint64_t{0})},
                    {"write_hits", rtl.value("wr_hit", uint64_t{0})},
                    {"spills", rtl.value("wr_spill", uint64_t{0})},
                    {"evicted_words", rtl.value("evict", uint64_t{0})}};
  }
  return out;
}

}  // namespace cello::cli::sweep
