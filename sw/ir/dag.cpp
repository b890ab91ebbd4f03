#include "sw/ir/dag.hpp"

#include <algorithm>

namespace cello::ir {

Dag build_dag(const Program& p) {
  Dag d;
  d.producer.assign(p.tensors.size(), -1);
  d.out_edges.resize(p.ops.size());
  d.in_edges.resize(p.ops.size());
  for (OpId o = 0; o < static_cast<int>(p.ops.size()); ++o) d.producer[p.ops[o].out.tensor] = o;
  for (OpId o = 0; o < static_cast<int>(p.ops.size()); ++o) {
    std::vector<OpId> seen;
    for (const Operand& x : p.ops[o].in) {
      OpId src = d.producer[x.tensor];
      if (src < 0 || std::find(seen.begin(), seen.end(), src) != seen.end()) continue;
      seen.push_back(src);
      d.edges.push_back({src, o, x.tensor});
    }
  }
  for (int e = 0; e < static_cast<int>(d.edges.size()); ++e) {
    d.out_edges[d.edges[e].src].push_back(e);
    d.in_edges[d.edges[e].dst].push_back(e);
  }
  return d;
}

}  // namespace cello::ir
