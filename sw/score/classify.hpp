// SCORE pass 3: dependency class of every DAG edge (CELLO Algorithm 2).
//
// A path step a->b (tensor t from a to b) pipelines when a is not 'C', a and b
// are tensor ops (a host op takes whole tensors), and b's dominant group
// subscripts t. Then:
//   non-transitive edge   step pipelines -> pipelineable (parallel_multicast
//                         when the source has several non-transitive edges),
//                         otherwise sequential;
//   transitive edge       source 'C' or host, destination host, or the
//                         source's first step along the path does not
//                         pipeline -> sequential; every step of
//                         longestpath(edge) pipelines and the destination
//                         shares its dominant group with t -> delayed_hold;
//                         otherwise -> delayed_writeback.
// Each edge gets exactly one class. docs/score.md has the reading of the paper
// behind each rule and the hand derivation for CG.
#pragma once

#include <vector>

#include "sw/ir/dag.hpp"
#include "sw/score/critical_path.hpp"
#include "sw/score/dominance.hpp"

namespace cello::score {

struct EdgeClasses {
  std::vector<EdgeClass> cls;         // per edge
  std::vector<ir::OpId> path_break;   // per edge: op whose incoming path step breaks the chain, -1
  std::vector<Reason> reason;         // per edge: the rule that decided
  std::vector<char> multicast;        // per op: parallel_multicast
};

// Whether the path step src -> dst (carrying src's output) pipelines.
bool step_pipelines(const ir::Program& p, const std::vector<OpDominance>& dom, ir::OpId src, ir::OpId dst);

EdgeClasses classify_edges(const ir::Program& p, const ir::Dag& dag, const CriticalPath& cp,
                           const std::vector<OpDominance>& dom);

}  // namespace cello::score
