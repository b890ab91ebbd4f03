#include "sw/exec/check.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <limits>

#include "sw/common/bits.hpp"
#include "sw/common/error.hpp"

namespace cello::exec {

using stream::Bind;
using stream::Opcode;
using stream::Record;

uint64_t TensorDesc::col_at(unsigned granule) const { return base + ceil_div(uint64_t{rows} + 1, granule / 4) * granule; }
uint64_t TensorDesc::val_at(unsigned granule) const {
  return col_at(granule) + ceil_div(nnz, granule / 4) * granule;
}

TensorDesc tensor_desc(const stream::Record& r, unsigned granule) {
  TensorDesc t;
  t.described = true;
  t.csr = r.field("format") == 1;
  t.flags = static_cast<uint8_t>(r.field("flags"));
  t.rows = static_cast<uint32_t>(r.field("rows"));
  t.cols = static_cast<uint32_t>(r.field("cols"));
  t.nnz = static_cast<uint32_t>(r.field("nnz"));
  t.base = r.field("base");
  t.bytes = t.csr ? t.val_at(granule) - t.base + ceil_div(t.nnz, granule / 4) * granule
                  : ceil_div(uint64_t{t.rows} * t.cols, granule / 4) * granule;
  return t;
}

std::string ExecOp::name() const {
  const stream::OpcodeSpec* s = stream::find_opcode(static_cast<uint8_t>(kind));
  return fmt::format("{} at record {}", s ? s->name : "?", record);
}

namespace {

class Checker {
 public:
  Checker(const stream::Stream& s, const std::string& file, const arch::Arch& a) : s_(s), file_(file), a_(a) {}

  ExecProgram run() {
    const auto& h = s_.header;
    if (h.granule_bytes != a_.granule_bytes)
      fail_header(StatusBit::BadField,
                  fmt::format("granule {} bytes, the top's is {} (top.granule_bytes)", h.granule_bytes, a_.granule_bytes));
    if (h.memory_bytes > a_.memory_bytes)
      fail_header(StatusBit::BadAddress,
                  fmt::format("the stream addresses {} bytes, the top {} (top.memory_mb)", h.memory_bytes, a_.memory_bytes));
    p_.tensors.resize(0x10000);
    p_.producer.assign(0x10000, -1);
    bool ended = false;
    for (rec_ = 0; rec_ < s_.records.size(); ++rec_) {
      const Record& r = s_.records[rec_];
      if (ended) fail(StatusBit::BadOrder, "record after END");
      if (rf_pending_ != SIZE_MAX && r.op() != Opcode::Gemm) fail(StatusBit::BadOrder, "RF_LOAD is not followed by a GEMM");
      switch (r.op()) {
        case Opcode::Tensor: tensor(r); break;
        case Opcode::Name: name(r); break;
        case Opcode::ChordReg:
        case Opcode::ChordUpd:
        case Opcode::ChordRel: chord(r); break;
        case Opcode::RfLoad: rf_load(r); break;
        case Opcode::Gemm:
        case Opcode::Gram:
        case Opcode::Spmm:
        case Opcode::Eltw: launch(r); break;
        case Opcode::Fence: close_op(); break;
        case Opcode::Host: host(r); break;
        case Opcode::End:
          close_op();
          ended = true;
          break;
      }
    }
    if (!ended) fail(StatusBit::BadOrder, "the stream has no END");
    if (!pre_.empty()) {
      rec_ = pre_.front();
      fail(StatusBit::BadOrder, "CHORD_REG with no launch after it");
    }
    check_overlaps();
    size_t used = 0;
    for (size_t t = 0; t < p_.tensors.size(); ++t)
      if (p_.tensors[t].described) used = t + 1;
    p_.tensors.resize(used);
    p_.producer.resize(used);
    return std::move(p_);
  }

 private:
  [[noreturn]] void fail(StatusBit b, const std::string& why) const {
    throw Error(file_, fmt::format("record {}", rec_), fmt::format("{} (status: {})", why, to_string(b)));
  }
  [[noreturn]] void fail_header(StatusBit b, const std::string& why) const {
    throw Error(file_, "header", fmt::format("{} (status: {})", why, to_string(b)));
  }

