#include "sw/bound/from_ir.hpp"

#include <algorithm>
#include <set>

namespace cello::bound {

std::vector<Einsum> dense_einsums(const ir::Program& p) {
  std::vector<Einsum> out;
  std::set<std::string> seen;
  for (const auto& op : p.ops) {
    if (op.kind != ir::OpKind::Contract) continue;
    bool ok = true;
    auto check = [&](const ir::Operand& o) {
      if (p.tensors[static_cast<size_t>(o.tensor)].format == ir::Format::Csr) ok = false;
      for (const auto& ix : o.idx) ok = ok && !ix.window();
    };
    for (const auto& o : op.in) check(o);
    check(op.out);
    if (!ok) continue;
    Einsum e;
    e.name = op.name;
    std::vector<ir::RankId> ranks = ir::op_ranks(op);
    for (auto r : ranks) e.ranks.push_back({p.ranks[static_cast<size_t>(r)].name, static_cast<uint64_t>(p.ranks[static_cast<size_t>(r)].size)});
    auto use = [&](const ir::Operand& o) {
      TensorUse t;
      t.name = p.tensors[static_cast<size_t>(o.tensor)].name;
      for (const auto& ix : o.idx)
        t.ranks.push_back(static_cast<int>(std::find(ranks.begin(), ranks.end(), ix.a) - ranks.begin()));
      return t;
    };
    for (const auto& o : op.in) e.inputs.push_back(use(o));
    e.output = use(op.out);
    // Shape signature: rank sizes and which ranks each tensor uses.
    std::string sig;
    for (const auto& r : e.ranks) sig += std::to_string(r.size) + ",";
    for (const auto& t : e.inputs) {
      sig += "|";
      for (int r : t.ranks) sig += std::to_string(r) + ",";
    }
    sig += "->";
    for (int r : e.output.ranks) sig += std::to_string(r) + ",";
    if (!seen.insert(sig).second) continue;
    try {
      e.validate();
    } catch (...) {
      continue;
    }
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace cello::bound
