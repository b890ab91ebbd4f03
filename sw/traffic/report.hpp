// Human and machine-readable reports of a traffic study: the comparison table,
// JSON, CSV and an SVG bar chart (speedup per bandwidth and relative off-chip
// energy per problem and configuration, in the manner of CELLO Figs. 12-14).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "sw/traffic/experiment.hpp"

namespace cello::traffic {

// The paper's published headline figures (CELLO Sec. VII-B).
constexpr double kPaperSpeedup = 4.0;
constexpr double kPaperEnergyReductionLo = 0.64;
constexpr double kPaperEnergyReductionHi = 0.83;

std::string table_text(const StudyResult& r);
// Per problem, the DRAM bytes (read + write, kB) of every tensor that moved
// any, one column per configuration, the largest first (`cello model --tensors`).
std::string tensor_table_text(const StudyResult& r);
// Geomeans of CELLO against Flexagon-like beside the paper's figures.
std::string summary_text(const StudyResult& r);
nlohmann::json to_json(const Study& s, const StudyResult& r);
// One run's CHORD counts, under the ChordCounts field names.
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(ChordCounts, accesses, read_hits, read_misses, write_hits, spills, evicted_words,
                                   bypass_tensors)
std::string to_csv(const StudyResult& r);
std::string to_svg(const StudyResult& r, const std::string& title);

}  // namespace cello::traffic
