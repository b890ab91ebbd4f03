// Subcommands of the `cello` program. Each lives in its own cmd_*.cpp and adds
// itself to the CLI11 app; main.cpp lists them.
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <string>

namespace cello::cli {

void add_gen_command(CLI::App& app);
void add_demo_command(CLI::App& app);
void add_bench_command(CLI::App& app);

// `cello bench <block>` entries, one per block (cmd_bench_*.cpp).
void add_bench_buffet(CLI::App& bench);

// Writes a subcommand's machine-readable report when --json was given.
void write_json_report(const std::string& path, const nlohmann::json& report);

}  // namespace cello::cli
