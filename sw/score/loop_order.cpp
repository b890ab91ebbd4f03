#include "score/loop_order.hpp"

#include <algorithm>
#include <numeric>

namespace cello::score {

namespace {

constexpr double kHard = 1e6;     // a broken pipelining condition
constexpr double kSwizzle = 1;    // one swizzled sequential / writeback edge
constexpr double kInput = 1e-3;   // an input read against its declared order
// Look-ahead work per op (own candidates x consumers' candidates); above it (e.g.
// convolutions with 720 orders) the greedy pass scores the op alone.
constexpr size_t kLookaheadBudget = 4096;

int position(const std::vector<ir::RankId>& order, ir::RankId r) {
  for (size_t i = 0; i < order.size(); ++i)
    if (order[i] == r) return static_cast<int>(i);
  return static_cast<int>(order.size());
}

bool indexes(const ir::Op& op, ir::TensorId t, ir::RankId r) {
  for (const ir::Operand& x : op.in)
    if (x.tensor == t)
      for (const ir::Index& i : x.idx)
        if (i.a == r || i.b == r) return true;
  return false;
}

std::vector<int> natural(size_t n) {
  std::vector<int> v(n);
  std::iota(v.begin(), v.end(), 0);
  return v;
}

// Candidate loop orders: the dominant group first (its ranks in any order), then the
// rest; all permutations up to 6 ranks, else the natural order and its single moves.
std::vector<std::vector<ir::RankId>> candidates(const ir::Op& op, const OpDominance& d) {
  std::vector<ir::RankId> ranks = ir::op_ranks(op);
  std::vector<ir::RankId> nat;
  for (ir::RankId r : ranks)
    if (std::find(d.dominant.begin(), d.dominant.end(), r) != d.dominant.end()) nat.push_back(r);
  const size_t lead = nat.size();
  for (ir::RankId r : ranks)
    if (std::find(d.dominant.begin(), d.dominant.end(), r) == d.dominant.end()) nat.push_back(r);
  std::vector<std::vector<ir::RankId>> out;
  if (op.kind == ir::OpKind::Host) return {nat};
  if (nat.size() <= 6) {
    std::vector<int> perm = natural(nat.size());
    do {
      bool ok = true;
      for (size_t i = 0; i < lead; ++i) ok &= perm[i] < static_cast<int>(lead);
      if (!ok) continue;
      std::vector<ir::RankId> c;
      for (int i : perm) c.push_back(nat[i]);
      out.push_back(std::move(c));
    } while (std::next_permutation(perm.begin(), perm.end()));
    return out;
  }
  out.push_back(nat);
  for (size_t i = lead; i < nat.size(); ++i)
    for (size_t j = lead; j < nat.size(); ++j) {
      if (i == j) continue;
      std::vector<ir::RankId> c = nat;
      ir::RankId r = c[i];
      c.erase(c.begin() + static_cast<long>(i));
      c.insert(c.begin() + static_cast<long>(j), r);
      out.push_back(std::move(c));
    }
  return out;
}

// Sort key of dimension d of x under a loop order: the position of its (first) rank.
int key(const ir::Operand& x, size_t d, const std::vector<ir::RankId>& order) {
  int k = position(order, x.idx[d].a);
  if (x.idx[d].window()) k = std::min(k, position(order, x.idx[d].b));
  return k;
}

// traversal(x, order) == lay, without building the traversal.
bool walks_as(const ir::Operand& x, const std::vector<ir::RankId>& order, const std::vector<int>& lay) {
  for (size_t i = 0; i + 1 < lay.size(); ++i) {
    int a = key(x, static_cast<size_t>(lay[i]), order), b = key(x, static_cast<size_t>(lay[i + 1]), order);
    if (a > b || (a == b && lay[i] > lay[i + 1])) return false;
  }
  return true;
}

// traversal(x, order) is the declared order 0, 1, 2, ...
bool walks_natural(const ir::Operand& x, const std::vector<ir::RankId>& order) {
  for (size_t d = 0; d + 1 < x.idx.size(); ++d)
    if (key(x, d, order) > key(x, d + 1, order)) return false;
  return true;
}

struct Search {
  const ir::Program& p;
  const ir::Dag& dag;
  const std::vector<EdgeClass>& cls;
  std::vector<std::vector<ir::RankId>> order;  // empty = not yet chosen
  std::vector<std::vector<int>> layout;
  mutable std::vector<int> scratch;

  bool mac(ir::OpId o) const { return p.ops[o].kind != ir::OpKind::Host; }

