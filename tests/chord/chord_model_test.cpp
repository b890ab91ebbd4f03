// Policy and layout tests of the CHORD functional model (sw/chord): the
// situations of CELLO Figs. 9 and 11, error handling, the extent bound, and the
// layout invariants on random traces.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <numeric>
#include <random>

#include "sw/cache/set_assoc_cache.hpp"
#include "sw/chord/chord_model.hpp"
#include "sw/chord/chord_trace.hpp"

using namespace cello::chord;

namespace {

Geometry tiny(uint32_t words, uint32_t entries = 8, uint32_t extents = 4, bool riff = true) {
  Geometry g;
  g.sram_words = words;
  g.entries = entries;
  g.extents = extents;
  g.addr_bits = 16;
  g.riff = riff;
  return g;
}

// Writes the whole tensor [base, end) with data = address * 3 + salt.
std::vector<Access> write_all(ChordModel& m, uint32_t id, uint64_t base, uint64_t end, uint64_t salt = 0) {
  std::vector<Access> out;
  for (uint64_t a = base; a < end; ++a) out.push_back(m.write(id, a, a * 3 + salt));
  return out;
}

// Reads back [base, end) of tensor `id`, as write_all wrote it with `salt`: the
// words below `resident_end` hit the SRAM, the rest miss to DRAM, all with their data.
void check_reads_back(ChordModel& m, uint32_t id, uint64_t base, uint64_t end, uint64_t resident_end,
                      uint64_t salt = 0) {
  for (uint64_t a = base; a < end; ++a) {
    INFO("tensor " << id << ", address " << a);
    Access r = m.read(id, a);
    CHECK(r.outcome == (a < resident_end ? Outcome::Hit : Outcome::Miss));
    CHECK(r.data == a * 3 + salt);
  }
}

size_t count(const std::vector<Access>& v, Outcome o) {
  size_t n = 0;
  for (const auto& a : v) n += a.outcome == o;
  return n;
}

const ReuseMeta kFar{20, 1};   // next use far away
const ReuseMeta kNear{1, 2};   // next use soon, reused twice

}  // namespace

TEST_CASE("priority: live beats dead, nearer beats farther, more uses break ties", "[chord]") {
  Geometry g = tiny(16);
  CHECK(priority_key({100, 1}, g) > priority_key({0, 0}, g));
  CHECK(priority_key({1, 1}, g) > priority_key({2, 200}, g));
  CHECK(priority_key({3, 5}, g) > priority_key({3, 4}, g));
  CHECK(priority_key({3, 4}, g) == priority_key({3, 4}, g));
}

TEST_CASE("PRELUDE (Fig. 9 left): a written tensor keeps its head, the rest spills", "[chord][fig9]") {
  MapDram dram;
  ChordModel m(tiny(16), true, &dram);
  REQUIRE(m.register_tensor(1, 100, 124, kFar).status == Status::Ok);
  auto w = write_all(m, 1, 100, 124);
  for (int i = 0; i < 16; ++i) CHECK(w[i].outcome == Outcome::Hit);
  for (int i = 16; i < 24; ++i) CHECK(w[i].outcome == Outcome::Spill);
  CHECK(m.table()[0].resident_end() == 116);
  check_reads_back(m, 1, 100, 124, 116);
  TensorStats s = m.stats(1);
  CHECK(s.write_hits == 16);
  CHECK(s.spills == 8);
  CHECK(s.read_hits == 16);
  CHECK(s.read_misses == 8);
  CHECK(s.evictions == 0);
  m.check_invariants();
}

TEST_CASE("RIFF (Fig. 9 right): a sooner-reused tensor evicts the tail of a later-reused one", "[chord][fig9]") {
  MapDram dram;
  ChordModel m(tiny(16), true, &dram);
  m.register_tensor(1, 0, 16, kFar);    // X: used in the next iteration
  m.register_tensor(2, 100, 108, kNear);  // R: used in the next two operations
  write_all(m, 1, 0, 16);
  auto w = write_all(m, 2, 100, 108, 7);
  // The first write of R evicts 8 words of X's tail (exactly R's length) at once.
  CHECK(w[0].outcome == Outcome::Evict);
  CHECK(w[0].victim_id == 1);
  CHECK(w[0].evicted == 8);
  for (int i = 1; i < 8; ++i) CHECK(w[i].outcome == Outcome::Hit);
  // X keeps its head; its tail went to DRAM (written back) and reads there.
  CHECK(m.table()[0].resident_end() == 8);
  check_reads_back(m, 1, 0, 16, 8);
  check_reads_back(m, 2, 100, 108, 108, 7);
  CHECK(m.stats(1).evictions == 8);
  CHECK(m.stats(1).dram_writes == 8);
  CHECK(m.stats(2).evicts_caused == 8);
  m.check_invariants();
}

TEST_CASE("RIFF: equal distance, the more frequently reused tensor wins the space", "[chord][fig9]") {
  ChordModel m(tiny(16));
  m.register_tensor(1, 0, 16, {4, 1});
  m.register_tensor(2, 100, 110, {4, 3});
  write_all(m, 1, 0, 16);
  auto w = write_all(m, 2, 100, 110);
  CHECK(w[0].outcome == Outcome::Evict);
  CHECK(count(w, Outcome::Spill) == 0);
  CHECK(m.stats(1).evictions == 10);
  CHECK(m.table()[0].resident_end() == 6);
  // The reverse does not happen: a less frequent tensor cannot evict.
  m.register_tensor(3, 200, 204, {4, 2});
  auto w3 = write_all(m, 3, 200, 204);
  CHECK(w3[0].outcome == Outcome::Evict);  // tensor 1 (1 use) is still the lowest
  CHECK(w3[0].victim_id == 1);
  m.update(1, {4, 9});  // now tensor 1 is the most valuable; 3 (2 uses) is lowest
  m.register_tensor(4, 300, 302, {4, 2});
  auto w4 = write_all(m, 4, 300, 302);
  CHECK(count(w4, Outcome::Spill) == 2);  // ties never evict (strictly lower only)
  m.check_invariants();
}

