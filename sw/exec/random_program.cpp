#include "sw/exec/random_program.hpp"

#include <algorithm>
#include <cstring>
#include <random>
#include <stdexcept>

#include "sw/exec/check.hpp"
#include "sw/exec/executor.hpp"

namespace cello::exec {

using stream::Bind;
using stream::Opcode;
using stream::Record;

namespace {

class Generator {
 public:
  Generator(uint64_t seed, const arch::Arch& a, const RandomProgramOptions& o)
      : rng_(seed), a_(a), o_(o), chord_(static_cast<size_t>(o.max_tensors)), live_(chord_.size()) {
    // A few shared sizes, so that operands of later launches often exist already.
    for (int k = 0; k < 2; ++k) rows_.push_back(pick(1, o_.max_rows));
    for (int k = 0; k < 3; ++k) small_.push_back(pick(1, o_.max_small));
    // Sometimes a size just past the register file (a GEMM of two passes) or a
    // 16-column block (two column blocks).
    if (chance(0.5)) small_.push_back(static_cast<int>(a_.rf_rows) + pick(1, 3));
    // Piped programs: a width at which a fused X^T Z runs on a split array's
    // product unit from the gather buffer (at most 8 columns and the engine's
    // lanes, arch::engine_xz_from_buffer), at least 3 so that a sparse SPMM's
    // gather fill (up to two words per step) falls behind its row groups.
    if (o_.pipe_every) small_.push_back(narrow_ = pick(3, std::max(3, std::min(8, arch::engine_lanes(a_)))));
  }

  RandomProgram run() {
    RandomProgram p;
    for (int l = 0; l < o_.launches && next_id_ + 8 <= o_.max_tensors; ++l) {
      if (chance(0.15)) s_.records.push_back(Record::make(Opcode::Fence));
      const size_t first = s_.records.size();
      if (pipe_next_) {
        pipe_gram();
        if (o_.chord) riff_around(first);
        continue;
      }
      // Piped programs: producers only, mostly SPMMs (each piped into its GRAM).
      switch (o_.spmm_only ? 2 : o_.pipe_every ? (chance(0.7) ? 2 : 0) : pick(0, 3)) {
        case 0: gemm(); break;
        case 1: gram(); break;
        case 2: spmm(); break;
        default: eltw(); break;
      }
      if (o_.chord) riff_around(first);
    }
    s_.records.push_back(Record::make(Opcode::End));
    s_.header.granule_bytes = static_cast<uint16_t>(a_.granule_bytes);
    s_.header.word_bytes = 4;
    s_.header.config_hash = a_.config_hash;
    s_.header.memory_bytes = image_.size();
    p.stream = std::move(s_);
    p.image = std::move(image_);
    return p;
  }

 private:
  struct T {
    int id;
    uint32_t rows, cols;
    bool col_major;
  };

  int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  bool chance(double p) { return std::bernoulli_distribution(p)(rng_); }
  int any_rows() { return rows_[static_cast<size_t>(pick(0, static_cast<int>(rows_.size()) - 1))]; }
  int any_small() { return small_[static_cast<size_t>(pick(0, static_cast<int>(small_.size()) - 1))]; }
  // Coefficients: exact ones most of the time (as SCORE emits), any value sometimes.
  float coefficient() {
    switch (pick(0, 3)) {
      case 0: return 1.0f;
      case 1: return -1.0f;
      default: return std::uniform_real_distribution<float>(-2.5f, 2.5f)(rng_);
    }
  }
  // Values: signed zeros and subnormals (which the FMA reads as zeros of their
  // sign) sometimes, so that sign-of-zero rules are exercised.
  float value() {
    if (chance(0.05)) return chance(0.5) ? 0.0f : -0.0f;
    if (chance(0.06)) {
      const uint32_t bits = (chance(0.5) ? 0x80000000u : 0u) | static_cast<uint32_t>(pick(1, 0x7fffff));
      float f;
      std::memcpy(&f, &bits, 4);
      return f;
    }
    return std::uniform_real_distribution<float>(-2.0f, 2.0f)(rng_);
  }

