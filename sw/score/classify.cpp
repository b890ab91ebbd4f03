#include "sw/score/classify.hpp"

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
  r.reason.assign(ne, Reason::Adjacent);
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

  for (size_t e = 0; e < ne; ++e) {
    const ir::Edge& ed = dag.edges[e];
    const ir::OpId u = ed.src, v = ed.dst;
    EdgeClass& c = r.cls[e];
    Reason& why = r.reason[e];
    const bool transitive = cp.transitive[e];
    if (dom[u].dominance == Dominance::Contracted) {
      why = Reason::SourceContracted;
    } else if (!tensor_mac(p.ops[u])) {
      why = Reason::SourceHost;
    } else if (!tensor_mac(p.ops[v])) {
      why = Reason::DestHost;
    } else if (!transitive) {
      if (!shares_dominant(p.ops[v], dom[v], ed.tensor)) {
        why = Reason::DestUnshared;
      } else {
        c = r.multicast[u] ? EdgeClass::ParallelMulticast : EdgeClass::Pipelineable;
        why = Reason::Adjacent;
      }
    } else if (ir::OpId w1 = cp.on_chain(u, v) ? cp.child_towards(u, v) : -1;
               w1 >= 0 && !step_pipelines(p, dom, u, w1)) {
      // Transitive: the tensor waits while v's longest path catches up.
      why = Reason::FirstStepBlocked;
      r.path_break[e] = w1;
    } else if (last_bad[v] > cp.depth[u]) {
      // Report the earliest break after u (a few jumps back along the breaks).
      ir::OpId b = last_bad_op[v];
      for (int jumps = 0; jumps < 16; ++jumps) {
        ir::OpId prev = last_bad_op[cp.crit_pred[b]];
        if (prev < 0 || cp.depth[prev] <= cp.depth[u]) break;
        b = prev;
      }
      c = EdgeClass::DelayedWriteback;
      why = Reason::PathBreaks;
      r.path_break[e] = b;
    } else if (!shares_dominant(p.ops[v], dom[v], ed.tensor)) {
      c = EdgeClass::DelayedWriteback;
      why = Reason::HeldUnshared;
    } else {
      c = EdgeClass::DelayedHold;
      why = Reason::PathPipelines;
    }
  }
  return r;
}

}  // namespace cello::score
