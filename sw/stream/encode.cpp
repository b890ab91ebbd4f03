#include "sw/stream/encode.hpp"

#include <fmt/core.h>

#include <algorithm>

#include "sw/common/error.hpp"
#include "sw/common/enum_names.hpp"
#include "sw/traffic/from_score.hpp"
#include "sw/traffic/trace.hpp"

namespace cello::stream {

constexpr const char* kModeNames[] = {"GEMM", "GRAM", "SPMM", "ELTW", "HOST"};
static_assert(names_cover(kModeNames, Mode::Host));
const char* to_string(Mode m) { return name_of(m, kModeNames); }

namespace {

[[noreturn]] void refuse(const ir::Op& op, const std::string& why) { throw Error("", "op " + op.name, why); }

bool is_rank_pair(const ir::Operand& x, ir::RankId r0, ir::RankId r1) {
  return x.idx.size() == 2 && !x.idx[0].window() && !x.idx[1].window() && x.idx[0].a == r0 && x.idx[1].a == r1;
}

}  // namespace

OpPlan plan_op(const ir::Program& p, size_t i, const arch::Arch& a) {
  const ir::Op& op = p.ops[i];
  OpPlan pl;
  auto dims_ok = [&](const ir::Operand& x) {
    const ir::Tensor& t = p.tensors[static_cast<size_t>(x.tensor)];
    if (t.dims.size() != 2)
      refuse(op, fmt::format("tensor {} has {} dimensions; the command set moves matrices (2 dimensions)", t.name,
                             t.dims.size()));
    for (const auto& ix : x.idx)
      if (ix.window()) refuse(op, "sliding-window subscripts (convolutions) are not lowered to GEMM");
  };
  dims_ok(op.out);
  for (const auto& x : op.in) dims_ok(x);
  if (p.tensors[static_cast<size_t>(op.out.tensor)].format != ir::Format::Dense)
    refuse(op, "the result must be dense");
  const ir::RankId r0 = op.out.idx[0].a, r1 = op.out.idx[1].a;
  if (op.kind == ir::OpKind::Host) {
    if ((op.fn != "solve" && op.fn != "omega") || op.in.size() != 2)
      refuse(op, fmt::format("host function '{}' with {} arguments has no HOST code (solve(D, G), omega(Ts, Tt))",
                             op.fn, op.in.size()));
    pl.mode = Mode::Host;
    return pl;
  }
  if (!op.fn.empty() && op.fn != "relu") refuse(op, "activation '" + op.fn + "' is not supported (relu)");
  if (op.kind == ir::OpKind::Eltwise) {
    for (const auto& x : op.in)
      if (!is_rank_pair(x, r0, r1) || p.tensors[static_cast<size_t>(x.tensor)].format != ir::Format::Dense)
        refuse(op, "element-wise operands must be dense and subscripted like the result");
    pl.mode = Mode::Eltw;
    return pl;
  }
  const int ia = op.acc ? 1 : 0, ib = ia + 1;
  if (op.acc && !is_rank_pair(op.in[0], r0, r1)) refuse(op, "the accumulated tensor must be subscripted like the result");
  const ir::Operand &fa = op.in[static_cast<size_t>(ia)], &fb = op.in[static_cast<size_t>(ib)];
  const bool csr_a = p.tensors[static_cast<size_t>(fa.tensor)].format == ir::Format::Csr;
  const bool csr_b = p.tensors[static_cast<size_t>(fb.tensor)].format == ir::Format::Csr;
  if (csr_a && csr_b) refuse(op, "a product of two CSR tensors is not supported");
  if (csr_a || csr_b) {
    const ir::Operand& s = csr_a ? fa : fb;
    const ir::Operand& d = csr_a ? fb : fa;
    if (!(s.idx[0].a == r0 && is_rank_pair(d, s.idx[1].a, r1)) || s.idx[1].a == r0 || s.idx[1].a == r1)
      refuse(op, "SpMM needs A[m,k] (CSR) * B[k,n] -> Z[m,n]");
    if (!a.spmm) refuse(op, "the MAC array was built without SpMM (mac_arrays[].spmm)");
    pl.mode = Mode::Spmm;
    pl.csr = csr_a ? ia : ib;
    pl.gathered = csr_a ? ib : ia;
    return pl;
  }
  // Dense contraction over one rank k.
  ir::RankId k = -1;
  for (const auto* x : {&fa, &fb})
    for (const auto& ix : x->idx)
      if (ix.a != r0 && ix.a != r1) k = ix.a;
  if (k >= 0 && is_rank_pair(fa, k, r0) && is_rank_pair(fb, k, r1)) {
    if (op.acc) refuse(op, "Gram with an accumulated tensor is not supported");
    if (op.beta != 1.0) refuse(op, "Gram needs beta = 1");
    if (!a.gram) refuse(op, "the MAC array was built without Gram (mac_arrays[].gram)");
    pl.mode = Mode::Gram;
    return pl;
  }
  if (k >= 0 && is_rank_pair(fa, r0, k) && is_rank_pair(fb, k, r1)) {
    pl.streamed = ia;
    pl.rf = ib;
  } else if (k >= 0 && is_rank_pair(fb, r0, k) && is_rank_pair(fa, k, r1)) {
    pl.streamed = ib;
    pl.rf = ia;
  } else {
    refuse(op, "contraction pattern not supported by the MAC array (GEMM A[m,j]*B[j,n], Gram A[k,i]*B[k,j], "
               "SpMM A_csr[m,k]*B[k,n])");
  }
  pl.mode = Mode::Gemm;
  pl.k = p.ranks[static_cast<size_t>(k)].size;
  if (op.beta != 1.0 && op.beta != -1.0)
    refuse(op, fmt::format("GEMM scales the register-file operand by beta = {}; only +1 and -1 are exact", op.beta));
  return pl;
}

namespace {

// Builds the records of one schedule.
class Encoder {
 public:
  Encoder(const score::Schedule& s, const arch::Arch& a, Compiled& c) : s_(s), a_(a), c_(c), p_(s.program) {}