TEST_CASE("the lowest-priority tensor bypasses straight to DRAM", "[chord][fig9]") {
  ChordModel m(tiny(16));
  m.register_tensor(1, 0, 8, kNear);
  m.register_tensor(2, 100, 108, {2, 2});
  write_all(m, 1, 0, 8);
  write_all(m, 2, 100, 108);
  m.register_tensor(3, 200, 210, kFar);
  auto w = write_all(m, 3, 200, 210);
  CHECK(count(w, Outcome::Spill) == 10);
  CHECK(m.totals().evictions == 0);
  CHECK(m.table()[0].resident_end() == 8);
  CHECK(m.table()[1].resident_end() == 108);

  SECTION("a dead tensor (no uses left) bypasses even with free space") {
    m.release(2);
    m.register_tensor(4, 300, 304, {0, 0});
    auto w4 = write_all(m, 4, 300, 304);
    CHECK(count(w4, Outcome::Spill) == 4);
  }
}

TEST_CASE("PRELUDE only: never evicts, still fills free space", "[chord][fig9]") {
  ChordModel m(tiny(16, 8, 4, false));
  m.register_tensor(1, 0, 16, kFar);
  m.register_tensor(2, 100, 108, kNear);
  write_all(m, 1, 0, 16);
  auto w = write_all(m, 2, 100, 108);
  CHECK(count(w, Outcome::Spill) == 8);
  CHECK(m.totals().evictions == 0);
  m.register_tensor(3, 200, 204, {0, 0});  // dead tensors are not special without RIFF
  m.release(1);
  auto w3 = write_all(m, 3, 200, 204);
  CHECK(count(w3, Outcome::Hit) == 4);
}

TEST_CASE("release frees the tensor's space for the next writer", "[chord]") {
  for (bool riff : {true, false}) {
    ChordModel m(tiny(16, 8, 4, riff));
    m.register_tensor(1, 0, 16, kNear);
    write_all(m, 1, 0, 16);
    m.register_tensor(2, 100, 116, kFar);  // lower priority: would spill
    REQUIRE(m.release(1).status == Status::Ok);
    auto w = write_all(m, 2, 100, 116);
    CHECK(count(w, Outcome::Hit) == 16);
    CHECK(m.totals().evictions == 0);
    CHECK(m.read(1, 0).status == Status::Unregistered);
    m.check_invariants();
  }
}

TEST_CASE("Fig. 11 toy: tensor-level PRELUDE + RIFF beats line-level LRU", "[chord][fig11]") {
  // 8-word buffer. T1 (12 words, read twice later), T3 (4 words, read right away).
  ChordModel m(tiny(8));
  cello::cache::CacheConfig cc;
  cc.capacity_bytes = 8 * 4;
  cc.line_bytes = 4;
  cc.ways = 8;  // fully associative, one word per line
  cello::cache::SetAssocCache lru(cc);
  auto cache_hits = [&] { return lru.stats().hits; };
  uint64_t cache_read_hits = 0;
  auto rd = [&](uint32_t id, uint64_t a) {
    uint64_t h = cache_hits();
    lru.access(a * 4, false);
    cache_read_hits += cache_hits() - h;
    return m.read(id, a);
  };

  m.register_tensor(1, 0, 12, {1, 2});
  for (uint64_t a = 0; a < 12; ++a) {
    m.write(1, a);
    lru.access(a * 4, true);
  }
  // Step 1: CHORD kept the head g1..g8, LRU the tail g5..g12.
  for (uint64_t a = 0; a < 12; ++a) CHECK(rd(1, a).outcome == (a < 8 ? Outcome::Hit : Outcome::Miss));
  // Step 2: T3 is reused sooner and more often than T1's second read.
  m.update(1, {3, 1});
  m.register_tensor(3, 50, 54, {1, 2});
  for (uint64_t a = 50; a < 54; ++a) {
    CHECK(m.write(3, a).outcome != Outcome::Spill);
    lru.access(a * 4, true);
  }
  CHECK(m.stats(1).evictions == 4);  // only the tail of T1, g5..g8
  for (uint64_t a = 50; a < 54; ++a) CHECK(rd(3, a).outcome == Outcome::Hit);
  // Step 3: the head of T1 is still there.
  for (uint64_t a = 0; a < 4; ++a) CHECK(rd(1, a).outcome == Outcome::Hit);
  uint64_t chord_hits = m.totals().read_hits;
  CHECK(chord_hits == 16);
  CHECK(chord_hits > cache_read_hits);
}

TEST_CASE("errors are reported and never disturb other tensors", "[chord][errors]") {
  ChordModel m(tiny(16, 2));
  m.register_tensor(1, 0, 10, kNear);
  write_all(m, 1, 0, 5);
  auto snapshot = m.table();
  auto same = [&] {
    for (size_t i = 0; i < snapshot.size(); ++i) {
      const Entry &a = snapshot[i], &b = m.table()[i];
      if (a.valid != b.valid || a.res_len != b.res_len || a.wptr != b.wptr || a.nruns != b.nruns) return false;
    }
    return true;
  };
  CHECK(m.read(9, 0).status == Status::Unregistered);
  CHECK(m.write(9, 0).status == Status::Unregistered);
  CHECK(m.write(1, 7).status == Status::OutOfOrder);
  CHECK(m.write(1, 4).status == Status::OutOfOrder);
  CHECK(m.read(1, 10).status == Status::OutOfRange);
  CHECK(m.read(1, 10).outcome == Outcome::Error);
  CHECK(m.register_tensor(1, 50, 60, kFar).status == Status::Duplicate);
  CHECK(m.register_tensor(2, 60, 60, kFar).status == Status::BadRange);
  CHECK(m.update(7, kFar).status == Status::Unregistered);
  CHECK(m.release(7).status == Status::Unregistered);
  CHECK(same());
  CHECK(m.register_tensor(2, 60, 70, kFar).status == Status::Ok);
  CHECK(m.register_tensor(3, 80, 90, kFar).status == Status::TableFull);
  write_all(m, 1, 5, 10);
  CHECK(m.write(1, 10).status == Status::OutOfOrder);  // past the end
  for (uint64_t a = 0; a < 10; ++a) CHECK(m.read(1, a).outcome == Outcome::Hit);
  CHECK(m.stats(9).errors == 2);
  CHECK(m.stats(1).errors == 6);
  m.check_invariants();
}