  const TensorDesc& described(uint64_t id, const char* role) const {
    const TensorDesc& t = p_.tensors[id];
    if (!t.described) fail(StatusBit::BadTensor, fmt::format("{} tensor {} was never described", role, id));
    return t;
  }
  std::string label(int id) const {
    const TensorDesc& t = p_.tensors[static_cast<size_t>(id)];
    return t.name.empty() ? fmt::format("tensor {}", id) : fmt::format("tensor {} ({})", id, t.name);
  }

  void tensor(const Record& r) {
    const uint64_t id = r.field("id");
    TensorDesc& t = p_.tensors[id];
    if (t.described) fail(StatusBit::BadTensor, fmt::format("tensor {} is described twice", id));
    if (id >= a_.tensor_table)
      fail(StatusBit::BadTensor,
           fmt::format("tensor id {} is not below the top's {} descriptors (top.tensor_table)", id, a_.tensor_table));
    const unsigned g = a_.granule_bytes;
    t = tensor_desc(r, g);
    if (t.csr) {
      if (!t.input()) fail(StatusBit::BadTensor, fmt::format("CSR tensor {} must be an input", id));
      if (t.col_major()) fail(StatusBit::BadField, fmt::format("CSR tensor {} cannot be column-major", id));
      if (uint64_t{t.nnz} > uint64_t{t.rows} * t.cols)
        fail(StatusBit::BadField, fmt::format("tensor {}: nnz {} exceeds rows x cols", id, t.nnz));
    } else {
      if (t.nnz) fail(StatusBit::BadField, fmt::format("dense tensor {} with nnz {}", id, t.nnz));
    }
    if (t.chord() && !a_.has_chord()) fail(StatusBit::ChordError, fmt::format("tensor {} is bound to CHORD but the top has none", id));
    if (t.base % g) fail(StatusBit::BadAddress, fmt::format("tensor {}: base 0x{:x} is not {}-byte aligned", id, t.base, g));
    if (t.base > s_.header.memory_bytes || t.bytes > s_.header.memory_bytes - t.base)
      fail(StatusBit::BadAddress, fmt::format("tensor {}: [0x{:x}, 0x{:x}) is outside the {}-byte DRAM image", id, t.base,
                                              t.base + t.bytes, s_.header.memory_bytes));
  }

  void name(const Record& r) {
    const uint64_t id = r.field("id");
    TensorDesc& t = p_.tensors[id];
    if (!t.described) fail(StatusBit::BadTensor, fmt::format("NAME of tensor {}, which was never described", id));
    const uint64_t part = r.field("part");
    if (part != t.name.size() / 28 || t.name.size() % 28)
      fail(StatusBit::BadOrder, fmt::format("NAME part {} of tensor {} out of sequence", part, id));
    t.name += r.text();
  }

  void chord(const Record& r) {
    if (!a_.has_chord()) fail(StatusBit::ChordError, "CHORD command on a top without CHORD");
    const uint64_t id = r.field("id");
    const TensorDesc& t = described(id, "CHORD");
    if (!t.chord()) fail(StatusBit::ChordError, fmt::format("{} is not bound to CHORD", label(static_cast<int>(id))));
    auto& c = chord_[id];
    if (r.op() == Opcode::ChordReg && c == ChordState::Out) c = ChordState::Live;
    if (r.op() == Opcode::ChordRel && c != ChordState::Dropped)
      c = c == ChordState::Dirty && !t.output() ? ChordState::Dropped : ChordState::Out;
    if (r.op() == Opcode::ChordReg) {
      close_op();
      pre_.push_back(rec_);
    } else {
      if (p_.ops.empty() || !pre_.empty())
        fail(StatusBit::BadOrder, "CHORD update/release must follow the launch it belongs to");
      close_op();
      p_.ops.back().post.push_back(rec_);
    }
  }

