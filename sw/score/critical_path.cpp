#include "sw/score/critical_path.hpp"

#include <algorithm>

namespace cello::score {

ir::OpId CriticalPath::child_towards(ir::OpId u, ir::OpId v) const {
  const auto& ch = children[u];
  // Children are in tour order, so their tin values ascend: the last child whose
  // tour starts at or before tin[v] contains v.
  auto it = std::upper_bound(ch.begin(), ch.end(), tin[v], [&](int t, ir::OpId c) { return t < tin[c]; });
  return it == ch.begin() ? -1 : *(it - 1);
}

std::vector<ir::OpId> CriticalPath::segment(ir::OpId u, ir::OpId v) const {
  std::vector<ir::OpId> s;
  for (ir::OpId w = v; w >= 0 && depth[w] > depth[u]; w = crit_pred[w]) s.push_back(w);
  std::reverse(s.begin(), s.end());
  return s;
}

CriticalPath analyze_paths(const ir::Dag& dag, int n) {
  CriticalPath cp;
  cp.depth.assign(n, 0);
  cp.crit_pred.assign(n, -1);
  cp.on_path.assign(n, 0);
  cp.transitive.assign(dag.edges.size(), 0);
  // Ops are in topological order (producers first), so one forward sweep suffices.
  for (ir::OpId v = 0; v < n; ++v)
    for (int e : dag.in_edges[v]) {
      ir::OpId u = dag.edges[e].src;
      int d = cp.depth[u] + 1;
      if (d > cp.depth[v] || (d == cp.depth[v] && u > cp.crit_pred[v])) {
        cp.depth[v] = d;
        cp.crit_pred[v] = u;
      }
    }
  for (size_t e = 0; e < dag.edges.size(); ++e) cp.transitive[e] = cp.crit_pred[dag.edges[e].dst] != dag.edges[e].src;

  if (n > 0) {
    ir::OpId last = 0;
    for (ir::OpId v = 1; v < n; ++v)
      if (cp.depth[v] >= cp.depth[last]) last = v;
    for (ir::OpId v = last; v >= 0; v = cp.crit_pred[v]) {
      cp.path.push_back(v);
      cp.on_path[v] = 1;
    }
    std::reverse(cp.path.begin(), cp.path.end());
  }

  // Euler tour without recursion (chains can be as long as the DAG).
  cp.children.assign(n, {});
  for (ir::OpId v = 0; v < n; ++v)
    if (cp.crit_pred[v] >= 0) cp.children[cp.crit_pred[v]].push_back(v);
  cp.tin.assign(n, 0);
  cp.tout.assign(n, 0);
  int clock = 0;
  std::vector<std::pair<ir::OpId, size_t>> stack;
  for (ir::OpId r = 0; r < n; ++r) {
    if (cp.crit_pred[r] >= 0) continue;
    stack.push_back({r, 0});
    cp.tin[r] = clock++;
    while (!stack.empty()) {
      auto& [v, k] = stack.back();
      if (k < cp.children[v].size()) {
        ir::OpId c = cp.children[v][k++];
        cp.tin[c] = clock++;
        stack.push_back({c, 0});
      } else {
        cp.tout[v] = clock;
        stack.pop_back();
      }
    }
  }
  return cp;
}

}  // namespace cello::score
