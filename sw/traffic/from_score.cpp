#include "sw/traffic/from_score.hpp"

#include <fmt/core.h>

#include <algorithm>

#include "sw/common/error.hpp"

namespace cello::traffic {

namespace {

bool subscripts(const ir::Operand& o, ir::RankId r) {
  for (const auto& ix : o.idx)
    if (ix.a == r || ix.b == r) return true;
  return false;
}

}  // namespace

Workload from_schedule(const score::Schedule& s, const std::shared_ptr<const mtx::CsrPattern>& matrix,
                       unsigned word_bytes) {
  const ir::Program& p = s.program;
  const std::string file = p.name.empty() ? "schedule" : p.name;
  Workload w;
  w.name = p.name;
  w.word_bytes = word_bytes;
  for (size_t t = 0; t < p.tensors.size(); ++t) {
    const ir::Tensor& x = p.tensors[t];
    Tensor y;
    y.name = x.name;
    auto dot = x.name.find('.');
    y.storage = dot == std::string::npos ? "" : x.name.substr(0, dot);
    y.input = x.input;
    y.output = x.output;
    if (x.format == ir::Format::Csr) {
      if (!matrix) throw Error(file, "tensor " + x.name, "a CSR tensor needs a matrix");
      const int64_t rows = p.ranks[static_cast<size_t>(x.dims.at(0))].size;
      if (rows != matrix->rows || x.nnz != matrix->nnz())
        throw Error(file, "tensor " + x.name,
                    fmt::format("the IR says {} rows / {} nnz, the matrix has {} / {}", rows, x.nnz, matrix->rows,
                                matrix->nnz()));
      y.csr = matrix;
    } else {
      std::vector<int> order;
      if (t < s.tensors.size() && s.tensors[t].layout.size() == x.dims.size())
        order = s.tensors[t].layout;
      else
        for (size_t d = 0; d < x.dims.size(); ++d) order.push_back(static_cast<int>(d));
      y.rows = 1;
      y.row_words = 1;
      for (size_t k = 0; k < order.size(); ++k) {
        const auto size = static_cast<uint64_t>(p.ranks[static_cast<size_t>(x.dims[static_cast<size_t>(order[k])])].size);
        if (k == 0)
          y.rows = size;
        else
          y.row_words *= size;
      }
    }
    if (t < s.tensors.size()) {
      y.bind = s.tensors[t].binding == score::Binding::Chord ? Bind::Chord : Bind::OnChip;
      y.mem_reads.assign(s.tensors[t].mem_reads.begin(), s.tensors[t].mem_reads.end());
      std::sort(y.mem_reads.begin(), y.mem_reads.end());
      y.mem_reads.erase(std::unique(y.mem_reads.begin(), y.mem_reads.end()), y.mem_reads.end());
    }
    w.tensors.push_back(std::move(y));
  }
  for (size_t i = 0; i < p.ops.size(); ++i) {
    const ir::Op& op = p.ops[i];
    const score::OpSchedule* os = i < s.ops.size() ? &s.ops[i] : nullptr;
    const ir::RankId outer = os && !os->loops.empty() ? os->loops.front().rank : -1;
    const ir::TensorId rf = os ? os->rf_tensor : -1;
    const bool host = op.kind == ir::OpKind::Host;
    Op o;
    o.name = op.name;
    o.macs = static_cast<uint64_t>(ir::op_macs(p, op));
    // The CSR operand (if any) and its column rank.
    int csr = -1;
    ir::RankId csr_col = -1;
    for (const auto& in : op.in)
      if (p.tensors[static_cast<size_t>(in.tensor)].format == ir::Format::Csr && in.idx.size() >= 2) {
        csr = in.tensor;
        csr_col = in.idx[1].a;
      }
    for (const auto& in : op.in) {
      Operand x;
      x.tensor = in.tensor;
      const bool sparse = p.tensors[static_cast<size_t>(in.tensor)].format == ir::Format::Csr;
      if (sparse)
        x.use = Use::Stream;
      else if (host || in.tensor == rf)
        x.use = Use::Whole;
      else if (csr >= 0 && subscripts(in, csr_col) && !subscripts(in, outer)) {
        x.use = Use::Gather;
        x.index_by = csr;
      } else if (outer >= 0 && subscripts(in, outer))
        x.use = Use::Stream;
      else
        x.use = Use::Whole;
      o.in.push_back(x);
    }
    if (os)
      for (const auto& u : os->riff) {
        RiffCmd c;
        c.tensor = u.tensor;
        c.action = u.action == score::RiffUpdate::Action::Register ? RiffCmd::Action::Register
                   : u.action == score::RiffUpdate::Action::Update ? RiffCmd::Action::Update
                                                                   : RiffCmd::Action::Release;
        c.distance = static_cast<uint32_t>(std::max(0, u.distance));
        c.remaining = static_cast<uint32_t>(std::max(0, u.remaining));
        o.riff.push_back(c);
      }
    o.out = op.out.tensor;
    o.out_use = (!host && outer >= 0 && subscripts(op.out, outer)) ? Use::Stream : Use::Whole;
    w.ops.push_back(std::move(o));
  }
  for (size_t e = 0; e < s.dag.edges.size(); ++e) {
    const auto& de = s.dag.edges[e];
    Edge x;
    x.src = de.src;
    x.dst = de.dst;
    x.tensor = de.tensor;
    if (e < s.edges.size()) {
      const auto& es = s.edges[e];
      x.cls = es.cls;
      if (score::is_pipelined_class(es.cls) && es.binding != score::Binding::PipelineBuffer)
        x.cls = EdgeClass::Sequential;
    }
    w.edges.push_back(x);
  }
  w.score = s.tensors.size() == p.tensors.size() && s.ops.size() == p.ops.size();
  w.validate();
  return w;
}

}  // namespace cello::traffic