  void rf_load(const Record& r) {
    const uint64_t id = r.field("id");
    const TensorDesc& t = described(id, "RF_LOAD");
    if (t.csr) fail(StatusBit::BadTensor, "RF_LOAD of a CSR tensor");
    const uint64_t row0 = r.field("row0"), rows = r.field("rows");
    if (row0 + rows > t.rows)
      fail(StatusBit::BadTensor, fmt::format("RF_LOAD rows {}..{} of {}, which has {}", row0, row0 + rows - 1,
                                             label(static_cast<int>(id)), t.rows));
    if (rows > static_cast<uint64_t>(a_.rf_rows))
      fail(StatusBit::BadTensor, fmt::format("RF_LOAD of {} rows; the register file has {} (mac_arrays[].rf_rows)", rows, a_.rf_rows));
    if (r.field("from") == static_cast<uint64_t>(Bind::Chord) && !t.chord())
      fail(StatusBit::ChordError, fmt::format("RF_LOAD from CHORD of {}, which is not bound to CHORD", label(static_cast<int>(id))));
    readable(static_cast<int>(id));
    rf_pending_ = rec_;
  }

  // A tensor an op reads must be an input or already produced, and still
  // held somewhere: a CHORD_REL drops what CHORD holds of an intermediate
  // (only outputs are written back), so an intermediate written while live in
  // CHORD cannot be read after its release.
  void readable(int id) const {
    if (!p_.tensors[static_cast<size_t>(id)].input() && p_.producer[static_cast<size_t>(id)] < 0)
      fail(StatusBit::BadOrder, fmt::format("{} is read before any op wrote it", label(id)));
    if (chord_[static_cast<size_t>(id)] == ChordState::Dropped)
      fail(StatusBit::ChordError,
           fmt::format("{} is read after the CHORD_REL that dropped it (an intermediate CHORD held is not written back)", label(id)));
  }
  // A launch writes its result: into CHORD when the result is live there.
  void written(int id) {
    auto& c = chord_[static_cast<size_t>(id)];
    if (c == ChordState::Live) c = ChordState::Dirty;
  }

  void close_op() {
    if (!open_) return;
    ExecOp& op = p_.ops.back();
    if (op.kind == Opcode::Gemm) {
      const Record& last = s_.records[op.passes.back().record];
      const TensorDesc& st = p_.tensors[static_cast<size_t>(op.bind[1] == Bind::Rf ? op.b : op.a)];
      if (last.field("k0") + last.field("k") != st.cols)
        fail(StatusBit::BadOrder, fmt::format("GEMM passes end at K = {}, the operand has {}", last.field("k0") + last.field("k"), st.cols));
    }
    open_ = false;
  }

  void shape(int id, uint64_t rows, uint64_t cols, const char* role) const {
    const TensorDesc& t = p_.tensors[static_cast<size_t>(id)];
    if (t.rows != rows || t.cols != cols)
      fail(StatusBit::BadTensor, fmt::format("{} operand {} is {}x{}, the op needs {}x{}", role, label(id), t.rows, t.cols, rows, cols));
  }

