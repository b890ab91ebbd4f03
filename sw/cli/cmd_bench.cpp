// `cello bench <block>`: performance and size figures, each against a baseline
// measured in the same run. Each block registers its own entry (cmd_bench_*.cpp).
#include "sw/cli/commands.hpp"

namespace cello::cli {
namespace {
void add_bench(CLI::App& app) {
  auto* bench = app.add_subcommand("bench", "benchmarks: simulation speed, throughput, area, compile time");
  bench->require_subcommand(1);
  add_registered_benches(*bench);
}
}  // namespace
CELLO_COMMAND("bench", add_bench);
}  // namespace cello::cli
