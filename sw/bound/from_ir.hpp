// Dense einsums of a tensor program, for ski-slope bounds of real workloads.
#pragma once

#include <vector>

#include "sw/bound/ski_slope.hpp"
#include "sw/ir/program.hpp"

namespace cello::bound {

// One einsum per distinct dense contraction shape of p (first occurrence, named
// after its op). Ops with CSR operands, sliding windows or host functions are
// skipped; an accumulated operand (C in C + A*B) is an extra input.
std::vector<Einsum> dense_einsums(const ir::Program& p);

}  // namespace cello::bound
