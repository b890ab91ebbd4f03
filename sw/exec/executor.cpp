#include "sw/exec/executor.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <stdexcept>

#include "sw/common/bits.hpp"
#include "sw/common/clock.hpp"
#include "sw/common/error.hpp"
#include "sw/exec/engine_reads.hpp"
#include "sw/fp/fp32.hpp"
#include "sw/golden/fp32_dag.hpp"
#include "sw/mac/mac_reference.hpp"
#include "sw/traffic/models.hpp"

namespace cello::exec {

using stream::Bind;
using stream::Opcode;

namespace {

uint32_t load32(const std::vector<uint8_t>& m, uint64_t addr) {
  uint32_t v;
  std::memcpy(&v, m.data() + addr, 4);
  return v;
}
void store32(std::vector<uint8_t>& m, uint64_t addr, uint32_t v) { std::memcpy(m.data() + addr, &v, 4); }

// Bits of stored word e of dense tensor t (storage order) from its row-major
// values v; 0 for the padding words past the last element.
uint32_t stored_word(const TensorDesc& t, const std::vector<float>& v, uint64_t e) {
  if (e >= v.size()) return 0;
  const uint64_t r = t.col_major() ? e % t.rows : e / t.cols, c = t.col_major() ? e / t.rows : e % t.cols;
  return std::bit_cast<uint32_t>(v[static_cast<size_t>(r * t.cols + c)]);
}

// A CSR input as stored in the image, checked.
mtx::CsrF32 read_csr(const std::vector<uint8_t>& m, const TensorDesc& t, unsigned g, const std::string& file, int id) {
  mtx::CsrF32 c;
  const std::string where = fmt::format("tensor {}{}", id, t.name.empty() ? "" : " (" + t.name + ")");
  if (t.cols > mtx::kMaxCsrCols)
    throw Error(file, where, fmt::format("{} columns, more than the 2^31 a CSR matrix can index", t.cols));
  c.rows = t.rows;
  c.cols = t.cols;
  c.row_ptr.resize(t.rows + 1);
  for (uint64_t r = 0; r <= t.rows; ++r) {
    c.row_ptr[r] = load32(m, t.base + 4 * r);
    if ((r == 0 && c.row_ptr[r] != 0) || (r && c.row_ptr[r] < c.row_ptr[r - 1]) || c.row_ptr[r] > t.nnz)
      throw Error(file, where, fmt::format("row pointer {} = {} is not a valid CSR row pointer", r, c.row_ptr[r]));
  }
  if (c.row_ptr[t.rows] != t.nnz)
    throw Error(file, where, fmt::format("row pointers end at {}, the descriptor says {} nonzeros", c.row_ptr[t.rows], t.nnz));
  c.col.resize(t.nnz);
  c.val.resize(t.nnz);
  for (uint64_t k = 0; k < t.nnz; ++k) {
    const uint32_t col = load32(m, t.col_at(g) + 4 * k);
    if (col >= t.cols) throw Error(file, where, fmt::format("column index {} at entry {} is outside 0..{}", col, k, t.cols - 1));
    c.col[k] = static_cast<int32_t>(col);
    c.val[k] = fp::flush_subnormal(std::bit_cast<float>(load32(m, t.val_at(g) + 4 * k)));
  }
  return c;
}

mac::Matrix as_matrix(const std::vector<float>& v, const TensorDesc& t) {
  mac::Matrix m(t.rows, t.cols);
  m.v = v;
  return m;
}

class Runner {
 public:
  Runner(const stream::Stream& s, const std::string& file, const arch::Arch& a, Result& r, const std::string& image_file,
         const traffic::ChordHooks* observe)
      : s_(s), file_(file), a_(a), r_(r), image_file_(image_file), g_(a.granule_bytes), observe_(observe) {}

  void run() {
    const ExecProgram& p = r_.program;
    if (r_.image.size() != s_.header.memory_bytes)
      throw Error(image_file_, "", fmt::format("the image is {} bytes, the stream addresses {}", r_.image.size(),
                                               s_.header.memory_bytes));
    r_.values.resize(p.tensors.size());
    csr_.resize(p.tensors.size());
    for (size_t t = 0; t < p.tensors.size(); ++t) {
      const TensorDesc& d = p.tensors[t];
      if (!d.described || !d.input()) continue;
      if (d.csr)
        csr_[t] = read_csr(r_.image, d, g_, image_file_, static_cast<int>(t));
      else
        r_.values[t] = read_dense(r_.image, d);
    }
    for (const ExecOp& op : p.ops) compute(op);
    traffic();
    timing();
  }

 private:
  const std::vector<float>& value(int id) const { return r_.values[static_cast<size_t>(id)]; }
  const TensorDesc& desc(int id) const { return r_.program.tensors[static_cast<size_t>(id)]; }

  void compute(const ExecOp& op) {
    const TensorDesc& out = desc(op.out);
    std::vector<float> z(static_cast<size_t>(out.rows) * out.cols, 0.0f);
    switch (op.kind) {
      case Opcode::Gemm: gemm(op, z); break;
      case Opcode::Gram: {
        const mac::Matrix m = mac::gram_replay(as_matrix(value(op.a), desc(op.a)), as_matrix(value(op.b), desc(op.b)),
                                               a_.fma_stages);
        z = m.v;
        break;
      }
      case Opcode::Spmm: spmm(op, z); break;
      case Opcode::Eltw:
        for (size_t e = 0; e < z.size(); ++e) {
          float v = fp::mul32(op.alpha, value(op.a)[e]);
          if (op.b >= 0) v = fp::fma32(op.beta, value(op.b)[e], v);
          z[e] = v;
        }
        break;
      case Opcode::Host:
        z = host_value(op.fn, value(op.a), desc(op.a), value(op.b), desc(op.b));
        break;
      default: break;
    }
    if (op.relu)
      for (float& v : z)
        if (v < 0.0f) v = 0.0f;
    r_.values[static_cast<size_t>(op.out)] = std::move(z);
  }

