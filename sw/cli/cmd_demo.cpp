// `cello demo`: the whole flow on the embedded default problem. For now: generate
// the default design, check that the linked simulation model was built from the
// same config, and run the randomised buffet check against the reference model.
#include <fmt/core.h>

#include "buffet/buffet_sim_runs.hpp"
#include "cli/commands.hpp"
#include "common/error.hpp"
#include "gen_command.hpp"

namespace cello::cli {
namespace {

void add_demo(CLI::App& app) {
  auto* cmd = app.add_subcommand("demo", "run the flow on the embedded default problem");
  auto out = std::make_shared<std::string>("cello_demo_out");
  auto ops = std::make_shared<size_t>(20000);
  auto seed = std::make_shared<uint64_t>(1);
  auto json = std::make_shared<std::string>();
  cmd->add_option("--out", *out, "directory for the generated design")->capture_default_str();
  cmd->add_option("--ops", *ops, "operations per buffet traffic mix")->capture_default_str()->check(CLI::Range(1, 10000000));
  cmd->add_option("--seed", *seed, "random seed")->capture_default_str();
  cmd->add_option("--json", *json, "write a JSON report here");
  cmd->callback([=] {
    fmt::print("cello demo: step 1/2, generate the default design\n");
    auto g = gen::run_gen("", *out);
    fmt::print("  {} -> {}/ ({} files, config hash {})\n", g.config.name, g.out_dir, g.files, g.hash);
    if (g.hash != tb::default_design_hash())
      throw Error(g.out_dir + "/manifest.json", "config_hash",
                  fmt::format("the linked simulation model was built from config {}, rebuild cello",
                              tb::default_design_hash()));

    fmt::print("cello demo: step 2/2, randomised check of buffet_default against the reference model\n");
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
    fmt::print("cello demo: {} ({} operations, {} cycles{})\n", ok ? "PASS" : "FAIL", total_ops, cycles,
               ok ? ", every response matched the model" : "");
    write_json_report(*json, {{"command", "demo"}, {"passed", ok}, {"config_hash", g.hash}, {"buffet_mixes", mixes}});
    if (!ok) throw CLI::RuntimeError(1);
  });
}

}  // namespace
CELLO_COMMAND("demo", add_demo);
}  // namespace cello::cli
