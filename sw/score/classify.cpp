#include "score/classify.hpp"

#include <fmt/core.h>

namespace cello::score {

namespace {
bool tensor_mac(const ir::Op& op) { return op.kind != ir::OpKind::Host; }
}  // namespace

bool step_pipelines(const ir::Program& p, const std::vector<OpDominance>& dom, ir::OpId src, ir::OpId dst) {
  const ir::Op& s = p.ops[src];
  return dom[src].dominance != Dominance::Contracted && tensor_mac(s) && tensor_mac(p.ops[dst]) &&
         shares_dominant(p.ops[dst], dom[dst], s.out.tensor);
}

EdgeClasses classify_edges(const ir::Program& p, const ir::Dag& dag, const CriticalPath& cp,
                           const std::vector<OpDominance>& dom) {
  const int n = static_cast<int>(p.ops.size());
  const size_t ne = dag.edges.size();
  EdgeClasses r;
  r.cls.assign(ne, EdgeClass::Sequential);
  r.path_break.assign(ne, -1);
  r.why.assign(ne, "");
  r.multicast.assign(n, 0);

  // bad_step[w]: the step crit_pred(w) -> w does not pipeline. last_bad[w]: depth of
  // the deepest such op on w's chain (w included), -1 if none; with it, "does any
  // step of v's chain below depth d break" is last_bad[v] > d, in O(1).
  std::vector<int> last_bad(n, -1);
  std::vector<ir::OpId> last_bad_op(n, -1);
  for (ir::OpId w = 0; w < n; ++w) {
    ir::OpId u = cp.crit_pred[w];
    if (u < 0) continue;
    if (!step_pipelines(p, dom, u, w)) {
      last_bad[w] = cp.depth[w];
      last_bad_op[w] = w;
    } else {
      last_bad[w] = last_bad[u];
      last_bad_op[w] = last_bad_op[u];
    }
  }

  for (ir::OpId u = 0; u < n; ++u) {
    int numcast = 0;
    for (int e : dag.out_edges[u]) numcast += cp.transitive[e] ? 0 : 1;
    r.multicast[u] = numcast > 1;
  }

  auto name = [&](ir::OpId o) { return p.ops[o].name; };
  for (size_t e = 0; e < ne; ++e) {
    const ir::Edge& ed = dag.edges[e];
    const ir::OpId u = ed.src, v = ed.dst;
    const bool src_c = dom[u].dominance == Dominance::Contracted;
    const bool src_host = !tensor_mac(p.ops[u]);
    EdgeClass& c = r.cls[e];
    std::string& why = r.why[e];
    if (!cp.transitive[e]) {
      if (src_c) {
        why = "source is contracted-dominant";
      } else if (src_host) {
        why = "source is a host op";
      } else if (!tensor_mac(p.ops[v])) {
        why = "destination is a host op (it takes the whole tensor)";
      } else if (!shares_dominant(p.ops[v], dom[v], ed.tensor)) {
        why = "destination's dominant rank does not subscript the tensor";
      } else {
        c = r.multicast[u] ? EdgeClass::ParallelMulticast : EdgeClass::Pipelineable;
        why = r.multicast[u] ? "adjacent pipelineable step; source feeds several ops at once"
                             : "adjacent pipelineable step";
      }
      continue;
    }
    // Transitive: the tensor waits while v's longest path catches up.
    if (src_c) {
      why = "delayed edge from a contracted-dominant source";
      continue;
    }
    if (src_host) {
      why = "delayed edge from a host op";
      continue;
    }
    const bool on_chain = cp.on_chain(u, v);
    if (on_chain) {
      ir::OpId w1 = cp.child_towards(u, v);
      if (!step_pipelines(p, dom, u, w1)) {
        why = fmt::format("source does not pipeline into the next op on the path ({})", name(w1));
        continue;
      }
    }
    if (!tensor_mac(p.ops[v])) {
      why = "delayed edge into a host op (it takes the whole tensor)";
      continue;
    }
    if (last_bad[v] > cp.depth[u]) {
      c = EdgeClass::DelayedWriteback;
      // Report the earliest break after u (a few jumps back along the breaks).
      ir::OpId b = last_bad_op[v];
      for (int jumps = 0; jumps < 16; ++jumps) {
        ir::OpId prev = last_bad_op[cp.crit_pred[b]];
        if (prev < 0 || cp.depth[prev] <= cp.depth[u]) break;
        b = prev;
      }
      r.path_break[e] = b;
      why = fmt::format("path {} {}..{} breaks at {} -> {}", on_chain ? "from" : "alongside", name(u), name(v),
                        name(cp.crit_pred[b]), name(b));
      continue;
    }
    if (!shares_dominant(p.ops[v], dom[v], ed.tensor)) {
      c = EdgeClass::DelayedWriteback;
      why = "destination's dominant rank does not subscript the held tensor";
      continue;
    }
    c = EdgeClass::DelayedHold;
    why = fmt::format("every step of the path {} {}..{} pipelines", on_chain ? "from" : "alongside", name(u), name(v));
  }
  return r;
}

}  // namespace cello::score