  // One register-file pass after another; a pass reads C (the previous partial for
  // continuation passes) and the rows k0..k0+k-1 of B, scaled as RF_LOAD says.
  void gemm(const ExecOp& op, std::vector<float>& z) {
    const bool rf_a = op.bind[1] == Bind::Rf;
    const int st = rf_a ? op.b : op.a, rf = rf_a ? op.a : op.b;
    const TensorDesc &sd = desc(st), &bd = desc(rf), &od = desc(op.out);
    const int64_t m_rows = od.rows, n = od.cols, kk = sd.cols;
    for (const Pass& ps : op.passes) {
      const stream::Record& rec = s_.records[ps.record];
      const stream::Record& ld = s_.records[ps.rf_load];
      const int64_t k0 = static_cast<int64_t>(rec.field("k0")), k = static_cast<int64_t>(rec.field("k"));
      const float scale = ld.f32("scale");
      mac::Matrix a(m_rows, k), b(k, n);
      for (int64_t m = 0; m < m_rows; ++m)
        for (int64_t j = 0; j < k; ++j) a.at(m, j) = value(st)[static_cast<size_t>(m * kk + k0 + j)];
      for (int64_t j = 0; j < k; ++j)
        for (int64_t c = 0; c < n; ++c) b.at(j, c) = fp::mul32(scale, value(rf)[static_cast<size_t>((k0 + j) * bd.cols + c)]);
      const bool first = &ps == &op.passes.front();
      mac::Matrix c;
      const mac::Matrix* cp = nullptr;
      if (!first) {
        c = as_matrix(z, od);
        cp = &c;
      } else if (op.c >= 0) {
        c = as_matrix(value(op.c), od);
        cp = &c;
      }
      z = mac::gemm_replay(a, b, cp, first ? op.alpha : 1.0f).v;
    }
  }

  void spmm(const ExecOp& op, std::vector<float>& z) {
    const bool csr_a = desc(op.a).csr;
    const mtx::CsrF32& m = csr_[static_cast<size_t>(csr_a ? op.a : op.b)];
    const std::vector<float>& x = value(csr_a ? op.b : op.a);
    const int64_t n = desc(op.out).cols;
    for (int64_t row = 0; row < m.rows; ++row)
      for (int64_t c = 0; c < n; ++c) {
        float v = 0.0f;
        if (op.c >= 0) v = fp::fma32(op.alpha, value(op.c)[static_cast<size_t>(row * n + c)], v);
        for (int64_t e = m.row_ptr[row]; e < m.row_ptr[row + 1]; ++e)
          v = fp::fma32(fp::mul32(op.beta, m.val[e]), x[static_cast<size_t>(m.col[e] * n + c)], v);
        z[static_cast<size_t>(row * n + c)] = v;
      }
  }

  // Writes granules [lo, hi) of tensor t's current value to its DRAM region.
  void dram_write(int t, uint64_t lo, uint64_t hi) {
    const TensorDesc& d = desc(t);
    const std::vector<float>& v = value(t);
    for (uint64_t byte = lo * g_; byte < hi * g_ && byte < d.bytes; byte += 4) store32(r_.image, d.base + byte, stored_word(d, v, byte / 4));
  }

