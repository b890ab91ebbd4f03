// Randomised differential test of one generated CHORD configuration against the
// functional model. Built once per configuration by tb/chord/CMakeLists.txt,
// which verilates the RTL as class Vchord and passes the path of the hardware
// JSON it was generated from as CELLO_TB_CONFIG; the testbench reads its geometry
// from that file with the generator's own reader. CELLO_CHORD_SCALE scales the
// volume (default 1), CELLO_SEED replays a seed.
#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>

#include "Vchord.h"
#include "gen/top/top_config.hpp"
#include "sw/arch/arch.hpp"
#include "sw/common/skip_test.hpp"
#include "sw/exec/prepare.hpp"
#include "sw/traffic/from_score.hpp"
#include "sw/traffic/models.hpp"
#include "tb/chord/chord_bench.hpp"
#include "tb/harness/checked.hpp"
#include "tb/harness/tb_config.hpp"

using namespace cello::tb;
namespace chord = cello::chord;
namespace arch = cello::arch;
namespace exec = cello::exec;
namespace stream = cello::stream;
namespace traffic = cello::traffic;

namespace {

// The CHORD this testbench was built for.
const cello::gen::ChordConfig& config() { return tb_block(tb_hw_config().chords); }

chord::Geometry geometry() { return config().geometry(); }
unsigned counter_width() { return static_cast<unsigned>(config().counter_width); }
const char* chord_name() { return config().name.c_str(); }

using Bench = ChordBench<Vchord>;

double scale() {
  const char* s = std::getenv("CELLO_CHORD_SCALE");
  return s ? std::strtod(s, nullptr) : 1.0;
}
size_t scaled(size_t n) { return static_cast<size_t>(static_cast<double>(n) * scale()) + 1; }

ChordRates random_rates(Rng& rng, bool stall) {
  ChordRates r;
  if (!stall) return r;
  auto p = [&] { return 0.15 + 0.85 * static_cast<double>(rng.below(1000)) / 1000.0; };
  r = {p(), p(), p(), p(), p(), p(), 1, 1};
  r.lat_min = 1 + static_cast<unsigned>(rng.below(4));
  r.lat_max = r.lat_min + static_cast<unsigned>(rng.below(40));
  return r;
}

// Runs a trace in chunks, each with its own stall rates and DRAM latency (one
// chunk in three without stalls).
ChordRunStats run_chunks(Bench& bench, const std::vector<chord::TraceOp>& trace, size_t chunks) {
  ChordRunStats sum;
  size_t per = trace.size() / chunks + 1;
  for (size_t c = 0; c * per < trace.size(); ++c) {
    std::vector<chord::TraceOp> part(trace.begin() + c * per, trace.begin() + std::min(trace.size(), (c + 1) * per));
    sum += bench.run(part, random_rates(bench.rng(), c % 3 != 0));
  }
  return sum;
}

void report(const char* what, const ChordRunStats& st) {
  std::printf("%s %s: %llu accesses (%llu hit, %llu miss, %llu spill, %llu evict, %llu error), %llu commands, "
              "%llu DRAM words, %llu cycles\n",
              chord_name(), what, static_cast<unsigned long long>(st.reads + st.writes),
              static_cast<unsigned long long>(st.hits), static_cast<unsigned long long>(st.misses),
              static_cast<unsigned long long>(st.spills), static_cast<unsigned long long>(st.evicts),
              static_cast<unsigned long long>(st.errors), static_cast<unsigned long long>(st.commands),
              static_cast<unsigned long long>(st.dram_words), static_cast<unsigned long long>(st.cycles));
}

// legal: the trace holds no illegal operation (a program trace: the runner
// keeps a tensor that finds the table full off chip), so the RTL reports none.
// Returns the model's totals, which equal the RTL's counters (ChordBench checks
// them after every chunk).
template <class Make>
chord::TensorStats differential(const char* what, uint64_t seed, Make make, bool legal = false, size_t chunks = 8,
                                bool in_order = false) {
  Bench bench(geometry(), counter_width(), seed_from_env(seed));
  bench.set_in_order(in_order);
  CELLO_SEED_INFO(bench.seed());
  ChordRunStats st;
  try {
    auto trace = make(bench.seed());
    st = run_chunks(bench, trace, chunks);
    CHECK(st.reads + st.writes == chord::access_count(trace));
  } catch (const Failure& f) {
    FAIL(f.what());
  }
  CHECK(st.responses == st.reads);
  if (legal) CHECK(st.errors == 0);
  report(what, st);
  return bench.model().totals();
}

// The walk's trace in this build's widths: reuse metadata clamped to them
// (a distance of "none" stays all ones), flushes dropped without `flush`.
// Returns whether any metadata changed (the walk's RIFF keys then differ from
// the build's); skips the test when an id or address does not fit.
bool fit_to_build(std::vector<chord::TraceOp>& trace, const chord::Geometry& g) {
  bool clamped = false;
  std::vector<chord::TraceOp> out;
  for (chord::TraceOp op : trace) {
    if (op.kind == chord::OpKind::Flush && !g.flush) continue;
    const uint64_t addr = std::max(op.addr, op.end);
    if (op.id >> g.id_bits || op.new_id >> g.id_bits || (g.addr_bits < 64 && addr >> g.addr_bits))
      cello::skip_test("the compiled program's CHORD ids or addresses do not fit this build");
    const chord::ReuseMeta m = op.meta;
    op.meta = chord::in_widths(m, g.dist_bits, g.uses_bits);
    clamped = clamped || op.meta.next_use != m.next_use || op.meta.uses != m.uses;
    out.push_back(op);
  }
  trace = std::move(out);
  return clamped;
}

}  // namespace

