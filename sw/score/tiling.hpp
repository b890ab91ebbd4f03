// SCORE pass 5: tiling (CELLO Sec. V-B "Tiling", GOGETA Sec. 5.2).
//
// Per tensor op, in its loop order:
//   - the smallest operand that fits the register file is held there whole
//     (the N x N tensor of a skewed GEMM; the accumulators of a Gram); its ranks
//     are not split;
//   - the outermost (dominant) rank is split; every other rank stays whole unless
//     one step of the outer loop would not fit the pipeline buffer, in which case
//     the largest of them is halved until it does;
//   - the outer tile is the largest that fits the pipeline buffer, rounded down to
//     a multiple of the PE rows (the dominant rank is spread over the rows);
//   - in an SpMM, the dense operand subscripted by the CSR operand's compressed
//     rank is gathered at random (through CHORD), so it is not counted and that
//     rank is not split;
//   - ops joined by pipelined edges share one outer tile (the smallest), so a
//     consumer takes exactly the tiles its producer emits.
// A CSR operand counts with its occupancy (values + column indices + row pointers).
#pragma once

#include <vector>

#include "sw/ir/dag.hpp"
#include "sw/score/loop_order.hpp"
#include "sw/score/schedule.hpp"

namespace cello::score {

struct Tiling {
  std::vector<std::vector<Loop>> loops;  // per op, outermost first
  std::vector<ir::TensorId> rf_tensor;   // per op, -1 if none
  std::vector<double> tile_words;        // per op: pipeline-buffer words for one outer tile
};

// pipelined[e]: edge e is bound to a pipeline buffer (pipelined class and loop_ok).
Tiling tile_ops(const ir::Program& p, const ir::Dag& dag, const LoopOrders& lo, const std::vector<char>& pipelined,
                const Target& target);

}  // namespace cello::score