  // A TENSOR record in a fresh granule-aligned region; inputs get their values.
  TensorDesc describe(int id, bool csr, uint8_t flags, uint32_t rows, uint32_t cols, uint32_t nnz) {
    if (id >= o_.max_tensors) throw std::logic_error("random_program: out of tensor ids");
    if (o_.chord && chance(0.7)) {
      flags |= stream::kTensorChord;
      chord_[static_cast<size_t>(id)] = true;
    }
    Record r = Record::make(Opcode::Tensor);
    r.set_field("format", csr ? 1 : 0);
    r.set_field("id", static_cast<uint64_t>(id));
    r.set_field("flags", flags);
    r.set_field("rows", rows);
    r.set_field("cols", cols);
    r.set_field("nnz", nnz);
    r.set_field("base", image_.size());
    s_.records.push_back(r);
    const TensorDesc d = tensor_desc(r, a_.granule_bytes);
    image_.resize(image_.size() + d.bytes, 0);
    return d;
  }

  // A dense operand of the given shape: an existing one, or a new input. SPMM's
  // gathered operand is row-major (the executor's traffic model gathers rows),
  // except in SPMM-only programs, which test the top's gather buffer.
  int dense(uint32_t rows, uint32_t cols, bool row_major = false) {
    std::vector<int> fit;
    for (const T& t : dense_)
      if (t.rows == rows && t.cols == cols && !(row_major && t.col_major)) fit.push_back(t.id);
    if (!fit.empty() && chance(0.6)) return fit[static_cast<size_t>(pick(0, static_cast<int>(fit.size()) - 1))];
    const int id = next_id_++;
    const uint8_t flags = stream::kTensorInput | (!row_major && chance(0.5) ? stream::kTensorColMajor : 0);
    const TensorDesc d = describe(id, false, flags, rows, cols, 0);
    std::vector<float> v(static_cast<size_t>(rows) * cols);
    for (float& x : v) x = value();
    write_dense(image_, d, v);
    dense_.push_back({id, rows, cols, d.col_major()});
    return id;
  }

  // A CSR input matrix, some rows empty, column indices ascending.
  int csr(uint32_t rows, uint32_t cols) {
    std::vector<uint32_t> row_ptr{0}, col;
    const double density = std::uniform_real_distribution<double>(0.0, 0.5)(rng_);
    // Piped programs: half the matrices sparse and strictly lower triangular,
    // so that no entry needs the gather fill past its own row.
    const bool lower = o_.pipe_every && chance(0.5);
    const double lower_density = lower ? std::uniform_real_distribution<double>(0.0, 0.1)(rng_) : 0.0;
    for (uint32_t r = 0; r < rows; ++r) {
      // Ragged: rows long or short, a group's last row (the entry fetcher's
      // groups of 4) mostly a third as long.
      const double ragged = r % 4 == 3 && chance(0.7) ? 0.3 : chance(0.8) ? 0.9 : 1.5 / cols;
      const double p = o_.band ? 0.8 : o_.ragged ? ragged : lower ? lower_density : density;
      for (uint32_t c = 0; c < cols; ++c)
        if ((o_.band == 0 || (c >= r && c < r + static_cast<uint32_t>(o_.band))) && (!lower || c < r) && chance(p))
          col.push_back(c);
      row_ptr.push_back(static_cast<uint32_t>(col.size()));
    }
    const int id = next_id_++;
    const TensorDesc d = describe(id, true, stream::kTensorInput, rows, cols, static_cast<uint32_t>(col.size()));
    auto put = [&](uint64_t at, uint32_t w) { std::memcpy(&image_[at], &w, 4); };
    for (size_t k = 0; k < row_ptr.size(); ++k) put(d.base + 4 * k, row_ptr[k]);
    const uint64_t col_at = d.col_at(a_.granule_bytes), val_at = d.val_at(a_.granule_bytes);
    for (size_t k = 0; k < col.size(); ++k) {
      put(col_at + 4 * k, col[k]);
      const float v = value();
      uint32_t bits;
      std::memcpy(&bits, &v, 4);
      put(val_at + 4 * k, bits);
    }
    return id;
  }

  // The result of a launch: a new output in its own region.
  int result(uint32_t rows, uint32_t cols, bool row_major = false) {
    const int id = next_id_++;
    const TensorDesc d = describe(
        id, false, stream::kTensorOutput | (!row_major && chance(0.5) ? stream::kTensorColMajor : 0), rows, cols, 0);
    pending_ = {id, rows, cols, d.col_major()};
    return id;
  }
  // The launch that writes the last result has been emitted: later launches may read it.
  void produced() { dense_.push_back(pending_); }

