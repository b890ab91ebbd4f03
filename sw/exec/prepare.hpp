// One call from a problem to everything a run needs: SCORE's schedule for the
// architecture, the command stream with its memory layout, and the initial DRAM
// image; plus the fp32 operation order the MAC array implies (for the golden
// replay) and the solver's residual history from a run's values.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "sw/arch/arch.hpp"
#include "sw/exec/executor.hpp"
#include "sw/golden/fp32_dag.hpp"
#include "sw/score/schedule.hpp"
#include "sw/stream/encode.hpp"
#include "sw/stream/problem.hpp"

namespace cello::exec {

struct Prepared {
  score::Schedule schedule;
  stream::Compiled compiled;
  std::vector<uint8_t> image;
};

// Compiles the problem for the architecture (throws cello::Error naming the op
// and the limit when a tile or operand cannot fit).
Prepared prepare(const stream::Problem& pr, const arch::Arch& a);

// The fp32 order of golden::run_fp32 that the MAC array's modes imply
// (docs/commands.md, "Numerics"): one chain per element from +0, C entering as
// fma32(alpha, C, +0), Gram with L interleaved lanes, GEMM passes of rf_rows.
golden::Fp32Order mac_order(const ir::Program& p, const stream::Compiled& c, const arch::Arch& a);

// max over columns j of |r[:,j]| / |b[:,j]| (|r[:,j]| where b's column is 0), in
// double; r and b row-major rows x cols.
template <class R>
double worst_column_ratio(const R& r, const std::vector<float>& b, uint64_t rows, uint64_t cols) {
  double worst = 0;
  for (uint64_t j = 0; j < cols; ++j) {
    double rn = 0, bn = 0;
    for (uint64_t m = 0; m < rows; ++m) {
      const double x = r[m * cols + j], y = b[m * cols + j];
      rn += x * x;
      bn += y * y;
    }
    worst = std::max(worst, bn > 0 ? std::sqrt(rn / bn) : std::sqrt(rn));
  }
  return worst;
}

// Per iteration i >= 0 with a tensor R.i: max over columns of |R.i[:,j]| / |B[:,j]|
// (in double, from the fp32 values). Empty when the program has no R / B.
std::vector<double> residual_history(const ir::Program& p, const Result& r, const std::vector<float>& b);

}  // namespace cello::exec
