// Each SCORE pass on its own, against expectations derived independently:
// brute-force longest paths, GOGETA's thresholds worked by hand, Algorithm 2
// on hand-made DAGs, exhaustive loop-order search, tile sizes by hand, and
// RIFF metadata recomputed by scanning the schedule.
#include <catch2/catch.hpp>
#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <numeric>

#include "sw/ir/cello_format.hpp"
#include "sw/score/classify.hpp"
#include "sw/score/compile.hpp"
#include "sw/score/critical_path.hpp"
#include "sw/score/dominance.hpp"
#include "sw/score/loop_order.hpp"
#include "sw/score/riff.hpp"
#include "sw/workloads/random_dag.hpp"
#include "sw/workloads/workloads.hpp"

using namespace cello;
using score::Dominance;
using score::EdgeClass;

namespace {

const char* kSolverRanks =
    "rank m = 10000\nrank k = m\nrank n = 8\nrank n2 = n\nrank j = n\n"
    "input A[m,k] csr nnz=90000\ninput X0[m,n]\ninput L[j,n]\ninput L2[j,n]\n";

score::Schedule compile_text(const std::string& body, const std::string& head = kSolverRanks) {
  return score::compile(ir::parse_cello(head + body, "t.cello"));
}

// Class of the edge carrying `tensor` from op `src` to op `dst`.
EdgeClass cls(const score::Schedule& s, const std::string& src, const std::string& dst) {
  const ir::Program& p = s.program;
  for (size_t e = 0; e < s.dag.edges.size(); ++e)
    if (p.ops[s.dag.edges[e].src].name == src && p.ops[s.dag.edges[e].dst].name == dst) return s.edges[e].cls;
  FAIL("no edge " << src << " -> " << dst);
  return EdgeClass::Sequential;
}

const score::EdgeSchedule& edge(const score::Schedule& s, const std::string& src, const std::string& dst) {
  const ir::Program& p = s.program;
  for (size_t e = 0; e < s.dag.edges.size(); ++e)
    if (p.ops[s.dag.edges[e].src].name == src && p.ops[s.dag.edges[e].dst].name == dst) return s.edges[e];
  FAIL("no edge " << src << " -> " << dst);
  return s.edges[0];
}

Dominance dom_of(const std::string& text, const std::string& op, score::Thresholds th = {}) {
  ir::Program p = ir::parse_cello(text);
  return score::op_dominance(p, p.ops[*p.find_op(op)], th).dominance;
}

ir::Program random_program(int ops, uint64_t seed) {
  workloads::RandomDagParams rp;
  rp.ops = ops;
  rp.seed = seed;
  return ir::parse_cello(workloads::random_dag_text(rp), "random");
}

}  // namespace

