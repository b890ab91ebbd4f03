// The hand derivation of CELLO Fig. 7 for CG (docs/score.md), the ResNet skip
// edge, and the other built-in workloads.
#include <fmt/core.h>

#include <catch2/catch.hpp>
#include <map>

#include "sw/ir/cello_format.hpp"
#include "sw/score/compile.hpp"
#include "sw/workloads/workloads.hpp"

using namespace cello;
using score::Dominance;
using score::EdgeClass;

namespace {

struct Lookup {
  const score::Schedule& s;
  const score::OpSchedule& op(const std::string& name) const { return s.ops[*s.program.find_op(name)]; }
  const score::EdgeSchedule* edge(const std::string& src, const std::string& dst) const {
    const ir::Program& p = s.program;
    for (size_t e = 0; e < s.dag.edges.size(); ++e)
      if (p.ops[s.dag.edges[e].src].name == src && p.ops[s.dag.edges[e].dst].name == dst) return &s.edges[e];
    return nullptr;
  }
  EdgeClass cls(const std::string& src, const std::string& dst) const {
    const score::EdgeSchedule* e = edge(src, dst);
    INFO(src << " -> " << dst);
    REQUIRE(e != nullptr);
    return e->cls;
  }
  std::vector<std::string> loop_order(const std::string& name) const {
    std::vector<std::string> v;
    for (const score::Loop& l : op(name).loops) v.push_back(s.program.ranks[l.rank].name);
    return v;
  }
};

// CG on fv1's shape (M = 9604, nnz = 85264) and on the default HPCG problem.
score::Schedule cg(int64_t m, int64_t nnz, int n, int iters) {
  workloads::Params prm;
  prm.m = m;
  prm.nnz = nnz;
  prm.n = n;
  prm.iters = iters;
  return score::compile(workloads::make_workload("cg", prm));
}

}  // namespace