TEST_CASE("a writer never holds more than `extents` runs; then it spills", "[chord][layout]") {
  // Fill 12 words with four 3-word tensors, release two non-adjacent ones.
  ChordModel m(tiny(12, 8, 2));
  for (uint32_t t = 0; t < 4; ++t) {
    m.register_tensor(t, t * 100, t * 100 + 3, kNear);
    write_all(m, t, t * 100, t * 100 + 3);
  }
  m.check_invariants();
  m.release(1);
  m.release(3);
  // A 12-word writer: entry 1 (tensor 1's old entry) is handed to it with 3
  // spare words; it takes entry 3's 3 words as its second run; it is then at
  // its 2-run limit and spills the rest although tensors 0 and 2 rank lower.
  m.register_tensor(9, 900, 912, {0, 9});
  auto w = write_all(m, 9, 900, 912);
  CHECK(count(w, Outcome::Hit) == 6);
  CHECK(count(w, Outcome::Spill) == 6);
  CHECK(m.table()[m.find(9)].nruns == 2);
  m.check_invariants();
  for (uint64_t a = 900; a < 906; ++a) CHECK(m.read(9, a).outcome == Outcome::Hit);
}

TEST_CASE("a tensor that lost its tail spills the rest of its writes (prefix stays a prefix)", "[chord][layout]") {
  Geometry g = tiny(8);
  g.reserve = false;  // with reserve X keeps its 2 spare words and R evicts 4 (tested below)
  ChordModel m(g);
  m.register_tensor(1, 0, 16, kFar);
  m.register_tensor(2, 100, 104, kNear);
  write_all(m, 1, 0, 6);             // X half written: 6 resident, owns 2 spare
  auto r = write_all(m, 2, 100, 104);  // R takes the 2 spare, then evicts 2 of X
  CHECK(r[0].outcome == Outcome::Hit);
  CHECK(r[2].outcome == Outcome::Evict);
  CHECK(r[2].evicted == 2);
  auto w = write_all(m, 1, 6, 16);
  CHECK(count(w, Outcome::Spill) == 10);
  CHECK(m.table()[0].resident_end() == 4);
  m.check_invariants();
}

TEST_CASE("random traces keep the layout invariants and read back the last value written", "[chord][random]") {
  struct Shape {
    uint32_t words, entries, extents;
    bool riff;
  };
  const Shape shapes[] = {{8, 4, 1, true}, {16, 4, 2, true}, {64, 8, 4, true}, {64, 8, 4, false},
                          {37, 6, 3, true}, {256, 16, 8, true}, {5, 3, 2, true}};
  const int kOps = 4000;
  uint64_t accesses = 0;
  for (const auto& sh : shapes) {
    for (uint64_t seed = 1; seed <= 4; ++seed) {
      MapDram dram;
      Geometry g = tiny(sh.words, sh.entries, sh.extents, sh.riff);
      ChordModel m(g, true, &dram);
      auto trace = random_trace(g, seed * 7919 + sh.words, kOps);
      std::map<uint64_t, uint64_t> golden;  // last value written per address
      for (size_t k = 0; k < trace.size(); ++k) {
        const TraceOp& t = trace[k];
        Access a = apply(m, t);
        INFO("shape " << sh.words << "/" << sh.entries << "/" << sh.extents << " seed " << seed << " op " << k);
        if (t.kind == OpKind::Write && a.status == Status::Ok) golden[t.addr] = t.data & 0xffffffffu;
        if (t.kind == OpKind::Read && a.status == Status::Ok) {
          uint64_t want = golden.count(t.addr) ? golden[t.addr] : MapDram::initial(t.addr) & 0xffffffffu;
          REQUIRE(a.data == want);
        }
        if (!t.is_command()) ++accesses;
        REQUIRE_NOTHROW(m.check_invariants());
        if (!sh.riff) REQUIRE(a.outcome != Outcome::Evict);
      }
      // Every resident word was written through CHORD.
      for (const auto& e : m.table())
        if (e.valid)
          for (uint64_t a = e.base; a < e.resident_end(); ++a) REQUIRE(golden.count(a));
      TensorStats tot = m.totals();
      CHECK(tot.read_hits > 0);
      CHECK(tot.spills > 0);
      if (sh.riff && sh.extents > 1) CHECK(tot.evictions > 0);
    }
  }
  CHECK(accesses > 7 * 4 * kOps * 9 / 10);
}

TEST_CASE("structured programs: CG-like and streaming chains stay consistent", "[chord][random]") {
  for (bool riff : {true, false}) {
    Geometry g = tiny(64, 16, 4, riff);
    for (int which = 0; which < 2; ++which) {
      MapDram dram;
      ChordModel m(g, true, &dram);
      auto trace = which == 0 ? cg_trace(g, 40, 3, 5) : chain_trace(g, 9, 5000);
      std::map<uint64_t, uint64_t> golden;
      for (const auto& t : trace) {
        Access a = apply(m, t);
        REQUIRE(a.status == Status::Ok);  // the programs are legal
        if (t.kind == OpKind::Write) golden[t.addr] = t.data & 0xffffffffu;
        if (t.kind == OpKind::Read) {
          uint64_t want = golden.count(t.addr) ? golden[t.addr] : MapDram::initial(t.addr) & 0xffffffffu;
          REQUIRE(a.data == want);
        }
      }
      m.check_invariants();
      TensorStats tot = m.totals();
      INFO("riff " << riff << " program " << which << ": " << tot.read_hits << " read hits, " << tot.read_misses
                    << " misses, " << tot.spills << " spills, " << tot.evictions << " evictions");
      CHECK(tot.read_hits > 0);
      CHECK(tot.read_misses > 0);
      CHECK(tot.spills > 0);
      CHECK((tot.evictions > 0) == riff);
    }
  }
}