TEST_CASE("random mix", "[chord]") {
  differential("random mix", 11, [](uint64_t s) { return chord::random_trace(geometry(), s, scaled(250000)); });
}

TEST_CASE("streaming chains with skip connections", "[chord]") {
  differential("chains", 12, [](uint64_t s) { return chord::chain_trace(geometry(), s, scaled(60000)); }, true);
}

TEST_CASE("CG-like program overflowing the SRAM", "[chord][cg]") {
  differential("CG overflow", 13, [](uint64_t s) {
    auto g = geometry();
    uint64_t n = std::max<uint64_t>(3, g.sram_words * 9 / 20);
    int iters = static_cast<int>(std::max<uint64_t>(2, scaled(40000) / (26 * n)));
    return chord::cg_trace(g, n, iters, s);
  }, true);
}

TEST_CASE("CG-like program that fits", "[chord][cg]") {
  differential("CG fits", 14, [](uint64_t s) {
    auto g = geometry();
    uint64_t n = std::max<uint64_t>(1, g.sram_words / 10);
    int iters = static_cast<int>(std::max<uint64_t>(2, scaled(10000) / (26 * n)));
    return chord::cg_trace(g, n, iters, s);
  }, true);
}

// CG as SCORE compiles it for a top whose CHORD has this build's geometry (its
// depth in 16-byte granules, its entries, runs and policy options): the
// traffic walk's CHORD trace (the executor's prediction, ChordHooks::trace)
// runs on the RTL in lockstep with the model. Where the build's widths hold
// the walk's reuse metadata unchanged, the counters equal the walk's.
TEST_CASE("CG compiled by SCORE: the traffic walk's CHORD trace", "[chord][cg][program]") {
  const chord::Geometry g = geometry();
  arch::Arch a = cello::gen::load_arch("");
  a.chord_bytes = uint64_t{g.sram_words} * a.granule_bytes;
  arch::set_chord_policy(a, g);
  const stream::Problem pr = stream::make_problem({.workload = "cg", .grid = 4, .n = 2, .iters = 3});
  exec::Prepared prep;
  try {
    prep = exec::prepare(pr, a);
  } catch (const cello::Error& e) {
    cello::skip_test(std::string("SCORE cannot compile CG for this CHORD: ") + e.what());
  }
  const traffic::Workload w = traffic::from_schedule(prep.schedule, pr.pattern, a.word_bytes);
  std::vector<chord::TraceOp> trace;
  traffic::ChordHooks hooks;
  hooks.trace = &trace;
  const traffic::Traffic walk = traffic::run_model(w, traffic::MemorySystem::CELLO, arch::model_params_of(a), &hooks);
  const bool clamped = fit_to_build(trace, g);
  const chord::TensorStats rtl = differential("compiled CG", 17, [&](uint64_t) { return trace; }, true, 8, true);
  std::printf("%s compiled CG: walk predicts %llu read hits, %llu misses, %llu spills, %llu evicted words%s\n",
              chord_name(), static_cast<unsigned long long>(walk.chord.read_hits),
              static_cast<unsigned long long>(walk.chord.read_misses), static_cast<unsigned long long>(walk.chord.spills),
              static_cast<unsigned long long>(walk.chord.evicted_words),
              clamped ? " (metadata clamped to the build's widths: not compared)" : "");
  CHECK(rtl.read_hits + rtl.read_misses + rtl.write_hits + rtl.spills > 0);
  if (clamped) return;
  auto equals_walk = [&](const chord::TensorStats& s) {
    CHECK(s.read_hits == walk.chord.read_hits);
    CHECK(s.read_misses == walk.chord.read_misses);
    CHECK(s.write_hits == walk.chord.write_hits);
    CHECK(s.spills == walk.chord.spills);
    CHECK(s.evictions == walk.chord.evicted_words);
  };
  equals_walk(rtl);
  // With `claim` the order of reads against writes between commands does not
  // change a decision (docs/top.md): the ports running independently give the
  // same counters.
  if (g.claim) equals_walk(differential("compiled CG, ports independent", 18, [&](uint64_t) { return trace; }, true));
}

