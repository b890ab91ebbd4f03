// Traffic models on tiny DAGs whose DRAM traffic is computed by hand, and on
// random DAGs where the orderings between configurations must hold.
#include <catch2/catch.hpp>
#include <map>
#include <random>

#include "sw/common/error.hpp"
#include "sw/traffic/models.hpp"

using namespace cello::traffic;

namespace {

// 64 rows x 4 words of 4 B: 256 words = 64 granules (16 B lines) per tensor.
Tensor dense(const std::string& name, bool input = false, bool output = false) {
  return {.name = name, .rows = 64, .row_words = 4, .input = input, .output = output};
}

Op mkop(const std::string& name, std::vector<Operand> in, int out, Use out_use, uint64_t macs) {
  Op op;
  op.name = name;
  op.in = std::move(in);
  op.out = out;
  op.out_use = out_use;
  op.macs = macs;
  return op;
}

uint64_t granules(const Traffic& t) { return t.total_bytes() / 16; }

// Each listed memory system moves the hand-computed number of granules.
void check_granules(const Workload& w, const ModelParams& p,
                    std::initializer_list<std::pair<MemorySystem, uint64_t>> want) {
  for (const auto& [system, expected] : want) {
    INFO(to_string(system));
    CHECK(granules(run_model(w, system, p)) == expected);
  }
}

ModelParams params(uint64_t sram_bytes) {
  ModelParams p;
  p.sram_bytes = sram_bytes;
  return p;
}

// A (input) -> op1 -> B -> op2 -> C (output), B on an edge of class `b_class`;
// op2 also reads A when `op2_reads_a`. 256 MACs per operand read.
Workload two_ops(const std::string& name, bool op2_reads_a, EdgeClass b_class) {
  Workload w;
  w.name = name;
  int A = w.add_tensor(dense("A", true));
  int B = w.add_tensor(dense("B"));
  int C = w.add_tensor(dense("C", false, true));
  w.ops.push_back(mkop("op1", {{A, Use::Stream, -1}}, B, Use::Stream, 256));
  if (op2_reads_a)
    w.ops.push_back(mkop("op2", {{A, Use::Stream, -1}, {B, Use::Stream, -1}}, C, Use::Stream, 512));
  else
    w.ops.push_back(mkop("op2", {{B, Use::Stream, -1}}, C, Use::Stream, 256));
  w.edges = {{0, 1, B, b_class}};
  return w;
}

// A -> op1 -> B -> op2 -> C -> op3 -> D, and B also read by op3 (delayed).
Workload delayed(EdgeClass delayed_class) {
  Workload w;
  w.name = "delayed";
  int A = w.add_tensor(dense("A", true));
  int B = w.add_tensor(dense("B"));
  int C = w.add_tensor(dense("C"));
  int D = w.add_tensor(dense("D", false, true));
  w.ops.push_back(mkop("op1", {{A, Use::Stream, -1}}, B, Use::Stream, 256));
  w.ops.push_back(mkop("op2", {{B, Use::Stream, -1}}, C, Use::Stream, 256));
  w.ops.push_back(mkop("op3", {{B, Use::Stream, -1}, {C, Use::Stream, -1}}, D, Use::Stream, 512));
  w.edges = {{0, 1, B, EdgeClass::Pipelineable}, {0, 2, B, delayed_class}, {1, 2, C, EdgeClass::Pipelineable}};
  return w;
}

}  // namespace

TEST_CASE("pipelined chain: hand-computed traffic per configuration", "[traffic]") {
  // A (input) -> op1 -> B -> op2 -> C (output); B pipelineable.
  const Workload w = two_ops("chain", false, EdgeClass::Pipelineable);
  auto big = params(4 << 20);
  // Flexagon: A 64 + B written 64 and read 64 + C 64 = 256 granules.
  // FLAT / SET / CELLO / Ideal: B never leaves the chip: 64 + 64.
  // PRELUDE-only, big SRAM: B lives in CHORD, C is written back at the end.
  check_granules(w, big, {{MemorySystem::Flexagon, 256}, {MemorySystem::FLAT, 128}, {MemorySystem::SET, 128},
                          {MemorySystem::CELLO, 128}, {MemorySystem::Ideal, 128}, {MemorySystem::PreludeOnly, 128}});
  // PRELUDE-only, 32-granule SRAM: B keeps its first 32 granules and spills 32,
  // op2 misses on those 32; C is written while B still holds the SRAM (B is
  // released after op2), so all 64 spill: A 64 + B 32+32 + C 64 = 192.
  CHECK(granules(run_model(w, MemorySystem::PreludeOnly, params(512))) == 192);
}