  // The stream as the traffic models see it (traffic/workload.hpp).
  // `fused` (per op, the GRAMs the top fuses): this top's reads instead of
  // CELLO's (Result::top): every CHORD-flagged operand but the register
  // file's goes through CHORD, but a fused GRAM's Z (its second operand),
  // which comes from its producer's accumulators (X, in X^T Z, is read from
  // memory whatever its binding).
  traffic::Workload workload(const std::vector<bool>* fused = nullptr) const {
    const ExecProgram& p = r_.program;
    traffic::Workload w;
    w.name = "stream";
    w.word_bytes = a_.word_bytes;
    w.score = true;
    for (size_t t = 0; t < p.tensors.size(); ++t) {
      const TensorDesc& d = p.tensors[t];
      w.base.push_back(d.base / g_);  // the stream's placement (CHORD's addresses are its granules)
      traffic::Tensor y;
      y.name = d.name.empty() ? fmt::format("t{}", t) : d.name;
      y.storage = y.name.substr(0, y.name.find('.'));
      if (y.storage == y.name) y.storage.clear();
      y.input = d.input();
      y.output = d.output();
      y.bind = d.chord() ? traffic::Bind::Chord : traffic::Bind::OnChip;
      if (d.csr) {
        y.csr = std::make_shared<const mtx::CsrPattern>(csr_[t]);  // read_csr gave it d's rows and cols
      } else {
        y.rows = std::max<uint32_t>(d.col_major() ? d.cols : d.rows, 1);
        y.row_words = std::max<uint32_t>(d.col_major() ? d.rows : d.cols, 1);
      }
      w.tensors.push_back(std::move(y));
    }
    for (size_t i = 0; i < p.ops.size(); ++i) {
      const ExecOp& op = p.ops[i];
      traffic::Op o;
      o.name = op.name();
      o.out = op.out;
      o.out_use = op.use[0] == stream::Use::Whole ? traffic::Use::Whole : traffic::Use::Stream;
      o.macs = r_.ops[i].macs;
      std::vector<int> slots;
      if (op.kind == Opcode::Host || op.kind == Opcode::Eltw)
        slots = op.b >= 0 ? std::vector<int>{1, 2} : std::vector<int>{1};
      else
        slots = op.c >= 0 ? std::vector<int>{3, 1, 2} : std::vector<int>{1, 2};
      const int ids[4] = {op.out, op.a, op.b, op.c};
      const int csr = op.kind == Opcode::Spmm ? (desc(op.a).csr ? op.a : op.b) : -1;
      for (int k : slots) {
        traffic::Operand x;
        x.tensor = ids[k];
        x.use = static_cast<traffic::Use>(op.use[k]);
        if (x.use == traffic::Use::Gather) x.index_by = csr;
        o.in.push_back(x);
        const bool via_chord = fused ? op.bind[k] != Bind::Rf && desc(ids[k]).chord() && !((*fused)[i] && ids[k] == op.b)
                                     : op.bind[k] == Bind::Chord;
        if (via_chord) w.tensors[static_cast<size_t>(ids[k])].mem_reads.push_back(static_cast<int>(i));
      }
      // A register-file load reads CHORD where its record says so; on the
      // top, wherever its tensor is live in CHORD, whatever the record says.
      for (const Pass& ps : op.passes)
        if (ps.rf_load != SIZE_MAX && (fused || s_.records[ps.rf_load].field("from") == static_cast<uint64_t>(Bind::Chord)))
          w.tensors[s_.records[ps.rf_load].field("id")].mem_reads.push_back(static_cast<int>(i));
      for (const std::vector<size_t>* list : {&op.pre, &op.post})
        for (size_t rec : *list) {
          const stream::Record& r = s_.records[rec];
          traffic::RiffCmd c;
          c.tensor = static_cast<int>(r.field("id"));
          c.action = r.op() == Opcode::ChordReg   ? traffic::RiffCmd::Action::Register
                     : r.op() == Opcode::ChordUpd ? traffic::RiffCmd::Action::Update
                                                  : traffic::RiffCmd::Action::Release;
          if (r.op() != Opcode::ChordRel) {
            c.distance = static_cast<uint32_t>(r.field("distance"));
            c.remaining = static_cast<uint32_t>(r.field("remaining"));
          }
          o.riff.push_back(c);
        }
      std::vector<int> seen;
      for (const auto& x : o.in) {
        const int prod = p.producer[static_cast<size_t>(x.tensor)];
        if (prod < 0 || std::find(seen.begin(), seen.end(), x.tensor) != seen.end()) continue;
        seen.push_back(x.tensor);
        traffic::Edge e;
        e.src = prod;
        e.dst = static_cast<int>(i);
        e.tensor = x.tensor;
        const int slot = x.tensor == op.a ? 1 : x.tensor == op.b ? 2 : 3;
        e.cls = op.bind[slot] == Bind::Pipe ? score::EdgeClass::Pipelineable : score::EdgeClass::Sequential;
        w.edges.push_back(e);
      }
      if (fused) {
        if (auto l = launches(i, (*fused)[i])) o.passes = std::move(*l);
        // A continuation pass reads its own result as C: through CHORD, which holds it.
        if (op.kind == Opcode::Gemm && op.passes.size() > 1 && desc(op.out).chord()) w.tensors[static_cast<size_t>(op.out)].mem_reads.push_back(static_cast<int>(i));
      }
      w.ops.push_back(std::move(o));
    }
    for (auto& t : w.tensors) {
      std::sort(t.mem_reads.begin(), t.mem_reads.end());
      t.mem_reads.erase(std::unique(t.mem_reads.begin(), t.mem_reads.end()), t.mem_reads.end());
    }
    return w;
  }

  uint64_t macs_of(const ExecOp& op) const {
    const TensorDesc& o = desc(op.out);
    switch (op.kind) {
      case Opcode::Gemm: {
        const TensorDesc& s = desc(op.bind[1] == Bind::Rf ? op.b : op.a);
        return uint64_t{o.rows} * o.cols * s.cols;
      }
      case Opcode::Gram: return uint64_t{desc(op.a).rows} * o.rows * o.cols;
      case Opcode::Spmm: return uint64_t{desc(desc(op.a).csr ? op.a : op.b).nnz} * o.cols;
      case Opcode::Eltw: return uint64_t{o.rows} * o.cols;
      default: return 0;
    }
  }

  void traffic() {
    const ExecProgram& p = r_.program;
    r_.ops.resize(p.ops.size());
    for (size_t i = 0; i < p.ops.size(); ++i) {
      const ExecOp& op = p.ops[i];
      r_.ops[i].mode = stream::find_opcode(static_cast<uint8_t>(op.kind))->name;
      r_.ops[i].label = fmt::format("{} -> {}", r_.ops[i].mode, desc(op.out).name.empty() ? fmt::format("t{}", op.out) : desc(op.out).name);
      r_.ops[i].macs = macs_of(op);
      r_.macs += r_.ops[i].macs;
    }
    const traffic::Workload w = workload();
    w.validate();
    r_.tensor_read_bytes.assign(p.tensors.size(), 0);
    r_.tensor_write_bytes.assign(p.tensors.size(), 0);
    if (!a_.has_chord()) {
      // Flexagon-like: every op moves its operands and result through DRAM
      // as the top's engine does (op_dram_bytes), a GRAM's pipelined operand
      // included.
      for (size_t i = 0; i < p.ops.size(); ++i) {
        dram_write(p.ops[i].out, 0, ceil_div(desc(p.ops[i].out).bytes, g_));  // the result's final value, once
        op_dram_bytes(i, false, [&](bool write, int id, uint64_t bytes) {
          write ? count_write(i, id, bytes) : count_read(i, id, bytes);
        });
      }
    } else {
      traffic::ModelParams mp = arch::model_params_of(a_);
      traffic::ChordHooks hooks;
      hooks.dram_write = [this](int t, uint64_t lo, uint64_t hi) { dram_write(t, lo, hi); };
      if (observe_) {
        hooks.trace = observe_->trace;
        hooks.op_starts = observe_->op_starts;
      }
      const traffic::Traffic t = traffic::run_model(w, traffic::MemorySystem::CELLO, mp, &hooks);
      r_.tensor_read_bytes = t.tensor_read_bytes;
      r_.tensor_write_bytes = t.tensor_write_bytes;
      for (size_t i = 0; i < p.ops.size(); ++i) {
        r_.ops[i].read_bytes = t.op_read_bytes[i];
        r_.ops[i].write_bytes = t.op_write_bytes[i];
      }
      r_.end_write_bytes = t.op_write_bytes.back() + t.op_read_bytes.back();
      r_.chord = t.chord;
    }
    for (size_t t = 0; t < p.tensors.size(); ++t) {
      r_.read_bytes += r_.tensor_read_bytes[t];
      r_.write_bytes += r_.tensor_write_bytes[t];
    }
    top_traffic();
  }

