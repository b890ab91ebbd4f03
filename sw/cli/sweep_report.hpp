// `cello sweep report DIR` (docs/sweep.md, "The report"): gathers every point's
// report of a sweep into DIR/report.csv and DIR/report.json (one row per point;
// no wall times, so two runs of one sweep give the same bytes on any backend),
// DIR/timings.csv (the wall times) and the SVG plots under DIR/plots/.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "sw/cli/sweep_manifest.hpp"

namespace cello::cli::sweep {

struct ReportSummary {
  size_t points = 0, passed = 0, failed = 0, missing = 0;
  std::vector<std::string> files;  // what it wrote
};

// Writes the report files and prints the failed and missing points with their
// first error line.
ReportSummary write_report(const Sweep& s, const std::string& dir);

}  // namespace cello::cli::sweep