TEST_CASE("longest paths and transitive edges agree with a brute-force search", "[score][paths]") {
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    ir::Program p = random_program(18, seed);
    ir::Dag dag = ir::build_dag(p);
    const int n = static_cast<int>(p.ops.size());
    score::CriticalPath cp = score::analyze_paths(dag, n);
    // All-pairs longest path by relaxation until nothing changes (Bellman-Ford style).
    const int none = -1;
    std::vector<std::vector<int>> lp(n, std::vector<int>(n, none));
    for (int v = 0; v < n; ++v) lp[v][v] = 0;
    for (bool changed = true; changed;) {
      changed = false;
      for (const ir::Edge& e : dag.edges)
        for (int u = 0; u < n; ++u)
          if (lp[u][e.src] != none && lp[u][e.src] + 1 > lp[u][e.dst]) lp[u][e.dst] = lp[u][e.src] + 1, changed = true;
    }
    for (int v = 0; v < n; ++v) {
      int depth = 0;
      for (int u = 0; u < n; ++u) depth = std::max(depth, lp[u][v]);
      REQUIRE(cp.depth[v] == depth);
    }
    for (size_t e = 0; e < dag.edges.size(); ++e) {
      const ir::Edge& ed = dag.edges[e];
      // CELLO's definition: a longer path joins the ends; ours must include it.
      if (lp[ed.src][ed.dst] >= 2) REQUIRE(cp.transitive[e]);
      // Ours: the edge is not the one v's longest path arrives through (the latest
      // of the deepest predecessors).
      int best = -1;
      for (int f : dag.in_edges[ed.dst]) {
        int u = dag.edges[f].src;
        if (best < 0 || cp.depth[u] > cp.depth[best] || (cp.depth[u] == cp.depth[best] && u > best)) best = u;
      }
      REQUIRE(static_cast<bool>(cp.transitive[e]) == (best != ed.src));
      // Chain queries against a walk up the crit_pred links.
      bool on = false;
      for (int w = ed.dst; w >= 0; w = cp.crit_pred[w]) on |= w == ed.src;
      REQUIRE(cp.on_chain(ed.src, ed.dst) == on);
      if (on && ed.src != ed.dst) {
        int w = ed.dst;
        while (cp.crit_pred[w] != ed.src) w = cp.crit_pred[w];
        REQUIRE(cp.child_towards(ed.src, ed.dst) == w);
      }
    }
    // The critical path is a longest path of the whole DAG.
    int longest = 0;
    for (int u = 0; u < n; ++u)
      for (int v = 0; v < n; ++v) longest = std::max(longest, lp[u][v]);
    REQUIRE(static_cast<int>(cp.path.size()) == (n ? longest + 1 : 0));
    for (size_t i = 1; i < cp.path.size(); ++i) REQUIRE(lp[cp.path[i - 1]][cp.path[i]] == 1);
  }
}

TEST_CASE("dominance follows GOGETA's thresholds", "[score][dominance]") {
  auto gemm = [](int64_t m, int64_t n) {
    return "rank m = " + std::to_string(m) + "\nrank n = " + std::to_string(n) +
           "\nrank j = n\ninput X[m,n]\ninput L[j,n]\nop g: Z[m,n] = X[m,j] * L[j,n]\n";
  };
  CHECK(dom_of(gemm(1001, 10), "g") == Dominance::Uncontracted);  // 1001 > 1000 and > 100 * 10
  CHECK(dom_of(gemm(1000, 10), "g") == Dominance::Small);         // not above 1000; 10 < 50
  CHECK(dom_of(gemm(2000, 20), "g") == Dominance::Small);         // 2000 is not above 100 * 20
  CHECK(dom_of(gemm(2001, 20), "g") == Dominance::Uncontracted);
  CHECK(dom_of(gemm(600, 60), "g") == Dominance::Balanced);       // nothing dominant, all >= 50
  CHECK(dom_of(gemm(600, 49), "g") == Dominance::Small);
  score::Thresholds loose;
  loose.dominant_min = 100;
  loose.dominant_ratio = 5;
  CHECK(dom_of(gemm(600, 60), "g", loose) == Dominance::Uncontracted);

  const std::string gram = "rank m = 5000\nrank k = m\nrank n = 8\nrank n2 = n\ninput P[m,n]\n"
                           "op g: G[n2,n] = P[k,n2] * P[k,n]\n";
  CHECK(dom_of(gram, "g") == Dominance::Contracted);
  {
    ir::Program p = ir::parse_cello(gram);
    CHECK(score::op_dominance(p, p.ops[0], {}).dominant == std::vector<ir::RankId>{*p.find_rank("k")});
  }
  // SpMM: the contracted rank counts with its occupancy (nnz / rows).
  auto spmm = [](int64_t nnz) {
    return "rank m = 10000\nrank k = m\nrank n = 8\ninput A[m,k] csr nnz=" + std::to_string(nnz) +
           "\ninput P[m,n]\nop s: S[m,n] = A[m,k] * P[k,n]\n";
  };
  CHECK(dom_of(spmm(90000), "s") == Dominance::Uncontracted);  // 9 per row
  CHECK(dom_of(spmm(5000000), "s") == Dominance::Small);       // 500 per row: m is not 100x larger
  {
    ir::Program p = ir::parse_cello(spmm(90000));
    CHECK(score::effective_size(p, p.ops[0], *p.find_rank("k")) == 9.0);
    CHECK(score::effective_size(p, p.ops[0], *p.find_rank("m")) == 10000.0);
  }
  // Element-wise ops have one rank group and are judged rank by rank.
  CHECK(dom_of("rank m = 9604\nrank n = 8\ninput X[m,n]\ninput Y[m,n]\nop e: Z[m,n] = X[m,n] + Y[m,n]\n", "e") ==
        Dominance::Uncontracted);
  // A convolution groups h,w (output and input) against c,r,s (input and weights)
  // and k: 784 / 1152 / 128, none dominant, all >= 50.
  workloads::Params rp = workloads::default_params("resnet");
  ir::Program res = workloads::make_workload("resnet", rp);
  CHECK(score::op_dominance(res, res.ops[*res.find_op("conv1.1")], {}).dominance == Dominance::Balanced);
}