  void launch(const Record& r) {
    const bool cont = r.field("flags") & stream::kLaunchCont;
    const bool with_c = r.field("flags") & stream::kLaunchWithC;
    const uint64_t binds = r.field("binds"), uses = r.field("uses");
    Bind bind[4];
    stream::Use use[4];
    int id[4] = {static_cast<int>(r.field("out")), static_cast<int>(r.field("a")), static_cast<int>(r.field("b")),
                 static_cast<int>(r.field("c"))};
    const char* roles[4] = {"out", "a", "b", "c"};
    for (int k = 0; k < 4; ++k) {
      bind[k] = static_cast<Bind>(binds >> (4 * k) & 0xf);
      use[k] = static_cast<stream::Use>(uses >> (2 * k) & 3);
    }
    const bool has_b = r.op() != Opcode::Eltw || bind[2] != Bind::None;
    const bool present[4] = {true, true, has_b, with_c};
    for (int k = 0; k < 4; ++k) {
      if (!present[k]) {
        if (bind[k] != Bind::None || id[k] != 0)
          fail(StatusBit::BadField, fmt::format("operand {} is absent but has id {} / binding {}", roles[k], id[k], to_string(bind[k])));
        id[k] = -1;
        continue;
      }
      if (bind[k] == Bind::None) fail(StatusBit::BadField, fmt::format("operand {} has no binding", roles[k]));
      const TensorDesc& t = described(static_cast<uint64_t>(id[k]), roles[k]);
      if (bind[k] == Bind::Chord && !t.chord())
        fail(StatusBit::ChordError, fmt::format("operand {}: {} is not bound to CHORD", roles[k], label(id[k])));
      if (bind[k] == Bind::Rf && k != 0 && !(r.op() == Opcode::Gemm && (k == 1 || k == 2)))
        fail(StatusBit::BadField, fmt::format("operand {} cannot come from the register file", roles[k]));
      if (use[k] == stream::Use::Gather && r.op() != Opcode::Spmm)
        fail(StatusBit::BadField, fmt::format("operand {}: only SPMM gathers", roles[k]));
    }
    const TensorDesc& out = p_.tensors[static_cast<size_t>(id[0])];
    if (out.csr || out.input()) fail(StatusBit::BadTensor, fmt::format("{} cannot be written (input or CSR)", label(id[0])));
    const float alpha = r.f32("alpha"), beta = r.f32("beta");
    if (r.op() != Opcode::Gemm && (r.field("k") || r.field("k0")))
      fail(StatusBit::BadField, "k and k0 are for GEMM only");
    if (cont) {
      if (!open_ || p_.ops.back().kind != Opcode::Gemm || r.op() != Opcode::Gemm || p_.ops.back().out != id[0])
        fail(StatusBit::BadOrder, "a continuation pass must follow a GEMM pass of the same result");
      const Record& prev = s_.records[p_.ops.back().passes.back().record];
      if (r.field("k0") != prev.field("k0") + prev.field("k"))
        fail(StatusBit::BadOrder, fmt::format("continuation pass starts at k0 = {}, the previous one ended at {}", r.field("k0"),
                                              prev.field("k0") + prev.field("k")));
      if (!with_c || id[3] != id[0]) fail(StatusBit::BadOrder, "a continuation pass accumulates through its own result (c = out)");
    } else {
      close_op();
      for (int k = 1; k < 4; ++k)
        if (id[k] >= 0) readable(id[k]);
      if (p_.producer[static_cast<size_t>(id[0])] >= 0) fail(StatusBit::BadOrder, fmt::format("{} is written twice", label(id[0])));
    }
    // Shapes per mode.
    const TensorDesc *ta = &p_.tensors[static_cast<size_t>(id[1])], *tb = has_b ? &p_.tensors[static_cast<size_t>(id[2])] : nullptr;
    switch (r.op()) {
      case Opcode::Gemm: {
        const int rf = bind[1] == Bind::Rf ? 1 : bind[2] == Bind::Rf ? 2 : -1;
        if (rf < 0 || bind[3 - rf] == Bind::Rf) fail(StatusBit::BadField, "GEMM needs exactly one operand from the register file");
        const int st = 3 - rf;
        const TensorDesc& s = p_.tensors[static_cast<size_t>(id[st])];
        const TensorDesc& b = p_.tensors[static_cast<size_t>(id[rf])];
        if (s.csr || b.csr) fail(StatusBit::BadTensor, "GEMM operands must be dense");
        shape(id[rf], s.cols, out.cols, "register-file");
        shape(id[st], out.rows, s.cols, "streamed");
        if (with_c) shape(id[3], out.rows, out.cols, "accumulated");
        if (rf_pending_ == SIZE_MAX) fail(StatusBit::BadOrder, "GEMM without an RF_LOAD before it");
        const Record& ld = s_.records[rf_pending_];
        if (ld.field("id") != static_cast<uint64_t>(id[rf]) || ld.field("row0") != r.field("k0") || ld.field("rows") != r.field("k"))
          fail(StatusBit::BadOrder, "the RF_LOAD before this GEMM does not load rows k0..k0+k-1 of its register-file operand");
        if (ld.field("scale") != r.field("beta")) fail(StatusBit::BadField, "RF_LOAD scale differs from the GEMM's beta");
        if (!cont && r.field("k0") != 0) fail(StatusBit::BadOrder, "the first GEMM pass must start at k0 = 0");
        break;
      }
      case Opcode::Gram:
        if (with_c) fail(StatusBit::BadField, "GRAM has no accumulated operand");
        if (ta->csr || tb->csr) fail(StatusBit::BadTensor, "GRAM operands must be dense");
        shape(id[2], ta->rows, out.cols, "b");
        shape(id[1], tb->rows, out.rows, "a");
        break;
      case Opcode::Spmm: {
        if (ta->csr == tb->csr) fail(StatusBit::BadTensor, "SPMM needs one CSR and one dense operand");
        const int sp = ta->csr ? 1 : 2, dn = 3 - sp;
        const TensorDesc& m = p_.tensors[static_cast<size_t>(id[sp])];
        shape(id[dn], m.cols, out.cols, "gathered");
        if (m.rows != out.rows) fail(StatusBit::BadTensor, fmt::format("CSR operand has {} rows, the result {}", m.rows, out.rows));
        if (with_c) shape(id[3], out.rows, out.cols, "accumulated");
        break;
      }
      case Opcode::Eltw:
        if (with_c) fail(StatusBit::BadField, "ELTW has no accumulated operand");
        shape(id[1], out.rows, out.cols, "a");
        if (has_b) shape(id[2], out.rows, out.cols, "b");
        break;
      default: break;
    }
    if (cont) {
      p_.ops.back().passes.push_back({rec_, rf_pending_});
      if (r.field("flags") & stream::kLaunchRelu) p_.ops.back().relu = true;
      rf_pending_ = SIZE_MAX;
      return;
    }
    ExecOp op;
    op.kind = r.op();
    op.record = rec_;
    op.passes.push_back({rec_, rf_pending_});
    op.pre = std::move(pre_);
    pre_.clear();
    op.out = id[0], op.a = id[1], op.b = id[2], op.c = id[3];
    for (int k = 0; k < 4; ++k) op.bind[k] = bind[k], op.use[k] = use[k];
    op.relu = r.field("flags") & stream::kLaunchRelu;
    op.alpha = alpha;
    op.beta = beta;
    p_.producer[static_cast<size_t>(id[0])] = static_cast<int>(p_.ops.size());
    written(id[0]);
    p_.ops.push_back(std::move(op));
    rf_pending_ = SIZE_MAX;
    open_ = true;
  }