  void run() {
    plan_chord();
    for (size_t t = 0; t < p_.tensors.size(); ++t) describe(t);
    for (size_t i = 0; i < p_.ops.size(); ++i) emit_op(i);
    c_.stream.records.push_back(Record::make(Opcode::End));
  }

 private:
  bool chord_bound(size_t t) const {
    return a_.has_chord() && s_.tensors[t].binding == score::Binding::Chord && !host_side_[t];
  }
  // Two rules of the top that SCORE's schedule does not know (docs/commands.md,
  // "Ordering rules"). The host reads and writes DRAM only, so a tensor a HOST
  // op names lives in DRAM (SCORE binds the N x N tensors to CHORD when the
  // register file cannot hold them). And the top reads an operand bound `pipe`
  // from where its producer wrote it (but for the GRAMs it fuses), so a
  // CHORD-bound intermediate's release waits for its last reader of any
  // binding: a release drops what CHORD holds of it.
  void plan_chord() {
    host_side_.assign(p_.tensors.size(), false);
    std::vector<size_t> last_read(p_.tensors.size(), 0);
    for (size_t i = 0; i < p_.ops.size(); ++i) {
      const ir::Op& op = p_.ops[i];
      if (c_.plans[i].mode == Mode::Host) host_side_[static_cast<size_t>(op.out.tensor)] = true;
      for (const auto& x : op.in) {
        last_read[static_cast<size_t>(x.tensor)] = i;
        if (c_.plans[i].mode == Mode::Host) host_side_[static_cast<size_t>(x.tensor)] = true;
      }
    }
    release_after_.assign(p_.ops.size(), {});
    for (size_t i = 0; i < p_.ops.size(); ++i)
      for (const auto& u : s_.ops[i].riff)
        if (u.action == score::RiffUpdate::Action::Release) {
          const auto t = static_cast<size_t>(u.tensor);
          release_after_[std::max(i, last_read[t])].push_back(t);
        }
  }
  bool mem_read(size_t t, size_t op) const {
    const auto& r = s_.tensors[t].mem_reads;
    return std::find(r.begin(), r.end(), static_cast<ir::OpId>(op)) != r.end();
  }
  // Where op i reads tensor t from.
  Bind read_bind(size_t t, size_t i) const {
    if (!a_.has_chord()) return Bind::Dram;
    if (s_.tensors[t].binding == score::Binding::Chord && mem_read(t, i)) return chord_bound(t) ? Bind::Chord : Bind::Dram;
    if (p_.tensors[t].input) return Bind::Dram;
    if (s_.tensors[t].binding == score::Binding::RegisterFile) return Bind::Rf;
    return Bind::Pipe;
  }
  // The flag of op i's launch (its last GEMM pass) when the next op is a GRAM
  // that takes op i's result Z through the pipeline buffer as its second
  // operand: pipe_gram when its first is Z too (Z^T Z), pipe_gram_x when op i
  // is an SPMM and the first is its dense operand (X^T Z).
  uint8_t pipe_gram_flag(size_t i) const {
    if (i + 1 >= p_.ops.size() || c_.plans[i + 1].mode != Mode::Gram) return 0;
    const ir::Op &g = p_.ops[i + 1], &op = p_.ops[i];
    const auto out = static_cast<size_t>(op.out.tensor);
    if (g.in.size() != 2 || static_cast<size_t>(g.in[1].tensor) != out || read_bind(out, i + 1) != Bind::Pipe) return 0;
    const auto first = static_cast<size_t>(g.in[0].tensor);
    if (first == out) return kLaunchPipeGram;
    if (c_.plans[i].mode != Mode::Spmm) return 0;
    for (const auto& x : op.in)
      if (static_cast<size_t>(x.tensor) == first && !c_.workload.tensors[first].csr) return kLaunchPipeGramX;
    return 0;
  }
  Bind write_bind(size_t t) const {
    if (!a_.has_chord()) return Bind::Dram;
    switch (s_.tensors[t].binding) {
      case score::Binding::Chord: return chord_bound(t) ? Bind::Chord : Bind::Dram;
      case score::Binding::RegisterFile: return Bind::Rf;
      case score::Binding::PipelineBuffer: return Bind::Pipe;
    }
    return Bind::Dram;
  }

