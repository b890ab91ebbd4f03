// The producer/consumer DAG of a Program: one node per op, one edge per
// (producer op, consumer op) pair, labelled with the tensor that flows on it.
// A consumer that reads the same tensor twice (R^T R) still gets one edge.
#pragma once

#include <vector>

#include "sw/ir/program.hpp"

namespace cello::ir {

struct Edge {
  OpId src = -1;
  OpId dst = -1;
  TensorId tensor = -1;
};

struct Dag {
  std::vector<Edge> edges;                 // sorted by (dst, src): consumers in schedule order
  std::vector<std::vector<int>> out_edges;  // per op: edge ids, by consumer in schedule order
  std::vector<std::vector<int>> in_edges;   // per op: edge ids
  std::vector<OpId> producer;              // per tensor: producing op or -1 (input)
};

// Requires a checked program (producers come before consumers).
Dag build_dag(const Program& p);

}  // namespace cello::ir