TEST_CASE("Algorithm 2 on small DAGs", "[score][classify]") {
  SECTION("adjacent U -> U pipelines") {
    auto s = compile_text("op a: T1[m,n] = X0[m,j] * L[j,n]\nop b: T2[m,n] = T1[m,j] * L[j,n]\n");
    CHECK(cls(s, "a", "b") == EdgeClass::Pipelineable);
    CHECK_FALSE(edge(s, "a", "b").transitive);
  }
  SECTION("out of a contracted op or a host op: sequential") {
    auto s = compile_text(
        "op a: T1[m,n] = X0[m,j] * L[j,n]\nop g: G[n2,n] = T1[k,n2] * T1[k,n]\n"
        "op h: H[n2,n] = host solve(G[n2,j], L[j,n])\nop c: T3[m,n] = X0[m,j] * H[j,n]\n");
    CHECK(cls(s, "a", "g") == EdgeClass::Pipelineable);  // into a Gram: its dominant k subscripts T1
    CHECK(cls(s, "g", "h") == EdgeClass::Sequential);
    CHECK(cls(s, "h", "c") == EdgeClass::Sequential);
  }
  SECTION("destination's dominant rank unshared: sequential") {
    auto s = compile_text("op a: T1[m,n] = X0[m,j] * L[j,n]\nop s: S[m,n] = A[m,k] * T1[k,n]\n");
    CHECK(cls(s, "a", "s") == EdgeClass::Sequential);
  }
  SECTION("delayed hold when the whole path pipelines") {
    auto s = compile_text(
        "op a: T1[m,n] = X0[m,j] * L[j,n]\nop b: T2[m,n] = T1[m,j] * L[j,n]\n"
        "op c: T3[m,n] = T2[m,j] * L2[j,n]\nop z: Z[m,n] = T3[m,n] + T1[m,n]\n");
    CHECK(cls(s, "a", "b") == EdgeClass::Pipelineable);
    CHECK(cls(s, "a", "z") == EdgeClass::DelayedHold);
    CHECK(edge(s, "a", "z").transitive);
    CHECK(edge(s, "a", "z").span == 3);
    CHECK(edge(s, "a", "z").hold_tiles == 3);
    CHECK(edge(s, "a", "z").binding == score::Binding::PipelineBuffer);
  }
  SECTION("delayed writeback when a contracted op or host op breaks the path") {
    auto s = compile_text(
        "op a: T1[m,n] = X0[m,j] * L[j,n]\nop g: G[n2,n] = T1[k,n2] * T1[k,n]\n"
        "op h: H[n2,n] = host solve(G[n2,j], L[j,n])\nop z: Z[m,n] = T1[m,n] + T1[m,j] * H[j,n]\n");
    CHECK(cls(s, "a", "z") == EdgeClass::DelayedWriteback);
    CHECK(s.program.ops[edge(s, "a", "z").path_break].name == "h");  // the step g -> h breaks first
    CHECK(edge(s, "a", "z").binding == score::Binding::Chord);
  }
  SECTION("delayed edge whose first step does not pipeline: sequential") {
    auto s = compile_text(
        "op a: T1[m,n] = X0[m,j] * L[j,n]\nop s: S[m,n] = A[m,k] * T1[k,n]\nop z: Z[m,n] = S[m,n] + T1[m,n]\n");
    CHECK(cls(s, "a", "s") == EdgeClass::Sequential);
    CHECK(cls(s, "a", "z") == EdgeClass::Sequential);
    CHECK(edge(s, "a", "z").transitive);
  }
  SECTION("several non-transitive consumers: parallel multicast") {
    auto s = compile_text(
        "op a: T1[m,n] = X0[m,j] * L[j,n]\nop b: T2[m,n] = T1[m,j] * L[j,n]\nop c: T3[m,n] = T1[m,j] * L2[j,n]\n");
    CHECK(cls(s, "a", "b") == EdgeClass::ParallelMulticast);
    CHECK(cls(s, "a", "c") == EdgeClass::ParallelMulticast);
    CHECK(s.ops[0].parallel_multicast);
  }
  SECTION("delayed edges alongside another chain") {
    // z waits for the chain g -> h -> w; T1 (depth 0) is not on it.
    auto wb = compile_text(
        "op a: T1[m,n] = X0[m,j] * L[j,n]\nop g: G[n2,n] = X0[k,n2] * X0[k,n]\n"
        "op h: H[n2,n] = host solve(G[n2,j], L[j,n])\nop w: W[m,n] = X0[m,j] * H[j,n]\n"
        "op z: Z[m,n] = W[m,n] + T1[m,n]\n");
    CHECK(edge(wb, "a", "z").transitive);
    CHECK(cls(wb, "a", "z") == EdgeClass::DelayedWriteback);
    auto hold = compile_text(
        "op a: T1[m,n] = X0[m,j] * L[j,n]\nop b: T2[m,n] = X0[m,j] * L2[j,n]\nop c: T3[m,n] = T2[m,j] * L[j,n]\n"
        "op d: T4[m,n] = T3[m,j] * L[j,n]\nop z: Z[m,n] = T4[m,n] + T1[m,n]\n");
    CHECK(cls(hold, "a", "z") == EdgeClass::DelayedHold);
  }
}