TEST_CASE("CG-like program: RIFF beats PRELUDE-only on read hits", "[chord][cg]") {
  Geometry g = tiny(256, 16, 4, true);
  Geometry p = g;
  p.riff = false;
  ChordModel riff(g), prelude(p);
  auto trace = cg_trace(g, 150, 4, 3);
  for (const auto& t : trace) {
    apply(riff, t);
    apply(prelude, t);
  }
  INFO("RIFF hits " << riff.totals().read_hits << " PRELUDE hits " << prelude.totals().read_hits);
  CHECK(riff.totals().read_hits > prelude.totals().read_hits);
  CHECK(riff.totals().evictions > 0);
}

TEST_CASE("policy options: every combination keeps the invariants and reads back the last value", "[chord][random][options]") {
  uint64_t refills = 0, rewrites = 0;
  for (Victim v : {Victim::Distance, Victim::Uses})
    for (bool refill : {false, true})
      for (bool clean : {false, true})
        for (bool reserve : {false, true})
          for (bool inplace : {false, true})
          for (uint32_t words : {16u, 64u}) {
            MapDram dram;
            Geometry g = tiny(words, 6, 3, true);
            g.victim = v;
            g.refill = refill;
            g.clean = clean;
            g.reserve = reserve;
            g.inplace = inplace;
            ChordModel m(g, true, &dram);
            auto trace = random_trace(g, 31 * words + refill * 2 + clean + reserve * 4 + inplace * 8, 3000);
            std::map<uint64_t, uint64_t> golden;
            for (size_t k = 0; k < trace.size(); ++k) {
              const TraceOp& t = trace[k];
              Access a = apply(m, t);
              INFO(to_string(v) << " refill " << refill << " clean " << clean << " reserve " << reserve << " inplace "
                                << inplace << " words "
                                << words << " op " << k);
              if (t.kind == OpKind::Write && a.status == Status::Ok) golden[t.addr] = t.data & 0xffffffffu;
              if (t.kind == OpKind::Read && a.status == Status::Ok) {
                uint64_t want = golden.count(t.addr) ? golden[t.addr] : MapDram::initial(t.addr) & 0xffffffffu;
                REQUIRE(a.data == want);
              }
              if (!refill) REQUIRE(!a.refilled);
              rewrites += t.kind == OpKind::Rewrite && a.status == Status::Ok;
              REQUIRE_NOTHROW(m.check_invariants());
            }
            refills += m.totals().refills;
          }
  CHECK(refills > 0);
  CHECK(rewrites > 50);
}

TEST_CASE("refill: a re-read tensor regains its lost tail from free space; with clean, evicting it again is free",
          "[chord][options]") {
  for (bool clean : {false, true}) {
    Geometry g = tiny(8, 4, 4, true);
    g.refill = true;
    g.clean = clean;
    MapDram dram;
    ChordModel m(g, true, &dram);
    uint64_t dram_writes = 0;
    m.on_dram([&](const DramOp& op) { dram_writes += op.write; });
    REQUIRE(m.register_tensor(1, 100, 112, {1, 3}).status == Status::Ok);
    auto w = write_all(m, 1, 100, 112);
    CHECK(count(w, Outcome::Spill) == 4);  // 8 words fit
    CHECK(m.table()[0].dirty == 8);
    REQUIRE(m.release(1).status == Status::Ok);
    // Two equally ranked tensors: the second keeps half of itself, the rest spills.
    REQUIRE(m.register_tensor(2, 0, 4, {1, 3}).status == Status::Ok);
    write_all(m, 2, 0, 4);
    REQUIRE(m.register_tensor(3, 200, 208, {1, 3}).status == Status::Ok);
    write_all(m, 3, 200, 208);  // 4 fit, 4 spill
    CHECK(m.table()[m.find(3)].res_len == 4);
    // Tensor 2 dies; tensor 3 is read three times: its first pass refills the
    // 4 spilled words into the space tensor 2 left (a refill never evicts).
    REQUIRE(m.release(2).status == Status::Ok);
    size_t refilled = 0;
    for (uint64_t a = 200; a < 208; ++a) refilled += m.read(3, a).refilled;
    CHECK(refilled == 4);
    CHECK(m.table()[m.find(3)].res_len == 8);
    CHECK(m.table()[m.find(3)].dirty == 4);
    // Second pass: all hits.
    for (uint64_t a = 200; a < 208; ++a) CHECK(m.read(3, a).outcome == Outcome::Hit);
    // A nearer writer now evicts tensor 3's tail: refilled words are clean.
    REQUIRE(m.update(3, {9, 2}).status == Status::Ok);
    const uint64_t before = dram_writes;
    REQUIRE(m.register_tensor(4, 300, 304, {1, 2}).status == Status::Ok);
    auto w4 = write_all(m, 4, 300, 304);
    CHECK(count(w4, Outcome::Evict) == 1);
    CHECK(dram_writes - before == (clean ? 0u : 4u));
    for (uint64_t a = 200; a < 208; ++a) CHECK(m.read(3, a).data == a * 3);
    m.check_invariants();
  }
}

TEST_CASE("victim uses: a tensor read more often keeps its words against a nearer writer", "[chord][options]") {
  for (Victim v : {Victim::Distance, Victim::Uses}) {
    Geometry g = tiny(8, 4, 4, true);
    g.victim = v;
    ChordModel m(g);
    REQUIRE(m.register_tensor(1, 0, 8, {4, 3}).status == Status::Ok);  // far, read 3 more times
    write_all(m, 1, 0, 8);
    REQUIRE(m.register_tensor(2, 100, 104, {1, 1}).status == Status::Ok);  // near, read once
    auto w = write_all(m, 2, 100, 104);
    if (v == Victim::Distance) CHECK(count(w, Outcome::Evict) == 1);
    else CHECK(count(w, Outcome::Spill) == 4);
  }
}