  void host(const Record& r) {
    close_op();
    const int out = static_cast<int>(r.field("out")), a = static_cast<int>(r.field("a")), b = static_cast<int>(r.field("b"));
    for (auto [id, role] : {std::pair{out, "out"}, std::pair{a, "a"}, std::pair{b, "b"}}) {
      const TensorDesc& t = described(static_cast<uint64_t>(id), role);
      if (t.csr) fail(StatusBit::BadTensor, "HOST operands must be dense");
    }
    readable(a);
    readable(b);
    for (int id : {out, a, b})
      if (chord_[static_cast<size_t>(id)] == ChordState::Live || chord_[static_cast<size_t>(id)] == ChordState::Dirty)
        fail(StatusBit::ChordError,
             fmt::format("HOST names {}, which is live in CHORD (the host reads and writes DRAM only)", label(id)));
    if (p_.producer[static_cast<size_t>(out)] >= 0 || p_.tensors[static_cast<size_t>(out)].input())
      fail(StatusBit::BadOrder, fmt::format("{} is written twice", label(out)));
    const TensorDesc &ta = p_.tensors[static_cast<size_t>(a)], &tb = p_.tensors[static_cast<size_t>(b)];
    if (ta.rows != ta.cols) fail(StatusBit::BadTensor, fmt::format("HOST: {} must be square", label(a)));
    if (r.field("fn") == static_cast<uint64_t>(stream::HostFn::Solve)) {
      shape(b, ta.rows, tb.cols, "b");
      shape(out, ta.rows, tb.cols, "out");
    } else {
      shape(b, ta.rows, ta.rows, "b");
      shape(out, ta.rows, ta.rows, "out");
    }
    ExecOp op;
    op.kind = Opcode::Host;
    op.record = rec_;
    op.pre = std::move(pre_);
    pre_.clear();
    op.out = out, op.a = a, op.b = b;
    op.bind[0] = op.bind[1] = op.bind[2] = Bind::Dram;
    op.use[0] = op.use[1] = op.use[2] = stream::Use::Whole;
    op.fn = static_cast<stream::HostFn>(r.field("fn"));
    p_.producer[static_cast<size_t>(out)] = static_cast<int>(p_.ops.size());
    p_.ops.push_back(std::move(op));
    open_ = false;
  }

