// The generated problem family for replacement-policy work (`cello model
// --family`, `cello bench policy`): CG on 2D/3D stencils, random banded SPD
// and mesh-like matrices at N in {1, 4, 8, 16} and SRAM in {1, 4, 16} MB, and
// the report that puts every policy beside the offline reference OPT.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sw/traffic/experiment.hpp"

namespace cello::traffic {

// The family, in a fixed order. smallest: only the problems small enough for a
// unit test (a few seconds each). iters: CG iterations.
std::vector<Problem> family_problems(bool smallest = false, int iters = 5);

// The configurations the family compares (Flexagon-like is always run too).
std::vector<MemorySystem> family_systems();

// Per problem: each policy's DRAM bytes over OPT's, and the orderings the
// targets ask for (CELLO <= PRELUDE-only, <= Flex+LRU, <= Flex+BRRIP).
struct PolicyRow {
  std::string label;
  uint64_t opt_bytes = 0, cello_bytes = 0, prelude_bytes = 0, lru_bytes = 0, brrip_bytes = 0, ideal_bytes = 0;
  uint64_t bound_bytes = 0;
  double cello_opt = 0, prelude_opt = 0, lru_opt = 0, brrip_opt = 0;
  bool le_prelude = false, le_lru = false, le_brrip = false;
};
struct PolicySummary {
  std::vector<PolicyRow> rows;
  double geomean_cello_opt = 0;
  std::string worst;  // problem with the largest CELLO / OPT
  double worst_cello_opt = 0;
  int le_prelude = 0, le_lru = 0, le_brrip = 0;  // problems meeting each ordering
};
// Rows for problems that ran CELLO and OPT; the rest need only CELLO and the baselines.
PolicySummary summarize_policy(const StudyResult& r);

std::string policy_table_text(const PolicySummary& s);
std::string policy_svg(const PolicySummary& s, const std::string& title);
nlohmann::json policy_json(const PolicySummary& s);

}  // namespace cello::traffic