  Record launch(Opcode op, int out, int a, int b, int c, uint64_t binds, uint64_t uses) {
    Record r = Record::make(op);
    r.set_field("out", static_cast<uint64_t>(out));
    r.set_field("a", static_cast<uint64_t>(a));
    r.set_field("b", static_cast<uint64_t>(b));
    r.set_field("c", static_cast<uint64_t>(c));
    r.set_field("binds", binds);
    r.set_field("uses", uses);
    r.set_field("order", op == Opcode::Gram ? 1 : 0);
    r.set_field("tile", static_cast<uint64_t>(pick(1, 64)));
    return r;
  }
  static uint64_t binds(Bind out, Bind a, Bind b, Bind c) {
    return static_cast<uint64_t>(out) | static_cast<uint64_t>(a) << 4 | static_cast<uint64_t>(b) << 8 |
           static_cast<uint64_t>(c) << 12;
  }

  void gemm() {
    // Often as wide as the engine's lanes, the width a GEMM runs on row pairs
    // at (exec::gemm_row_pairs; whether it does also depends on its rows, k
    // and storage orders).
    const bool lanes_wide = chance(0.4);
    const auto n = static_cast<uint32_t>(lanes_wide ? arch::engine_lanes(a_) : any_small());
    // Now and then such a GEMM has an odd number of rows, which row pairs do
    // not take; its A, C and result are then row-major, so that nothing but
    // the row count keeps it off row pairs. Mostly with an even k of at most
    // 8 (what a row-major A needs for them).
    const bool odd = lanes_wide && chance(0.3);
    const auto m = static_cast<uint32_t>(odd ? any_rows() | 1 : any_rows()),
               k = static_cast<uint32_t>(lanes_wide && chance(0.7) ? 2 * pick(1, 4) : any_small());
    const int streamed = dense(m, k, odd), rf = dense(k, n);
    const bool with_c = chance(0.5);
    const int c = with_c ? dense(m, n, odd) : 0;
    const int out = result(m, n, odd);
    const bool rf_in_a = chance(0.5);
    const float alpha = coefficient(), beta = coefficient();
    const uint8_t relu = chance(0.3) ? stream::kLaunchRelu : 0;
    const Bind cb = with_c ? Bind::Dram : Bind::None;
    const uint64_t first_binds = rf_in_a ? binds(Bind::Dram, Bind::Rf, Bind::Dram, cb) : binds(Bind::Dram, Bind::Dram, Bind::Rf, cb);
    const uint64_t uses = rf_in_a ? 0x1u << 2 : 0x1u << 4;  // the register-file operand is read whole
    const auto chunk = static_cast<uint32_t>(a_.rf_rows);
    for (uint32_t k0 = 0; k0 < k; k0 += chunk) {
      const uint32_t kk = std::min(chunk, k - k0);
      const bool first = k0 == 0, last = k0 + kk >= k;
      Record ld = Record::make(Opcode::RfLoad);
      ld.set_field("from", static_cast<uint64_t>(Bind::Dram));
      ld.set_field("id", static_cast<uint64_t>(rf));
      ld.set_field("row0", k0);
      ld.set_field("rows", kk);
      ld.set_f32("scale", beta);
      s_.records.push_back(ld);
      const int cc = first ? c : out;
      const uint64_t b = first ? first_binds : (first_binds & 0x0fff) | static_cast<uint64_t>(Bind::Dram) << 12;
      Record g = rf_in_a ? launch(Opcode::Gemm, out, rf, streamed, cc, b, uses) : launch(Opcode::Gemm, out, streamed, rf, cc, b, uses);
      g.set_field("k0", k0);
      g.set_field("k", kk);
      g.set_f32("alpha", first ? alpha : 1.0f);
      g.set_f32("beta", beta);
      g.set_field("flags", (last ? relu : 0) | (first ? 0 : stream::kLaunchCont) |
                               ((with_c || !first) ? stream::kLaunchWithC : 0));
      s_.records.push_back(g);
    }
    produced();
    maybe_pipe_gram();
  }