  // Regions may overlap only when the tensors' lives do not: the older one's last
  // read is at or before the op that writes the newer one.
  void check_overlaps() {
    constexpr int kForever = std::numeric_limits<int>::max();
    std::vector<int> first(p_.tensors.size(), -1), last(p_.tensors.size(), -1);
    for (size_t t = 0; t < p_.tensors.size(); ++t) {
      if (!p_.tensors[t].described) continue;
      first[t] = p_.tensors[t].input() ? -1 : p_.producer[t];
      if (!p_.tensors[t].input() && first[t] < 0) first[t] = kForever;  // never written: occupies nothing
      last[t] = p_.tensors[t].output() ? kForever : first[t];
    }
    for (size_t i = 0; i < p_.ops.size(); ++i) {
      const ExecOp& op = p_.ops[i];
      for (int id : {op.a, op.b, op.c})
        if (id >= 0) last[static_cast<size_t>(id)] = std::max(last[static_cast<size_t>(id)], static_cast<int>(i));
      for (const Pass& ps : op.passes)
        if (ps.rf_load != SIZE_MAX) {
          const auto id = static_cast<size_t>(s_.records[ps.rf_load].field("id"));
          last[id] = std::max(last[id], static_cast<int>(i));
        }
    }
    // A GEMM of several passes reads its streamed operand in every pass, after the
    // first pass wrote partial results: the result may not overwrite it in place.
    // An SPMM reads its dense operand's rows in the order of the column indices,
    // all through the launch (once per column block): its result may not
    // overwrite the dense operand either.
    for (const ExecOp& op : p_.ops) {
      const TensorDesc& z = p_.tensors[static_cast<size_t>(op.out)];
      for (int k : {1, 2}) {
        const int id = k == 1 ? op.a : op.b;
        if (id < 0 || !z.shares_bytes(p_.tensors[static_cast<size_t>(id)])) continue;
        const bool spmm_dense = op.kind == Opcode::Spmm && !p_.tensors[static_cast<size_t>(id)].csr;
        const bool gemm_passes = op.kind == Opcode::Gemm && op.passes.size() >= 2 && op.bind[k] != Bind::Rf;
        if (spmm_dense || gemm_passes) rec_ = op.record;
        if (spmm_dense)
          fail(StatusBit::BadAddress, fmt::format("the SPMM's result {} overwrites its dense operand {}, whose rows it "
                                                  "reads all through the launch",
                                                  label(op.out), label(id)));
        if (gemm_passes)
          fail(StatusBit::BadAddress,
               fmt::format("the GEMM runs in {} passes and its result {} overwrites {}, which every pass reads",
                           op.passes.size(), label(op.out), label(id)));
      }
    }
    std::vector<size_t> order;
    for (size_t t = 0; t < p_.tensors.size(); ++t)
      if (p_.tensors[t].described && first[t] != kForever) order.push_back(t);
    std::sort(order.begin(), order.end(), [&](size_t x, size_t y) { return p_.tensors[x].base < p_.tensors[y].base; });
    for (size_t i = 0; i < order.size(); ++i)
      for (size_t j = i + 1; j < order.size(); ++j) {
        const TensorDesc &x = p_.tensors[order[i]], &y = p_.tensors[order[j]];
        if (y.base >= x.base + x.bytes) break;
        const size_t u = order[i], v = order[j];
        if (last[u] <= first[v] || last[v] <= first[u]) continue;
        rec_ = s_.records.size();
        throw Error(file_, "memory layout",
                    fmt::format("{} and {} share DRAM bytes while both are live (status: {})", label(static_cast<int>(u)),
                                label(static_cast<int>(v)), to_string(StatusBit::BadAddress)));
      }
  }

