// `cello area --paper` / `cello bench area`: the papers' area claims next to
// this project's sky130 numbers (docs/area.md, "The papers' claims").
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "sw/cli/area_eval.hpp"

namespace cello::cli {

struct PaperOptions {
  int chord_entries = 64;  // RIFF index table entries of the CHORD row (the paper's 64)
  int mac_rows = 4, mac_cols = 4;
};

// Runs the flow on the paper configurations, prints the table, returns its JSON
// (rows: claim, paper, ours). `svg` (if not empty) receives a bar chart.
nlohmann::json run_paper_table(const AreaOptions& o, const PaperOptions& p, const std::filesystem::path& work_dir,
                               const AreaProgress& progress, const std::string& svg);

}  // namespace cello::cli
