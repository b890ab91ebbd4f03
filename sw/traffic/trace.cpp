#include "sw/traffic/trace.hpp"

#include <algorithm>
#include <limits>
#include <map>

#include "sw/common/bits.hpp"

namespace cello::traffic {

namespace {
constexpr uint64_t kNone = std::numeric_limits<uint64_t>::max();
}  // namespace

Footprint footprint(const Workload& w, unsigned granule_words) {
  Footprint f;
  f.granule_words = granule_words;
  const size_t T = w.tensors.size();
  f.granules.assign(T, 0);
  f.csr_col_at.assign(T, 0);
  f.csr_val_at.assign(T, 0);
  for (size_t t = 0; t < T; ++t) {
    const auto& x = w.tensors[t];
    if (x.sparse()) {
      const uint64_t rp = ceil_div(x.csr->rows + 1, granule_words);
      const uint64_t nz = ceil_div(x.csr->nnz(), granule_words);
      f.csr_col_at[t] = rp;
      f.csr_val_at[t] = rp + nz;
      f.granules[t] = rp + 2 * nz;
    } else {
      f.granules[t] = ceil_div(x.words(), granule_words);
    }
  }
  return f;
}

Layout layout(const Workload& w, const Analysis& a, const Footprint& f) {
  Layout L;
  const size_t T = w.tensors.size();
  if (!w.base.empty()) {  // placed by a command stream
    L.base = w.base;
    for (size_t t = 0; t < T; ++t) L.total = std::max(L.total, L.base[t] + f.granules[t]);
    return L;
  }
  L.base.assign(T, 0);
  struct Region {
    uint64_t base, size;
  };
  std::vector<Region> region(T, Region{0, 0});
  std::vector<bool> placed(T, false), handed_over(T, false);
  std::map<std::string, std::vector<Region>> pool;
  auto fresh = [&](uint64_t size) {
    Region r{L.total, size};
    L.total += size;
    return r;
  };
  for (size_t t = 0; t < T; ++t)
    if (w.tensors[t].input) {
      region[t] = fresh(f.granules[t]);
      placed[t] = true;
    }
  auto release = [&](size_t t) {
    if (!placed[t] || handed_over[t] || w.tensors[t].output || w.tensors[t].storage.empty()) return;
    pool[w.tensors[t].storage].push_back(region[t]);
  };
  for (size_t i = 0; i < w.ops.size(); ++i) {
    const auto& op = w.ops[i];
    const size_t out = static_cast<size_t>(op.out);
    const uint64_t need = f.granules[out];
    const std::string& st = w.tensors[out].storage;
    bool done = false;
    if (!st.empty()) {
      // In place: a same-storage tensor this op streams and that dies here.
      for (const auto& in : op.in) {
        const size_t t = static_cast<size_t>(in.tensor);
        if (in.use != Use::Stream || in.reread || w.tensors[t].storage != st || a.last_use[t] != static_cast<int>(i) ||
            w.tensors[t].output || w.tensors[t].input || handed_over[t] || region[t].size < need || t == out)
          continue;
        region[out] = region[t];
        handed_over[t] = true;
        done = true;
        break;
      }
      if (!done) {
        auto& p = pool[st];
        for (size_t k = 0; k < p.size(); ++k)
          if (p[k].size >= need) {
            region[out] = p[k];
            p.erase(p.begin() + static_cast<long>(k));
            done = true;
            break;
          }
      }
    }
    if (!done) region[out] = fresh(need);
    placed[out] = true;
    // Tensors whose last use is this op (and a product nobody reads) free their region.
    for (const auto& in : op.in)
      if (a.last_use[static_cast<size_t>(in.tensor)] == static_cast<int>(i)) {
        release(static_cast<size_t>(in.tensor));
        handed_over[static_cast<size_t>(in.tensor)] = true;  // release once
      }
    if (a.last_use[out] < 0) {
      release(out);
      handed_over[out] = true;
    }
  }
  for (size_t t = 0; t < T; ++t) L.base[t] = region[t].base;
  return L;
}

void walk(const Workload& w, const Footprint& f, Sink& sink, const WalkOptions& opt) {
  const unsigned gw = f.granule_words;
  struct DenseStream {
    int t;
    bool write;
    uint64_t rows, row_words;
    uint64_t last = kNone;
  };
  struct Gather {
    int t;
    uint64_t row_words;
    uint64_t last = kNone;
  };
  struct CsrStream {
    int t;
    const mtx::CsrPattern* p;  // valid (Workload::validate): rows, row pointers and columns >= 0
    uint64_t last_rp = kNone, last_col = kNone, last_val = kNone;
    std::vector<Gather> gathers;
  };
  auto emit_seq = [&](bool write, int t, uint64_t lo, uint64_t hi, uint64_t& last) {
    if (last != kNone && lo <= last) lo = last + 1;
    if (lo >= hi) return;
    if (write)
      sink.write(t, lo, hi);
    else
      sink.read(t, lo, hi);
    last = hi - 1;
  };
  for (size_t i = 0; i < w.ops.size(); ++i) {
    const auto& op = w.ops[i];
    sink.op_begin(i);
    if (!op.passes.empty()) {  // walked pass by pass, as listed
      for (size_t p = 0; p < op.passes.size(); ++p) {
        if (p > 0) sink.next_pass(i);
        for (const auto& x : op.passes[p]) x.write ? sink.write(x.tensor, x.lo, x.hi) : sink.read(x.tensor, x.lo, x.hi);
      }
      sink.op_end(i);
      continue;
    }
    std::vector<DenseStream> dense;
    std::vector<CsrStream> csr;
    std::vector<int> whole_in;
    auto seen = [&](int t) {
      for (const auto& d : dense)
        if (d.t == t && !d.write) return true;
      for (const auto& c : csr)
        if (c.t == t) return true;
      for (int x : whole_in)
        if (x == t) return true;
      for (const auto& c : csr)
        for (const auto& g : c.gathers)
          if (g.t == t) return true;
      return false;
    };
    // CSR operands first so gathers can attach to them.
    for (const auto& in : op.in) {
      const auto& x = w.tensors[static_cast<size_t>(in.tensor)];
      if (x.sparse() && !seen(in.tensor)) csr.push_back({in.tensor, x.csr.get(), kNone, kNone, kNone, {}});
    }
    for (const auto& in : op.in) {
      const auto& x = w.tensors[static_cast<size_t>(in.tensor)];
      if (x.sparse() || seen(in.tensor)) continue;
      Use u = in.use;
      if (u == Use::Gather && opt.gather_as_stream) u = Use::Stream;
      if (u == Use::Whole) {
        whole_in.push_back(in.tensor);
      } else if (u == Use::Stream) {
        dense.push_back({in.tensor, false, x.rows, x.row_words});
      } else {
        for (auto& c : csr)
          if (c.t == in.index_by) c.gathers.push_back({in.tensor, x.row_words});
      }
    }
    const auto& ox = w.tensors[static_cast<size_t>(op.out)];
    if (op.out_use != Use::Whole) dense.push_back({op.out, true, ox.rows, ox.row_words});
    for (int t : whole_in) sink.read(t, 0, f.granules[static_cast<size_t>(t)]);
    uint64_t steps = 0;
    for (const auto& d : dense) steps = std::max(steps, d.rows);
    for (const auto& c : csr) steps = std::max(steps, static_cast<uint64_t>(c.p->rows));
    for (uint64_t s = 0; s < steps; ++s) {
      for (auto& c : csr) {
        const uint64_t rows = static_cast<uint64_t>(c.p->rows);
        const uint64_t r0 = s * rows / steps, r1 = (s + 1) * rows / steps;
        const size_t ct = static_cast<size_t>(c.t);
        for (uint64_t r = r0; r < r1; ++r) {
          if (r == 0) emit_seq(false, c.t, 0, 1, c.last_rp);
          emit_seq(false, c.t, (r + 1) / gw, (r + 1) / gw + 1, c.last_rp);
          for (uint64_t j = static_cast<uint64_t>(c.p->row_ptr[r]); j < static_cast<uint64_t>(c.p->row_ptr[r + 1]); ++j) {
            const uint64_t g = j / gw;
            emit_seq(false, c.t, f.csr_col_at[ct] + g, f.csr_col_at[ct] + g + 1, c.last_col);
            emit_seq(false, c.t, f.csr_val_at[ct] + g, f.csr_val_at[ct] + g + 1, c.last_val);
            for (auto& gt : c.gathers) {
              const uint64_t k = static_cast<uint64_t>(c.p->col[j]);
              uint64_t lo = k * gt.row_words / gw, hi = ceil_div((k + 1) * gt.row_words, gw);
              if (lo == gt.last) ++lo;
              if (lo < hi) {
                sink.read(gt.t, lo, hi);
                gt.last = hi - 1;
              }
            }
          }
        }
      }
      for (auto& d : dense) {
        const uint64_t r0 = s * d.rows / steps, r1 = (s + 1) * d.rows / steps;
        if (r0 == r1) continue;
        emit_seq(d.write, d.t, r0 * d.row_words / gw, ceil_div(r1 * d.row_words, gw), d.last);
      }
    }
    if (op.out_use == Use::Whole) sink.write(op.out, 0, f.granules[static_cast<size_t>(op.out)]);
    sink.op_end(i);
  }
}

}  // namespace cello::traffic
