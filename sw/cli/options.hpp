// Small CLI11 validators, and the options several subcommands declare alike
// (one help text each).
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "sw/traffic/options.hpp"

namespace cello::cli {

// Refuses an empty value ("--matrix ''" is a mistake, not "no matrix").
inline CLI::Validator non_empty() {
  return CLI::Validator([](std::string& s) { return s.empty() ? std::string("must not be empty") : std::string(); },
                        "NONEMPTY");
}

// --json PATH: where the subcommand writes its machine-readable report.
inline CLI::Option* add_json_option(CLI::App* cmd, std::string& path) {
  return cmd->add_option("--json", path, "write a JSON report here");
}

// --config FILE of the commands that run a workload on a top.
inline CLI::Option* add_top_config_option(CLI::App* cmd, std::string& path) {
  return cmd->add_option("--config", path,
                         "hardware config with a top section (default: the embedded default design)");
}

// What the benches of the traffic models' --paper study take alike.
struct StudyBenchOptions {
  std::string data;  // "" = traffic::find_data_dir()
  int threads = 2;
  std::string json;
};

// --data DIR and --threads N (1..64); --json is the caller's to place.
inline void add_study_bench_options(CLI::App* cmd, StudyBenchOptions& o) {
  cmd->add_option("--data", o.data, "data folder (default: $CELLO_DATA or ../shared/data)");
  cmd->add_option("--threads", o.threads, "worker threads")->capture_default_str()->check(CLI::Range(1, 64));
}

// --chord-victim, --chord-refill, --chord-clean, --chord-reserve, --chord-inplace, --chord-claim: CELLO's CHORD
// policy options (docs/chord.md), read by traffic::apply_chord_options.
inline void add_chord_policy_options(CLI::App* cmd, traffic::ModelOptions& o) {
  cmd->add_option("--chord-victim", o.chord_victim, "CELLO's RIFF key: distance or uses (docs/chord.md)");
  cmd->add_option("--chord-refill", o.chord_refill, "CELLO's CHORD refills on read misses: on or off");
  cmd->add_option("--chord-clean", o.chord_clean, "CELLO's CHORD skips write-backs of clean words: on or off");
  cmd->add_option("--chord-reserve", o.chord_reserve,
                  "CELLO's CHORD keeps a tensor's spare space for its own remaining writes: on or off");
  cmd->add_option("--chord-inplace", o.chord_inplace,
                  "CELLO's CHORD lets a tensor updated in place take over its old version's entry: on or off");
  cmd->add_option("--chord-claim", o.chord_claim,
                  "CELLO's CHORD takes a tensor's space when its op starts, not at its writes: on or off");
}

}  // namespace cello::cli