TEST_CASE("CG reproduces the Fig. 7 derivation in docs/score.md", "[score][cg]") {
  for (auto [m, nnz] : {std::pair<int64_t, int64_t>{9604, 85264}, {4096, 97336}}) {
    for (int n : {1, 8, 16}) {
      INFO("M=" << m << " nnz=" << nnz << " N=" << n);
      score::Schedule s = cg(m, nnz, n, 3);
      Lookup L{s};
      const std::string i = ".2", prev = ".1", next = ".3";
      // Dominance: line 1 (SpMM, compressed k) is U; lines 2 and 5 are C; 3, 4, 7 are U.
      CHECK(L.op("l1" + i).dominance == Dominance::Uncontracted);
      CHECK(L.op("l2" + i).dominance == Dominance::Contracted);
      CHECK(L.op("l5" + i).dominance == Dominance::Contracted);
      CHECK(L.op("l3" + i).dominance == Dominance::Uncontracted);
      CHECK(L.op("l4" + i).dominance == Dominance::Uncontracted);
      CHECK(L.op("l7" + i).dominance == Dominance::Uncontracted);
      CHECK_FALSE(L.op("l2h" + i).tensor_mac);
      CHECK_FALSE(L.op("l6" + i).tensor_mac);
      // S: 1 -> 2 pipelineable, 1 -> 4 delayed writeback (through the contracted line 2).
      CHECK(L.cls("l1" + i, "l2" + i) == EdgeClass::Pipelineable);
      CHECK(L.cls("l1" + i, "l4" + i) == EdgeClass::DelayedWriteback);
      CHECK(L.edge("l1" + i, "l4" + i)->transitive);
      CHECK(s.program.ops[L.edge("l1" + i, "l4" + i)->path_break].name == "l2h" + i);
      // R: 4 -> 5 pipelineable, 4 -> 7 delayed writeback (through line 5); and R's
      // reuse in the next iteration's line 4.
      CHECK(L.cls("l4" + i, "l5" + i) == EdgeClass::Pipelineable);
      CHECK(L.cls("l4" + i, "l7" + i) == EdgeClass::DelayedWriteback);
      CHECK(s.program.ops[L.edge("l4" + i, "l7" + i)->path_break].name == "l6" + i);
      CHECK(L.cls("l4" + i, "l4" + next) == EdgeClass::DelayedWriteback);
      // Out of lines 2 and 5 and out of the host ops: sequential.
      CHECK(L.cls("l2" + i, "l2h" + i) == EdgeClass::Sequential);
      CHECK(L.cls("l5" + i, "l6" + i) == EdgeClass::Sequential);
      CHECK(L.cls("l5" + prev, "l2h" + i) == EdgeClass::Sequential);
      CHECK(L.cls("l5" + prev, "l6" + i) == EdgeClass::Sequential);
      CHECK(L.cls("l2h" + i, "l3" + i) == EdgeClass::Sequential);
      CHECK(L.cls("l2h" + i, "l4" + i) == EdgeClass::Sequential);
      CHECK(L.cls("l6" + i, "l7" + i) == EdgeClass::Sequential);
      CHECK(L.op("l2h" + i).parallel_multicast);  // Lambda feeds lines 3 and 4 at once
      // P (line 7) feeds the next SpMM, whose dominant m does not subscript it: sequential,
      // and so are its delayed reads by lines 2, 3 and 7 of the next iteration.
      CHECK(L.cls("l7" + prev, "l1" + i) == EdgeClass::Sequential);
      CHECK(L.cls("l7" + prev, "l2" + i) == EdgeClass::Sequential);
      CHECK(L.cls("l7" + prev, "l3" + i) == EdgeClass::Sequential);
      CHECK(L.cls("l7" + prev, "l7" + i) == EdgeClass::Sequential);
      // X waits a whole iteration behind contracted ops: delayed writeback (CHORD, RIFF's X).
      CHECK(L.cls("l3" + prev, "l3" + i) == EdgeClass::DelayedWriteback);
      // No swizzles, and every pipelined edge is loop-compatible.
      CHECK(s.swizzle_penalty == 0);
      CHECK(s.loop_order_violations == 0);
      // GOGETA Fig. 8 loop orders: M K N for the skinny GEMMs, the dominant rank outermost.
      CHECK(L.loop_order("l1" + i) == std::vector<std::string>{"m", "k", "n"});
      CHECK(L.loop_order("l2" + i) == std::vector<std::string>{"k", "n2", "n"});
      CHECK(L.loop_order("l3" + i) == std::vector<std::string>{"m", "j", "n"});
      CHECK(L.loop_order("l4" + i) == std::vector<std::string>{"m", "j", "n"});
      CHECK(L.loop_order("l5" + i) == std::vector<std::string>{"k", "n2", "n"});
      CHECK(L.loop_order("l7" + i) == std::vector<std::string>{"m", "j", "n"});
      // Bindings: pipelined edges use the pipeline buffer, written-back tensors CHORD,
      // the N x N tensors the register file.
      CHECK(L.edge("l1" + i, "l2" + i)->binding == score::Binding::PipelineBuffer);
      CHECK(L.edge("l1" + i, "l4" + i)->binding == score::Binding::Chord);
      const ir::Program& p = s.program;
      CHECK(s.tensors[*p.find_tensor("S" + i)].binding == score::Binding::Chord);
      CHECK(s.tensors[*p.find_tensor("R" + i)].binding == score::Binding::Chord);
      CHECK(s.tensors[*p.find_tensor("X" + i)].binding == score::Binding::Chord);
      CHECK(s.tensors[*p.find_tensor("A")].binding == score::Binding::Chord);
      CHECK(s.tensors[*p.find_tensor("Lambda" + i)].binding == score::Binding::RegisterFile);
      CHECK(s.tensors[*p.find_tensor("Gamma" + i)].binding == score::Binding::RegisterFile);
    }
  }
}