namespace {

// Exhaustive reference for the loop-order pass: every combination of candidate
// orders (dominant group outermost), scored as (broken pipelining conditions,
// swizzled sequential/writeback edges), minimised lexicographically.
std::pair<int, int> exhaustive_loop_orders(const score::Schedule& s) {
  const ir::Program& p = s.program;
  const int n = static_cast<int>(p.ops.size());
  std::vector<std::vector<std::vector<ir::RankId>>> cand(n);
  for (int o = 0; o < n; ++o) {
    std::vector<ir::RankId> ranks = ir::op_ranks(p.ops[o]);
    const auto& dom = s.ops[o].dominant;
    if (p.ops[o].kind == ir::OpKind::Host) {
      std::vector<ir::RankId> nat;
      for (ir::RankId r : ranks)
        if (std::count(dom.begin(), dom.end(), r)) nat.push_back(r);
      for (ir::RankId r : ranks)
        if (!std::count(dom.begin(), dom.end(), r)) nat.push_back(r);
      cand[o] = {nat};
      continue;
    }
    std::sort(ranks.begin(), ranks.end());
    do {
      bool ok = true;
      for (size_t i = 0; i < dom.size(); ++i) ok &= std::count(dom.begin(), dom.end(), ranks[i]) > 0;
      if (ok) cand[o].push_back(ranks);
    } while (std::next_permutation(ranks.begin(), ranks.end()));
  }
  // Dimension order in which an operand is walked: sort dims by loop position.
  auto walk = [](const ir::Operand& x, const std::vector<ir::RankId>& ord) {
    std::vector<std::pair<int, int>> key;
    for (size_t d = 0; d < x.idx.size(); ++d) {
      int k = static_cast<int>(std::find(ord.begin(), ord.end(), x.idx[d].a) - ord.begin());
      if (x.idx[d].window())
        k = std::min(k, static_cast<int>(std::find(ord.begin(), ord.end(), x.idx[d].b) - ord.begin()));
      key.push_back({k, static_cast<int>(d)});
    }
    std::sort(key.begin(), key.end());
    std::vector<int> w;
    for (auto& kv : key) w.push_back(kv.second);
    return w;
  };
  std::pair<int, int> best{1 << 30, 1 << 30};
  std::vector<size_t> pick(n, 0);
  std::function<void(int)> rec = [&](int o) {
    if (o == n) {
      std::vector<std::vector<int>> layout(p.tensors.size());
      for (size_t t = 0; t < p.tensors.size(); ++t) {
        layout[t].resize(p.tensors[t].dims.size());
        std::iota(layout[t].begin(), layout[t].end(), 0);
      }
      int bad = 0, pen = 0;
      for (int q = 0; q < n; ++q) {
        const auto& ord = cand[q][pick[q]];
        if (p.ops[q].kind != ir::OpKind::Host) layout[p.ops[q].out.tensor] = walk(p.ops[q].out, ord);
        for (const ir::Operand& x : p.ops[q].in)
          if (p.tensors[x.tensor].format == ir::Format::Csr && walk(x, ord) != std::vector<int>{0, 1}) ++bad;
      }
      for (size_t e = 0; e < s.dag.edges.size(); ++e) {
        const ir::Edge& ed = s.dag.edges[e];
        const ir::Op& v = p.ops[ed.dst];
        if (v.kind == ir::OpKind::Host) continue;
        const auto& ov = cand[ed.dst][pick[ed.dst]];
        const auto& ou = cand[ed.src][pick[ed.src]];
        bool sw = false;
        for (const ir::Operand& x : v.in) sw |= x.tensor == ed.tensor && walk(x, ov) != layout[ed.tensor];
        if (score::is_pipelined_class(s.edges[e].cls)) {
          auto used = ir::ranks_indexing(v, ed.tensor);
          bool ok = !sw && p.ops[ed.src].kind != ir::OpKind::Host && !ir::is_contracted(p.ops[ed.src], ou[0]) &&
                    std::count(used.begin(), used.end(), ov[0]);
          bad += ok ? 0 : 1;
        } else {
          pen += sw ? 1 : 0;
        }
      }
      best = std::min(best, {bad, pen});
      return;
    }
    for (pick[o] = 0; pick[o] < cand[o].size(); ++pick[o]) rec(o + 1);
  };
  rec(0);
  return best;
}

}  // namespace