// Tensor 1 (12 words, read 3 more times, next read in 5 ops) has written 4
// words into the 16-word SRAM it inherited when tensor 2 (8 words, read once,
// next read in 1 op) starts writing; then tensor 1 writes its other 8 words,
// and both are read.
//   Default: tensor 2 takes 8 words from tensor 1's spare tail (all 8 of its
//   writes hit). Tensor 1 is left with 8 words; its 9th write finds no spare
//   space and cannot evict the nearer tensor 2, so words 8..11 spill (4 DRAM
//   writes) and miss in each of its 3 passes (12 DRAM reads).
//   reserve: tensor 1 keeps min(spare 12, still to write 8) = 8 words, so
//   tensor 2 gets only the other 4. Its 5th write finds no giveable space and
//   tensor 1, owning spare space, is no RIFF candidate: words 104..107 spill
//   (4 DRAM writes) and miss once (4 DRAM reads). Tensor 1 stays whole.
TEST_CASE("reserve: a writer's spare space is kept for its own remaining writes", "[chord][options]") {
  for (bool reserve : {false, true}) {
    INFO("reserve " << reserve);
    Geometry g = tiny(16, 4, 4, true);
    g.reserve = reserve;
    MapDram dram;
    ChordModel m(g, true, &dram);
    REQUIRE(m.register_tensor(1, 0, 12, {5, 3}).status == Status::Ok);
    REQUIRE(m.register_tensor(2, 100, 108, {1, 1}).status == Status::Ok);
    auto w1 = write_all(m, 1, 0, 4);
    auto w2 = write_all(m, 2, 100, 108);
    for (uint64_t a = 4; a < 12; ++a) w1.push_back(m.write(1, a, a * 3));
    CHECK(count(w1, Outcome::Spill) == (reserve ? 0u : 4u));
    CHECK(count(w2, Outcome::Spill) == (reserve ? 4u : 0u));
    CHECK(count(w1, Outcome::Evict) + count(w2, Outcome::Evict) == 0);
    const uint64_t res1 = reserve ? 12 : 8, res2 = reserve ? 4 : 8;
    for (int pass = 0; pass < 3; ++pass) check_reads_back(m, 1, 0, 12, res1);
    check_reads_back(m, 2, 100, 108, 100 + res2);
    CHECK(m.totals().dram_writes == 4);
    CHECK(m.totals().dram_reads == (reserve ? 4u : 12u));
    m.check_invariants();
  }
}

// inplace: tensor 2 is written in place of tensor 1 (same range), reading each
// word of tensor 1 just before overwriting it. Tensor 1 left 6 of its 8 words
// resident; tensor 2 overwrites those 6 slots (hits, no DRAM traffic), and its
// last 2 words grow the prefix from the spare space. The old words not yet
// rewritten read back through the new id with their old data.
TEST_CASE("inplace: a tensor rewritten in place takes over the old entry's resident words", "[chord][options]") {
  Geometry g = tiny(16, 4, 2, true);
  g.inplace = true;
  MapDram dram;
  ChordModel m(g, true, &dram);
  REQUIRE(m.register_tensor(1, 0, 8, {1, 1}).status == Status::Ok);
  REQUIRE(m.register_tensor(3, 100, 110, {1, 1}).status == Status::Ok);
  write_all(m, 3, 100, 110);  // tensor 3 takes 10 of the 16 words
  auto w1 = write_all(m, 1, 0, 8);
  CHECK(count(w1, Outcome::Spill) == 2);  // 6 words left for tensor 1
  REQUIRE(m.release(3).status == Status::Ok);
  // Errors: an unregistered id, a new id in use, the option off.
  CHECK(m.rewrite(7, 8, {2, 1}).status == Status::Unregistered);
  REQUIRE(m.register_tensor(5, 200, 204, {3, 1}).status == Status::Ok);
  CHECK(m.rewrite(1, 5, {2, 1}).status == Status::Duplicate);
  {
    Geometry off = g;
    off.inplace = false;
    ChordModel m2(off);
    REQUIRE(m2.register_tensor(1, 0, 8, {1, 1}).status == Status::Ok);
    CHECK(m2.rewrite(1, 2, {2, 1}).status == Status::Unregistered);
  }
  const uint32_t slots_before[2] = {m.slot_of(m.table()[0], 0), m.slot_of(m.table()[0], 5)};
  REQUIRE(m.rewrite(1, 2, {4, 1}).status == Status::Ok);
  CHECK(m.find(1) < 0);
  REQUIRE(m.find(2) == 0);
  CHECK(m.table()[0].wptr == 0);
  CHECK(m.table()[0].res_len == 6);
  CHECK(m.table()[0].meta.next_use == 4);
  const auto dram_before = m.totals();
  std::vector<Access> w2;
  for (uint64_t a = 0; a < 8; ++a) {
    Access r = m.read(2, a);  // tensor 1's word, through the new id
    CHECK(r.data == a * 3);
    CHECK(r.outcome == (a < 6 ? Outcome::Hit : Outcome::Miss));
    w2.push_back(m.write(2, a, a * 5));
    m.check_invariants();
  }
  CHECK(w2[0].slot == slots_before[0]);
  CHECK(w2[5].slot == slots_before[1]);
  CHECK(count(w2, Outcome::Hit) == 8);  // 6 in place, then 2 from free space
  CHECK(m.table()[0].res_len == 8);
  const auto after = m.totals();
  CHECK(after.dram_writes == dram_before.dram_writes);          // nothing spilled or evicted
  CHECK(after.dram_reads == dram_before.dram_reads + 2);        // tensor 1's two spilled words
  for (uint64_t a = 0; a < 8; ++a) CHECK(m.read(2, a).data == a * 5);
  CHECK(m.stats(2).write_hits == 8);
}

