// Bit-exact C++ replay of the MAC array's three modes. Each function performs
// the fp32 operations in exactly the order the hardware does (docs/datapath.md,
// "Accumulation order"), using cello::fp::fma32, so its result equals the RTL's
// bit for bit. These are the golden results of every MAC-array test.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "sw/mtx/csr.hpp"

namespace cello::mac {

// Row-major dense fp32 matrix.
struct Matrix {
  int64_t rows = 0, cols = 0;
  std::vector<float> v;

  Matrix() = default;
  Matrix(int64_t r, int64_t c) : rows(r), cols(c), v(static_cast<size_t>(r * c), 0.0f) {}
  float& at(int64_t r, int64_t c) { return v[static_cast<size_t>(r * cols + c)]; }
  float at(int64_t r, int64_t c) const { return v[static_cast<size_t>(r * cols + c)]; }
};

// Skinny GEMM with accumulate, Z = alpha*C + A*B (C may be null: Z = A*B).
//   z = +0;  if C: z = fma32(alpha, C[m][n], z);  for j = 0..K-1: z = fma32(A[m][j], B[j][n], z)
Matrix gemm_replay(const Matrix& a, const Matrix& b, const Matrix* c, float alpha);

// Gram / long reduction, Z[i][j] = sum_m A[m][i] * B[m][j], with `lanes`
// (= the FMA pipeline depth) interleaved partial sums:
//   p[l] = +0;  for m ascending: p[m % lanes] = fma32(A[m][i], B[m][j], p[m % lanes])
//   z = p[0];   for l = 1..lanes-1: z = fma32(z, 1, p[l])
Matrix gram_replay(const Matrix& a, const Matrix& b, int lanes);

// CSR SpMM, Z[m][n] = sum_k A[m][k] * B[k][n], A with fp32 values (sw/mtx/csr.hpp;
// columns ascend within a row, the order the row's products are accumulated in):
//   z = +0;  for each stored element (k ascending): z = fma32(A[m][k], B[k][n], z)
// (an empty row gives +0).
Matrix spmm_replay(const mtx::CsrF32& a, const Matrix& b);

}  // namespace cello::mac