TEST_CASE("loop orders reach the exhaustive minimum swizzle penalty", "[score][loop_order]") {
  int checked = 0;
  for (uint64_t seed = 1; seed <= 300 && checked < 60; ++seed) {
    ir::Program p = random_program(5, seed);
    score::Schedule s = score::compile(p);
    double combos = 1;
    for (size_t o = 0; o < p.ops.size(); ++o) combos *= std::tgamma(ir::op_ranks(p.ops[o]).size() + 1.0);
    if (combos > 20000) continue;
    auto best = exhaustive_loop_orders(s);
    INFO("seed " << seed << "\n" << ir::print_cello(p));
    CHECK(s.loop_order_violations == best.first);
    CHECK(s.swizzle_penalty == best.second);
    ++checked;
  }
  CHECK(checked >= 40);
}

TEST_CASE("swizzles are detected by dimension order, transposes included", "[score][loop_order]") {
  ir::Program p = ir::parse_cello("rank m = 10\nrank n = 4\ninput P[m,n]\nop a: Z[n,m] = 2 * P[m,n]\n");
  const ir::Operand& x = p.ops[0].in[0];
  ir::RankId m = *p.find_rank("m"), n = *p.find_rank("n");
  CHECK(score::traversal(x, {m, n}) == std::vector<int>{0, 1});
  CHECK(score::traversal(x, {n, m}) == std::vector<int>{1, 0});
  // Reading P^T with the same loop order walks P in its stored order: no swizzle.
  CHECK(score::traversal(p.ops[0].out, {m, n}) == std::vector<int>{1, 0});
}

