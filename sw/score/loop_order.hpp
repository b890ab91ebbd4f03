// SCORE pass 4: loop order per op with swizzle minimisation (GOGETA Alg. 3).
//
// A tensor is stored in the order its producer writes it (inputs: declared
// order). A consumer "swizzles" it when its loop order walks the tensor's
// dimensions in another order. Each tensor op gets the loop order that
//   1. keeps its dominant rank group outermost (CELLO Sec. V-B),
//   2. satisfies the pipelining conditions on its pipelined edges (pipelineable,
//      delayed_hold, parallel_multicast): source's outermost rank uncontracted,
//      destination's outermost rank subscripts the tensor, no swizzle; CSR
//      operands are walked row by row,
//   3. minimises swizzles on sequential / delayed_writeback edges (the penalty),
// first greedily in schedule order (each choice also counting the best its
// consumers could still do with the layout it writes), then by sweeps that
// re-choose each op with its neighbours fixed, and both ends of every broken or
// swizzled edge together, until nothing improves (Alg. 3's "retry"). Host ops keep
// their natural order and are not scored. Cost is linear in nodes + edges.
#pragma once

#include <cstdint>
#include <vector>

#include "sw/ir/dag.hpp"
#include "sw/score/dominance.hpp"

namespace cello::score {

struct LoopOrders {
  std::vector<std::vector<ir::RankId>> order;  // per op, outermost first
  std::vector<std::vector<int>> layout;        // per tensor: dimensions, outermost first
  std::vector<char> swizzled;                  // per edge (always false into host ops)
  std::vector<char> loop_ok;                   // per edge: pipelining conditions hold
  int swizzle_penalty = 0;                     // swizzled sequential / writeback edges
  int violations = 0;                          // pipelined edges with !loop_ok
  uint64_t steps = 0;                          // edge evaluations the search made
};

// Order in which an operand's dimensions are walked under a loop order.
std::vector<int> traversal(const ir::Operand& x, const std::vector<ir::RankId>& order);

LoopOrders choose_loop_orders(const ir::Program& p, const ir::Dag& dag, const std::vector<OpDominance>& dom,
                              const std::vector<EdgeClass>& cls, int sweeps);

}  // namespace cello::score
