#include "traffic/models.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <chrono>

#include "chord/chord_model.hpp"
#include "common/error.hpp"
#include "traffic/trace.hpp"

namespace cello::traffic {

const char* to_string(Config c) {
  switch (c) {
    case Config::Flexagon: return "Flexagon-like";
    case Config::FlexLRU: return "Flex+LRU";
    case Config::FlexBRRIP: return "Flex+BRRIP";
    case Config::FLAT: return "FLAT-like";
    case Config::SET: return "SET-like";
    case Config::PreludeOnly: return "PRELUDE-only";
    case Config::CELLO: return "CELLO";
    case Config::Ideal: return "Ideal";
  }
  return "?";
}

const char* key(Config c) {
  switch (c) {
    case Config::Flexagon: return "flexagon";
    case Config::FlexLRU: return "flex_lru";
    case Config::FlexBRRIP: return "flex_brrip";
    case Config::FLAT: return "flat";
    case Config::SET: return "set";
    case Config::PreludeOnly: return "prelude";
    case Config::CELLO: return "cello";
    case Config::Ideal: return "ideal";
  }
  return "?";
}

std::vector<Config> all_configs() {
  return {Config::Flexagon, Config::FlexLRU, Config::FlexBRRIP, Config::FLAT,
          Config::SET,      Config::PreludeOnly, Config::CELLO, Config::Ideal};
}

bool parse_config(const std::string& s, Config& out) {
  for (auto c : all_configs())
    if (s == key(c) || s == to_string(c)) {
      out = c;
      return true;
    }
  return false;
}

void ModelParams::validate(unsigned word_bytes) const {
  if (line_bytes == 0 || word_bytes == 0 || line_bytes % word_bytes != 0)
    throw Error("", "model", fmt::format("line size {} B is not a multiple of the {} B word", line_bytes, word_bytes));
  cache::CacheConfig c;
  c.capacity_bytes = sram_bytes;
  c.line_bytes = line_bytes;
  c.ways = ways;
  c.validate();
  const uint64_t words = sram_bytes / line_bytes;
  if (words < 2 || words > (1u << 24))
    throw Error("", "model", fmt::format("SRAM of {} B gives {} CHORD words; 2..2^24 are supported", sram_bytes, words));
}

namespace {

bool pipelined(EdgeClass c) {
  return c == EdgeClass::Pipelineable || c == EdgeClass::DelayedHold || c == EdgeClass::ParallelMulticast;
}

struct Counter {
  std::vector<uint64_t> rd, wr;  // granules per tensor
  explicit Counter(size_t n) : rd(n, 0), wr(n, 0) {}
};

Traffic finish(Config c, const ModelParams& p, const Counter& k, const Workload&) {
  Traffic t;
  t.config = c;
  t.sram_bytes = p.sram_bytes;
  for (size_t i = 0; i < k.rd.size(); ++i) {
    t.tensor_read_bytes.push_back(k.rd[i] * p.line_bytes);
    t.tensor_write_bytes.push_back(k.wr[i] * p.line_bytes);
    t.read_bytes += k.rd[i] * p.line_bytes;
    t.write_bytes += k.wr[i] * p.line_bytes;
  }
  return t;
}

// Op-by-op explicit dataflows and Ideal: closed form over the DAG.
Traffic explicit_model(const Workload& w, Config c, const ModelParams& p, const Analysis& a, const Footprint& f) {
  Counter k(w.tensors.size());
  auto on_chip = [&](size_t t) {
    if (w.tensors[t].input || w.tensors[t].output || a.consumers[t].empty()) return false;
    for (auto cls : a.classes[t]) {
      if (c == Config::FLAT && cls != EdgeClass::Pipelineable) return false;
      if (c == Config::SET && !pipelined(cls)) return false;
      if (c == Config::Flexagon) return false;
    }
    return true;
  };
  if (c == Config::Ideal) {
    for (size_t t = 0; t < w.tensors.size(); ++t) {
      if (w.tensors[t].input && !a.consumers[t].empty()) k.rd[t] += f.granules[t];
      if (w.tensors[t].output) k.wr[t] += f.granules[t];
    }
    return finish(c, p, k, w);
  }
  for (size_t t = 0; t < w.tensors.size(); ++t) {
    if (w.tensors[t].input) {
      k.rd[t] += f.granules[t] * a.consumers[t].size();
      continue;
    }
    if (on_chip(t)) continue;
    k.wr[t] += f.granules[t];
    k.rd[t] += f.granules[t] * a.consumers[t].size();
  }
  return finish(c, p, k, w);
}

class CacheSink : public Sink {
 public:
  CacheSink(const cache::CacheConfig& cfg, const Layout& L, size_t tensors)
      : cache_(cfg), L_(L), fills_(tensors, 0) {}
  void read(int t, uint64_t lo, uint64_t hi) override { touch(t, lo, hi, false); }
  void write(int t, uint64_t lo, uint64_t hi) override { touch(t, lo, hi, true); }
  cache::SetAssocCache& cache() { return cache_; }
  const std::vector<uint64_t>& fills() const { return fills_; }