  void gram() {
    const auto m = static_cast<uint32_t>(any_rows()), n1 = static_cast<uint32_t>(any_small()),
               n2 = static_cast<uint32_t>(any_small());
    const int a = dense(m, n1), b = dense(m, n2), out = result(n1, n2);
    Record r = launch(Opcode::Gram, out, a, b, 0, binds(Bind::Dram, Bind::Dram, Bind::Dram, Bind::None), 0x1);
    r.set_f32("alpha", 1.0f);
    r.set_f32("beta", 1.0f);
    r.set_field("flags", chance(0.3) ? stream::kLaunchRelu : 0);
    s_.records.push_back(r);
    produced();
  }

  void spmm() {
    const auto m = static_cast<uint32_t>(any_rows());
    const auto ragged_k = [&] { return std::min<uint64_t>(static_cast<uint64_t>(pick(96, 256)), std::max<uint64_t>(a_.gather_words, 1)); };
    const auto k = static_cast<uint32_t>(o_.ragged ? ragged_k() : (o_.pipe_every || chance(0.5)) ? m : any_rows());
    // A ragged matrix's SPMM is one column block (its CSR arrays read in one pass).
    const auto n = static_cast<uint32_t>(o_.ragged ? std::clamp(arch::spmm_block_cols(k, a_.gather_words), 1, any_small())
                                         : o_.pipe_every && chance(0.6) ? narrow_
                                                                        : any_small());
    const int sp = csr(m, k), x = dense(k, n, !o_.spmm_only);
    // Without C the fill rides on the launch's steps; with it, it runs first.
    const bool with_c = chance(o_.pipe_every ? 0.3 : 0.5);
    const int c = with_c ? dense(m, n) : 0;
    const int out = result(m, n);
    const bool csr_in_a = chance(0.7);
    const Bind cb = with_c ? Bind::Dram : Bind::None;
    // A column-major dense operand is read as a stream (as SCORE marks CG's).
    const bool x_cm = std::any_of(dense_.begin(), dense_.end(), [&](const T& t) { return t.id == x && t.col_major; });
    const uint64_t gather = static_cast<uint64_t>(x_cm ? stream::Use::Stream : stream::Use::Gather);
    Record r = csr_in_a ? launch(Opcode::Spmm, out, sp, x, c, binds(Bind::Dram, Bind::Dram, Bind::Dram, cb), gather << 4)
                        : launch(Opcode::Spmm, out, x, sp, c, binds(Bind::Dram, Bind::Dram, Bind::Dram, cb), gather << 2);
    r.set_f32("alpha", coefficient());
    r.set_f32("beta", coefficient());
    r.set_field("flags", (chance(0.3) ? stream::kLaunchRelu : 0) | (with_c ? stream::kLaunchWithC : 0));
    s_.records.push_back(r);
    produced();
    maybe_pipe_gram(k == m ? x : 0);
  }

  // Sometimes the launch just emitted pipes its result into a GRAM of the
  // result with itself (flag pipe_gram), as SCORE marks CG's R^T R: the next
  // op is that GRAM, its operands bound pipe. Now and then the flag is a stray
  // hint with no such GRAM after it (or a FENCE between), which must change
  // nothing but time.
  // An SPMM may instead pipe it into the GRAM of its dense operand X (of as
  // many rows) with the result (pipe_gram_x), as CG's P^T S after S = A P.
  void maybe_pipe_gram(int x = 0) {
    if (o_.spmm_only || !(o_.pipe_every || chance(0.35))) return;  // SPMM-only programs measure SPMM's own reads
    const bool with_x = x != 0 && chance(0.5);
    Record& last = s_.records.back();
    last.set_field("flags", last.field("flags") | (with_x ? stream::kLaunchPipeGramX : stream::kLaunchPipeGram));
    pipe_next_ = o_.pipe_every || chance(0.9);
    pipe_src_ = pending_;
    pipe_x_ = with_x ? x : 0;
  }

  void pipe_gram() {
    pipe_next_ = false;
    const int out = result(pipe_src_.cols, pipe_src_.cols);
    const int a = pipe_x_ ? pipe_x_ : pipe_src_.id;
    Record r = launch(Opcode::Gram, out, a, pipe_src_.id, 0,
                      binds(Bind::Dram, pipe_x_ ? Bind::Dram : Bind::Pipe, Bind::Pipe, Bind::None), 0x1);
    r.set_f32("alpha", 1.0f);
    r.set_f32("beta", 1.0f);
    r.set_field("flags", chance(0.3) ? stream::kLaunchRelu : 0);
    s_.records.push_back(r);
    produced();
  }