  // Per op: a GRAM the top runs in its producer's launch (docs/top.md,
  // "Pipelined GRAM").
  std::vector<bool> fused_grams() const {
    std::vector<bool> fused(r_.program.ops.size(), false);
    for (size_t g : pipelined_grams(s_, r_.program, a_)) fused[g] = true;
    return fused;
  }

  // Result::top: on a top with CHORD on its datapath, the CHORD walk again
  // with the top's reads, then the tensors not flagged chord, which the walk
  // keeps on chip, as the engine moves them; on any other top, every tensor
  // as the engine moves it.
  void top_traffic() {
    const ExecProgram& p = r_.program;
    Result::TopTraffic& top = r_.top;
    top.tensor_read_bytes.assign(p.tensors.size(), 0);
    top.tensor_write_bytes.assign(p.tensors.size(), 0);
    const std::vector<bool> fused = fused_grams();
    // The engine's DRAM bytes of the tensors CHORD does not hold (all of them
    // when the top's CHORD is off its datapath); a fused GRAM's Z comes from
    // its producer's accumulators.
    // `w`: the CHORD walk's workload, whose ops hold their launches already.
    auto dram = [&](const traffic::Workload* w) {
      for (size_t i = 0; i < p.ops.size(); ++i) {
        const auto put = [&](bool write, int id, uint64_t bytes) {
          if (w && p.tensors[static_cast<size_t>(id)].chord()) return;
          (write ? top.tensor_write_bytes : top.tensor_read_bytes)[static_cast<size_t>(id)] += bytes;
        };
        op_dram_bytes(i, fused[i], put, w && !w->ops[i].passes.empty() ? &w->ops[i].passes : nullptr);
      }
    };
    top.exact = engine_order_modelled();
    if (!a_.has_chord() || !a_.chord_on_datapath) {
      dram(nullptr);
      sum_top();
      return;
    }
    const traffic::Workload w = workload(&fused);
    const traffic::Traffic t = traffic::run_model(w, traffic::MemorySystem::CELLO, arch::model_params_of(a_));
    top.chord = t.chord;
    for (size_t id = 0; id < p.tensors.size(); ++id)
      if (p.tensors[id].chord()) {
        top.tensor_read_bytes[id] = t.tensor_read_bytes[id];
        top.tensor_write_bytes[id] = t.tensor_write_bytes[id];
      }
    dram(&w);
    sum_top();
  }
  // Whether the accounting above is the engine's to the granule (see
  // Result::TopTraffic::exact): the launches follow every unit's cursor
  // through its window, but for the reads of X in an SPMM that computes
  // X^T Z, which are counted once each; no SPMM gathers word by word (its
  // dense operand does not fit one column of the gather buffer), and no op
  // names one tensor in two roles that two units read.
  bool engine_order_modelled() const {
    const ExecProgram& p = r_.program;
    // An SPMM flagged pipe_gram_x computes the products X^T Z (for a GRAM
    // that follows, or for none) when its result is one block of at most 8
    // columns, reading X's rows beside its gather fill, which runs ahead on
    // other rows: the load units hold the granules of both. The launches
    // count X once; that is what the units read only where X's rows (a
    // column-major X's columns) fill whole granules and the windows hold 2 N
    // of them (measured on bcsstk18 and nasa2146: equal with 2 N, not with N
    // or 1.5 N).
    for (const ExecOp& op : p.ops) {
      if (op.kind != Opcode::Spmm || !(s_.records[op.passes.back().record].field("flags") & stream::kLaunchPipeGramX)) continue;
      const TensorDesc &x = desc(desc(op.a).csr ? op.b : op.a), &z = desc(op.out);
      const int w = arch::spmm_block_cols(x.rows, a_.gather_words);
      if (z.cols > 8 || (w != 0 && static_cast<uint32_t>(w) < z.cols)) continue;  // no products
      if (xz_from_buffer(x, z)) continue;  // no reads of X: the product unit takes its rows from the gather buffer
      if (2 * x.cols > a_.load_window || (4 * (x.col_major() ? x.rows : x.cols)) % g_ != 0) return false;
    }
    for (const ExecOp& op : p.ops) {
      if (op.kind == Opcode::Spmm && arch::spmm_block_cols(desc(desc(op.a).csr ? op.b : op.a).rows, a_.gather_words) == 0)
        return false;
      // One tensor in two roles is read by two units (C beside A or X, an
      // ELTW of a tensor with itself); the accounting reads it once.
      if ((op.c >= 0 && (op.c == op.a || op.c == op.b)) || (op.kind == Opcode::Eltw && op.a == op.b)) return false;
    }
    return true;
  }
  void sum_top() {
    Result::TopTraffic& top = r_.top;
    for (size_t id = 0; id < top.tensor_read_bytes.size(); ++id) {
      top.read_bytes += top.tensor_read_bytes[id];
      top.write_bytes += top.tensor_write_bytes[id];
    }
  }