 private:
  void touch(int t, uint64_t lo, uint64_t hi, bool wr) {
    const uint64_t base = L_.base[static_cast<size_t>(t)];
    const uint64_t before = cache_.stats().fills;
    for (uint64_t g = lo; g < hi; ++g) cache_.access_line(base + g, wr);
    fills_[static_cast<size_t>(t)] += cache_.stats().fills - before;
  }
  cache::SetAssocCache cache_;
  const Layout& L_;
  std::vector<uint64_t> fills_;
};

Traffic cache_model(const Workload& w, Config c, const ModelParams& p, const Analysis& a, const Footprint& f) {
  cache::CacheConfig cfg;
  cfg.capacity_bytes = p.sram_bytes;
  cfg.line_bytes = p.line_bytes;
  cfg.ways = p.ways;
  cfg.policy = c == Config::FlexLRU ? cache::Policy::LRU : cache::Policy::BRRIP;
  Layout L = layout(w, a, f);
  CacheSink sink(cfg, L, w.tensors.size());
  walk(w, f, sink);
  sink.cache().flush();
  const auto& s = sink.cache().stats();
  Traffic t;
  t.config = c;
  t.sram_bytes = p.sram_bytes;
  t.read_bytes = s.fills * p.line_bytes;
  t.write_bytes = s.writebacks * p.line_bytes;
  for (auto x : sink.fills()) t.tensor_read_bytes.push_back(x * p.line_bytes);
  t.tensor_write_bytes.assign(w.tensors.size(), 0);  // write-backs are not attributed
  t.cache_accesses = s.accesses;
  t.cache_hits = s.hits;
  return t;
}

// Drives the CHORD functional model with the op-by-op access walk.
class ChordSink : public Sink {
 public:
  ChordSink(const Workload& w, const Analysis& a, const Footprint& f, const Layout& L, const ModelParams& p, bool cello)
      : w_(w), a_(a), f_(f), L_(L), k_(w.tensors.size()) {
    chord::Geometry g;
    g.sram_words = static_cast<uint32_t>(p.sram_bytes / p.line_bytes);
    g.entries = p.chord_entries;
    g.extents = p.chord_extents;
    g.riff = cello;
    uint64_t top = std::max<uint64_t>(L.total, 2);
    g.addr_bits = 1;
    while (g.addr_bits < 48 && (1ull << g.addr_bits) <= top) ++g.addr_bits;
    unsigned sram_bits = 1;
    while ((1ull << sram_bits) <= g.sram_words) ++sram_bits;
    g.addr_bits = std::max(g.addr_bits, sram_bits);
    g.id_bits = 32;
    g.dist_bits = 16;
    g.uses_bits = 16;
    model_ = std::make_unique<chord::ChordModel>(g);
    const size_t T = w.tensors.size();
    bound_.assign(T, false);
    via_chord_.assign(T, {});
    reads_.assign(T, {});
    bypass_.assign(T, false);
    registered_.assign(T, false);
    for (size_t t = 0; t < T; ++t) {
      if (w.tensors[t].input || a.producer[t] < 0) continue;
      bool any = w.tensors[t].output;
      for (size_t e = 0; e < a.consumers[t].size(); ++e) {
        bool through = !cello || !pipelined(a.classes[t][e]);
        via_chord_[t].push_back(through);
        if (through) {
          reads_[t].push_back(a.consumers[t][e]);
          any = true;
        }
      }
      bound_[t] = any;
    }
  }

  void op_begin(size_t op) override {
    op_ = op;
    // Refresh the reuse metadata of every registered tensor relative to this op.
    for (size_t t : live_) {
      auto r = model_->update(id(t), meta(t, op));
      (void)r;
    }
    const size_t out = static_cast<size_t>(w_.ops[op].out);
    if (bound_[out]) {
      auto r = model_->register_tensor(id(out), L_.base[out], L_.base[out] + f_.granules[out], meta(out, op));
      if (r.status == chord::Status::Ok) {
        registered_[out] = true;
        live_.push_back(out);
      } else {
        bypass_[out] = true;
        ++bypass_count_;
      }
    }
  }

  void op_end(size_t op) override {
    for (size_t i = 0; i < live_.size();) {
      size_t t = live_[i];
      if (!w_.tensors[t].output && (reads_[t].empty() || reads_[t].back() <= static_cast<int>(op))) {
        model_->release(id(t));
        live_[i] = live_.back();
        live_.pop_back();
      } else {
        ++i;
      }
    }
  }

