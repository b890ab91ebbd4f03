#include "score/binding.hpp"

namespace cello::score {

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
    if (x.format == ir::Format::Dense && ir::tensor_words(p, static_cast<ir::TensorId>(t)) <= target.rf_words)
      b.tensor[t] = Binding::RegisterFile;
    else if (!x.input && !x.output && all_piped[t])
      b.tensor[t] = Binding::PipelineBuffer;
  }
  for (size_t e = 0; e < ne; ++e)
    if (b.edge[e] != Binding::PipelineBuffer) b.edge[e] = b.tensor[dag.edges[e].tensor];
  return b;
}

}  // namespace cello::score