// The CG-like program with inplace: X and P are rewritten in place; every read
// returns the last value written and X / P keep their words across versions.
TEST_CASE("inplace: the CG-like program rewrites X and P in place and moves fewer DRAM words", "[chord][options][cg]") {
  Geometry base = tiny(256, 16, 4, true);
  uint64_t dram[2] = {0, 0};
  for (bool inplace : {false, true}) {
    Geometry g = base;
    g.inplace = inplace;
    MapDram d;
    ChordModel m(g, true, &d);
    auto trace = cg_trace(g, 100, 4, 3);
    const auto rewrites = std::count_if(trace.begin(), trace.end(), [](const TraceOp& t) { return t.kind == OpKind::Rewrite; });
    // X0 over b; then per iteration X over X, R over Q (Q dies in R's update)
    // and P over P: the element-wise ops whose same-length input dies there.
    CHECK(rewrites == (inplace ? 1 + 3 * 4 : 0));
    std::map<uint64_t, uint64_t> golden;
    for (const auto& t : trace) {
      Access a = apply(m, t);
      REQUIRE(a.status == Status::Ok);
      if (t.kind == OpKind::Write) golden[t.addr] = t.data & 0xffffffffu;
      if (t.kind == OpKind::Read) {
        uint64_t want = golden.count(t.addr) ? golden[t.addr] : MapDram::initial(t.addr) & 0xffffffffu;
        REQUIRE(a.data == want);
      }
      m.check_invariants();
    }
    dram[inplace] = m.totals().dram_reads + m.totals().dram_writes;
  }
  INFO("DRAM words without inplace " << dram[0] << ", with " << dram[1]);
  CHECK(dram[1] < dram[0]);
}

namespace {

// One op of a random tensor program: the output it registers and writes whole,
// in address order, and the words of earlier tensors it reads.
struct ProgramOp {
  uint32_t out = 0;
  uint64_t base = 0, end = 0;
  ReuseMeta meta;
  std::vector<std::pair<uint32_t, uint64_t>> reads;  // (tensor, address)
  std::vector<uint32_t> release;                     // dead after this op
};

std::vector<ProgramOp> random_program(uint64_t seed, int ops, uint32_t sram_words) {
  std::mt19937_64 rng(seed);
  auto pick = [&](uint64_t n) { return std::uniform_int_distribution<uint64_t>(0, n - 1)(rng); };
  std::vector<ProgramOp> prog;
  std::vector<size_t> live;  // indices into prog
  uint64_t next_base = 0;
  for (int o = 0; o < ops; ++o) {
    ProgramOp op;
    op.out = static_cast<uint32_t>(o + 1);
    op.base = next_base;
    op.end = op.base + 1 + pick(sram_words);
    next_base = op.end + pick(4);
    op.meta = {static_cast<uint32_t>(1 + pick(6)), static_cast<uint32_t>(pick(4))};
    for (size_t r = 0; r < 3 && !live.empty(); ++r) {
      const ProgramOp& src = prog[live[pick(live.size())]];
      for (uint64_t a = src.base; a < src.end; ++a)
        if (pick(2)) op.reads.emplace_back(src.out, a);
    }
    if (live.size() > 4) {
      const size_t k = pick(live.size());
      op.release.push_back(prog[live[k]].out);
      live.erase(live.begin() + static_cast<long>(k));
    }
    live.push_back(prog.size());
    prog.push_back(op);
  }
  return prog;
}

// Runs the program with each op's reads and writes interleaved by `order`
// (0: reads first, 1: writes first, else a random mix; with claim the random
// mixes also write the output's words in a random order, and the op commits
// its output when it ends); returns every read's outcome and data, in program
// order, then the per-tensor statistics.
std::pair<std::vector<uint64_t>, std::map<uint32_t, TensorStats>> run_program(const std::vector<ProgramOp>& prog,
                                                                              const Geometry& g, int order) {
  MapDram dram;
  ChordModel m(g, true, &dram);
  std::mt19937_64 rng(static_cast<uint64_t>(order));
  std::vector<uint64_t> outcomes;
  for (const ProgramOp& op : prog) {
    REQUIRE(m.register_tensor(op.out, op.base, op.end, op.meta).status == Status::Ok);
    if (g.claim) REQUIRE(m.claim(op.out).status == Status::Ok);
    std::vector<uint64_t> got(op.reads.size());
    std::vector<uint64_t> addrs(op.end - op.base);
    std::iota(addrs.begin(), addrs.end(), op.base);
    if (g.claim && order > 1) std::shuffle(addrs.begin(), addrs.end(), rng);
    size_t r = 0, w = 0;
    while (r < op.reads.size() || w < addrs.size()) {
      const bool write = r == op.reads.size() || (w < addrs.size() && (order == 1 || (order > 1 && (rng() & 1))));
      if (write) {
        REQUIRE(m.write(op.out, addrs[w], addrs[w] * 7).status == Status::Ok);
        ++w;
      } else {
        Access a = m.read(op.reads[r].first, op.reads[r].second);
        REQUIRE(a.status == Status::Ok);
        REQUIRE(a.data == op.reads[r].second * 7);  // every tensor read was written whole
        got[r++] = static_cast<uint64_t>(a.outcome);
      }
    }
    outcomes.insert(outcomes.end(), got.begin(), got.end());
    if (g.claim) REQUIRE(m.commit(op.out).status == Status::Ok);
    for (uint32_t id : op.release) REQUIRE(m.release(id).status == Status::Ok);
    REQUIRE_NOTHROW(m.check_invariants());
  }
  return {outcomes, m.stats()};
}

bool same_stats(const std::map<uint32_t, TensorStats>& a, const std::map<uint32_t, TensorStats>& b) {
  if (a.size() != b.size()) return false;
  for (const auto& [id, s] : a) {
    const TensorStats& t = b.at(id);
    if (s.read_hits != t.read_hits || s.read_misses != t.read_misses || s.write_hits != t.write_hits ||
        s.spills != t.spills || s.evictions != t.evictions || s.dram_reads != t.dram_reads ||
        s.dram_writes != t.dram_writes)
      return false;
  }
  return true;
}

}  // namespace

