// The HPCG problem: a 27-point stencil on an nx x ny x nz grid (diagonal 26,
// every neighbour in the surrounding 3x3x3 box -1), rows ordered x fastest.
// It is symmetric positive definite and is the project's embedded default matrix.
#pragma once

#include <cstdint>

#include "sw/mtx/csr.hpp"

namespace cello::mtx {

Csr hpcg_stencil(int nx, int ny, int nz);

// Its nonzero count without building it: along one axis a point has 3 neighbours
// (itself included) except the 2 ends, which have 2, so 3n-2 pairs per axis and
// the stencil is their product.
int64_t hpcg_nnz(int nx, int ny, int nz);

}  // namespace cello::mtx