TEST_CASE("delayed-writeback DAG: hand-computed traffic per configuration", "[traffic]") {
  Workload w = delayed(EdgeClass::DelayedWriteback);
  auto big = params(4 << 20), small = params(512);
  // Flexagon: A 64 + B (64 + 2x64) + C (64 + 64) + D 64 = 448.
  // FLAT and SET cannot keep B (a delayed write-back consumer): only C stays: 320.
  // CELLO, big SRAM: B in CHORD, C pipelined: A 64 + D 64 = Ideal.
  check_granules(w, big, {{MemorySystem::Flexagon, 448}, {MemorySystem::FLAT, 320}, {MemorySystem::SET, 320},
                          {MemorySystem::CELLO, 128}, {MemorySystem::Ideal, 128}});
  // CELLO, 32 granules: B stores 32 and spills 32; op3 misses 32; D has no
  // reader, so RIFF sends it straight to DRAM: 64 + 32 + 32 + 64 = 192.
  // PRELUDE-only, 32 granules: B 32 stored / 32 spilled, read twice with 32
  // misses each; C finds no space (64 spills, 64 misses); D is written while B
  // still holds the SRAM (64 spills): 64 + 96 + 128 + 64 = 352.
  check_granules(w, small, {{MemorySystem::CELLO, 192}, {MemorySystem::PreludeOnly, 352}});
}

TEST_CASE("delayed-hold DAG: SET keeps the held tensor, FLAT does not", "[traffic]") {
  Workload w = delayed(EdgeClass::DelayedHold);
  auto big = params(4 << 20);
  check_granules(w, big, {{MemorySystem::FLAT, 320}, {MemorySystem::SET, 128}, {MemorySystem::CELLO, 128}});
}

TEST_CASE("op-by-op through a cache: hand-computed fills and write-backs", "[traffic]") {
  // op1: B = f(A); op2: C = g(A, B). A 4 KB cache holds everything: A is filled
  // once (64), B and C are written without fetch and written back at the final
  // flush (64 + 64): 192 granules; Flexagon moves 64+64 + 64+64 + 64 = 320.
  const Workload w = two_ops("reuse", true, EdgeClass::Sequential);
  auto p = params(4096);
  CHECK(granules(run_model(w, MemorySystem::FlexLRU, p)) == 192);
  CHECK(granules(run_model(w, MemorySystem::FlexBRRIP, p)) == 192);
  CHECK(granules(run_model(w, MemorySystem::Flexagon, p)) == 320);
}

TEST_CASE("SpMM gather through the cache follows the column indices", "[traffic]") {
  // Z[m,:] = sum_k A[m,k] P[k,:], P has 1-word rows (4 per line). A is a 2x8
  // pattern whose row 0 touches P rows 0 and 7 and row 1 rows 4 and 5.
  auto pat = std::make_shared<cello::mtx::CsrPattern>();
  pat->rows = 2;
  pat->cols = 8;
  pat->row_ptr = {0, 2, 4};
  pat->col = {0, 7, 4, 5};
  Workload w;
  w.name = "spmm";
  int A = w.add_tensor({.name = "A", .csr = pat, .input = true});
  int P = w.add_tensor({.name = "P", .rows = 8, .row_words = 1, .input = true});
  int Z = w.add_tensor({.name = "Z", .rows = 2, .row_words = 1, .output = true});
  w.ops.push_back(mkop("spmm", {{A, Use::Stream, -1}, {P, Use::Gather, A}}, Z, Use::Stream, 4));
  // Footprints (4 words per granule): A = row_ptr 1 + col 1 + val 1 = 3, P = 2, Z = 1.
  // Gather touches P lines 0 and 1 (rows 0-3, 4-7), each filled once: the
  // cache fills A 3 + P 2 and writes back Z 1 = 6 granules.
  auto p = params(4096);
  CHECK(granules(run_model(w, MemorySystem::FlexLRU, p)) == 6);
  CHECK(granules(run_model(w, MemorySystem::Flexagon, p)) == 6);
  CHECK(granules(run_model(w, MemorySystem::Ideal, p)) == 6);
}