  bool swizzled(const ir::Op& consumer, ir::TensorId t, const std::vector<ir::RankId>& ord,
                const std::vector<int>& lay) const {
    for (const ir::Operand& x : consumer.in)
      if (x.tensor == t && !walks_as(x, ord, lay)) return true;
    return false;
  }

  void out_layout(ir::OpId o, const std::vector<ir::RankId>& ord, std::vector<int>& lay) const {
    const ir::Operand& x = p.ops[o].out;
    lay.resize(x.idx.size());
    for (size_t d = 0; d < lay.size(); ++d) lay[d] = static_cast<int>(d);
    if (!mac(o)) return;
    // Insertion sort by key: stable, and dimensions are few.
    for (size_t i = 1; i < lay.size(); ++i)
      for (size_t j = i; j > 0 && key(x, static_cast<size_t>(lay[j - 1]), ord) > key(x, static_cast<size_t>(lay[j]), ord); --j)
        std::swap(lay[j - 1], lay[j]);
  }

  double cost(ir::OpId o, const std::vector<ir::RankId>& ord) const {
    const ir::Op& op = p.ops[o];
    double c = 0;
    for (const ir::Operand& x : op.in) {
      const ir::Tensor& t = p.tensors[x.tensor];
      if (!t.input || walks_natural(x, ord)) continue;
      c += t.format == ir::Format::Csr ? kHard : kInput;
    }
    for (int e : dag.in_edges[o]) {
      const ir::Edge& ed = dag.edges[e];
      if (order[ed.src].empty()) continue;
      bool sw = swizzled(op, ed.tensor, ord, layout[ed.tensor]);
      if (is_pipelined_class(cls[e])) {
        if (sw || !indexes(op, ed.tensor, ord[0])) c += kHard;
      } else if (sw) {
        c += kSwizzle;
      }
    }
    std::vector<int>& lay = scratch;
    out_layout(o, ord, lay);
    const bool outer_contracted = ir::is_contracted(op, ord[0]);
    for (int e : dag.out_edges[o]) {
      const ir::Edge& ed = dag.edges[e];
      bool pipe = is_pipelined_class(cls[e]);
      if (pipe && outer_contracted) c += kHard;
      if (order[ed.dst].empty() || !mac(ed.dst)) continue;
      bool sw = swizzled(p.ops[ed.dst], ed.tensor, order[ed.dst], lay);
      if (sw) c += pipe ? kHard : kSwizzle;
    }
    return c;
  }

