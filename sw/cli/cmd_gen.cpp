// `cello gen --config cfg.json --out DIR`
#include <fmt/core.h>

#include "sw/cli/commands.hpp"
#include "sw/cli/options.hpp"
#include "gen/gen_command.hpp"

namespace cello::cli {

namespace {
void add_gen(CLI::App& app) {
  auto* cmd = app.add_subcommand("gen", "generate SystemVerilog, files.f and manifest.json from a hardware config");
  auto config = std::make_shared<std::string>();
  auto out = std::make_shared<std::string>("rtl_out");
  auto json = std::make_shared<std::string>();
  auto period = std::make_shared<double>(0);
  cmd->add_option("--config", *config, "hardware config (JSON, see docs/config.md); default: the embedded default")
      ->check(CLI::ExistingFile);
  cmd->add_option("--out", *out, "output directory")->capture_default_str();
  cmd->add_option("--period", *period, "clock period in ns for the DIR/<module>.sdc files (default: the config's clock_period_ns, else 10)")
      ->check(CLI::Range(0.1, 1e6));
  add_json_option(cmd, *json);
  cmd->callback([=] {
    auto r = gen::run_gen(*config, *out, *period);
    fmt::print("cello gen: {} -> {} ({} files, config hash {}; {} SDC files at {:g} ns)\n", r.config.name, r.out_dir,
               r.files, r.hash, r.sdc_files, r.period_ns);
    for (const auto& b : r.blocks)
      fmt::print("  {:<16} {:<24} {} ports\n", b.value("kind", "?"), b.value("module", "?"),
                 b.contains("ports") ? b["ports"].size() : 0);
    write_json_report(*json, {{"command", "gen"},
                              {"out_dir", r.out_dir},
                              {"files", r.files},
                              {"config_hash", r.hash},
                              {"config", r.config.to_json()}});
  });
}
}  // namespace

CELLO_COMMAND("gen", add_gen);

}  // namespace cello::cli
