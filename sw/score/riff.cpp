#include "sw/score/riff.hpp"

#include <algorithm>

namespace cello::score {

ReuseAt riff_at(const std::vector<ir::OpId>& reads, int t) {
  ReuseAt r;
  auto it = std::upper_bound(reads.begin(), reads.end(), t);
  if (it == reads.end()) return r;
  r.next_use = *it;
  r.distance = *it - t;
  r.remaining = static_cast<int>(reads.end() - it);
  return r;
}

RiffMeta riff_metadata(const ir::Program& p, const ir::Dag& dag, const std::vector<Binding>& tb,
                       const std::vector<Binding>& eb) {
  const int n = static_cast<int>(p.ops.size());
  RiffMeta m;
  m.mem_reads.assign(p.tensors.size(), {});
  m.updates.assign(n, {});
  // Inputs: every consumer reads from memory. Produced tensors: non-pipelined edges.
  for (ir::OpId o = 0; o < n; ++o)
    for (const ir::Operand& x : p.ops[o].in)
      if (p.tensors[x.tensor].input && tb[x.tensor] == Binding::Chord) {
        auto& r = m.mem_reads[x.tensor];
        if (r.empty() || r.back() != o) r.push_back(o);
      }
  for (size_t e = 0; e < dag.edges.size(); ++e) {
    const ir::Edge& ed = dag.edges[e];
    if (tb[ed.tensor] == Binding::Chord && eb[e] == Binding::Chord) m.mem_reads[ed.tensor].push_back(ed.dst);
  }
  for (auto& r : m.mem_reads) std::sort(r.begin(), r.end());  // edges are grouped by consumer already

  auto update = [&](ir::TensorId t, int at, RiffUpdate::Action a) {
    RiffUpdate u;
    u.tensor = t;
    u.action = a;
    ReuseAt r = riff_at(m.mem_reads[t], a == RiffUpdate::Action::Register ? at - 1 : at);
    u.next_use = r.next_use;
    u.distance = r.next_use < 0 ? 0 : r.next_use - at;
    u.remaining = r.remaining;
    return u;
  };
  for (ir::OpId o = 0; o < n; ++o) {
    auto& ups = m.updates[o];
    std::vector<ir::TensorId> read;
    for (const ir::Operand& x : p.ops[o].in)
      if (std::find(read.begin(), read.end(), x.tensor) == read.end()) read.push_back(x.tensor);
    for (ir::TensorId t : read)
      if (p.tensors[t].input && tb[t] == Binding::Chord && !m.mem_reads[t].empty() && m.mem_reads[t].front() == o)
        ups.push_back(update(t, o, RiffUpdate::Action::Register));
    const ir::TensorId out = p.ops[o].out.tensor;
    if (tb[out] == Binding::Chord) ups.push_back(update(out, o, RiffUpdate::Action::Register));
    for (ir::TensorId t : read) {
      if (tb[t] != Binding::Chord || !std::binary_search(m.mem_reads[t].begin(), m.mem_reads[t].end(), o)) continue;
      RiffUpdate u = update(t, o, RiffUpdate::Action::Update);
      if (u.remaining == 0) u.action = RiffUpdate::Action::Release;
      ups.push_back(u);
    }
    if (tb[out] == Binding::Chord && m.mem_reads[out].empty()) ups.push_back(update(out, o, RiffUpdate::Action::Release));
  }
  return m;
}

}  // namespace cello::score