  void describe(size_t t) {
    const ir::Tensor& x = p_.tensors[t];
    Record r = Record::make(Opcode::Tensor);
    const bool csr = x.format == ir::Format::Csr;
    r.set_field("format", csr ? 1 : 0);
    r.set_field("id", t);
    const auto& lay = s_.tensors[t].layout;
    const bool col_major = !csr && lay.size() == 2 && lay[0] == 1;
    r.set_field("flags", (x.input ? kTensorInput : 0) | (x.output ? kTensorOutput : 0) |
                             (chord_bound(t) ? kTensorChord : 0) | (col_major ? kTensorColMajor : 0));
    const auto& w = c_.workload.tensors[t];
    // The traffic view stores rows of the outer (stored) dimension; the descriptor keeps the logical shape.
    r.set_field("rows", csr ? static_cast<uint64_t>(w.csr->rows) : col_major ? w.row_words : w.rows);
    r.set_field("cols", csr ? static_cast<uint64_t>(w.csr->cols) : col_major ? w.rows : w.row_words);
    r.set_field("nnz", csr ? static_cast<uint64_t>(w.csr->nnz()) : 0);
    r.set_field("base", c_.base[t]);
    c_.descriptor.push_back(c_.stream.records.size());
    c_.stream.records.push_back(r);
    // The name, 28 characters per NAME record.
    for (size_t at = 0, part = 0; at < x.name.size(); at += 28, ++part) {
      Record n = Record::make(Opcode::Name);
      n.set_field("part", part);
      n.set_field("id", t);
      n.set_text(x.name.substr(at, 28));
      c_.stream.records.push_back(n);
    }
  }

  // Op i's CHORD_REG records (pre) or its CHORD_UPD records, then the
  // CHORD_REL records plan_chord() put after it.
  void riff(size_t i, bool pre) {
    for (const auto& u : s_.ops[i].riff) {
      const bool reg = u.action == score::RiffUpdate::Action::Register;
      if (reg != pre || u.action == score::RiffUpdate::Action::Release || !chord_bound(static_cast<size_t>(u.tensor)))
        continue;
      Record r = Record::make(reg ? Opcode::ChordReg : Opcode::ChordUpd);
      r.set_field("id", static_cast<uint64_t>(u.tensor));
      r.set_field("distance", static_cast<uint64_t>(std::max(0, u.distance)));
      r.set_field("remaining", static_cast<uint64_t>(std::max(0, u.remaining)));
      c_.stream.records.push_back(r);
    }
    if (pre) return;
    for (size_t t : release_after_[i]) {
      if (!chord_bound(t)) continue;
      Record r = Record::make(Opcode::ChordRel);
      r.set_field("id", static_cast<uint64_t>(t));
      c_.stream.records.push_back(r);
    }
  }