TEST_CASE("tiles: dominant rank outermost, small tensor in the register file, fitted to the buffer", "[score][tiling]") {
  score::Target t;  // 64 Ki-word pipeline buffer, 256-word register file, 128 PE rows
  SECTION("skinny GEMM with accumulate") {
    auto s = score::compile(ir::parse_cello(
        "rank m = 100000\nrank n = 8\nrank j = n\ninput X[m,n]\ninput P[m,n]\ninput L[j,n]\n"
        "op x: Y[m,n] = X[m,n] + P[m,j] * L[j,n]\n"));
    const score::OpSchedule& o = s.ops[0];
    CHECK(s.program.tensors[o.rf_tensor].name == "L");
    REQUIRE(o.loops.size() == 3);
    CHECK(s.program.ranks[o.loops[0].rank].name == "m");
    // One m step keeps X, P and Y rows: 3 * 8 words -> floor(65536 / 24) = 2730, down to a multiple of 128.
    CHECK(o.loops[0].tile == 2730 - 2730 % 128);
    CHECK(o.loops[1].tile == 8);
    CHECK(o.loops[2].tile == 8);
    CHECK(o.tile_words == 24.0 * o.loops[0].tile);
  }
  SECTION("SpMM tiles by occupancy; the gathered operand is not buffered") {
    auto s = score::compile(ir::parse_cello(
        "rank m = 100000\nrank k = m\nrank n = 8\ninput A[m,k] csr nnz=900000\ninput P[m,n]\n"
        "op s: S[m,n] = A[m,k] * P[k,n]\n"));
    const score::OpSchedule& o = s.ops[0];
    CHECK(o.rf_tensor == -1);
    // Per row: 9 values + 9 column indices + 1 row pointer, and 8 output words; +1 row pointer overall.
    const int64_t fit = (65536 - 1) / (19 + 8);
    CHECK(o.loops[0].tile == fit - fit % 128);
    CHECK(o.loops[1].tile == 100000);  // k (the compressed rank) is never split
  }
  SECTION("a step that does not fit splits the inner ranks") {
    t.pipeline_buffer_words = 100;
    auto s = score::compile(ir::parse_cello("rank m = 5000\nrank n = 64\nrank j = n\ninput X[m,n]\ninput L[j,n]\n"
                                            "op x: Y[m,n] = X[m,j] * L[j,n]\n"),
                            t);
    const score::OpSchedule& o = s.ops[0];
    CHECK(o.rf_tensor == -1);  // 64 x 64 does not fit 256 words
    CHECK(o.tile_words <= 100);
    CHECK(o.loops[0].tile >= 1);
  }
  SECTION("pipelined ops share one outer tile") {
    workloads::Params prm = workloads::default_params("cg");
    prm.iters = 2;
    auto s = score::compile(workloads::make_workload("cg", prm));
    const ir::Program& p = s.program;
    for (size_t e = 0; e < s.dag.edges.size(); ++e) {
      if (s.edges[e].binding != score::Binding::PipelineBuffer) continue;
      CHECK(s.ops[s.dag.edges[e].src].loops[0].tile == s.ops[s.dag.edges[e].dst].loops[0].tile);
      CHECK(s.ops[s.dag.edges[e].dst].tile_words <= s.target.pipeline_buffer_words);
    }
    for (size_t o = 0; o < p.ops.size(); ++o)
      if (s.ops[o].rf_tensor >= 0) CHECK(s.tensors[s.ops[o].rf_tensor].words <= s.target.rf_words);
  }
}

