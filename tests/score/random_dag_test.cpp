// 1000 seeded random DAGs: SCORE never fails, every edge gets exactly one class
// consistent with Algorithm 2's preconditions, and the text form round-trips.
#include <catch2/catch.hpp>
#include <set>

#include "sw/ir/cello_format.hpp"
#include "sw/score/compile.hpp"
#include "sw/workloads/random_dag.hpp"

using namespace cello;
using score::Dominance;
using score::EdgeClass;

TEST_CASE("1000 random DAGs compile and classify every edge once", "[score][random]") {
  std::set<EdgeClass> seen;
  int64_t edges = 0;
  for (uint64_t seed = 1; seed <= 1000; ++seed) {
    workloads::RandomDagParams rp;
    rp.seed = seed;
    rp.ops = 1 + static_cast<int>(seed * 7919 % 120);
    rp.far_read = (seed % 4) * 0.1;
    const std::string text = workloads::random_dag_text(rp);
    INFO("seed " << seed);
    ir::Program p = ir::parse_cello(text, "random");
    REQUIRE(ir::parse_cello(ir::print_cello(p), "printed") == p);
    score::Schedule s;
    REQUIRE_NOTHROW(s = score::compile(p));
    REQUIRE(s.edges.size() == s.dag.edges.size());
    std::vector<int> counts = score::class_counts(s);
    int total = 0;
    for (int c : counts) total += c;
    REQUIRE(total == static_cast<int>(s.dag.edges.size()));
    edges += total;
    for (size_t e = 0; e < s.dag.edges.size(); ++e) {
      const score::EdgeSchedule& es = s.edges[e];
      const ir::Edge& ed = s.dag.edges[e];
      const int c = static_cast<int>(es.cls);
      REQUIRE(c >= 0);
      REQUIRE(c < 5);
      seen.insert(es.cls);
      const score::OpSchedule& src = s.ops[ed.src];
      // Preconditions of Algorithm 2 that hold for every class.
      if (src.dominance == Dominance::Contracted || !src.tensor_mac) REQUIRE(es.cls == EdgeClass::Sequential);
      if (es.transitive)
        REQUIRE((es.cls == EdgeClass::Sequential || es.cls == EdgeClass::DelayedHold ||
                 es.cls == EdgeClass::DelayedWriteback));
      else
        REQUIRE((es.cls == EdgeClass::Sequential || es.cls == EdgeClass::Pipelineable ||
                 es.cls == EdgeClass::ParallelMulticast));
      if (es.cls == EdgeClass::ParallelMulticast) REQUIRE(src.parallel_multicast);
      if (es.cls == EdgeClass::Pipelineable) REQUIRE_FALSE(src.parallel_multicast);
      REQUIRE(es.span == s.ops[ed.dst].depth - src.depth);
      REQUIRE(es.span >= 1);
      // Bindings follow the classes.
      if (es.binding == score::Binding::PipelineBuffer) REQUIRE((score::is_pipelined_class(es.cls) && es.loop_ok));
    }
    for (size_t o = 0; o < p.ops.size(); ++o)
      if (s.ops[o].tensor_mac) {
        REQUIRE(s.ops[o].loops.size() == ir::op_ranks(p.ops[o]).size());
        for (const score::Loop& l : s.ops[o].loops) REQUIRE((l.tile >= 1 && l.tile <= l.size));
      }
  }
  CHECK(edges > 20000);
  // The generator exercises all five classes.
  CHECK(seen.size() == 5);
}
