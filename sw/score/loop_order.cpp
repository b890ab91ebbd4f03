#include "sw/score/loop_order.hpp"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <span>

namespace cello::score {

namespace {

using Order = std::span<const ir::RankId>;

constexpr double kHard = 1e6;     // a broken pipelining condition
constexpr double kSwizzle = 1;    // one swizzled sequential / writeback edge
constexpr double kInput = 1e-3;   // an input read against its declared order
// Look-ahead work per op (own candidates x consumers' candidates); above it (e.g.
// convolutions with 720 orders) the greedy pass scores the op alone.
constexpr size_t kLookaheadBudget = 4096;
// Pair moves skip ops with more edges than this (a hub's every edge would cost a
// pass over all its edges: quadratic).
constexpr size_t kPairDegree = 64;

int position(Order order, ir::RankId r) {
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

// Sort key of dimension d of x under a loop order: the position of its (first) rank.
int key(const ir::Operand& x, size_t d, Order order) {
  int k = position(order, x.idx[d].a);
  if (x.idx[d].window()) k = std::min(k, position(order, x.idx[d].b));
  return k;
}

// traversal(x, order) == lay, without building the traversal.
bool walks_as(const ir::Operand& x, Order order, const std::vector<int>& lay) {
  for (size_t i = 0; i + 1 < lay.size(); ++i) {
    int a = key(x, static_cast<size_t>(lay[i]), order), b = key(x, static_cast<size_t>(lay[i + 1]), order);
    if (a > b || (a == b && lay[i] > lay[i + 1])) return false;
  }
  return true;
}

// traversal(x, order) is the declared order 0, 1, 2, ...
bool walks_natural(const ir::Operand& x, Order order) {
  for (size_t d = 0; d + 1 < x.idx.size(); ++d)
    if (key(x, d, order) > key(x, d + 1, order)) return false;
  return true;
}

// Candidate loop orders of one op, stored back to back: the dominant group first
// (its ranks in any order), then the rest; all permutations up to 6 ranks, else
// the natural order and its single moves.
struct Candidates {
  size_t ranks = 0;
  std::vector<ir::RankId> flat;
  size_t size() const { return ranks ? flat.size() / ranks : 0; }
  Order operator[](size_t i) const { return Order(flat.data() + i * ranks, ranks); }
};

Candidates candidates(const ir::Op& op, const OpDominance& d) {
  std::vector<ir::RankId> ranks = ir::op_ranks(op);
  std::vector<ir::RankId> nat;
  auto dominant = [&](ir::RankId r) { return std::find(d.dominant.begin(), d.dominant.end(), r) != d.dominant.end(); };
  for (ir::RankId r : ranks)
    if (dominant(r)) nat.push_back(r);
  const size_t lead = nat.size();
  for (ir::RankId r : ranks)
    if (!dominant(r)) nat.push_back(r);
  Candidates c;
  c.ranks = nat.size();
  if (op.kind == ir::OpKind::Host) {
    c.flat = nat;
    return c;
  }
  if (nat.size() <= 6) {
    std::vector<int> perm(nat.size());
    std::iota(perm.begin(), perm.end(), 0);
    do {
      bool ok = true;
      for (size_t i = 0; i < lead; ++i) ok &= perm[i] < static_cast<int>(lead);
      if (ok)
        for (int i : perm) c.flat.push_back(nat[i]);
    } while (std::next_permutation(perm.begin(), perm.end()));
    return c;
  }
  c.flat = nat;
  for (size_t i = lead; i < nat.size(); ++i)
    for (size_t j = lead; j < nat.size(); ++j) {
      if (i == j) continue;
      std::vector<ir::RankId> v = nat;
      ir::RankId r = v[i];
      v.erase(v.begin() + static_cast<long>(i));
      v.insert(v.begin() + static_cast<long>(j), r);
      c.flat.insert(c.flat.end(), v.begin(), v.end());
    }
  return c;
}

struct Search {
  const ir::Program& p;
  const ir::Dag& dag;
  const std::vector<EdgeClass>& cls;
  std::vector<Order> order;  // empty = not yet chosen (points into the candidates)
  std::vector<std::vector<int>> layout;
  mutable uint64_t steps = 0;  // edge evaluations: the search's unit of work

  bool mac(ir::OpId o) const { return p.ops[o].kind != ir::OpKind::Host; }

  bool swizzled(const ir::Op& consumer, ir::TensorId t, Order ord, const std::vector<int>& lay) const {
    for (const ir::Operand& x : consumer.in)
      if (x.tensor == t && !walks_as(x, ord, lay)) return true;
    return false;
  }

  void out_layout(ir::OpId o, Order ord, std::vector<int>& lay) const {
    const ir::Operand& x = p.ops[o].out;
    lay.resize(x.idx.size());
    for (size_t d = 0; d < lay.size(); ++d) lay[d] = static_cast<int>(d);
    if (!mac(o)) return;
    // Insertion sort by key: stable, and dimensions are few.
    for (size_t i = 1; i < lay.size(); ++i)
      for (size_t j = i; j > 0 && key(x, static_cast<size_t>(lay[j - 1]), ord) > key(x, static_cast<size_t>(lay[j]), ord); --j)
        std::swap(lay[j - 1], lay[j]);
  }

  // Cost of one edge with both ends' orders as currently chosen (0 if either end
  // is not chosen yet). The objective is the sum over edges plus input costs.
  double edge_cost(int e) const {
    ++steps;
    const ir::Edge& ed = dag.edges[e];
    if (order[ed.src].empty() || order[ed.dst].empty() || !mac(ed.dst)) return 0;
    const ir::Op& v = p.ops[ed.dst];
    const bool sw = swizzled(v, ed.tensor, order[ed.dst], layout[ed.tensor]);
    if (!is_pipelined_class(cls[e])) return sw ? kSwizzle : 0;
    double c = sw ? kHard : 0;
    if (!indexes(v, ed.tensor, order[ed.dst][0])) c += kHard;
    if (ir::is_contracted(p.ops[ed.src], order[ed.src][0])) c += kHard;
    return c;
  }

  double input_cost(ir::OpId o) const {
    double c = 0;
    for (const ir::Operand& x : p.ops[o].in) {
      const ir::Tensor& t = p.tensors[x.tensor];
      if (t.input && !walks_natural(x, order[o])) c += t.format == ir::Format::Csr ? kHard : kInput;
    }
    return c;
  }

  // Everything o's order affects: its inputs and its edges. A pipelined out-edge
  // to a consumer not chosen yet still needs an uncontracted outermost rank.
  double local_cost(ir::OpId o) const {
    double c = input_cost(o);
    for (int e : dag.in_edges[o]) c += edge_cost(e);
    for (int e : dag.out_edges[o]) {
      c += edge_cost(e);
      if (order[dag.edges[e].dst].empty() && is_pipelined_class(cls[e]) && ir::is_contracted(p.ops[o], order[o][0]))
        c += kHard;
    }
    return c;
  }

  // local_cost with o's order set to ord (restored afterwards).
  double cost(ir::OpId o, Order ord) {
    const Order keep = order[o];
    assign(o, ord);
    double c = local_cost(o);
    restore(o, keep);
    return c;
  }

  // Cost of everything touching u or v, each edge once.
  double pair_cost(ir::OpId u, ir::OpId v) const {
    double c = input_cost(u) + input_cost(v);
    for (ir::OpId o : {u, v})
      for (const auto* list : {&dag.in_edges[o], &dag.out_edges[o]})
        for (int e : *list) {
          const ir::Edge& ed = dag.edges[e];
          if (o == v && (ed.src == u || ed.dst == u)) continue;  // counted with u
          c += edge_cost(e);
        }
    return c;
  }

  void restore(ir::OpId o, Order ord) {
    if (ord.empty()) {
      order[o] = Order();
    } else {
      assign(o, ord);
    }
  }

  void assign(ir::OpId o, Order ord) {
    out_layout(o, ord, layout[p.ops[o].out.tensor]);
    order[o] = ord;
  }
};

}  // namespace

std::vector<int> traversal(const ir::Operand& x, const std::vector<ir::RankId>& order) {
  std::vector<int> dims(x.idx.size());
  std::iota(dims.begin(), dims.end(), 0);
  std::stable_sort(dims.begin(), dims.end(), [&](int a, int b) {
    return key(x, static_cast<size_t>(a), order) < key(x, static_cast<size_t>(b), order);
  });
  return dims;
}

LoopOrders choose_loop_orders(const ir::Program& p, const ir::Dag& dag, const std::vector<OpDominance>& dom,
                              const std::vector<EdgeClass>& cls, int sweeps) {
  const int n = static_cast<int>(p.ops.size());
  Search s{p, dag, cls, std::vector<Order>(n), std::vector<std::vector<int>>(p.tensors.size())};
  for (size_t t = 0; t < p.tensors.size(); ++t) {
    s.layout[t].resize(p.tensors[t].dims.size());
    std::iota(s.layout[t].begin(), s.layout[t].end(), 0);
  }
  std::vector<Candidates> cand(n);
  for (ir::OpId o = 0; o < n; ++o) cand[o] = candidates(p.ops[o], dom[o]);

  auto best_of = [&](ir::OpId o, double& best_cost) {  // o's cheapest candidate
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
  auto lookahead = [&](ir::OpId o, Order ord) {
    s.assign(o, ord);
    double total = 0;
    for (int e : dag.out_edges[o]) {
      const ir::OpId v = dag.edges[e].dst;
      if (!s.mac(v)) continue;
      double best = s.cost(v, cand[v][0]);
      for (size_t k = 1; k < cand[v].size() && best > 0; ++k) best = std::min(best, s.cost(v, cand[v][k]));
      total += best;
    }
    s.restore(o, Order());
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
  // A pair that could not improve is retried only after one of its ops changed.
  std::vector<uint32_t> version(n, 0);
  std::vector<std::pair<uint32_t, uint32_t>> tried(dag.edges.size(), {UINT32_MAX, UINT32_MAX});
  for (int sweep = 0; sweep < sweeps; ++sweep) {
    bool changed = false;
    for (ir::OpId o = 0; o < n; ++o) {
      if (cand[o].size() < 2) continue;
      double now = s.local_cost(o), c;
      size_t k = best_of(o, c);
      if (c < now - 1e-9) {
        s.assign(o, cand[o][k]);
        ++version[o];
        changed = true;
      }
    }
    for (size_t e = 0; e < dag.edges.size(); ++e) {
      const ir::OpId u = dag.edges[e].src, v = dag.edges[e].dst;
      const size_t degree = dag.in_edges[u].size() + dag.out_edges[u].size() + dag.in_edges[v].size() +
                            dag.out_edges[v].size();
      if (!s.mac(u) || !s.mac(v) || cand[u].size() * cand[v].size() > kLookaheadBudget || degree > kPairDegree ||
          tried[e] == std::pair{version[u], version[v]} || s.edge_cost(static_cast<int>(e)) == 0)
        continue;
      const Order ou = s.order[u], ov = s.order[v];
      const double now = s.pair_cost(u, v);
      double best = now;
      size_t bu = 0, bv = 0;
      for (size_t a = 0; a < cand[u].size(); ++a) {
        s.assign(u, cand[u][a]);
        for (size_t b = 0; b < cand[v].size(); ++b) {
          s.assign(v, cand[v][b]);
          double c = s.pair_cost(u, v);
          if (c < best - 1e-9) best = c, bu = a, bv = b;
        }
      }
      if (best < now - 1e-9) {
        s.assign(u, cand[u][bu]);
        s.assign(v, cand[v][bv]);
        ++version[u], ++version[v];
        changed = true;
      } else {
        s.assign(u, ou);
        s.assign(v, ov);
        tried[e] = {version[u], version[v]};
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
  r.steps = s.steps;
  r.order.resize(n);
  for (ir::OpId o = 0; o < n; ++o) r.order[o].assign(s.order[o].begin(), s.order[o].end());
  r.layout = std::move(s.layout);
  return r;
}

}  // namespace cello::score
