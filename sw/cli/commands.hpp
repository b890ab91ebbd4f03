// Subcommands of the `cello` program. Each lives in its own cmd_*.cpp file and
// registers itself with CELLO_COMMAND / CELLO_BENCH, so adding a subcommand never
// touches main.cpp. (These files are compiled into the executable itself, not a
// library, so the static registrars always run.)
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

namespace cello::cli {

using CommandAdder = std::function<void(CLI::App& parent)>;

// Top-level subcommands: the adder creates the subcommand on `app`.
int register_command(const std::string& name, CommandAdder add);
// `cello bench <name>`: the adder creates the subcommand on the `bench` app.
int register_bench(const std::string& name, CommandAdder add);

void add_registered_commands(CLI::App& app);
void add_registered_benches(CLI::App& bench);

// Writes a subcommand's machine-readable report when --json was given.
void write_json_report(const std::string& path, const nlohmann::json& report);

}  // namespace cello::cli

#define CELLO_CLI_CONCAT2(a, b) a##b
#define CELLO_CLI_CONCAT(a, b) CELLO_CLI_CONCAT2(a, b)
// CELLO_COMMAND("gen", [](CLI::App& app) { ... });
#define CELLO_COMMAND(name, adder) \
  static const int CELLO_CLI_CONCAT(cello_command_, __COUNTER__) = ::cello::cli::register_command(name, adder)
// CELLO_BENCH("buffet", [](CLI::App& bench) { ... });
#define CELLO_BENCH(name, adder) \
  static const int CELLO_CLI_CONCAT(cello_bench_, __COUNTER__) = ::cello::cli::register_bench(name, adder)