  void eltw() {
    const bool tall = chance(0.5);
    const auto rows = static_cast<uint32_t>(tall ? any_rows() : any_small()), cols = static_cast<uint32_t>(any_small());
    const int a = dense(rows, cols);
    const bool has_b = chance(0.6);
    const int b = has_b ? dense(rows, cols) : 0;
    const int out = result(rows, cols);
    Record r = launch(Opcode::Eltw, out, a, b, 0, binds(Bind::Dram, Bind::Dram, has_b ? Bind::Dram : Bind::None, Bind::None), 0);
    r.set_f32("alpha", coefficient());
    r.set_f32("beta", has_b ? coefficient() : 0.0f);
    r.set_field("flags", chance(0.3) ? stream::kLaunchRelu : 0);
    s_.records.push_back(r);
    produced();
  }

  // Option chord: RIFF records around the op whose records start at `first`
  // (its new TENSOR records, then its launch, or its GEMM passes with their
  // RF_LOADs), and CHORD bindings for its operands flagged chord.
  void riff_around(size_t first) {
    size_t at = first;
    while (s_.records[at].op() == Opcode::Tensor) ++at;
    std::vector<uint64_t> ids;
    for (size_t k = at; k < s_.records.size(); ++k) {
      Record& r = s_.records[k];
      if (r.op() == Opcode::RfLoad) continue;
      uint64_t binds = r.field("binds");
      for (int slot = 0; slot < 4; ++slot) {
        const uint64_t id = r.field(kSlots[slot]);
        if (!id || !chord_[id]) continue;
        if (std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
        const uint64_t shift = 4 * static_cast<uint64_t>(slot);
        if (((binds >> shift) & 0xf) == static_cast<uint64_t>(Bind::Dram) && chance(0.8))
          binds = (binds & ~(uint64_t{0xf} << shift)) | static_cast<uint64_t>(Bind::Chord) << shift;
      }
      r.set_field("binds", binds);
    }
    auto riff = [&](Opcode op, uint64_t id) {
      Record c = Record::make(op);
      c.set_field("id", id);
      if (op != Opcode::ChordRel) {
        c.set_field("distance", static_cast<uint64_t>(pick(0, 5)));
        c.set_field("remaining", static_cast<uint64_t>(pick(0, 4)));
      }
      return c;
    };
    std::vector<Record> regs;
    for (uint64_t id : ids)
      if (!live_[id] || chance(0.2)) {
        regs.push_back(riff(Opcode::ChordReg, id));
        live_[id] = true;
      }
    s_.records.insert(s_.records.begin() + static_cast<long>(at), regs.begin(), regs.end());
    for (uint64_t id : ids)
      if (chance(0.5)) s_.records.push_back(riff(Opcode::ChordUpd, id));
    for (uint64_t id : ids)
      if (chance(0.3)) {
        s_.records.push_back(riff(Opcode::ChordRel, id));
        live_[id] = false;
      }
  }

  std::mt19937_64 rng_;
  const arch::Arch& a_;
  RandomProgramOptions o_;
  stream::Stream s_;
  std::vector<uint8_t> image_;
  std::vector<T> dense_;
  T pending_{};
  bool pipe_next_ = false;  // the next op is the GRAM of pipe_src_ with itself
  T pipe_src_{};
  int pipe_x_ = 0;  // pipe_gram_x: the GRAM's first operand
  std::vector<int> rows_, small_;
  int narrow_ = 0;  // piped programs: the width above
  int next_id_ = 1;
  std::vector<bool> chord_, live_;  // option chord: per id, flagged chord; registered
  static constexpr const char* kSlots[] = {"out", "a", "b", "c"};
};

}  // namespace

RandomProgram random_program(uint64_t seed, const arch::Arch& a, const RandomProgramOptions& o) {
  RandomProgram p = Generator(seed, a, o).run();
  check_stream(p.stream, "<random program>", a);  // a generator bug is a thrown cello::Error, never a silent test
  return p;
}

}  // namespace cello::exec