  // Receives an op's DRAM bytes, per tensor: (write?, tensor id, bytes).
  using DramSink = std::function<void(bool, int, uint64_t)>;
  // One granule a unit of the engine moves; an op's launches (below).
  using Access = traffic::Op::Access;
  using Launches = std::vector<std::vector<Access>>;
  // Op i's DRAM bytes as the engine moves them on a CHORD-less top
  // (launches, or `known`, the same launches computed before); a fused
  // GRAM's second operand is not read. An op the engine model does not cover
  // (a HOST, an SPMM gathered word by word) reads each operand once and
  // writes its result once.
  void op_dram_bytes(size_t i, bool fused, const DramSink& put, const Launches* known = nullptr) {
    const std::optional<Launches> l = known ? std::nullopt : launches(i, fused);
    if (const Launches* moves = known ? known : l ? &*l : nullptr) {
      for (const auto& launch : *moves)
        for (const Access& x : launch) put(x.write, x.tensor, (x.hi - x.lo) * g_);
      return;
    }
    const ExecOp& op = r_.program.ops[i];
    std::vector<int> read;
    for (int id : {op.a, op.b, op.c})
      if (id >= 0 && std::find(read.begin(), read.end(), id) == read.end()) read.push_back(id);
    for (int id : read) put(false, id, desc(id).bytes);
    put(true, op.out, desc(op.out).bytes);
  }

  void count_read(size_t op, int id, uint64_t bytes) {
    r_.tensor_read_bytes[static_cast<size_t>(id)] += bytes;
    r_.ops[op].read_bytes += bytes;
  }
  void count_write(size_t op, int id, uint64_t bytes) {
    r_.tensor_write_bytes[static_cast<size_t>(id)] += bytes;
    r_.ops[op].write_bytes += bytes;
  }

  // ---- The engine's DRAM transfers, launch by launch (docs/top.md, "Stream
  // engine", "Load unit" and "Store unit"): every load unit reads through its
  // reuse window and the store unit writes through its open granules, each
  // in its cursor's order; a launch lists one Access per granule a unit moves.

  // A load unit (its reuse window) or the store unit (its open granules)
  // over one launch.
  struct Unit {
    ReuseWindow window;
    bool write;
  };
  Unit load_unit() const { return {ReuseWindow(a_.load_window), false}; }
  // Whether a fused X^T Z runs on the split array's product unit, which takes
  // X's rows from the SPMM's gather buffer and so reads no memory for them
  // (docs/top.md, "Pipelined GRAM").
  bool xz_from_buffer(const TensorDesc& x, const TensorDesc& z) const {
    return arch::engine_split_gram(a_) &&
           arch::engine_xz_from_buffer(arch::spmm_block_cols(x.rows, a_.gather_words), z.cols, arch::engine_lanes(a_));
  }
  Unit store_unit() const { return {ReuseWindow(a_.store_window), true}; }
  // The unit takes bytes [b0, b1) of tensor id: the granules it moves.
  void move(Unit& u, std::vector<Access>& acc, int id, uint64_t b0, uint64_t b1) const {
    const uint64_t base = desc(id).base / g_;
    for (uint64_t x = b0 / g_; x <= (b1 - 1) / g_; ++x)
      if (u.window.miss(x)) acc.push_back({u.write, id, x - base, x - base + 1});
  }
  uint64_t byte_at(const TensorDesc& d, uint64_t r, uint64_t c) const { return d.base + 4 * d.offset(r, c); }
  // Rows [r0, r1) x columns [c0, c1) of tensor id in its storage order.
  void block_in_order(Unit& u, std::vector<Access>& acc, int id, uint64_t r0, uint64_t r1, uint64_t c0, uint64_t c1) const {
    const TensorDesc& d = desc(id);
    if (r0 >= r1 || c0 >= c1) return;
    if (d.col_major())
      for (uint64_t c = c0; c < c1; ++c) move(u, acc, id, byte_at(d, r0, c), byte_at(d, r1 - 1, c) + 4);
    else
      for (uint64_t r = r0; r < r1; ++r) move(u, acc, id, byte_at(d, r, c0), byte_at(d, r, c1 - 1) + 4);
  }
  // The engine's row-group cursors (GEMM's C and result, Gram's operands,
  // SPMM's C and result): all rows in groups of 4, each group's elements of
  // columns [c0, c1) in the tensor's storage order; `by_column`: GEMM's
  // streamed operand, each group's columns in turn (its MAC steps' order),
  // whatever the storage order.
  // `rows`: a tile's rows of the tensor (all of them when absent).
  void group_cursor(Unit& u, std::vector<Access>& acc, int id, uint64_t c0, uint64_t c1, bool by_column = false,
                    uint64_t group_rows = 4, std::optional<arch::RowSlice> rows = std::nullopt) const {
    const arch::RowSlice r = rows ? *rows : arch::RowSlice{0, desc(id).rows};
    for (uint64_t i0 = r.lo; i0 < r.hi; i0 += group_rows) {
      const uint64_t i1 = std::min<uint64_t>(r.hi, i0 + group_rows);
      if (!by_column) {
        block_in_order(u, acc, id, i0, i1, c0, c1);
        continue;
      }
      for (uint64_t c = c0; c < c1; ++c) block_in_order(u, acc, id, i0, i1, c, c + 1);
    }
  }