TEST_CASE("claim: an op's decisions do not depend on the order of its accesses",
          "[chord][options][claim]") {
  int differ_without = 0, evictions = 0;
  for (uint64_t seed = 1; seed <= 40; ++seed)
    for (Victim v : {Victim::Distance, Victim::Uses})
      for (bool reserve : {false, true}) {
        Geometry g = tiny(64, 8, 3, true);
        g.victim = v;
        g.reserve = reserve;
        g.inplace = false;
        const auto prog = random_program(seed, 24, g.sram_words);
        INFO("seed " << seed << " victim " << to_string(v) << " reserve " << reserve);
        g.claim = true;
        const auto first = run_program(prog, g, 0);
        for (int order : {1, 2, 3}) {
          const auto other = run_program(prog, g, order);
          REQUIRE(other.first == first.first);
          REQUIRE(same_stats(other.second, first.second));
        }
        for (const auto& [id, s] : first.second) evictions += s.evictions > 0;
        // Without claim the same programs do depend on the order (the test can fail).
        g.claim = false;
        differ_without += run_program(prog, g, 0).first != run_program(prog, g, 1).first;
      }
  CHECK(evictions > 20);
  CHECK(differ_without > 100);  // 160 of 160 when measured
}

TEST_CASE("claim: the space is taken when the op starts, and the writes fill it", "[chord][options][claim]") {
  Geometry g = tiny(32, 4, 2, true);
  g.claim = true;
  ChordModel m(g);
  // A (next use in 5 ops) fills the SRAM, claimed and written whole.
  REQUIRE(m.register_tensor(1, 0, 32, {5, 1}).status == Status::Ok);
  REQUIRE(m.claim(1).status == Status::Ok);
  for (uint64_t a = 0; a < 32; ++a) CHECK(m.write(1, a).outcome == Outcome::Hit);
  CHECK(m.read(1, 0).outcome == Outcome::Miss);  // resident only once committed
  REQUIRE(m.commit(1).status == Status::Ok);
  CHECK(m.read(1, 0).outcome == Outcome::Hit);
  // B (next use in 1 op) claims 12 words: A's tail is evicted at once, before any access.
  REQUIRE(m.register_tensor(2, 100, 112, {1, 1}).status == Status::Ok);
  REQUIRE(m.claim(2).status == Status::Ok);
  CHECK(m.stats(1).evictions == 12);
  CHECK(m.read(1, 19).outcome == Outcome::Hit);
  CHECK(m.read(1, 20).outcome == Outcome::Miss);
  for (uint64_t a = 100; a < 112; ++a) CHECK(m.write(2, a).outcome == Outcome::Hit);
  REQUIRE(m.commit(2).status == Status::Ok);
  // C claims nothing RIFF may take (B and A both rank above it): every write spills,
  // and no write starts a move of its own.
  REQUIRE(m.register_tensor(3, 200, 204, {9, 1}).status == Status::Ok);
  REQUIRE(m.claim(3).status == Status::Ok);
  for (uint64_t a = 200; a < 204; ++a) CHECK(m.write(3, a).outcome == Outcome::Spill);
  CHECK(m.stats(1).evictions == 12);
  REQUIRE(m.commit(3).status == Status::Ok);
  CHECK(m.read(3, 200).outcome == Outcome::Miss);  // nothing landed on chip
  // Without the option, claim is refused.
  ChordModel off(tiny(32, 4, 2, true));
  REQUIRE(off.register_tensor(1, 0, 8, {1, 1}).status == Status::Ok);
  CHECK(off.claim(1).status == Status::Unregistered);
  CHECK(off.commit(1).status == Status::Unregistered);
  REQUIRE_NOTHROW(m.check_invariants());
}

TEST_CASE("claim: writes land at their offsets in any order, and commit makes them resident", "[chord][options][claim]") {
  Geometry g = tiny(32, 4, 2, true);
  g.claim = true;
  MapDram dram;
  ChordModel m(g, true, &dram);
  // A claims the whole SRAM, 32 words of its 40: offsets below 32 store, the rest spill, in any order.
  REQUIRE(m.register_tensor(1, 0, 40, {1, 2}).status == Status::Ok);
  REQUIRE(m.claim(1).status == Status::Ok);
  CHECK(m.commit(7).status == Status::Unregistered);
  const std::vector<uint64_t> first = {39, 0, 23, 24, 5};
  for (uint64_t a : first) {
    INFO("address " << a);
    CHECK(m.write(1, a, a + 100).outcome == (a < 32 ? Outcome::Hit : Outcome::Spill));
  }
  for (uint64_t a = 39; a + 1 > 0; --a)  // the rest, backwards
    if (std::find(first.begin(), first.end(), a) == first.end()) REQUIRE(m.write(1, a, a + 100).status == Status::Ok);
  CHECK(m.write(1, 40).status == Status::OutOfOrder);  // outside the tensor
  CHECK(m.read(1, 5).outcome == Outcome::Miss);        // not resident before the commit
  REQUIRE(m.commit(1).status == Status::Ok);
  for (uint64_t a = 0; a < 40; ++a) {
    INFO("address " << a);
    Access r = m.read(1, a);
    CHECK(r.outcome == (a < 32 ? Outcome::Hit : Outcome::Miss));
    CHECK(r.data == a + 100);
  }
  CHECK(m.write(1, 3).status == Status::OutOfOrder);  // the claim ended: A is written
  CHECK(m.commit(1).status == Status::Ok);            // a commit without a claim does nothing
  CHECK(m.read(1, 31).outcome == Outcome::Hit);
  // A tensor RIFF bypasses (uses 0) claims nothing and spills; its commit keeps no word.
  REQUIRE(m.release(1).status == Status::Ok);
  REQUIRE(m.register_tensor(2, 100, 108, {1, 0}).status == Status::Ok);
  REQUIRE(m.claim(2).status == Status::Ok);
  for (uint64_t a = 107; a >= 100; --a) CHECK(m.write(2, a).outcome == Outcome::Spill);
  REQUIRE(m.commit(2).status == Status::Ok);
  CHECK(m.read(2, 100).outcome == Outcome::Miss);
  REQUIRE_NOTHROW(m.check_invariants());
}