  const stream::Stream& s_;
  const std::string& file_;
  const arch::Arch& a_;
  ExecProgram p_;
  size_t rec_ = 0;
  size_t rf_pending_ = SIZE_MAX;
  std::vector<size_t> pre_;
  // Per tensor id: registered in CHORD (Live), written while registered
  // (Dirty), released after that as an intermediate (Dropped), or not in CHORD.
  enum class ChordState : uint8_t { Out, Live, Dirty, Dropped };
  std::vector<ChordState> chord_ = std::vector<ChordState>(0x10000, ChordState::Out);
  bool open_ = false;
};

}  // namespace

ExecProgram check_stream(const stream::Stream& s, const std::string& file, const arch::Arch& a) {
  return Checker(s, file, a).run();
}


std::vector<size_t> pipelined_grams(const stream::Stream& s, const ExecProgram& p, const arch::Arch& a) {
  using stream::Bind;
  using stream::Opcode;
  std::vector<size_t> grams;
  for (size_t i = 1; i < p.ops.size(); ++i) {
    const ExecOp &g = p.ops[i], &f = p.ops[i - 1];
    if (g.kind != Opcode::Gram || g.b != f.out || g.bind[2] != Bind::Pipe) continue;
    if ((f.kind != Opcode::Gemm && f.kind != Opcode::Spmm) || f.passes.empty()) continue;
    const size_t last = f.passes.back().record;
    const uint64_t flags = s.records[last].field("flags");
    // Z^T Z (pipe_gram), or X^T Z with X the SPMM's dense operand (pipe_gram_x).
    const int x = f.kind != Opcode::Spmm ? -1 : p.tensors[static_cast<size_t>(f.a)].csr ? f.b : f.a;
    const bool zz = (flags & stream::kLaunchPipeGram) && g.a == f.out && g.bind[1] == Bind::Pipe;
    const bool xz = !(flags & stream::kLaunchPipeGram) && (flags & stream::kLaunchPipeGramX) && x >= 0 &&
                    g.a == x && p.tensors[static_cast<size_t>(x)].rows == p.tensors[static_cast<size_t>(f.out)].rows;
    if (!zz && !xz) continue;
    bool kept = true;  // the top drops the products at an RF_LOAD or a HOST
    for (size_t r = last + 1; r < g.record; ++r)
      kept = kept && s.records[r].op() != Opcode::RfLoad && s.records[r].op() != Opcode::Host;
    const TensorDesc& z = p.tensors[static_cast<size_t>(f.out)];
    if (!kept || z.cols == 0 || z.cols > 8) continue;
    if (f.kind == Opcode::Spmm) {
      const TensorDesc& x = p.tensors[static_cast<size_t>(p.tensors[static_cast<size_t>(f.a)].csr ? f.b : f.a)];
      const int w = arch::spmm_block_cols(x.rows, a.gather_words);
      if (w != 0 && static_cast<uint32_t>(w) < z.cols) continue;
    }
    grams.push_back(i);
  }
  return grams;
}

bool launch_on_tiles(stream::Opcode kind, uint64_t flags, uint64_t x_rows, uint64_t z_cols, uint64_t gather_words) {
  const bool piped = (flags & (stream::kLaunchPipeGram | stream::kLaunchPipeGramX)) != 0;
  switch (kind) {
    case stream::Opcode::Eltw: return true;
    case stream::Opcode::Gemm: return !piped;
    case stream::Opcode::Spmm:
      return !piped && z_cols >= 1 && z_cols <= static_cast<uint64_t>(arch::spmm_block_cols(x_rows, gather_words));
    default: return false;
  }
}

bool gemm_row_pairs(const arch::Arch& a, const stream::Record& rec, const ExecProgram& p, int streamed) {
  const auto v = static_cast<uint32_t>(arch::engine_lanes(a));
  if (!engine_row_pairs(a)) return false;
  const uint64_t flags = rec.field("flags"), k = rec.field("k"), k0 = rec.field("k0");
  const auto tensor = [&](const char* slot) -> const TensorDesc& { return p.tensors.at(static_cast<size_t>(rec.field(slot))); };
  const auto even = [](const TensorDesc& t) { return t.base % 8 == 0 && (t.col_major() ? t.rows : t.cols) % 2 == 0; };
  const TensorDesc &z = tensor("out"), &x = p.tensors.at(static_cast<size_t>(streamed));
  const bool fused = (flags & stream::kLaunchPipeGram) && !(flags & stream::kLaunchPipeGramX) && z.cols >= 1 && z.cols <= 8;
  if (fused || k == 0 || k > 8 || z.cols != v || z.rows % 2 != 0 || x.rows != z.rows) return false;
  if (!x.col_major() && (k % 2 != 0 || k0 % 2 != 0)) return false;
  if (!even(z) || !even(x)) return false;
  return !(flags & stream::kLaunchWithC) || even(tensor("c"));
}

}  // namespace cello::exec
