#include "sw/traffic/models.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <chrono>

#include "sw/chord/chord_model.hpp"
#include "sw/common/clock.hpp"
#include "sw/common/error.hpp"
#include "sw/common/enum_names.hpp"
#include "sw/traffic/opt.hpp"
#include "sw/traffic/trace.hpp"

namespace cello::traffic {

constexpr const char* kSystemLabels[] = {"Flexagon-like", "Flex+LRU", "Flex+BRRIP", "FLAT-like", "SET-like",
                                         "PRELUDE-only", "CELLO", "Ideal", "OPT"};
static_assert(names_cover(kSystemLabels, MemorySystem::OPT));
const char* to_string(MemorySystem c) { return name_of(c, kSystemLabels); }

std::string ModelParams::chord_policy() const {
  auto on_off = [](bool b) { return b ? "on" : "off"; };
  return fmt::format("victim {}, refill {}, clean {}, reserve {}, inplace {}, claim {}", chord::to_string(chord_victim),
                     on_off(chord_refill), on_off(chord_clean), on_off(chord_reserve), on_off(chord_inplace),
                     on_off(chord_claim));
}

constexpr const char* kSystemKeys[] = {"flexagon", "flex_lru", "flex_brrip", "flat", "set", "prelude", "cello",
                                       "ideal", "opt"};
static_assert(names_cover(kSystemKeys, MemorySystem::OPT));
const char* key(MemorySystem c) { return name_of(c, kSystemKeys); }

std::vector<MemorySystem> all_systems() {
  return {MemorySystem::Flexagon, MemorySystem::FlexLRU, MemorySystem::FlexBRRIP, MemorySystem::FLAT,
          MemorySystem::SET,      MemorySystem::PreludeOnly, MemorySystem::CELLO, MemorySystem::Ideal};
}

bool parse_system(const std::string& s, MemorySystem& out) {
  auto every = all_systems();
  every.push_back(MemorySystem::OPT);
  for (auto c : every)
    if (s == key(c) || s == to_string(c)) {
      out = c;
      return true;
    }
  return false;
}

void ModelParams::validate(unsigned word_bytes, bool caches) const {
  if (line_bytes == 0 || word_bytes == 0 || line_bytes % word_bytes != 0)
    throw Error("", "model", fmt::format("line size {} B is not a multiple of the {} B word", line_bytes, word_bytes));
  if (sram_bytes % line_bytes != 0)
    throw Error("", "model", fmt::format("SRAM of {} B is not a whole number of {} B lines", sram_bytes, line_bytes));
  if (caches) {
    cache::CacheConfig c;
    c.capacity_bytes = sram_bytes;
    c.line_bytes = line_bytes;
    c.ways = ways;
    c.validate();
  }
  const uint64_t words = sram_bytes / line_bytes;
  if (words < 2 || words > (1u << 24))
    throw Error("", "model", fmt::format("SRAM of {} B gives {} CHORD words; 2..2^24 are supported", sram_bytes, words));
}

chord::Geometry walk_geometry(const ModelParams& p, bool riff, uint64_t granules) {
  chord::Geometry g;
  g.sram_words = static_cast<uint32_t>(p.sram_bytes / p.line_bytes);
  g.entries = p.chord_entries;
  g.extents = p.chord_extents;
  g.riff = riff && p.chord_riff;
  if (riff) {  // CELLO's CHORD as configured (a PRELUDE-only build included)
    g.victim = p.chord_victim;
    g.refill = p.chord_refill;
    g.clean = p.chord_clean;
    g.reserve = p.chord_reserve;
    g.inplace = p.chord_inplace;
    g.claim = p.chord_claim;
  } else {  // the PRELUDE-only baseline: the paper's plan without the options
    g.reserve = false;
    g.inplace = false;
  }
  const uint64_t top = std::max<uint64_t>({granules, g.sram_words, 2});
  g.addr_bits = 1;
  while (g.addr_bits < 48 && (1ull << g.addr_bits) <= top) ++g.addr_bits;
  g.id_bits = 32;
  g.dist_bits = 16;
  g.uses_bits = 16;
  return g;
}

namespace {

bool pipelined(EdgeClass c) {
  return c == EdgeClass::Pipelineable || c == EdgeClass::DelayedHold || c == EdgeClass::ParallelMulticast;
}

struct Counter {
  std::vector<uint64_t> rd, wr;  // granules per tensor
  explicit Counter(size_t n) : rd(n, 0), wr(n, 0) {}
};

Traffic finish(MemorySystem c, const ModelParams& p, const Counter& k, const Workload&) {
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
Traffic explicit_model(const Workload& w, MemorySystem c, const ModelParams& p, const Analysis& a, const Footprint& f) {
  Counter k(w.tensors.size());
  auto on_chip = [&](size_t t) {
    if (w.tensors[t].input || w.tensors[t].output || a.consumers[t].empty()) return false;
    for (auto cls : a.classes[t]) {
      if (c == MemorySystem::FLAT && cls != EdgeClass::Pipelineable) return false;
      if (c == MemorySystem::SET && !pipelined(cls)) return false;
      if (c == MemorySystem::Flexagon) return false;
    }
    return true;
  };
  if (c == MemorySystem::Ideal) {
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

Traffic cache_model(const Workload& w, MemorySystem c, const ModelParams& p, const Analysis& a, const Footprint& f) {
  cache::CacheConfig cfg;
  cfg.capacity_bytes = p.sram_bytes;
  cfg.line_bytes = p.line_bytes;
  cfg.ways = p.ways;
  cfg.policy = c == MemorySystem::FlexLRU ? cache::Policy::LRU : cache::Policy::BRRIP;
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

// What the CHORD-backed configurations do with each tensor: whether it lives in
// CHORD, which ops read it from there, and the RIFF commands around every op.
struct ChordPlan {
  std::vector<bool> bound;              // per tensor: registered in CHORD
  std::vector<std::vector<int>> reads;  // per tensor: ops reading it through CHORD
  std::vector<std::vector<RiffCmd>> pre, post;  // per op
};

RiffCmd command(int t, RiffCmd::Action act, const std::vector<int>& reads, int after) {
  RiffCmd c;
  c.tensor = t;
  c.action = act;
  auto it = std::upper_bound(reads.begin(), reads.end(), after);
  if (it != reads.end()) {
    c.distance = static_cast<uint32_t>(*it - after);
    c.remaining = static_cast<uint32_t>(reads.end() - it);
  }
  return c;
}

// CELLO from a SCORE schedule: its bindings, memory reads and commands.
ChordPlan plan_from_score(const Workload& w) {
  ChordPlan pl;
  const size_t T = w.tensors.size();
  pl.bound.assign(T, false);
  pl.reads.assign(T, {});
  for (size_t t = 0; t < T; ++t) {
    pl.bound[t] = w.tensors[t].bind == Bind::Chord;
    pl.reads[t] = w.tensors[t].mem_reads;
  }
  pl.pre.assign(w.ops.size(), {});
  pl.post.assign(w.ops.size(), {});
  for (size_t i = 0; i < w.ops.size(); ++i)
    for (const auto& c : w.ops[i].riff) (c.action == RiffCmd::Action::Register ? pl.pre : pl.post)[i].push_back(c);
  return pl;
}

// Derived commands with SCORE's conventions (score/riff.hpp): Register before
// the first write (or, for an application input read more than once, before
// its first read, which fills CHORD), Update after every read with reads to
// come, Release after the last read (a final output is written back first).
// PRELUDE-only routes every consumer through CHORD; CELLO only the consumers
// that are not pipelined.
ChordPlan plan_derived(const Workload& w, const Analysis& a, bool prelude) {
  ChordPlan pl;
  const size_t T = w.tensors.size();
  pl.bound.assign(T, false);
  pl.reads.assign(T, {});
  pl.pre.assign(w.ops.size(), {});
  pl.post.assign(w.ops.size(), {});
  for (size_t t = 0; t < T; ++t) {
    const auto& x = w.tensors[t];
    if (x.input) {
      if (a.consumers[t].size() >= 2) {
        pl.bound[t] = true;
        pl.reads[t] = a.consumers[t];
      }
      continue;
    }
    if (a.producer[t] < 0) continue;
    for (size_t e = 0; e < a.consumers[t].size(); ++e)
      if (prelude || !pipelined(a.classes[t][e])) pl.reads[t].push_back(a.consumers[t][e]);
    pl.bound[t] = x.output || !pl.reads[t].empty();
  }
  for (size_t i = 0; i < w.ops.size(); ++i) {
    const int op = static_cast<int>(i);
    std::vector<int> read;
    for (const auto& in : w.ops[i].in)
      if (std::find(read.begin(), read.end(), in.tensor) == read.end()) read.push_back(in.tensor);
    for (int t : read)
      if (w.tensors[static_cast<size_t>(t)].input && pl.bound[static_cast<size_t>(t)] &&
          pl.reads[static_cast<size_t>(t)].front() == op)
        pl.pre[i].push_back(command(t, RiffCmd::Action::Register, pl.reads[static_cast<size_t>(t)], op - 1));
    const int out = w.ops[i].out;
    if (pl.bound[static_cast<size_t>(out)])
      pl.pre[i].push_back(command(out, RiffCmd::Action::Register, pl.reads[static_cast<size_t>(out)], op - 1));
    for (int t : read) {
      const auto& r = pl.reads[static_cast<size_t>(t)];
      if (!pl.bound[static_cast<size_t>(t)] || !std::binary_search(r.begin(), r.end(), op)) continue;
      auto c = command(t, RiffCmd::Action::Update, r, op);
      if (c.remaining == 0) c.action = RiffCmd::Action::Release;
      pl.post[i].push_back(c);
    }
    if (pl.bound[static_cast<size_t>(out)] && pl.reads[static_cast<size_t>(out)].empty())
      pl.post[i].push_back(command(out, RiffCmd::Action::Release, {}, op));
  }
  return pl;
}

// Drives the CHORD functional model with the op-by-op access walk and a plan.
// DRAM traffic: CHORD's own reads (misses) and writes (spills, evictions),
// plus first-read fills of inputs, traffic of tensors that found the table
// full, and write-back of final outputs still resident when released or at the
// end. Inputs are clean: CHORD's write-backs of input words are not counted.
class ChordSink : public Sink {
 public:
  ChordSink(const Workload& w, const Footprint& f, const Layout& L, const ModelParams& p, bool riff, ChordPlan plan,
            const ChordHooks* hooks, OptTrace* rec = nullptr)
      : w_(w), f_(f), L_(L), k_(w.tensors.size()), plan_(std::move(plan)), hooks_(hooks), rec_(rec) {
    const chord::Geometry g = walk_geometry(p, riff, L.total);
    model_ = std::make_unique<chord::ChordModel>(g);
    if (hooks_ && hooks_->dram_write)
      model_->on_dram([this](const chord::DramOp& d) {
        const size_t t = (d.id - 1) / 4;  // inverse of id()
        if (d.write && t < w_.tensors.size() && !w_.tensors[t].input)
          hooks_->dram_write(static_cast<int>(t), d.addr - L_.base[t], d.addr - L_.base[t] + 1);
      });
    const size_t T = w.tensors.size();
    state_.assign(T, State::Idle);
    filled_.assign(T, false);
    moved_to_.assign(T, -1);
  }

  void op_begin(size_t op) override {
    op_ = static_cast<int>(op);
    for (const auto& c : plan_.pre[op]) apply(c);
    // Option claim: the tensors this op writes or fills (its result and the
    // inputs it registers) take their space now, in the order of the
    // registrations, and commit it when the op ends. A registered tensor the
    // op only reads is not claimed: it stays empty and its reads miss.
    claimed_.clear();
    if (model_->geometry().claim)
      for (const auto& c : plan_.pre[op]) {
        const size_t t = static_cast<size_t>(c.tensor);
        const bool writes_or_fills = static_cast<int>(t) == w_.ops[op].out || w_.tensors[t].input;
        if (c.action == RiffCmd::Action::Register && state_[t] == State::Live && writes_or_fills)
          for (unsigned q = 0; q < parts(t); ++q)
            if (model_->find(id(t, q)) >= 0) {
              model_->claim(id(t, q));
              record({.kind = chord::OpKind::Claim, .id = id(t, q)});
              claimed_.push_back(id(t, q));
            }
      }
    if (hooks_ && hooks_->trace && hooks_->op_starts) hooks_->op_starts->push_back(hooks_->trace->size());
  }
  void op_end(size_t op) override {
    commit_claims();
    for (const auto& c : plan_.post[op]) apply(c);
    if (hooks_) {
      auto [rd, wr] = dram_so_far();
      op_rd_.push_back(rd - rd_before_);
      op_wr_.push_back(wr - wr_before_);
      rd_before_ = rd;
      wr_before_ = wr;
    }
  }

  // A GEMM pass has drained and the next starts: commit what the op claimed,
  // then claim it again (the top's command unit: drained event, event 6).
  void next_pass(size_t /*op*/) override {
    commit_claims();
    for (uint32_t c : claimed_) {
      model_->claim(c);
      record({.kind = chord::OpKind::Claim, .id = c});
    }
  }

  void commit_claims() {
    for (uint32_t c : claimed_) {
      model_->commit(c);
      record({.kind = chord::OpKind::Commit, .id = c});
    }
  }

  void read(int ti, uint64_t lo, uint64_t hi) override {
    const size_t t = static_cast<size_t>(ti);
    const auto& x = w_.tensors[t];
    const bool mem = std::binary_search(plan_.reads[t].begin(), plan_.reads[t].end(), op_);
    if (x.input && (!plan_.bound[t] || state_[t] != State::Live)) {
      k_.rd[t] += hi - lo;  // from DRAM (unbound input, or the table was full)
      return;
    }
    if (!plan_.bound[t] || !mem) return;  // pipeline buffer / register file
    // A tensor rewritten in place (option inplace) is read through the entry
    // its successor took over; its reads count under the successor's id.
    const size_t c = moved_to_[t] >= 0 ? static_cast<size_t>(moved_to_[t]) : t;
    if (state_[c] != State::Live) {
      k_.rd[t] += hi - lo;
      return;
    }
    const uint64_t base = L_.base[t];
    const uint32_t tid = id(c, part(t, lo));
    // With option claim only an input its op claimed is filled (the RTL's fills
    // arrive in DRAM's order, which only a claimed tensor takes); an input
    // registered for an earlier op and first read here is read through CHORD.
    if (x.input && !filled_[t] &&
        (!model_->geometry().claim || std::find(claimed_.begin(), claimed_.end(), tid) != claimed_.end())) {
      // First read: the words come from DRAM and are written into CHORD.
      k_.rd[t] += hi - lo;
      for (uint64_t g = lo; g < hi; ++g) {
        model_->fill(tid, base + g);
        record({.kind = chord::OpKind::Write, .id = tid, .addr = base + g, .data = base + g, .fill = true});
      }
      if (rec_)
        for (uint64_t g = lo; g < hi; ++g) rec_->fill(static_cast<uint32_t>(t), base + g);
    } else {
      for (uint64_t g = lo; g < hi; ++g) {
        model_->read(tid, base + g);
        record({.kind = chord::OpKind::Read, .id = tid, .addr = base + g});
      }
      if (rec_)
        for (uint64_t g = lo; g < hi; ++g) rec_->read(static_cast<uint32_t>(t), base + g);
    }
    accesses_ += hi - lo;
  }

  void write(int ti, uint64_t lo, uint64_t hi) override {
    const size_t t = static_cast<size_t>(ti);
    if (!plan_.bound[t]) return;  // never leaves the chip
    if (state_[t] != State::Live) {
      k_.wr[t] += hi - lo;
      if (hooks_ && hooks_->dram_write) hooks_->dram_write(ti, lo, hi);
      return;
    }
    const uint64_t base = L_.base[t];
    const uint32_t tid = id(t, part(t, lo));
    for (uint64_t g = lo; g < hi; ++g) {
      model_->write(tid, base + g);
      record({.kind = chord::OpKind::Write, .id = tid, .addr = base + g, .data = base + g});
    }
    if (rec_)
      for (uint64_t g = lo; g < hi; ++g) rec_->write(static_cast<uint32_t>(t), base + g);
    accesses_ += hi - lo;
  }

  // OPT: the same run with MIN (on the recorded trace) in place of CHORD's
  // decisions; the traffic that never reaches CHORD is counted as for CELLO.
  Traffic finish_opt(const ModelParams& p) {
    std::vector<bool> output(w_.tensors.size());
    for (size_t t = 0; t < w_.tensors.size(); ++t) output[t] = w_.tensors[t].output;
    OptCost m = belady_min(*rec_, p.sram_bytes / p.line_bytes, output);
    for (size_t t = 0; t < w_.tensors.size(); ++t) {
      k_.rd[t] += m.tensor_reads[t];
      if (!w_.tensors[t].input) k_.wr[t] += m.tensor_writes[t];
    }
    Traffic r = finish(MemorySystem::OPT, p, k_, w_);
    r.chord = {.accesses = accesses_,
               .read_hits = m.hits,
               .spills = m.spills,
               .evicted_words = m.writebacks,
               .bypass_tensors = bypass_count_};
    return r;
  }

  Traffic finish_run(MemorySystem c, const ModelParams& p) {
    for (size_t t = 0; t < w_.tensors.size(); ++t)
      if (state_[t] == State::Live) retire(t, false);
    for (size_t t = 0; t < w_.tensors.size(); ++t)
      for (unsigned q = 0; q < parts(t); ++q) {
        auto s = model_->stats(id(t, q));
        k_.rd[t] += s.dram_reads;
        if (!w_.tensors[t].input) k_.wr[t] += s.dram_writes;
      }
    Traffic r = finish(c, p, k_, w_);
    auto tot = model_->totals();
    r.chord = {.accesses = accesses_,
               .read_hits = tot.read_hits,
               .read_misses = tot.read_misses,
               .write_hits = tot.write_hits,
               .spills = tot.spills,
               .evicted_words = tot.evictions,
               .bypass_tensors = bypass_count_};
    if (hooks_) {
      r.op_read_bytes = op_rd_;
      r.op_write_bytes = op_wr_;
      uint64_t rd = 0, wr = 0;
      for (size_t i = 0; i < op_rd_.size(); ++i) rd += op_rd_[i], wr += op_wr_[i];
      r.op_read_bytes.push_back(r.read_bytes / p.line_bytes - rd);
      r.op_write_bytes.push_back(r.write_bytes / p.line_bytes - wr);
      for (auto& x : r.op_read_bytes) x *= p.line_bytes;
      for (auto& x : r.op_write_bytes) x *= p.line_bytes;
    }
    return r;
  }

 private:
  enum class State { Idle, Live, Bypass, Done };
  // A CSR tensor is three CHORD tensors (row pointers, indices, values), each
  // written in address order; commands apply to all three.
  static uint32_t id(size_t t, unsigned part) { return static_cast<uint32_t>(t * 4 + part + 1); }
  unsigned parts(size_t t) const { return w_.tensors[t].sparse() ? 3 : 1; }
  unsigned part(size_t t, uint64_t g) const {
    if (!w_.tensors[t].sparse()) return 0;
    return g < f_.csr_col_at[t] ? 0 : g < f_.csr_val_at[t] ? 1 : 2;
  }
  std::pair<uint64_t, uint64_t> range(size_t t, unsigned q) const {
    if (!w_.tensors[t].sparse()) return {0, f_.granules[t]};
    const uint64_t b[4] = {0, f_.csr_col_at[t], f_.csr_val_at[t], f_.granules[t]};
    return {b[q], b[q + 1]};
  }
  static chord::ReuseMeta meta(const RiffCmd& c) {
    chord::ReuseMeta m;
    m.uses = std::min<uint32_t>(c.remaining, 0xffff);
    m.next_use = c.remaining ? std::min<uint32_t>(c.distance, 0xfffe) : 0xffff;
    return m;
  }
  void apply(const RiffCmd& c) {
    const size_t t = static_cast<size_t>(c.tensor);
    switch (c.action) {
      case RiffCmd::Action::Register: {
        if (state_[t] == State::Live) {
          update(t, meta(c));
          break;
        }
        if (take_over(t, meta(c))) break;
        bool ok = true;
        unsigned done = 0;
        for (unsigned q = 0; q < parts(t) && ok; ++q) {
          auto [lo, hi] = range(t, q);
          if (lo == hi) continue;
          ok = model_->register_tensor(id(t, q), L_.base[t] + lo, L_.base[t] + hi, meta(c)).status ==
               chord::Status::Ok;
          if (ok) {
            done = q + 1;
            record({.kind = chord::OpKind::Register, .id = id(t, q), .base = L_.base[t] + lo, .end = L_.base[t] + hi,
                    .meta = meta(c)});
          }
        }
        if (ok) {
          state_[t] = State::Live;
          filled_[t] = false;  // a fresh registration: its first reads fill it again
        } else {
          for (unsigned q = 0; q < done; ++q) {
            model_->release(id(t, q));
            record({.kind = chord::OpKind::Release, .id = id(t, q)});
          }
          state_[t] = State::Bypass;
          ++bypass_count_;
        }
        break;
      }
      case RiffCmd::Action::Update:
        if (state_[t] == State::Live) update(t, meta(c));
        if (w_.tensors[t].input) filled_[t] = true;
        break;
      case RiffCmd::Action::Release:
        if (state_[t] == State::Live) retire(t, true);
        break;
    }
  }
  // Option inplace: t is written over the region of a dense tensor still live
  // in CHORD (the same first granule and size): the layout's in-place update,
  // since only there do a live tensor's bytes become another's (a stream whose
  // tensors stay registered past their last read has more such cases, and
  // the old words are dead there too). t takes over its entry, and that
  // tensor's reads in this op go through t's id. The top's CHORD command unit
  // finds the same tensor the same way.
  int live_over(size_t t) const {
    for (size_t s = 0; s < w_.tensors.size(); ++s)
      if (s != t && state_[s] == State::Live && parts(s) == 1 && L_.base[s] == L_.base[t] &&
          f_.granules[s] == f_.granules[t])
        return static_cast<int>(s);
    return -1;
  }
  bool take_over(size_t t, const chord::ReuseMeta& m) {
    if (!model_->geometry().inplace || parts(t) != 1) return false;
    const int s = live_over(t);
    if (s < 0) return false;
    if (model_->rewrite(id(static_cast<size_t>(s), 0), id(t, 0), m).status != chord::Status::Ok) return false;
    record({.kind = chord::OpKind::Rewrite, .id = id(static_cast<size_t>(s), 0), .meta = m, .new_id = id(t, 0)});
    state_[t] = State::Live;
    state_[static_cast<size_t>(s)] = State::Done;
    moved_to_[static_cast<size_t>(s)] = static_cast<int>(t);
    return true;
  }
  // A final output's resident words are written back before its entry goes.
  void retire(size_t t, bool release) {
    for (unsigned q = 0; q < parts(t); ++q) {
      int e = model_->find(id(t, q));
      if (e < 0) continue;
      const auto& en = model_->table()[static_cast<size_t>(e)];
      if (w_.tensors[t].output && !rec_) {
        k_.wr[t] += model_->geometry().clean ? en.dirty : en.res_len;
        record({.kind = chord::OpKind::Flush, .id = id(t, q)});
        if (hooks_ && hooks_->dram_write && en.res_len) {
          const uint64_t lo = range(t, q).first;
          hooks_->dram_write(static_cast<int>(t), lo, lo + en.res_len);
        }
      }
      if (release) {
        model_->release(id(t, q));
        record({.kind = chord::OpKind::Release, .id = id(t, q)});
      }
    }
    state_[t] = State::Done;
  }
  void update(size_t t, const chord::ReuseMeta& m) {
    for (unsigned q = 0; q < parts(t); ++q) {
      if (model_->find(id(t, q)) < 0) continue;  // an empty array (a CSR tensor without entries) has no entry
      model_->update(id(t, q), m);
      record({.kind = chord::OpKind::Update, .id = id(t, q), .meta = m});
    }
  }
  void record(const chord::TraceOp& op) {
    if (hooks_ && hooks_->trace) hooks_->trace->push_back(op);
  }
  // Granules of traffic so far, counted as finish_run() counts them.
  std::pair<uint64_t, uint64_t> dram_so_far() const {
    uint64_t rd = 0, wr = 0;
    for (size_t t = 0; t < w_.tensors.size(); ++t) {
      rd += k_.rd[t];
      wr += k_.wr[t];
      for (unsigned q = 0; q < parts(t); ++q) {
        auto s = model_->stats(id(t, q));
        rd += s.dram_reads;
        if (!w_.tensors[t].input) wr += s.dram_writes;
      }
    }
    return {rd, wr};
  }


  const Workload& w_;
  const Footprint& f_;
  const Layout& L_;
  Counter k_;
  ChordPlan plan_;
  std::unique_ptr<chord::ChordModel> model_;
  std::vector<State> state_;
  std::vector<bool> filled_;
  std::vector<int> moved_to_;  // option inplace: the tensor that took over this one's entry
  int op_ = 0;
  uint64_t accesses_ = 0;
  uint64_t bypass_count_ = 0;
  std::vector<uint32_t> claimed_;  // option claim: the CHORD ids the current op claimed
  // With hooks: per-op traffic.
  const ChordHooks* hooks_ = nullptr;
  std::vector<uint64_t> op_rd_, op_wr_;
  uint64_t rd_before_ = 0, wr_before_ = 0;
  OptTrace* rec_ = nullptr;
};

Traffic chord_model(const Workload& w, MemorySystem c, const ModelParams& p, const Analysis& a, const Footprint& f,
                    const ChordHooks* hooks) {
  Layout L = layout(w, a, f);
  const bool cello = c == MemorySystem::CELLO || c == MemorySystem::OPT;
  ChordPlan plan = cello && w.score ? plan_from_score(w) : plan_derived(w, a, !cello);
  OptTrace trace;
  ChordSink sink(w, f, L, p, cello, std::move(plan), hooks, c == MemorySystem::OPT ? &trace : nullptr);
  WalkOptions opt;
  opt.gather_as_stream = true;  // oracle intra-op reuse, as Flexagon-like
  walk(w, f, sink, opt);
  return c == MemorySystem::OPT ? sink.finish_opt(p) : sink.finish_run(c, p);
}

}  // namespace

Traffic run_model(const Workload& w, MemorySystem c, const ModelParams& p, const ChordHooks* hooks) {
  w.validate();
  p.validate(w.word_bytes, c == MemorySystem::FlexLRU || c == MemorySystem::FlexBRRIP);
  auto t0 = std::chrono::steady_clock::now();
  const double c0 = thread_cpu_seconds();
  const Analysis a = analyze(w);
  const Footprint f = footprint(w, p.line_bytes / w.word_bytes);
  Traffic t;
  switch (c) {
    case MemorySystem::FlexLRU:
    case MemorySystem::FlexBRRIP: t = cache_model(w, c, p, a, f); break;
    case MemorySystem::PreludeOnly:
    case MemorySystem::CELLO:
    case MemorySystem::OPT: t = chord_model(w, c, p, a, f, hooks); break;
    default: t = explicit_model(w, c, p, a, f); break;
  }
  t.seconds = seconds_since(t0);
  t.cpu_seconds = thread_cpu_seconds() - c0;
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