  // The engine's launches of op i: GEMM passes, a GRAM (`fused`: its second
  // operand comes from the producer's accumulators), an SPMM, an ELTW.
  // Nothing for an SPMM whose dense operand is gathered word by word from
  // DRAM (not one column fits the gather buffer), or a HOST.
  std::optional<Launches> launches(size_t i, bool fused) const {
    const ExecOp& op = r_.program.ops[i];
    switch (op.kind) {
      case Opcode::Gemm: return gemm_launches(op);
      case Opcode::Gram: return Launches{gram_launch(op, fused)};
      case Opcode::Spmm: return spmm_launch(op);
      case Opcode::Eltw: return Launches{eltw_launch(op)};
      default: return std::nullopt;
    }
  }
  // The tiles a launch of `kind` with `flags` over `rows` result rows runs
  // on, each one's rows (arch::tile_rows; docs/top.md, "Tiles"): tile 0 is
  // always started, the others when their slice has rows. Each tile has its
  // own units, so each walks its rows through windows of its own.
  // (x_rows: an SPMM's dense operand's rows.)
  std::vector<arch::RowSlice> tile_slices(stream::Opcode kind, uint64_t flags, const TensorDesc& out, uint64_t x_rows = 0) const {
    const int tiles = arch::engine_tiles(a_);
    const uint64_t rows = out.rows;
    if (tiles == 1 || !exec::launch_on_tiles(kind, flags, x_rows, out.cols, a_.gather_words)) return {{0, rows}};
    std::vector<arch::RowSlice> v;
    for (int t = 0; t < tiles; ++t) {
      const arch::RowSlice r = arch::tile_rows(rows, tiles, t, g_);
      if (t == 0 || r.lo < r.hi) v.push_back(r);
    }
    return v;
  }
  // Per register-file pass, per 16-column block j0..j1: port A loads the
  // register file (rows k0..k0+k of the block's columns, row by row), then
  // streams the operand's columns k0..k0+k; port B reads C's block (the
  // GEMM's C, or a continuation pass's own result); the store unit writes
  // the result's block. Each pass is a launch of its own. On row pairs
  // (gemm_row_pairs) the groups are 8 rows and port A reads each group's
  // block of the operand in its storage order (the A cursor).
  Launches gemm_launches(const ExecOp& op) const {
    const int rf = op.bind[1] == Bind::Rf ? op.a : op.b, st = op.bind[1] == Bind::Rf ? op.b : op.a;
    const uint64_t N = desc(op.out).cols;
    Launches passes;
    for (const Pass& ps : op.passes) {
      const stream::Record& rec = s_.records[ps.record];
      const uint64_t k0 = rec.field("k0"), k = rec.field("k");
      const bool with_c = (rec.field("flags") & stream::kLaunchWithC) != 0;
      const int c = static_cast<int>(rec.field("c"));
      const bool pairs = gemm_row_pairs(a_, rec, r_.program, st);
      const uint64_t rows = pairs ? 8 : 4;
      auto& acc = passes.emplace_back();
      for (const arch::RowSlice& tile : tile_slices(op.kind, rec.field("flags"), desc(op.out))) {
        Unit a = load_unit(), b = load_unit(), store = store_unit();
        for (uint64_t j0 = 0; j0 < N; j0 += 16) {
          const uint64_t j1 = std::min(N, j0 + 16);
          for (uint64_t r = k0; r < k0 + k; ++r)
            for (uint64_t col = j0; col < j1; ++col) move(a, acc, rf, byte_at(desc(rf), r, col), byte_at(desc(rf), r, col) + 4);
          group_cursor(a, acc, st, k0, k0 + k, !pairs, rows, tile);
          if (with_c) group_cursor(b, acc, c, j0, j1, false, rows, tile);
          group_cursor(store, acc, op.out, j0, j1, false, rows, tile);
        }
      }
    }
    return passes;
  }
  // Per 8 x 8 block of Z: port A reads A's block columns, port B B's (not
  // on the diagonal when A and B are one operand), and the store unit writes
  // the block. A fused GRAM reads nothing of its second operand; the first,
  // X of an X^T Z, is read beside the producer's gather fill, counted once,
  // unless the product unit takes it from the gather buffer.
  std::vector<Access> gram_launch(const ExecOp& op, bool fused) const {
    const TensorDesc& o = desc(op.out);
    std::vector<Access> acc;
    Unit a = load_unit(), b = load_unit(), store = store_unit();
    if (fused && op.a != op.b && !xz_from_buffer(desc(op.a), desc(op.b)))
      block_in_order(a, acc, op.a, 0, desc(op.a).rows, 0, desc(op.a).cols);
    for (uint64_t b1 = 0; b1 < o.rows; b1 += 8)
      for (uint64_t b2 = 0; b2 < o.cols; b2 += 8) {
        const uint64_t e1 = std::min<uint64_t>(o.rows, b1 + 8), e2 = std::min<uint64_t>(o.cols, b2 + 8);
        if (!fused) {
          group_cursor(a, acc, op.a, b1, e1);
          if (op.b != op.a || b1 != b2) group_cursor(b, acc, op.b, b2, e2);
        }
        block_in_order(store, acc, op.out, b1, e1, b2, e2);
      }
    return acc;
  }
  // The CSR arrays through their units (csr_unit_reads); per column block
  // j0..j1 the gather fill of X's block row by row (without C, a
  // column-major X's columns in pairs, even ones on port A, odd ones on port
  // B, when the engine has more than one lane; a row-major X's row on port A:
  // its two-word fill splits a row only where the halves share no granule;
  // with C, all of it on port A), C's block on port B (the C cursor), and the
  // result's block through the store unit.
  std::optional<Launches> spmm_launch(const ExecOp& op) const {
    const int csr = desc(op.a).csr ? op.a : op.b, x = spmm_dense(r_.program, op);
    const TensorDesc& X = desc(x);
    const uint64_t N = desc(op.out).cols, w = static_cast<uint64_t>(arch::spmm_block_cols(X.rows, a_.gather_words));
    if (w == 0) return std::nullopt;
    std::vector<Access> acc;
    const bool pairs = X.col_major() && w >= 2 && arch::engine_lanes(a_) > 1 && op.c < 0;
    // On tiles, tile 0 fills every tile's gather buffer; each tile reads its
    // rows' CSR arrays, C and result through units of its own.
    const std::vector<arch::RowSlice> tiles =
        tile_slices(op.kind, s_.records[op.record].field("flags"), desc(op.out), X.rows);
    for (size_t t = 0; t < tiles.size(); ++t) {
      for (const auto& [y, n] : csr_unit_reads(csr, ceil_div(N, w), tiles[t]).reads)
        for (unsigned k = 0; k < n; ++k) acc.push_back({false, csr, y, y + 1});
      Unit a = load_unit(), b = load_unit(), store = store_unit();
      for (uint64_t j0 = 0; j0 < N; j0 += w) {
        const uint64_t j1 = std::min(N, j0 + w);
        for (uint64_t k = 0; t == 0 && k < X.rows; ++k) {
          if (!X.col_major()) {
            move(a, acc, x, byte_at(X, k, j0), byte_at(X, k, j1 - 1) + 4);
            continue;
          }
          for (uint64_t c = j0; c < j1; ++c) move(pairs && (c - j0) % 2 ? b : a, acc, x, byte_at(X, k, c), byte_at(X, k, c) + 4);
        }
        if (op.c >= 0) group_cursor(b, acc, op.c, j0, j1, false, 4, tiles[t]);
        group_cursor(store, acc, op.out, j0, j1, false, 4, tiles[t]);
      }
    }
    return Launches{std::move(acc)};
  }
  // The result in its storage order, in groups of the engine's
  // accumulators: port A reads the group's elements of A, then of B; the
  // store unit writes the group's results. On tiles, each tile walks its
  // rows of the result so.
  std::vector<Access> eltw_launch(const ExecOp& op) const {
    const TensorDesc& o = desc(op.out);
    std::vector<Access> acc;
    const uint64_t group = static_cast<uint64_t>(arch::engine_accumulators(a_.fma_stages));
    for (const arch::RowSlice& tile : tile_slices(op.kind, 0, o)) {
      Unit a = load_unit(), store = store_unit();
      const uint64_t rows = tile.hi - tile.lo, n = rows * o.cols;
      auto element = [&](int id, uint64_t e) {  // element e of the tile's rows in the result's storage order, in tensor id
        const uint64_t r = tile.lo + (o.col_major() ? e % rows : e / o.cols), c = o.col_major() ? e / rows : e % o.cols;
        return byte_at(desc(id), r, c);
      };
      for (uint64_t e0 = 0; e0 < n; e0 += group) {
        const uint64_t e1 = std::min(n, e0 + group);
        for (int id : {op.a, op.b})
          if (id >= 0)
            for (uint64_t e = e0; e < e1; ++e) move(a, acc, id, element(id, e), element(id, e) + 4);
        for (uint64_t e = e0; e < e1; ++e) move(store, acc, op.out, element(op.out, e), element(op.out, e) + 4);
      }
    }
    return acc;
  }