TEST_CASE("illegal operations are reported and never hang", "[chord][errors]") {
  differential("errors", 15, [](uint64_t s) {
    chord::RandomMix mix;
    mix.error_rate = 0.25;
    mix.command_rate = 0.12;
    return chord::random_trace(geometry(), s, scaled(12000), mix);
  });
}

TEST_CASE("unstalled hits sustain one read and one write per cycle", "[chord][throughput]") {
  const auto g = geometry();
  const uint64_t S = std::min<uint64_t>(g.sram_words / 2, 4096);
  if (S < 400) {  // the one-time scan for B's space would dominate
    cello::skip_test("SRAM too small for a throughput measurement");
  }
  Bench bench(g, counter_width(), seed_from_env(16));
  INFO("seed " << bench.seed());
  const uint64_t b_base = 1 << 16;
  const HitThroughputTraces traces = hit_throughput_traces(S, b_base);
  std::vector<chord::TraceOp> reads;
  for (int k = 0; k < 4; ++k)
    for (uint64_t i = 0; i < S; ++i)
      reads.push_back(access_op(chord::OpKind::Read, k % 2 ? 2 : 1, (k % 2 ? b_base : 0) + i));
  ChordRunStats a, b;
  try {
    bench.run(traces.setup, ChordRates{});
    a = bench.run(traces.mixed, ChordRates{});
    b = bench.run(reads, ChordRates{});
  } catch (const Failure& f) {
    FAIL(f.what());
  }
  double both = static_cast<double>(a.reads + a.writes) / static_cast<double>(a.cycles);
  double rd = static_cast<double>(b.reads) / static_cast<double>(b.cycles);
  std::printf("%s throughput: %.3f accesses/cycle (read + write hits), %.3f reads/cycle (hits)\n", chord_name(), both, rd);
  INFO("read+write hits/cycle " << both << ", read hits/cycle " << rd);
  CHECK(a.hits == a.reads + a.writes);
  CHECK(b.hits == b.reads);
  CHECK(both >= 1.9);
  CHECK(rd >= 0.99);
}

// Option flush: the engine's last word may still be on its way to the DRAM
// queue when the flush ends, and the access waiting behind the flush is
// accepted in the first idle cycle: a read miss there must not lose its DRAM
// request to the last flushed word (a hang). Each round writes a fresh tensor,
// flushes it and reads a word no one wrote, without stalls.
TEST_CASE("a read miss right after a flush is served", "[chord][flush]") {
  const auto g = geometry();
  if (!g.flush) cello::skip_test("the build has no flush command");
  const uint64_t n = std::min<uint64_t>(4, g.sram_words / 2), far = 1000;
  std::vector<chord::TraceOp> trace;
  chord::TraceOp reg_b;
  reg_b.kind = chord::OpKind::Register;
  reg_b.id = 2, reg_b.base = far, reg_b.end = far + 64, reg_b.meta = {1, 3};
  trace.push_back(reg_b);
  for (uint32_t k = 0; k < 40; ++k) {
    chord::TraceOp c;
    c.kind = chord::OpKind::Register;
    c.id = 10 + k, c.base = 64 * k, c.end = 64 * k + n, c.meta = {1, 3};
    trace.push_back(c);
    for (uint64_t a = c.base; a < c.end; ++a) trace.push_back(access_op(chord::OpKind::Write, c.id, a));
    c.kind = chord::OpKind::Flush;
    trace.push_back(c);
    trace.push_back(access_op(chord::OpKind::Read, 2, far + k));
    c.kind = chord::OpKind::Release;
    trace.push_back(c);
  }
  Bench bench(g, counter_width(), seed_from_env(17));
  CELLO_SEED_INFO(bench.seed());
  ChordRunStats st;
  try {
    st = bench.run(trace, ChordRates{});
  } catch (const Failure& f) {
    FAIL(f.what());
  }
  CHECK(st.responses == 40);
  CHECK(st.misses == 40);
  CHECK(st.errors == 0);
  CHECK(st.dram_words >= 40 * (n + 1));  // every flush wrote its n words back; every read missed
}

