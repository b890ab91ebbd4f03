// SCORE: runs the passes in order on a checked program and assembles the
// Schedule (sw/score/schedule.hpp):
//   analyze_paths -> op_dominance -> classify_edges -> choose_loop_orders
//   -> tile_ops -> bind -> riff_metadata
#pragma once

#include <nlohmann/json.hpp>

#include "sw/score/schedule.hpp"

namespace cello::score {

Schedule compile(ir::Program program, const Target& target = {}, const Options& options = {});

// Counts per edge class, in EdgeClass order.
std::vector<int> class_counts(const Schedule& s);

// schedule.json: every edge's class, every op's loop order and tiles, every
// tensor's binding and RIFF metadata (docs/compile.md describes the fields).
// `source` records where the DAG came from (workload, sizes, matrix).
nlohmann::ordered_json schedule_json(const Schedule& s, const nlohmann::ordered_json& source = {});

// Target from a JSON object with any of the Target field names; unknown keys and
// bad values are a cello::Error naming `file` and the key.
Target parse_target(const nlohmann::json& j, const std::string& file);
nlohmann::ordered_json target_json(const Target& t);

}  // namespace cello::score