  // The granules (from the tensor's base) SPMM's three CSR units read over
  // `blocks` column blocks, and how often: the row pointers stream in order
  // once per block, the column indices and values come in the entry
  // fetcher's order (csr_entry_order), each unit through its reuse window and
  // pins, which last the whole launch. A group's last row that ends many
  // granules before the group's others lets the granule it shares with the
  // next group's first row leave the window: that granule is read again.
  // `rows`: a tile's rows (its row pointers rows.lo .. rows.hi).
  struct CsrReads {
    std::map<uint64_t, unsigned> reads;
  };
  const CsrReads& csr_unit_reads(int csr, uint64_t blocks, arch::RowSlice rows) const {
    const auto key = std::make_tuple(csr, blocks, rows.lo, rows.hi);
    if (const auto it = csr_reads_.find(key); it != csr_reads_.end()) return it->second;
    const TensorDesc& m = desc(csr);
    const std::vector<int64_t>& all = csr_[static_cast<size_t>(csr)].row_ptr;
    const std::span<const int64_t> row_ptr(all.data() + rows.lo, rows.hi - rows.lo + 1);
    const uint64_t rp_base = m.base + 4 * rows.lo;
    const uint64_t base = m.base / g_, col = m.col_at(g_), val = m.val_at(g_);
    CsrReads r;
    auto read = [&](ReuseWindow& unit, uint64_t byte, bool pin = false) {
      if (unit.miss(byte / g_, pin)) ++r.reads[byte / g_ - base];
    };
    ReuseWindow rp(a_.load_window), cols(a_.load_window, arch::kLoadUnitPins), vals(a_.load_window, arch::kLoadUnitPins);
    for (uint64_t b = 0; b < blocks; ++b) {
      for (size_t k = 0; k < row_ptr.size(); ++k) read(rp, rp_base + 4 * k);
      csr_entry_order(row_ptr, [&](uint64_t e, bool pin) {
        read(cols, col + 4 * e, pin);
        read(vals, val + 4 * e, pin);
      });
    }
    return csr_reads_.emplace(key, std::move(r)).first->second;
  }

  // docs/commands.md, "Timing model".
  uint64_t compute_cycles(const ExecOp& op) const {
    const uint64_t R = static_cast<uint64_t>(a_.pe_rows), C = static_cast<uint64_t>(a_.pe_cols),
                   L = static_cast<uint64_t>(a_.fma_stages);
    const TensorDesc& o = desc(op.out);
    switch (op.kind) {
      case Opcode::Gemm: {
        uint64_t cyc = 0;
        const uint64_t blocks = ceil_div(o.cols, C), tiles = ceil_div(o.rows, R * L);
        for (const Pass& ps : op.passes) {
          const stream::Record& rec = s_.records[ps.record];
          const uint64_t k = rec.field("k"), with_c = (rec.field("flags") & stream::kLaunchWithC) ? 1 : 0;
          cyc += blocks * (k + 1 + tiles * (k + with_c) * L + L);
        }
        return cyc;
      }
      case Opcode::Gram: {
        const uint64_t m = desc(op.a).rows, pad = (L - m % L) % L;
        const uint64_t fold = L >= 2 ? (L - 2) * (L + 1) + 2 : 0;
        return ceil_div(o.rows, R) * ceil_div(o.cols, C) * (1 + m + pad + fold + L);
      }
      case Opcode::Spmm: {
        const TensorDesc& m = desc(desc(op.a).csr ? op.a : op.b);
        const mtx::CsrF32& c = csr_[static_cast<size_t>(desc(op.a).csr ? op.a : op.b)];
        uint64_t empty = 0;
        for (int64_t r = 0; r < c.rows; ++r) empty += c.row_ptr[r] == c.row_ptr[r + 1];
        const uint64_t beats = std::max(ceil_div(uint64_t{m.nnz} + empty, R), L);
        return ceil_div(o.cols, C) * (1 + beats + L);
      }
      case Opcode::Eltw: return 1 + ceil_div(uint64_t{o.rows} * o.cols, R * C) + L;
      case Opcode::Host: return a_.host_cycles;
      default: return 0;
    }
  }

