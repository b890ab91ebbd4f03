#include "cli/commands.hpp"
namespace cello::cli {
void add_demo_command(CLI::App& app) { app.add_subcommand("demo", "run the flow on the embedded default problem"); }
void add_bench_command(CLI::App& app) { app.add_subcommand("bench", "benchmarks"); }
}