  void emit_op(size_t i) {
    const ir::Op& op = p_.ops[i];
    const OpPlan& pl = c_.plans[i];
    riff(i, true);
    if (pl.mode == Mode::Host) {
      c_.stream.records.push_back(Record::make(Opcode::Fence));
      Record r = Record::make(Opcode::Host);
      r.set_field("fn", op.fn == "solve" ? 1 : 2);
      r.set_field("out", static_cast<uint64_t>(op.out.tensor));
      r.set_field("a", static_cast<uint64_t>(op.in[0].tensor));
      r.set_field("b", static_cast<uint64_t>(op.in[1].tensor));
      c_.stream.records.push_back(r);
    } else {
      launch(i);
    }
    riff(i, false);
  }

  void launch(size_t i) {
    const ir::Op& op = p_.ops[i];
    const OpPlan& pl = c_.plans[i];
    const traffic::Op& wo = c_.workload.ops[i];
    const Opcode code = pl.mode == Mode::Gemm   ? Opcode::Gemm
                        : pl.mode == Mode::Gram ? Opcode::Gram
                        : pl.mode == Mode::Spmm ? Opcode::Spmm
                                                : Opcode::Eltw;
    Record r = Record::make(code);
    const bool with_c = op.kind == ir::OpKind::Contract && op.acc;
    const int ia = with_c ? 1 : 0;
    uint64_t binds = static_cast<uint64_t>(write_bind(static_cast<size_t>(op.out.tensor)));
    uint64_t uses = wo.out_use == traffic::Use::Whole ? 1 : 0;
    auto role = [&](int slot, int in_index) {  // slot 1 = a, 2 = b, 3 = c
      const auto t = static_cast<size_t>(op.in[static_cast<size_t>(in_index)].tensor);
      r.set_field(slot == 1 ? "a" : slot == 2 ? "b" : "c", t);
      Bind b = read_bind(t, i);
      if (pl.mode == Mode::Gemm && in_index == pl.rf) b = Bind::Rf;
      binds |= static_cast<uint64_t>(b) << (4 * slot);
      uses |= static_cast<uint64_t>(wo.in[static_cast<size_t>(in_index)].use) << (2 * slot);
    };
    r.set_field("out", static_cast<uint64_t>(op.out.tensor));
    if (op.kind == ir::OpKind::Eltwise) {
      role(1, 0);
      if (op.in.size() > 1) role(2, 1);
    } else {
      role(1, ia);
      role(2, ia + 1);
      if (with_c) role(3, 0);
    }
    const auto& loops = s_.ops[i].loops;
    const bool reduction_outer =
        !loops.empty() && loops.front().rank != op.out.idx[0].a && loops.front().rank != op.out.idx[1].a;
    r.set_field("order", reduction_outer ? 1 : 0);
    r.set_field("tile", static_cast<uint64_t>(std::max<int64_t>(1, loops.empty() ? 1 : loops.front().tile)));
    r.set_f32("alpha", static_cast<float>(op.alpha));
    r.set_f32("beta", static_cast<float>(op.beta));
    r.set_field("binds", binds);
    r.set_field("uses", uses);
    const uint8_t relu = op.fn == "relu" ? kLaunchRelu : 0;
    const uint8_t pipe_gram = pipe_gram_flag(i);
    if (pl.mode != Mode::Gemm) {
      r.set_field("flags", relu | pipe_gram | (with_c ? kLaunchWithC : 0));
      c_.stream.records.push_back(r);
      return;
    }
    // GEMM: one pass per register-file load of at most rf_rows rows of B.
    const int64_t chunk = a_.rf_rows;
    const auto b_tensor = static_cast<uint64_t>(op.in[static_cast<size_t>(pl.rf)].tensor);
    const Bind b_from = read_bind(b_tensor, i) == Bind::Chord ? Bind::Chord : Bind::Dram;
    for (int64_t k0 = 0; k0 < pl.k; k0 += chunk) {
      const int64_t k = std::min(chunk, pl.k - k0);
      Record ld = Record::make(Opcode::RfLoad);
      ld.set_field("from", static_cast<uint64_t>(b_from));
      ld.set_field("id", b_tensor);
      ld.set_field("row0", static_cast<uint64_t>(k0));
      ld.set_field("rows", static_cast<uint64_t>(k));
      ld.set_f32("scale", static_cast<float>(op.beta));
      c_.stream.records.push_back(ld);
      Record g = r;
      const bool first = k0 == 0, last = k0 + k >= pl.k;
      g.set_field("k0", static_cast<uint64_t>(k0));
      g.set_field("k", static_cast<uint64_t>(k));
      if (!first) {
        // Later passes accumulate through the partial result: C = Z, alpha = 1.
        g.set_field("c", static_cast<uint64_t>(op.out.tensor));
        const uint64_t b = g.field("binds") & 0x0fff;
        g.set_field("binds", b | (g.field("binds") & 0xf) << 12);
        const uint64_t u = g.field("uses") & 0x3f;
        g.set_field("uses", u | (g.field("uses") & 0x3) << 6);
        g.set_f32("alpha", 1.0f);
      }
      g.set_field("flags", (last ? relu | pipe_gram : 0) | (first ? 0 : kLaunchCont) |
                               ((with_c || !first) ? kLaunchWithC : 0));
      c_.stream.records.push_back(g);
    }
    if (pl.k > chunk) c_.k_chunk[i] = static_cast<int>(chunk);
  }