TEST_CASE("RIFF metadata matches a scan of the schedule", "[score][riff]") {
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    score::Schedule s = score::compile(random_program(40, seed));
    const ir::Program& p = s.program;
    // Memory reads recomputed from the definition.
    std::vector<std::vector<int>> reads(p.tensors.size());
    for (size_t o = 0; o < p.ops.size(); ++o)
      for (const ir::Operand& x : p.ops[o].in) {
        if (s.tensors[x.tensor].binding != score::Binding::Chord) continue;
        bool piped = false;
        for (size_t e = 0; e < s.dag.edges.size(); ++e)
          piped |= s.dag.edges[e].dst == static_cast<int>(o) && s.dag.edges[e].tensor == x.tensor &&
                   s.edges[e].binding == score::Binding::PipelineBuffer;
        if (!piped && (reads[x.tensor].empty() || reads[x.tensor].back() != static_cast<int>(o)))
          reads[x.tensor].push_back(static_cast<int>(o));
      }
    for (size_t t = 0; t < p.tensors.size(); ++t) REQUIRE(s.tensors[t].mem_reads == reads[t]);
    for (size_t o = 0; o < p.ops.size(); ++o)
      for (const score::RiffUpdate& u : s.ops[o].riff) {
        const auto& r = reads[u.tensor];
        const int at = static_cast<int>(o) - (u.action == score::RiffUpdate::Action::Register ? 1 : 0);
        int next = -1, left = 0;
        for (int q : r)
          if (q > at) left++, next = next < 0 ? q : next;
        REQUIRE(u.next_use == next);
        REQUIRE(u.remaining == left);
        REQUIRE(u.distance == (next < 0 ? 0 : next - static_cast<int>(o)));
        if (u.action == score::RiffUpdate::Action::Release) REQUIRE(left == 0);
      }
  }
}

TEST_CASE("RIFF keeps R ahead of X in CG (CELLO Sec. VI-A)", "[score][riff]") {
  workloads::Params prm = workloads::default_params("cg");
  prm.iters = 3;
  auto s = score::compile(workloads::make_workload("cg", prm));
  const ir::Program& p = s.program;
  auto reg = [&](const std::string& op, const std::string& tensor) {
    for (const auto& u : s.ops[*p.find_op(op)].riff)
      if (p.tensors[u.tensor].name == tensor && u.action == score::RiffUpdate::Action::Register) return u;
    FAIL("no register of " << tensor << " at " << op);
    return score::RiffUpdate{};
  };
  auto pos = [&](const std::string& op) { return *p.find_op(op); };
  // R.2 is read from memory by l7.2 and l4.3 (l5.2 takes it through the pipeline buffer).
  score::RiffUpdate r = reg("l4.2", "R.2");
  CHECK(r.next_use == pos("l7.2"));
  CHECK(r.distance == pos("l7.2") - pos("l4.2"));
  CHECK(r.remaining == 2);
  // X.2 waits a whole iteration for l3.3.
  score::RiffUpdate x = reg("l3.2", "X.2");
  CHECK(x.next_use == pos("l3.3"));
  CHECK(x.remaining == 1);
  CHECK(r.distance < x.distance);
  CHECK(r.remaining > x.remaining);
  // The final X is an output: registered with no reads, then released.
  const auto& last = s.ops[pos("l3.3")].riff;
  CHECK(std::any_of(last.begin(), last.end(), [&](const score::RiffUpdate& u) {
    return p.tensors[u.tensor].name == "X.3" && u.action == score::RiffUpdate::Action::Release;
  }));
  // A is an input read once per iteration: registered at its first read, released after its last.
  const auto& first = s.ops[pos("r0")].riff;
  CHECK(std::any_of(first.begin(), first.end(), [&](const score::RiffUpdate& u) {
    return p.tensors[u.tensor].name == "A" && u.action == score::RiffUpdate::Action::Register && u.remaining == 4;
  }));
  const auto& lastA = s.ops[pos("l1.3")].riff;
  CHECK(std::any_of(lastA.begin(), lastA.end(), [&](const score::RiffUpdate& u) {
    return p.tensors[u.tensor].name == "A" && u.action == score::RiffUpdate::Action::Release;
  }));
  CHECK(score::riff_at(s.tensors[*p.find_tensor("A")].mem_reads, pos("l1.2")).remaining == 1);
}
