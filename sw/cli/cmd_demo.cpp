// `cello demo`: the whole flow on the embedded default problem. Generate the
// default design (checking that the linked simulation model was built from the
// same config), run the randomised buffet check against the reference model,
// compile CG on the embedded HPCG problem into a command stream for the default
// top and run it on the executor, checked bit for bit against the golden fp32
// replay and against the traffic model; then run CG on the generated RTL top
// (`cello sim`, on a smaller HPCG problem the interim scalar engine finishes in
// seconds), checked bit for bit against the executor.
#include <fmt/core.h>

#include <bit>

#include "tb/buffet/buffet_sim_runs.hpp"
#include "sw/cli/commands.hpp"
#include "sw/cli/options.hpp"
#include "sw/cli/top_sim.hpp"
#include "sw/common/error.hpp"
#include "sw/exec/prepare.hpp"
#include "gen/gen_command.hpp"
#include "gen/top/top_config.hpp"
#include "sw/traffic/from_score.hpp"

namespace cello::cli {
namespace {

void add_demo(CLI::App& app) {
  auto* cmd = app.add_subcommand("demo", "run the flow on the embedded default problem");
  auto out = std::make_shared<std::string>("cello_demo_out");
  auto ops = std::make_shared<size_t>(20000);
  auto seed = std::make_shared<uint64_t>(1);
  auto json = std::make_shared<std::string>();
  auto rtl_grid = std::make_shared<int>(16);
  cmd->add_option("--out", *out, "directory for the generated design")->capture_default_str();
  cmd->add_option("--ops", *ops, "operations per buffet traffic mix")->capture_default_str()->check(CLI::Range(1, 10000000));
  cmd->add_option("--seed", *seed, "random seed")->capture_default_str();
  add_json_option(cmd, *json);
  cmd->add_option("--rtl-grid", *rtl_grid, "HPCG grid of the CG run on the RTL (N = 8, 5 iterations; 16 = the same problem as step 3)")
      ->capture_default_str()->check(CLI::Range(2, 16));
  cmd->callback([=] {
    fmt::print("cello demo: step 1/4, generate the default design\n");
    auto g = gen::run_gen("", *out);
    fmt::print("  {} -> {}/ ({} files, config hash {})\n", g.config.name, g.out_dir, g.files, g.hash);
    if (g.hash != tb::default_design_hash())
      throw Error(g.out_dir + "/manifest.json", "config_hash",
                  fmt::format("the linked simulation model was built from config {}, rebuild cello",
                              tb::default_design_hash()));

    fmt::print("cello demo: step 2/4, randomised check of buffet_default against the reference model\n");
    auto reports = tb::check_default_buffet(*seed, *ops);
    bool ok = true;
    nlohmann::json mixes = nlohmann::json::array();
    uint64_t cycles = 0, total_ops = 0;
    for (const auto& r : reports) {
      fmt::print("  {:<34} {:>8} ops {:>9} cycles  {}\n", r.mix, r.ops, r.cycles, r.passed ? "PASS" : "FAIL");
      if (!r.passed) fmt::print("    {}\n", r.failure);
      ok = ok && r.passed;
      cycles += r.cycles;
      total_ops += r.ops;
      mixes.push_back({{"mix", r.mix}, {"ops", r.ops}, {"cycles", r.cycles}, {"passed", r.passed}, {"failure", r.failure}});
    }
    fmt::print("  buffet: {} ({} operations, {} cycles{})\n", ok ? "PASS" : "FAIL", total_ops, cycles,
               ok ? ", every response matched the model" : "");

    fmt::print("cello demo: step 3/4, CG on the embedded HPCG 16^3 problem: compile for {}_top, execute, check\n",
               g.config.name);
    const arch::Arch arch = gen::load_arch("");
    stream::ProblemSpec spec;
    spec.workload = "cg";
    spec.grid = 16;
    spec.n = 8;
    spec.iters = 5;
    spec.seed = *seed;
    const stream::Problem pr = stream::make_problem(spec);
    const exec::Prepared prep = exec::prepare(pr, arch);
    const exec::Result r = exec::execute(prep.compiled.stream, "<demo stream>", arch, prep.image);
    golden::Fp32Inputs in;
    in.dense = pr.dense;
    in.csr["A"] = &pr.matrix;
    const auto gold = golden::run_fp32(prep.schedule.program, in, exec::mac_order(prep.schedule.program, prep.compiled, arch));
    uint64_t mismatches = 0, words = 0;
    for (size_t t = 0; t < gold.size(); ++t)
      for (size_t e = 0; e < gold[t].size() && e < r.values[t].size(); ++e, ++words)
        mismatches += std::bit_cast<uint32_t>(gold[t][e]) != std::bit_cast<uint32_t>(r.values[t][e]);
    const traffic::Traffic m = traffic::run_model(traffic::from_schedule(prep.schedule, pr.pattern, arch.word_bytes),
                                                  traffic::MemorySystem::CELLO, arch::model_params_of(arch));
    const auto hist = exec::residual_history(prep.schedule.program, r, r.values[static_cast<size_t>(*prep.schedule.program.find_tensor("B"))]);
    const bool exact = mismatches == 0, traffic_ok = m.total_bytes() == r.read_bytes + r.write_bytes;
    fmt::print("  {} records, {} MACs; residual {:.3e} -> {:.3e} in {} iterations\n", prep.compiled.stream.records.size(),
               r.macs, hist.front(), hist.back(), spec.iters);
    fmt::print("  executor vs golden fp32 replay: {} of {} words differ  {}\n", mismatches, words, exact ? "PASS" : "FAIL");
    fmt::print("  DRAM bytes {} vs cello model CELLO {}  {}\n", r.read_bytes + r.write_bytes, m.total_bytes(),
               traffic_ok ? "PASS" : "FAIL");
    fmt::print("  CHORD: {} read hits, {} misses, {} spills, {} evicted words; cycles {} predicted, roofline {}\n",
               r.chord.read_hits, r.chord.read_misses, r.chord.spills, r.chord.evicted_words, r.cycles, r.roofline_cycles);
    ok = ok && exact && traffic_ok;

    fmt::print("cello demo: step 4/4, CG on the generated RTL top ({}), checked against the executor\n", g.config.top->name);
    SimOptions so;
    so.problem.workload = "cg";
    so.problem.grid = *rtl_grid;
    so.problem.n = spec.n;
    so.problem.iters = spec.iters;
    so.problem.seed = *seed;
    so.seed = *seed;
    so.cache = *out + "/sim-cache";
    const SimRun rtl = run_sim(so);
    ok = ok && rtl.pass;
    fmt::print("cello demo: {}\n", ok ? "PASS" : "FAIL");
    write_json_report(*json, {{"command", "demo"},
                              {"passed", ok},
                              {"config_hash", g.hash},
                              {"buffet_mixes", mixes},
                              {"cg", {{"records", prep.compiled.stream.records.size()},
                                      {"mismatched_words", mismatches},
                                      {"dram_bytes", r.read_bytes + r.write_bytes},
                                      {"model_dram_bytes", m.total_bytes()},
                                      {"residual_history", hist},
                                      {"cycles", r.cycles},
                                      {"roofline_cycles", r.roofline_cycles}}},
                              {"rtl", rtl.report}});
    if (!ok) throw CLI::RuntimeError(1);
  });
}

}  // namespace
CELLO_COMMAND("demo", add_demo);
}  // namespace cello::cli
