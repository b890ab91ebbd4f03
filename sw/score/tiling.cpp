#include "sw/score/tiling.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace cello::score {

namespace {

// Tiles of one op; tile[] is indexed by rank id and shared between ops (only the
// op's own ranks are meaningful while it is being tiled).
struct OpTiler {
  const ir::Program& p;
  std::vector<double>& tile;
  std::vector<const ir::Operand*> operands;  // distinct tensors, output first
  ir::TensorId rf = -1;
  ir::RankId gather = -1;  // compressed rank of a CSR operand: its dense partner is gathered

  OpTiler(const ir::Program& prog, const ir::Op& op, std::vector<double>& t) : p(prog), tile(t) {
    operands.push_back(&op.out);
    for (const ir::Operand& x : op.in) {
      bool dup = false;
      for (const ir::Operand* y : operands) dup |= y->tensor == x.tensor;
      if (!dup) operands.push_back(&x);
      if (p.tensors[x.tensor].format == ir::Format::Csr) gather = x.idx[1].a;
    }
  }

  // Dense operands subscripted by the gathered rank are read at random (from CHORD),
  // not streamed through the pipeline buffer.
  bool gathered(const ir::Operand& x) const {
    if (gather < 0 || p.tensors[x.tensor].format == ir::Format::Csr) return false;
    for (const ir::Index& i : x.idx)
      if (i.a == gather) return true;
    return false;
  }

  double extent(const ir::Operand& x, size_t d) const {
    const ir::Index& i = x.idx[d];
    double e = tile[i.a] + (i.window() ? tile[i.b] - 1 : 0);
    return std::min(e, static_cast<double>(p.ranks[p.tensors[x.tensor].dims[d]].size));
  }

  // Buffer words for one tile step (register-file tensor and gathered operands excluded).
  double words() const {
    double w = 0;
    for (const ir::Operand* x : operands) {
      if (x->tensor == rf || gathered(*x)) continue;
      const ir::Tensor& t = p.tensors[x->tensor];
      if (t.format == ir::Format::Csr) {
        double rows = extent(*x, 0);
        double per_row = static_cast<double>(t.nnz) / static_cast<double>(p.ranks[t.dims[0]].size);
        w += rows * (2 * per_row + 1) + 1;
        continue;
      }
      double v = 1;
      for (size_t d = 0; d < x->idx.size(); ++d) v *= extent(*x, d);
      w += v;
    }
    return w;
  }
};

int find(std::vector<int>& parent, int x) {
  while (parent[x] != x) x = parent[x] = parent[parent[x]];
  return x;
}

// Dimension of x subscripted by rank r (plain or window), -1 if none.
int dim_of(const ir::Operand& x, ir::RankId r) {
  for (size_t d = 0; d < x.idx.size(); ++d)
    if (x.idx[d].a == r || x.idx[d].b == r) return static_cast<int>(d);
  return -1;
}

}  // namespace

Tiling tile_ops(const ir::Program& p, const ir::Dag& dag, const LoopOrders& lo, const std::vector<char>& pipelined,
                const Target& target) {
  const int n = static_cast<int>(p.ops.size());
  const double cap = static_cast<double>(target.pipeline_buffer_words);
  const double rf_cap = static_cast<double>(target.rf_words);
  Tiling r;
  r.loops.resize(n);
  r.rf_tensor.assign(n, -1);
  r.tile_words.assign(n, 0);
  std::vector<double> tile(p.ranks.size(), 1);
  std::vector<std::vector<double>> tiles(n);  // per op, aligned with its loop order

  for (ir::OpId o = 0; o < n; ++o) {
    const ir::Op& op = p.ops[o];
    const std::vector<ir::RankId>& order = lo.order[o];
    for (ir::RankId rk : order) tile[rk] = static_cast<double>(p.ranks[rk].size);
    if (op.kind != ir::OpKind::Host) {
      OpTiler t(p, op, tile);
      double best = rf_cap + 1;
      for (const ir::Operand* x : t.operands) {
        double w = ir::tensor_words(p, x->tensor);
        if (p.tensors[x->tensor].format == ir::Format::Dense && w <= rf_cap && w < best) best = w, t.rf = x->tensor;
      }
      std::vector<ir::RankId> locked;
      if (t.gather >= 0) locked.push_back(t.gather);
      for (const ir::Operand* x : t.operands)
        if (x->tensor == t.rf)
          for (const ir::Index& i : x->idx) {
            locked.push_back(i.a);
            if (i.window()) locked.push_back(i.b);
          }
      auto is_locked = [&](ir::RankId rk) { return std::find(locked.begin(), locked.end(), rk) != locked.end(); };
      const ir::RankId outer = order[0];
      if (t.words() > cap && !is_locked(outer)) {
        tile[outer] = 1;
        while (t.words() > cap) {
          ir::RankId pick = -1;
          for (size_t k = 1; k < order.size(); ++k)
            if (!is_locked(order[k]) && tile[order[k]] > 1 && (pick < 0 || tile[order[k]] > tile[pick])) pick = order[k];
          if (pick < 0) break;
          tile[pick] = std::ceil(tile[pick] / 2);
        }
        // One outer step costs a words, the rest b: the largest tile with a*T + b <= cap.
        const double size = static_cast<double>(p.ranks[outer].size);
        tile[outer] = 0;
        const double b = t.words();
        tile[outer] = 1;
        const double a = t.words() - b;
        double v = a > 0 ? std::floor((cap - b) / a) : size;
        v = std::clamp(v, 1.0, size);
        if (v >= target.pe_rows) v -= std::fmod(v, static_cast<double>(target.pe_rows));
        tile[outer] = v;
      }
      r.rf_tensor[o] = t.rf;
    }
    for (ir::RankId rk : order) tiles[o].push_back(tile[rk]);
  }

  // Ops joined by pipelined edges whose outer ranks walk the same tensor dimension
  // share the smallest outer tile.
  std::vector<int> parent(n);
  std::iota(parent.begin(), parent.end(), 0);
  for (size_t e = 0; e < dag.edges.size(); ++e) {
    if (!pipelined[e]) continue;
    const ir::Edge& ed = dag.edges[e];
    int du = dim_of(p.ops[ed.src].out, lo.order[ed.src][0]);
    int dv = -1;
    for (const ir::Operand& x : p.ops[ed.dst].in)
      if (x.tensor == ed.tensor && dv < 0) dv = dim_of(x, lo.order[ed.dst][0]);
    if (du >= 0 && du == dv) parent[find(parent, ed.src)] = find(parent, ed.dst);
  }
  std::vector<double> group_tile(n, -1);
  for (ir::OpId o = 0; o < n; ++o) {
    int g = find(parent, o);
    group_tile[g] = group_tile[g] < 0 ? tiles[o][0] : std::min(group_tile[g], tiles[o][0]);
  }
  for (ir::OpId o = 0; o < n; ++o) {
    const std::vector<ir::RankId>& order = lo.order[o];
    if (p.ops[o].kind != ir::OpKind::Host) {
      tiles[o][0] = std::min(tiles[o][0], group_tile[find(parent, o)]);
      for (size_t k = 0; k < order.size(); ++k) tile[order[k]] = tiles[o][k];
      OpTiler t(p, p.ops[o], tile);
      t.rf = r.rf_tensor[o];
      r.tile_words[o] = t.words();
    }
    for (size_t k = 0; k < order.size(); ++k)
      r.loops[o].push_back({order[k], p.ranks[order[k]].size, static_cast<int64_t>(tiles[o][k])});
  }
  return r;
}

}  // namespace cello::score
