// SCORE pass 1: longest paths and transitive edges.
//
// depth(v) is the longest path (in edges) from any DAG source to v, and
// crit_pred(v) the predecessor it arrives through (ties: the latest op in
// schedule order). The crit_pred links form a forest, the longest-path tree;
// the DAG's critical path is the chain that ends at the deepest op.
//
// An edge u->v is transitive when u != crit_pred(v): v's longest path arrives
// another way, so the tensor waits (it is "delayed"). This contains both papers'
// definitions (GOGETA: an edge between critical-path nodes that is not on it;
// CELLO: an edge not on the longest path between its ends), see docs/score.md.
// longestpath(edge) is the stretch of v's chain between depth(u) and v.
// Everything here is O(nodes + edges).
#pragma once

#include <vector>

#include "sw/ir/dag.hpp"

namespace cello::score {

struct CriticalPath {
  std::vector<int> depth;             // per op
  std::vector<ir::OpId> crit_pred;    // per op, -1 for sources
  std::vector<ir::OpId> path;         // the critical path, first op first
  std::vector<char> on_path;          // per op
  std::vector<char> transitive;       // per edge
  // Euler tour of the longest-path tree: O(1) ancestor tests.
  std::vector<int> tin, tout;
  std::vector<std::vector<ir::OpId>> children;  // per op, in tour order

  // u lies on v's chain (u is v or an ancestor of v in the longest-path tree).
  bool on_chain(ir::OpId u, ir::OpId v) const { return tin[u] <= tin[v] && tin[v] < tout[u]; }
  // The child of u on v's chain; requires on_chain(u, v) and u != v.
  ir::OpId child_towards(ir::OpId u, ir::OpId v) const;
  // The ops of v's chain with depth in (depth(u), depth(v)], first first. O(span);
  // for explanations and tests, not used by the linear-time passes.
  std::vector<ir::OpId> segment(ir::OpId u, ir::OpId v) const;
};

CriticalPath analyze_paths(const ir::Dag& dag, int num_ops);

}  // namespace cello::score
