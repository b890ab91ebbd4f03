#include "sw/score/binding.hpp"

namespace cello::score {

namespace {

bool subscripted(const ir::Operand& x, ir::RankId r0, ir::RankId r1) {
  return x.idx.size() == 2 && !x.idx[0].window() && !x.idx[1].window() && x.idx[0].a == r0 && x.idx[1].a == r1;
}

// The register file holds the stationary operand of a dense GEMM, Z[m,n] (+)=
// A[m,k] * B[k,n]: B (either factor, as written) may live there; the streamed
// factor, a Gram or SpMM operand, an element-wise operand and an accumulated C
// may not (docs/score.md, "Binding"). HOST reads anything.
bool register_file_reads_only(const ir::Program& p, ir::TensorId t) {
  for (const ir::Op& op : p.ops) {
    if (op.kind == ir::OpKind::Host) continue;
    for (size_t i = 0; i < op.in.size(); ++i) {
      if (op.in[i].tensor != t) continue;
      if (op.kind != ir::OpKind::Contract || op.out.idx.size() != 2 || (op.acc && i == 0)) return false;
      const size_t first = op.acc ? 1 : 0;
      if (op.in.size() != first + 2) return false;
      const ir::Operand& other = op.in[i == first ? first + 1 : first];
      const ir::RankId r0 = op.out.idx[0].a, r1 = op.out.idx[1].a;
      if (op.in[i].idx.size() != 2) return false;
      const ir::RankId k = op.in[i].idx[0].a;
      if (k == r0 || k == r1 || !subscripted(op.in[i], k, r1) || !subscripted(other, r0, k) ||
          p.tensors[static_cast<size_t>(other.tensor)].format != ir::Format::Dense)
        return false;
    }
  }
  return true;
}

}  // namespace

Bindings bind_tensors(const ir::Program& p, const ir::Dag& dag, const std::vector<EdgeClass>& cls,
              const std::vector<char>& loop_ok, const std::vector<int>& span, const Target& target) {
  Bindings b;
  const size_t ne = dag.edges.size();
  b.edge.assign(ne, Binding::Chord);
  b.hold_tiles.assign(ne, 0);
  std::vector<char> all_piped(p.tensors.size(), 1);
  for (size_t e = 0; e < ne; ++e) {
    bool piped = is_pipelined_class(cls[e]) && loop_ok[e];
    if (!piped) all_piped[dag.edges[e].tensor] = 0;
    if (piped) b.edge[e] = Binding::PipelineBuffer;
    if (piped && cls[e] == EdgeClass::DelayedHold) b.hold_tiles[e] = span[e];
  }
  b.tensor.assign(p.tensors.size(), Binding::Chord);
  for (size_t t = 0; t < p.tensors.size(); ++t) {
    const ir::Tensor& x = p.tensors[t];
    const auto id = static_cast<ir::TensorId>(t);
    if (x.format == ir::Format::Dense && ir::tensor_words(p, id) <= target.rf_words && register_file_reads_only(p, id))
      b.tensor[t] = Binding::RegisterFile;
    else if (!x.input && !x.output && all_piped[t])
      b.tensor[t] = Binding::PipelineBuffer;
  }
  for (size_t e = 0; e < ne; ++e)
    if (b.edge[e] != Binding::PipelineBuffer) b.edge[e] = b.tensor[dag.edges[e].tensor];
  return b;
}

}  // namespace cello::score