// Option flush: the resident words that may differ from DRAM go back in
// address order and stay resident; with clean only the dirty prefix, once.
TEST_CASE("flush: a tensor's resident words go back to DRAM in order and stay resident", "[chord][options][flush]") {
  for (bool clean : {false, true}) {
    INFO("clean " << clean);
    Geometry g = tiny(32, 4, 2, true);
    g.clean = clean;
    MapDram dram;
    ChordModel m(g, true, &dram);
    std::vector<DramOp> out;
    m.on_dram([&](const DramOp& op) { out.push_back(op); });
    CHECK(m.flush(1).status == Status::Unregistered);  // option off
    g.flush = true;
    ChordModel f(g, true, &dram);
    f.on_dram([&](const DramOp& op) { out.push_back(op); });
    CHECK(f.flush(1).status == Status::Unregistered);
    // A: 3 words filled (clean with the option), then 2 written; B: 4 words filled.
    REQUIRE(f.register_tensor(1, 0, 5, {1, 2}).status == Status::Ok);
    for (uint64_t a = 0; a < 3; ++a) REQUIRE(f.fill(1, a, MapDram::initial(a)).outcome == Outcome::Hit);
    for (uint64_t a = 3; a < 5; ++a) REQUIRE(f.write(1, a, a + 100).outcome == Outcome::Hit);
    REQUIRE(f.register_tensor(2, 10, 14, {1, 2}).status == Status::Ok);
    for (uint64_t a = 10; a < 14; ++a) REQUIRE(f.fill(2, a, MapDram::initial(a)).outcome == Outcome::Hit);
    out.clear();
    REQUIRE(f.flush(1).status == Status::Ok);
    // The dirty prefix of A is all 5 words (its last write is at offset 4).
    REQUIRE(out.size() == 5);
    for (uint64_t a = 0; a < 5; ++a) {
      CHECK(out[a].write);
      CHECK(out[a].addr == a);
      CHECK(out[a].data == (a < 3 ? MapDram::initial(a) : a + 100));
    }
    out.clear();
    REQUIRE(f.flush(2).status == Status::Ok);
    CHECK(out.size() == (clean ? 0u : 4u));  // B holds only fills
    out.clear();
    REQUIRE(f.flush(1).status == Status::Ok);
    CHECK(out.size() == (clean ? 0u : 5u));  // clean after its first flush
    for (uint64_t a = 0; a < 5; ++a) CHECK(f.read(1, a).outcome == Outcome::Hit);
    CHECK(f.read(1, 4).data == 104);
    REQUIRE_NOTHROW(f.check_invariants());
  }
}

TEST_CASE("words: wide words keep every limb, merge_bytes takes only the enabled bytes", "[chord]") {
  const Word w = expand_word(0x1234, 200);
  REQUIRE(w.limbs.size() == 4);
  CHECK(w.low() == 0x1234);
  CHECK(w.limbs[3] >> 8 == 0);  // 200 bits: the top limb keeps 8
  CHECK(w.limbs[1] != w.limbs[2]);
  CHECK(expand_word(0, 200) == Word{});
  CHECK(expand_word(0xabcd, 12) == 0xbcd);
  // Bytes 0 and 9 of a 128-bit word (limb 0 bits 0..7, limb 1 bits 8..15).
  ByteMask be;
  be.limbs = {(1ull << 0) | (1ull << 9)};
  Word old, data;
  old.limbs = {0x1111111111111111ull, 0x2222222222222222ull};
  data.limbs = {0xaaaaaaaaaaaaaaaaull, 0xbbbbbbbbbbbbbbbbull};
  Word want;
  want.limbs = {0x11111111111111aaull, 0x222222222222bb22ull};
  CHECK(merge_bytes(old, data, be, 128) == want);
  CHECK(merge_bytes(old, data, {}, 128) == data);
}

TEST_CASE("byte enables: a stored word keeps its other bytes and a spill writes only its own", "[chord]") {
  Geometry g = tiny(4, 4, 2);
  g.word_bits = 32;
  g.byte_enables = true;
  MapDram dram(32);
  ChordModel m(g, true, &dram);
  REQUIRE(m.register_tensor(1, 0, 8, kNear).status == Status::Ok);
  ByteMask low_half;
  low_half.limbs = {0x3};
  std::vector<DramOp> writes;
  m.on_dram([&](const DramOp& op) {
    if (op.write) writes.push_back(op);
  });
  for (uint64_t a = 0; a < 8; ++a) m.write(1, a, 0xaabbccdd, low_half);
  // Words 0..3 fit: the SRAM held zeros, so the high half stays zero.
  for (uint64_t a = 0; a < 4; ++a) {
    Access r = m.read(1, a);
    CHECK(r.outcome == Outcome::Hit);
    CHECK(r.data == 0xccdd);
  }
  // Words 4..7 spill with their byte enables: DRAM keeps its own high half.
  REQUIRE(writes.size() == 4);
  for (uint64_t a = 4; a < 8; ++a) {
    CHECK(writes[a - 4].be == low_half);
    Access r = m.read(1, a);
    CHECK(r.outcome == Outcome::Miss);
    CHECK(r.data == ((MapDram::initial(a) & 0xffff0000u) | 0xccdd));
  }
  // Without the option a write's byte enables are ignored.
  g.byte_enables = false;
  ChordModel whole(g, true);
  REQUIRE(whole.register_tensor(1, 0, 8, kNear).status == Status::Ok);
  whole.write(1, 0, 0xaabbccdd, low_half);
  CHECK(whole.read(1, 0).data == 0xaabbccdd);
  Geometry odd = tiny(4);
  odd.word_bits = 12;
  odd.byte_enables = true;
  CHECK_THROWS_AS(odd.validate(), std::invalid_argument);
}
