// Generated symmetric positive definite test matrices, beside the HPCG
// stencil (hpcg.hpp), for checking the accelerator on inputs nobody tuned for:
//   stencil7_3d   the 7-point Laplacian on an n x n x n grid (diagonal 6,
//                 each face neighbour -1), rows ordered x fastest;
//   anisotropic_2d the 5-point operator on an nx x ny grid with coupling 1
//                 along x and `eps` along y (diagonal 2 + 2 eps);
//   banded_spd    `rows` rows; each of the `half_band` columns right of the
//                 diagonal holds an entry with probability 1/2 (values in
//                 [-1, 0)), mirrored below it, and a diagonal that exceeds
//                 each row's absolute sum by 1 (strictly diagonally dominant,
//                 so SPD); the pattern and values follow from `seed`.
// All three are SPD, so CG converges on them, and each is written as Matrix
// Market coordinate text by matrix_market_coordinate (matrix_market.hpp's
// reader takes it back).
#pragma once

#include <cstdint>
#include <string>

#include "sw/mtx/csr.hpp"

namespace cello::mtx {

Csr stencil7_3d(int n);
Csr anisotropic_2d(int nx, int ny, double eps);
Csr banded_spd(int64_t rows, int half_band, uint64_t seed);

// The matrix as Matrix Market "coordinate real general" text, values with 17
// significant digits (so a double survives the round trip).
std::string matrix_market_coordinate(const Csr& m);

}  // namespace cello::mtx