  const score::Schedule& s_;
  std::vector<bool> host_side_;                    // a HOST op reads or writes the tensor
  std::vector<std::vector<size_t>> release_after_;  // per op, the CHORD_REL records after it
  const arch::Arch& a_;
  Compiled& c_;
  const ir::Program& p_;
};

}  // namespace

Compiled encode_schedule(const score::Schedule& s, const arch::Arch& a,
                         const std::shared_ptr<const mtx::CsrPattern>& matrix) {
  const ir::Program& p = s.program;
  if (p.tensors.size() > 0xffff)
    throw Error("", "program", fmt::format("{} tensors; a stream names at most 65535", p.tensors.size()));
  Compiled c;
  for (size_t i = 0; i < p.ops.size(); ++i) c.plans.push_back(plan_op(p, i, a));
  c.k_chunk.assign(p.ops.size(), 0);
  for (size_t i = 0; i < p.ops.size(); ++i) {
    const auto& os = s.ops[i];
    bool piped = false;
    for (size_t e = 0; e < s.dag.edges.size(); ++e)
      if ((s.dag.edges[e].dst == static_cast<ir::OpId>(i) || s.dag.edges[e].src == static_cast<ir::OpId>(i)) &&
          s.edges[e].binding == score::Binding::PipelineBuffer)
        piped = true;
    if (piped && os.tile_words > static_cast<double>(a.pipeline_buffer_words))
      throw Error("", "op " + p.ops[i].name,
                  fmt::format("one tile step keeps {} words live; the pipeline buffer holds {} (top.pipeline_buffer)",
                              os.tile_words, a.pipeline_buffer_words));
  }
  c.workload = traffic::from_schedule(s, matrix, a.word_bytes);
  // A GEMM of several register-file passes reads its streamed operands in every
  // pass, after earlier passes wrote partial results: no in-place result there.
  for (size_t i = 0; i < p.ops.size() && i < c.workload.ops.size(); ++i)
    if (c.plans[i].mode == Mode::Gemm && c.plans[i].k > a.rf_rows)
      for (auto& in : c.workload.ops[i].in)
        if (in.use == traffic::Use::Stream) in.reread = true;
  const unsigned gw = a.granule_bytes / a.word_bytes;
  const traffic::Footprint f = traffic::footprint(c.workload, gw);
  const traffic::Layout L = traffic::layout(c.workload, traffic::analyze(c.workload), f);
  for (size_t t = 0; t < p.tensors.size(); ++t) {
    c.base.push_back(L.base[t] * a.granule_bytes);
    c.bytes.push_back(f.granules[t] * a.granule_bytes);
  }
  const uint64_t memory = L.total * a.granule_bytes;
  if (memory > a.memory_bytes)
    throw Error("", "memory layout",
                fmt::format("the DRAM image needs {} bytes; the top addresses {} (top.memory_mb)", memory,
                            a.memory_bytes));
  c.stream.header.granule_bytes = static_cast<uint16_t>(a.granule_bytes);
  c.stream.header.word_bytes = static_cast<uint16_t>(a.word_bytes);
  c.stream.header.config_hash = a.config_hash;
  c.stream.header.memory_bytes = memory;
  Encoder(s, a, c).run();
  return c;
}

}  // namespace cello::stream