  void timing() {
    const ExecProgram& p = r_.program;
    const double bw = a_.dram_bytes_per_cycle;
    for (size_t i = 0; i < p.ops.size(); ++i) {
      OpStats& st = r_.ops[i];
      st.compute_cycles = compute_cycles(p.ops[i]);
      st.dram_cycles = static_cast<uint64_t>(std::ceil(static_cast<double>(st.read_bytes + st.write_bytes) / bw));
      st.chord_cycles = p.ops[i].pre.size() * a_.chord_entries;
      st.cycles = std::max(st.compute_cycles, st.dram_cycles) + a_.dram_latency + st.chord_cycles;
      r_.cycles += st.cycles;
    }
    r_.cycles += static_cast<uint64_t>(std::ceil(static_cast<double>(r_.end_write_bytes) / bw));
    r_.cycles += r_.chord.evicted_words;  // one cycle per evicted word (docs/chord.md)
    const uint64_t bytes = r_.read_bytes + r_.write_bytes;
    r_.roofline_cycles = std::max(ceil_div(r_.macs, a_.macs_per_cycle()),
                                  static_cast<uint64_t>(std::ceil(static_cast<double>(bytes) / bw)));
  }

  const stream::Stream& s_;
  const std::string& file_;
  const arch::Arch& a_;
  Result& r_;
  std::string image_file_;
  unsigned g_;
  const traffic::ChordHooks* observe_;
  std::vector<mtx::CsrF32> csr_;
  mutable std::map<std::tuple<int, uint64_t, uint64_t, uint64_t>, CsrReads> csr_reads_;  // csr_unit_reads by (tensor, blocks, rows)
};

}  // namespace

std::vector<float> read_dense(const std::vector<uint8_t>& image, const TensorDesc& t) {
  std::vector<float> v(static_cast<size_t>(t.rows) * t.cols);
  for (uint64_t r = 0; r < t.rows; ++r)
    for (uint64_t c = 0; c < t.cols; ++c)
      v[static_cast<size_t>(r * t.cols + c)] = std::bit_cast<float>(load32(image, t.base + 4 * t.offset(r, c)));
  return v;
}

void write_dense(std::vector<uint8_t>& image, const TensorDesc& t, const std::vector<float>& v) {
  if (v.size() != uint64_t{t.rows} * t.cols) throw std::logic_error("write_dense: value size differs from the shape");
  for (uint64_t byte = 0; byte < t.bytes; byte += 4) store32(image, t.base + byte, stored_word(t, v, byte / 4));
}

std::vector<float> host_value(stream::HostFn fn, const std::vector<float>& a, const TensorDesc& ad,
                              const std::vector<float>& b, const TensorDesc& bd) {
  if (fn == stream::HostFn::Solve) return golden::solve32(a, b, static_cast<int>(ad.rows), static_cast<int>(bd.cols));
  return golden::omega32(a, b, static_cast<int>(ad.rows));
}

Result execute(const stream::Stream& s, const std::string& file, const arch::Arch& a, std::vector<uint8_t> image,
               const std::string& image_file, const traffic::ChordHooks* observe) {
  const auto t0 = std::chrono::steady_clock::now();
  Result r;
  r.program = check_stream(s, file, a);
  r.image = std::move(image);
  Runner(s, file, a, r, image_file, observe).run();
  r.seconds = seconds_since(t0);
  return r;
}

std::vector<uint8_t> initial_image(const ir::Program& p, const stream::Compiled& c, const mtx::Csr& a,
                                   const std::map<std::string, std::vector<float>>& dense, unsigned g) {
  std::vector<uint8_t> m(c.stream.header.memory_bytes, 0);
  for (size_t t = 0; t < p.tensors.size(); ++t) {
    const ir::Tensor& x = p.tensors[t];
    if (!x.input) continue;
    const uint64_t base = c.base[t];
    if (x.format == ir::Format::Csr) {
      TensorDesc d;
      d.base = base;
      d.rows = static_cast<uint32_t>(a.rows);
      d.nnz = static_cast<uint32_t>(a.nnz());
      for (int64_t r = 0; r <= a.rows; ++r) store32(m, base + 4 * static_cast<uint64_t>(r), static_cast<uint32_t>(a.row_ptr[static_cast<size_t>(r)]));
      for (int64_t k = 0; k < a.nnz(); ++k) {
        store32(m, d.col_at(g) + 4 * static_cast<uint64_t>(k), static_cast<uint32_t>(a.col[static_cast<size_t>(k)]));
        store32(m, d.val_at(g) + 4 * static_cast<uint64_t>(k),
                std::bit_cast<uint32_t>(fp::flush_subnormal(static_cast<float>(a.val[static_cast<size_t>(k)]))));
      }
      continue;
    }
    auto it = dense.find(x.name);
    if (it == dense.end()) throw Error("", "tensor " + x.name, "no values for this dense input");
    const stream::Record& desc = c.stream.records[c.descriptor[t]];
    TensorDesc d;
    d.base = base;
    d.flags = static_cast<uint8_t>(desc.field("flags"));
    d.rows = static_cast<uint32_t>(desc.field("rows"));
    d.cols = static_cast<uint32_t>(desc.field("cols"));
    if (it->second.size() != uint64_t{d.rows} * d.cols) throw Error("", "tensor " + x.name, "wrong number of values");
    for (uint64_t r = 0; r < d.rows; ++r)
      for (uint64_t col = 0; col < d.cols; ++col)
        store32(m, base + 4 * d.offset(r, col), std::bit_cast<uint32_t>(it->second[static_cast<size_t>(r * d.cols + col)]));
  }
  return m;
}

}  // namespace cello::exec