TEST_CASE("random DAGs: every configuration >= Ideal >= bound; explicit orderings hold", "[traffic]") {
  std::mt19937_64 rng(12345);
  const EdgeClass classes[] = {EdgeClass::Sequential, EdgeClass::Pipelineable, EdgeClass::DelayedHold,
                               EdgeClass::DelayedWriteback, EdgeClass::ParallelMulticast};
  for (int trial = 0; trial < 60; ++trial) {
    Workload w;
    w.name = "random";
    const int inputs = 1 + static_cast<int>(rng() % 3);
    for (int i = 0; i < inputs; ++i) {
      Tensor t = dense("in" + std::to_string(i), true);
      t.rows = 8 + rng() % 120;
      t.row_words = 1 + rng() % 8;
      w.add_tensor(t);
    }
    const int ops = 2 + static_cast<int>(rng() % 8);
    for (int o = 0; o < ops; ++o) {
      Op op;
      op.name = "op" + std::to_string(o);
      const int nin = 1 + static_cast<int>(rng() % 3);
      for (int k = 0; k < nin; ++k) {
        int t = static_cast<int>(rng() % w.tensors.size());
        Use u = rng() % 4 == 0 ? Use::Whole : Use::Stream;
        op.in.push_back({t, u, -1});
      }
      Tensor out = dense("t" + std::to_string(o), false, rng() % 4 == 0);
      out.rows = 8 + rng() % 120;
      out.row_words = 1 + rng() % 8;
      out.storage = rng() % 2 ? "v" + std::to_string(rng() % 3) : "";
      op.out = w.add_tensor(out);
      op.out_use = rng() % 5 == 0 ? Use::Whole : Use::Stream;
      op.macs = 1000;
      for (const auto& in : op.in) {
        if (w.tensors[static_cast<size_t>(in.tensor)].input) continue;
        int src = -1;
        for (size_t j = 0; j < w.ops.size(); ++j)
          if (w.ops[j].out == in.tensor) src = static_cast<int>(j);
        bool dup = false;
        for (const auto& e : w.edges) dup = dup || (e.dst == o && e.tensor == in.tensor);
        if (!dup) w.edges.push_back({src, o, in.tensor, classes[rng() % 5]});
      }
      w.ops.push_back(op);
    }
    const uint64_t sram = 512ull << (rng() % 6);
    auto p = params(sram);
    std::map<MemorySystem, uint64_t> t;
    for (auto c : all_systems()) t[c] = run_model(w, c, p).total_bytes();
    const uint64_t bound = algorithmic_minimum_bytes(w, p);
    INFO("trial " << trial << " sram " << sram);
    CHECK(t[MemorySystem::Ideal] >= bound);
    for (auto c : all_systems()) CHECK(t[c] >= t[MemorySystem::Ideal]);
    CHECK(t[MemorySystem::FLAT] <= t[MemorySystem::Flexagon]);
    CHECK(t[MemorySystem::SET] <= t[MemorySystem::FLAT]);
    CHECK(t[MemorySystem::PreludeOnly] <= t[MemorySystem::Flexagon]);
    CHECK(t[MemorySystem::CELLO] <= t[MemorySystem::Flexagon]);
    // With a buffer holding everything, CELLO reaches the pipelined ideal of SET
    // or better, and PRELUDE-only the ideal of op-by-op with on-chip reuse.
    auto huge = params(16ull << 20);
    CHECK(run_model(w, MemorySystem::CELLO, huge).total_bytes() <= run_model(w, MemorySystem::SET, huge).total_bytes());
  }
}

TEST_CASE("malformed workloads are rejected with a one-line error", "[traffic]") {
  Workload w;
  w.name = "bad";
  int A = w.add_tensor(dense("A", true));
  int B = w.add_tensor(dense("B"));
  int C = w.add_tensor(dense("C"));
  w.ops.push_back(mkop("op1", {{A, Use::Stream, -1}}, B, Use::Stream, 1));
  w.ops.push_back(mkop("op2", {{B, Use::Stream, -1}}, C, Use::Stream, 1));
  auto p = params(4096);
  CHECK_THROWS_AS(run_model(w, MemorySystem::Flexagon, p), cello::Error);  // missing edge B: op1 -> op2
  w.edges = {{0, 1, B, EdgeClass::Sequential}};
  CHECK_NOTHROW(run_model(w, MemorySystem::Flexagon, p));
  w.ops[0].in[0].tensor = C;  // reads C before it is produced
  CHECK_THROWS_AS(run_model(w, MemorySystem::Flexagon, p), cello::Error);
  w.ops[0].in[0].tensor = A;
  CHECK_THROWS_AS(run_model(w, MemorySystem::Flexagon, params(1000)), cello::Error);  // not a whole number of lines
  // 63 lines: a CHORD of 63 words, but no 8-way cache geometry.
  CHECK_NOTHROW(run_model(w, MemorySystem::CELLO, params(1008)));
  CHECK_THROWS_AS(run_model(w, MemorySystem::FlexLRU, params(1008)), cello::Error);
}
