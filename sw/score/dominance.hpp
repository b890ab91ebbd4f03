// SCORE pass 2: dominance per op (GOGETA Sec. 4.2).
//
// Ranks are grouped by the operands they subscript (ranks that always travel
// together, e.g. a convolution's c, r, s, are one matrix dimension of its GEMM
// view); an op with a single group is judged rank by rank. A rank compressed in a
// CSR operand counts with its average occupancy (nnz / rows), which is why the
// SpMM S = A P is 'U'. A group dominates when it is larger than `dominant_min`
// and `dominant_ratio` times larger than every other group:
//   U      a dominant uncontracted group     C      a dominant contracted group
//   bal    no dominant group, all >= balanced_min
//   small  no dominant group, some group < balanced_min
#pragma once

#include <vector>

#include "sw/ir/program.hpp"
#include "sw/score/schedule.hpp"

namespace cello::score {

struct OpDominance {
  Dominance dominance = Dominance::Small;
  std::vector<ir::RankId> dominant;  // ranks of the dominant group (empty for bal/small)
};

// Size a rank counts with in op: its extent, or nnz/rows when it is the
// compressed (column) rank of a CSR operand.
double effective_size(const ir::Program& p, const ir::Op& op, ir::RankId r);

OpDominance op_dominance(const ir::Program& p, const ir::Op& op, const Thresholds& t);

// Whether `consumer` can take tensor t tile by tile in its dominant order: true
// unless its dominant group subscripts none of t's dimensions ("unshared").
bool shares_dominant(const ir::Op& consumer, const OpDominance& d, ir::TensorId t);

}  // namespace cello::score