  void read(int ti, uint64_t lo, uint64_t hi) override {
    const size_t t = static_cast<size_t>(ti);
    if (w_.tensors[t].input) {
      k_.rd[t] += hi - lo;
      return;
    }
    if (!reads_through(t)) return;  // served by a pipeline buffer
    if (bypass_[t]) {
      k_.rd[t] += hi - lo;
      return;
    }
    const uint64_t base = L_.base[t];
    const uint32_t tid = id(t);
    for (uint64_t g = lo; g < hi; ++g) model_->read(tid, base + g);
    accesses_ += hi - lo;
  }

  void write(int ti, uint64_t lo, uint64_t hi) override {
    const size_t t = static_cast<size_t>(ti);
    if (!bound_[t]) return;  // pipelined only: never leaves the chip
    if (bypass_[t]) {
      k_.wr[t] += hi - lo;
      return;
    }
    const uint64_t base = L_.base[t];
    const uint32_t tid = id(t);
    for (uint64_t g = lo; g < hi; ++g) model_->write(tid, base + g);
    accesses_ += hi - lo;
  }

  Traffic finish_run(Config c, const ModelParams& p) {
    // Final outputs still resident are written back; everything else is dead.
    for (size_t t : live_) {
      int e = model_->find(id(t));
      if (e >= 0 && w_.tensors[t].output) k_.wr[t] += model_->table()[static_cast<size_t>(e)].res_len;
    }
    for (size_t t = 0; t < w_.tensors.size(); ++t) {
      auto s = model_->stats(id(t));
      k_.rd[t] += s.dram_reads;
      k_.wr[t] += s.dram_writes;
    }
    Traffic r = finish(c, p, k_, w_);
    auto tot = model_->totals();
    r.chord_accesses = accesses_;
    r.chord_read_hits = tot.read_hits;
    r.chord_spills = tot.spills;
    r.chord_evictions = tot.evictions;
    r.chord_bypass_tensors = bypass_count_;
    return r;
  }

 private:
  static uint32_t id(size_t t) { return static_cast<uint32_t>(t + 1); }
  bool reads_through(size_t t) const {
    const auto& cons = a_.consumers[t];
    auto it = std::find(cons.begin(), cons.end(), static_cast<int>(op_));
    if (it == cons.end()) return false;
    return via_chord_[t][static_cast<size_t>(it - cons.begin())];
  }
  chord::ReuseMeta meta(size_t t, size_t op) const {
    chord::ReuseMeta m;
    uint32_t uses = 0;
    int next = -1;
    for (int c : reads_[t])
      if (c >= static_cast<int>(op)) {
        if (next < 0) next = c;
        ++uses;
      }
    m.uses = std::min<uint32_t>(uses, 0xffff);
    m.next_use = next < 0 ? 0xffff : static_cast<uint32_t>(std::min<int>(next - static_cast<int>(op), 0xfffe));
    return m;
  }

  const Workload& w_;
  const Analysis& a_;
  const Footprint& f_;
  const Layout& L_;
  Counter k_;
  std::unique_ptr<chord::ChordModel> model_;
  std::vector<bool> bound_, bypass_, registered_;
  std::vector<std::vector<bool>> via_chord_;
  std::vector<std::vector<int>> reads_;  // ops reading the tensor through CHORD
  std::vector<size_t> live_;
  size_t op_ = 0;
  uint64_t accesses_ = 0;
  uint64_t bypass_count_ = 0;
};

Traffic chord_model(const Workload& w, Config c, const ModelParams& p, const Analysis& a, const Footprint& f) {
  Layout L = layout(w, a, f);
  ChordSink sink(w, a, f, L, p, c == Config::CELLO);
  WalkOptions opt;
  opt.gather_as_stream = true;  // oracle intra-op reuse, as Flexagon-like
  walk(w, f, sink, opt);
  return sink.finish_run(c, p);
}

}  // namespace

Traffic run_model(const Workload& w, Config c, const ModelParams& p) {
  w.validate();
  p.validate(w.word_bytes);
  auto t0 = std::chrono::steady_clock::now();
  const Analysis a = analyze(w);
  const Footprint f = footprint(w, p.line_bytes / w.word_bytes);
  Traffic t;
  switch (c) {
    case Config::FlexLRU:
    case Config::FlexBRRIP: t = cache_model(w, c, p, a, f); break;
    case Config::PreludeOnly:
    case Config::CELLO: t = chord_model(w, c, p, a, f); break;
    default: t = explicit_model(w, c, p, a, f); break;
  }
  t.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return t;
}

uint64_t algorithmic_minimum_bytes(const Workload& w, const ModelParams& p) {
  const Analysis a = analyze(w);
  const Footprint f = footprint(w, p.line_bytes / w.word_bytes);
  uint64_t g = 0;
  for (size_t t = 0; t < w.tensors.size(); ++t) {
    if (w.tensors[t].input && !a.consumers[t].empty()) g += f.granules[t];
    if (w.tensors[t].output) g += f.granules[t];
  }
  return g * p.line_bytes;
}

}  // namespace cello::traffic
