// A design-space sweep of `cello sweep` (docs/sweep.md): the manifest a user
// writes (a base hardware config, keys to vary, workloads, seeds and the tools
// to run per point), expanded into points with stable ids, and the resolved
// sweep that `cello sweep run` stores as DIR/sweep.json for every backend and
// every `cello sweep point` to read.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace cello::cli::sweep {

// Part of every point id: bump when a point's report changes meaning (new
// fields are not a change), so a rerun recomputes instead of reusing.
inline constexpr const char* kToolVersion = "cello-sweep-1";

// The tools a point can run, in the order they run.
const std::vector<std::string>& tool_names();

struct Axis {
  std::string key;                   // config key path, e.g. "chords.depth"
  std::vector<nlohmann::json> values;
};

struct Point {
  std::string id;                    // 16 hex digits: hash of config, workload, seed, tools, tool version
  std::string label;                 // "chords.depth=4096 cg hpcg8 n4 i3 seed 1"
  nlohmann::json at = nlohmann::json::object();  // varied key -> value
  nlohmann::json config;             // the resolved hardware config (canonical: every default filled in)
  nlohmann::json workload;           // {workload, label, matrix|grid|dataset, n, o, iters}; matrix resolved
  uint64_t seed = 1;
  std::vector<std::string> tools;
  nlohmann::json to_json() const;
  static Point from_json(const nlohmann::json& j);
};

struct Sweep {
  std::string name, manifest;        // manifest: the path it was read from
  std::vector<Axis> axes;
  std::vector<std::string> tools;
  nlohmann::json area = nlohmann::json::object();  // "area" options: liberty, period_ns
  std::vector<Point> points;
  nlohmann::json to_json() const;
  static Sweep from_json(const nlohmann::json& j, const std::string& file);
  const Point* find(const std::string& id) const;
};

// Reads and checks a manifest; every point's config is parsed as `cello gen`
// would. Throws cello::Error(manifest, place, reason) on any bad input.
Sweep load_manifest(const std::string& path);

// A varied key's value as a label shows it: a string bare, anything else as JSON.
std::string value_text(const nlohmann::json& v);

// DIR/sweep.json, as `cello sweep run` wrote it.
Sweep load_sweep_dir(const std::string& dir);

}  // namespace cello::cli::sweep