// Option claim: a claim's eviction is written back in the background while
// reads and writes go on. Two tensors V1 and V2 fill the SRAM and are written
// whole (dirty); a claim for Z, which ranks higher, evicts both (two moves, the
// second waiting for the first's write-back); a burst of reads of a third
// tensor (misses) follows at once, with DRAM slow to take requests, so the
// misses and the write-back compete for the DRAM queue. Then the same with
// reads of the victims, which must wait for each word's write-back, and with
// the victims claimed again and written again over their evicted words
// (spills that must not pass them).
TEST_CASE("a claim's write-back runs beside read misses", "[chord][claim]") {
  const auto g = geometry();
  if (!g.claim) cello::skip_test("the build has no claim command");
  const uint64_t n = g.sram_words, far = uint64_t{1} << (g.addr_bits - 2);
  const uint32_t low = std::min<uint32_t>(100, (1u << std::min(g.dist_bits, 20u)) - 1);
  const uint32_t many = std::min<uint32_t>(100, (1u << std::min(g.uses_bits, 20u)) - 1);
  // The victims: id, base, words.
  const std::vector<std::pair<uint32_t, uint64_t>> victims = {{1, 0}, {4, far / 2}};
  const uint64_t half[2] = {n / 2, n - n / 2};
  enum Beside { kReadOther, kReadVictim, kWriteVictim };
  for (Beside beside : {kReadOther, kReadVictim, kWriteVictim}) {
    std::vector<chord::TraceOp> trace;
    auto reg = [&](uint32_t id, uint64_t base, uint64_t end, chord::ReuseMeta meta) {
      chord::TraceOp c;
      c.kind = chord::OpKind::Register;
      c.id = id, c.base = base, c.end = end, c.meta = meta;
      trace.push_back(c);
    };
    auto cmd = [&](chord::OpKind k, uint32_t id) {
      chord::TraceOp c;
      c.kind = k, c.id = id;
      trace.push_back(c);
    };
    // Word a of the burst in victim v's range (alternating victims).
    auto victim_addr = [&](uint64_t a, size_t& v) {
      v = a % 2;
      return victims[v].second + (a / 2) % half[v];
    };
    reg(2, far, far + 3 * n, {low, 1});  // M: registered, never claimed: its reads miss
    for (size_t v = 0; v < 2; ++v) {
      const auto [id, base] = victims[v];
      reg(id, base, base + half[v], {low, 1});  // far next use, one use left
      cmd(chord::OpKind::Claim, id);
      for (uint64_t a = base; a < base + half[v]; ++a) trace.push_back(access_op(chord::OpKind::Write, id, a));
      cmd(chord::OpKind::Commit, id);
    }
    if (beside == kWriteVictim)  // claimed again: they may write their words again
      for (const auto& [id, base] : victims) cmd(chord::OpKind::Claim, id);
    reg(3, 2 * far, 2 * far + n, {1, many});  // Z: next use soonest, many uses
    cmd(chord::OpKind::Claim, 3);
    for (uint64_t a = 0; a < 3 * n; ++a) {
      size_t v = 0;
      const uint64_t va = victim_addr(a, v);
      if (beside == kWriteVictim && a < n) trace.push_back(access_op(chord::OpKind::Write, victims[v].first, va));
      trace.push_back(beside == kReadVictim ? access_op(chord::OpKind::Read, victims[v].first, va)
                                            : access_op(chord::OpKind::Read, 2, far + a));
    }
    for (uint64_t a = 0; a < n; ++a) trace.push_back(access_op(chord::OpKind::Write, 3, 2 * far + a));
    cmd(chord::OpKind::Commit, 3);
    Bench bench(g, counter_width(), seed_from_env(18));
    CELLO_SEED_INFO(bench.seed());
    INFO("beside the write-back: " << (beside == kReadOther    ? "reads of another tensor"
                                       : beside == kReadVictim ? "reads of the victims"
                                                               : "writes of the victims"));
    ChordRates slow;
    slow.dram_req = 0.4;
    slow.lat_min = 2, slow.lat_max = 30;
    ChordRunStats st;
    try {
      st = bench.run(trace, slow);
    } catch (const Failure& f) {
      FAIL(f.what());
    }
    CHECK(st.errors == 0);
    CHECK(st.responses == 3 * n);
    CHECK(bench.model().totals().evictions == n);  // the claim evicted both victims whole
    CHECK(st.dram_words >= 4 * n);                 // their write-back and every miss
  }
}
