#include "sw/score/dominance.hpp"

#include <algorithm>
#include <cstdint>

namespace cello::score {

double effective_size(const ir::Program& p, const ir::Op& op, ir::RankId r) {
  for (const ir::Operand& x : op.in) {
    const ir::Tensor& t = p.tensors[x.tensor];
    if (t.format == ir::Format::Csr && x.idx.size() == 2 && x.idx[1].a == r)
      return static_cast<double>(t.nnz) / static_cast<double>(p.ranks[t.dims[0]].size);
  }
  return static_cast<double>(p.ranks[r].size);
}

OpDominance op_dominance(const ir::Program& p, const ir::Op& op, const Thresholds& th) {
  const std::vector<ir::RankId> ranks = ir::op_ranks(op);
  // Signature: which operands (output first) a rank subscripts; operands past
  // the 64th (only host ops have that many) share the last bit.
  auto signature = [&](ir::RankId r) {
    uint64_t s = 0;
    auto has = [&](const ir::Operand& x) {
      for (const ir::Index& i : x.idx)
        if (i.a == r || i.b == r) return true;
      return false;
    };
    if (has(op.out)) s |= 1;
    for (size_t k = 0; k < op.in.size(); ++k)
      if (has(op.in[k])) s |= uint64_t{1} << std::min<size_t>(k + 1, 63);
    return s;
  };
  // Groups in order of their first rank.
  std::vector<uint64_t> sig;
  std::vector<std::vector<ir::RankId>> groups;
  for (ir::RankId r : ranks) {
    uint64_t s = signature(r);
    size_t g = std::find(sig.begin(), sig.end(), s) - sig.begin();
    if (g == sig.size()) sig.push_back(s), groups.emplace_back();
    groups[g].push_back(r);
  }
  if (groups.size() == 1) {
    groups.clear();
    for (ir::RankId r : ranks) groups.push_back({r});
  }
  std::vector<double> size(groups.size(), 1.0);
  for (size_t g = 0; g < groups.size(); ++g)
    for (ir::RankId r : groups[g]) size[g] *= effective_size(p, op, r);

  OpDominance d;
  for (size_t g = 0; g < groups.size(); ++g) {
    double others = 0;
    for (size_t h = 0; h < groups.size(); ++h)
      if (h != g) others = std::max(others, size[h]);
    if (size[g] > th.dominant_min && size[g] > th.dominant_ratio * others) {
      d.dominant = groups[g];
      d.dominance = ir::is_contracted(op, groups[g][0]) ? Dominance::Contracted : Dominance::Uncontracted;
      return d;
    }
  }
  double smallest = size.empty() ? 0 : *std::min_element(size.begin(), size.end());
  d.dominance = smallest >= th.balanced_min ? Dominance::Balanced : Dominance::Small;
  return d;
}

bool shares_dominant(const ir::Op& consumer, const OpDominance& d, ir::TensorId t) {
  if (d.dominant.empty()) return true;
  for (const ir::Operand& x : consumer.in) {
    if (x.tensor != t) continue;
    for (const ir::Index& i : x.idx)
      for (ir::RankId r : d.dominant)
        if (i.a == r || i.b == r) return true;
  }
  return false;
}

}  // namespace cello::score