  void assign(ir::OpId o, std::vector<ir::RankId> ord) {
    out_layout(o, ord, layout[p.ops[o].out.tensor]);
    order[o] = std::move(ord);
  }
};

}  // namespace

std::vector<int> traversal(const ir::Operand& x, const std::vector<ir::RankId>& order) {
  std::vector<int> dims = natural(x.idx.size());
  std::vector<int> key(x.idx.size());
  for (size_t d = 0; d < x.idx.size(); ++d) {
    key[d] = position(order, x.idx[d].a);
    if (x.idx[d].window()) key[d] = std::min(key[d], position(order, x.idx[d].b));
  }
  std::stable_sort(dims.begin(), dims.end(), [&](int a, int b) { return key[a] < key[b]; });
  return dims;
}

LoopOrders choose_loop_orders(const ir::Program& p, const ir::Dag& dag, const std::vector<OpDominance>& dom,
                              const std::vector<EdgeClass>& cls, int sweeps) {
  const int n = static_cast<int>(p.ops.size());
  Search s{p, dag, cls, std::vector<std::vector<ir::RankId>>(n), std::vector<std::vector<int>>(p.tensors.size()), {}};
  for (size_t t = 0; t < p.tensors.size(); ++t) s.layout[t] = natural(p.tensors[t].dims.size());

  std::vector<std::vector<std::vector<ir::RankId>>> cand(n);
  for (ir::OpId o = 0; o < n; ++o) cand[o] = candidates(p.ops[o], dom[o]);

  auto best_of = [&](ir::OpId o, double& best_cost) {
    size_t best = 0;
    best_cost = s.cost(o, cand[o][0]);
    for (size_t k = 1; k < cand[o].size() && best_cost > 0; ++k) {
      double c = s.cost(o, cand[o][k]);
      if (c < best_cost) best_cost = c, best = k;
    }
    return best;
  };
  // Greedy pass in schedule order with one step of look-ahead: an op's order also
  // scores the best each consumer could still do given the layout it would write.
  auto lookahead = [&](ir::OpId o, const std::vector<ir::RankId>& ord) {
    s.assign(o, ord);
    double total = 0;
    for (int e : dag.out_edges[o]) {
      const ir::OpId v = dag.edges[e].dst;
      if (!s.mac(v)) continue;
      double best = s.cost(v, cand[v][0]);
      for (size_t k = 1; k < cand[v].size() && best > 0; ++k) best = std::min(best, s.cost(v, cand[v][k]));
      total += best;
    }
    s.order[o].clear();
    return total;
  };
  for (ir::OpId o = 0; o < n; ++o) {
    size_t work = 0;
    for (int e : dag.out_edges[o]) work += cand[dag.edges[e].dst].size();
    size_t best = 0;
    if (cand[o].size() > 1 && work * cand[o].size() <= kLookaheadBudget) {
      double best_cost = 0;
      for (size_t k = 0; k < cand[o].size(); ++k) {
        double c = s.cost(o, cand[o][k]) + lookahead(o, cand[o][k]);
        if (k == 0 || c < best_cost) best_cost = c, best = k;
      }
    } else {
      double c;
      best = best_of(o, c);
    }
    s.assign(o, cand[o][best]);
  }
  // Sweeps: re-choose each op with its neighbours fixed, then each pair of ops
  // joined by a broken or swizzled edge together (a producer and consumer that
  // must change at once), until nothing improves.
  auto edge_bad = [&](int e) {
    const ir::Edge& ed = dag.edges[e];
    if (!s.mac(ed.dst)) return false;
    bool sw = s.swizzled(p.ops[ed.dst], ed.tensor, s.order[ed.dst], s.layout[ed.tensor]);
    if (!is_pipelined_class(cls[e])) return sw;
    return sw || !indexes(p.ops[ed.dst], ed.tensor, s.order[ed.dst][0]) ||
           ir::is_contracted(p.ops[ed.src], s.order[ed.src][0]);
  };
  for (int sweep = 0; sweep < sweeps; ++sweep) {
    bool changed = false;
    for (ir::OpId o = 0; o < n; ++o) {
      if (cand[o].size() < 2) continue;
      double now = s.cost(o, s.order[o]), c;
      size_t k = best_of(o, c);
      if (c < now - 1e-9) {
        s.assign(o, cand[o][k]);
        changed = true;
      }
    }
    for (size_t e = 0; e < dag.edges.size(); ++e) {
      const ir::OpId u = dag.edges[e].src, v = dag.edges[e].dst;
      if (!s.mac(u) || !s.mac(v) || cand[u].size() * cand[v].size() > kLookaheadBudget || !edge_bad(static_cast<int>(e)))
        continue;
      const std::vector<ir::RankId> ou = s.order[u], ov = s.order[v];
      const double now = s.cost(u, ou) + s.cost(v, ov);
      double best = now;
      size_t bu = 0, bv = 0;
      for (size_t a = 0; a < cand[u].size(); ++a) {
        s.assign(u, cand[u][a]);
        for (size_t b = 0; b < cand[v].size(); ++b) {
          s.assign(v, cand[v][b]);
          double c = s.cost(u, cand[u][a]) + s.cost(v, cand[v][b]);
          if (c < best - 1e-9) best = c, bu = a, bv = b;
        }
      }
      if (best < now - 1e-9) {
        s.assign(u, cand[u][bu]);
        s.assign(v, cand[v][bv]);
        changed = true;
      } else {
        s.assign(u, ou);
        s.assign(v, ov);
      }
    }
    if (!changed) break;
  }

  LoopOrders r;
  r.swizzled.assign(dag.edges.size(), 0);
  r.loop_ok.assign(dag.edges.size(), 1);
  for (size_t e = 0; e < dag.edges.size(); ++e) {
    const ir::Edge& ed = dag.edges[e];
    const ir::Op& v = p.ops[ed.dst];
    bool sw = s.mac(ed.dst) && s.swizzled(v, ed.tensor, s.order[ed.dst], s.layout[ed.tensor]);
    r.swizzled[e] = sw;
    if (is_pipelined_class(cls[e])) {
      bool ok = !sw && s.mac(ed.src) && !ir::is_contracted(p.ops[ed.src], s.order[ed.src][0]) &&
                indexes(v, ed.tensor, s.order[ed.dst][0]);
      r.loop_ok[e] = ok;
      r.violations += ok ? 0 : 1;
    } else if (sw) {
      ++r.swizzle_penalty;
    }
  }
  r.order = std::move(s.order);
  r.layout = std::move(s.layout);
  return r;
}

}  // namespace cello::score