TEST_CASE("every CG edge class is one of the derived ones", "[score][cg]") {
  // Steady-state iteration: the full table of docs/score.md, nothing more.
  score::Schedule s = cg(9604, 85264, 8, 3);
  const ir::Program& p = s.program;
  std::map<std::pair<std::string, std::string>, EdgeClass> table = {
      {{"l1", "l2"}, EdgeClass::Pipelineable},      {{"l1", "l4"}, EdgeClass::DelayedWriteback},
      {{"l2", "l2h"}, EdgeClass::Sequential},       {{"l2h", "l3"}, EdgeClass::Sequential},
      {{"l2h", "l4"}, EdgeClass::Sequential},       {{"l4", "l5"}, EdgeClass::Pipelineable},
      {{"l4", "l7"}, EdgeClass::DelayedWriteback},  {{"l5", "l6"}, EdgeClass::Sequential},
      {{"l6", "l7"}, EdgeClass::Sequential},        {{"l5-", "l2h"}, EdgeClass::Sequential},
      {{"l5-", "l6"}, EdgeClass::Sequential},       {{"l7-", "l1"}, EdgeClass::Sequential},
      {{"l7-", "l2"}, EdgeClass::Sequential},       {{"l7-", "l3"}, EdgeClass::Sequential},
      {{"l7-", "l7"}, EdgeClass::Sequential},       {{"l3-", "l3"}, EdgeClass::DelayedWriteback},
      {{"l4-", "l4"}, EdgeClass::DelayedWriteback},
  };
  int seen = 0;
  for (size_t e = 0; e < s.dag.edges.size(); ++e) {
    const ir::Op& u = p.ops[s.dag.edges[e].src];
    const ir::Op& v = p.ops[s.dag.edges[e].dst];
    if (v.iter != 2) continue;
    std::string su = u.name.substr(0, u.name.find('.')) + (u.iter == 1 ? "-" : "");
    std::string sv = v.name.substr(0, v.name.find('.'));
    INFO(u.name << " -> " << v.name);
    auto it = table.find({su, sv});
    REQUIRE(it != table.end());
    CHECK(s.edges[e].cls == it->second);
    ++seen;
  }
  CHECK(seen == static_cast<int>(table.size()));
}

TEST_CASE("ResNet skip connection is delayed-hold", "[score][resnet]") {
  for (int blocks : {1, 3}) {
    workloads::Params prm = workloads::default_params("resnet");
    prm.iters = blocks;
    score::Schedule s = score::compile(workloads::make_workload("resnet", prm));
    Lookup L{s};
    for (int b = 1; b <= blocks; ++b) {
      const std::string in = b == 1 ? std::string("stem") : fmt::format("add.{}", b - 1);
      const std::string bs = fmt::format(".{}", b);
      CHECK(L.cls(in, "conv1" + bs) == EdgeClass::Pipelineable);
      CHECK(L.cls("conv1" + bs, "conv2" + bs) == EdgeClass::Pipelineable);
      CHECK(L.cls("conv2" + bs, "add" + bs) == EdgeClass::Pipelineable);
      CHECK(L.cls(in, "add" + bs) == EdgeClass::DelayedHold);
      CHECK(L.edge(in, "add" + bs)->hold_tiles == 3);
      CHECK(L.edge(in, "add" + bs)->binding == score::Binding::PipelineBuffer);
      CHECK(L.op("conv1" + bs).dominance == Dominance::Balanced);
    }
    CHECK(s.swizzle_penalty == 0);
    CHECK(s.loop_order_violations == 0);
  }
}

TEST_CASE("GCN: aggregation pipelines into combination", "[score][gcn]") {
  workloads::Params prm = workloads::default_params("gcn");
  CHECK(prm.m == 2708);
  CHECK(prm.nnz == 9464);
  CHECK(prm.n == 1433);
  CHECK(prm.o == 7);
  score::Schedule s = score::compile(workloads::make_workload("gcn", prm));
  Lookup L{s};
  CHECK(L.cls("agg.1", "comb.1") == EdgeClass::Pipelineable);
  CHECK(s.tensors[*s.program.find_tensor("Z.1")].binding == score::Binding::PipelineBuffer);
}

TEST_CASE("BiCGStab compiles with the same shape rules as CG", "[score][bicgstab]") {
  workloads::Params prm = workloads::default_params("bicgstab");
  prm.iters = 3;
  score::Schedule s = score::compile(workloads::make_workload("bicgstab", prm));
  Lookup L{s};
  CHECK(L.op("b1.2").dominance == Dominance::Uncontracted);
  CHECK(L.op("b2.2").dominance == Dominance::Contracted);
  CHECK(L.cls("b1.2", "b2.2") == EdgeClass::Pipelineable);    // V into R0^T V
  CHECK(L.cls("b4.2", "b5.2") == EdgeClass::Sequential);      // S into the SpMM T = A S
  CHECK(L.cls("b1.2", "b4.2") == EdgeClass::DelayedWriteback);
  CHECK(L.cls("b3h.2", "b4.2") == EdgeClass::Sequential);
  CHECK(s.swizzle_penalty == 0);
}
