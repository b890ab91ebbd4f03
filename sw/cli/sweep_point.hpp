// One point of a sweep (docs/sweep.md, "A point's report"): runs the point's
// tools (exec, model, sim, area) in order and writes DIR/points/ID/report.json.
// `cello sweep point DIR ID` is this; both backends of `cello sweep run` call it
// (as a child process) for every point whose report is not complete.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "sw/cli/sweep_manifest.hpp"

namespace cello::cli::sweep {

struct PointOptions {
  std::string cache;  // simulator cache; "" = the default (docs/sim.md)
};

// DIR/points/ID
std::string point_dir(const std::string& dir, const std::string& id);

// Runs every tool of `p`; a tool's cello::Error makes the point FAIL with that
// line and skips the tools after it. Writes the report (timings in "wall_seconds"
// only) and returns it.
nlohmann::json run_point(const Sweep& s, const Point& p, const std::string& dir, const PointOptions& o);

// The point's report when it is complete (it exists, parses, names this id and
// covers the point's tools); null otherwise.
nlohmann::json complete_report(const std::string& dir, const Point& p);

// The simulation tool (sweep_sim.cpp; the sanitizer build has no simulator and
// refuses it). `config` is the point's config file.
nlohmann::json run_sim_tool(const std::string& config, const Point& p, const PointOptions& o);

}  // namespace cello::cli::sweep
