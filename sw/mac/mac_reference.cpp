#include "sw/mac/mac_reference.hpp"

#include <algorithm>

#include "sw/common/error.hpp"
#include "sw/fp/fp32.hpp"

namespace cello::mac {

using fp::fma32;

Matrix gemm_replay(const Matrix& a, const Matrix& b, const Matrix* c, float alpha) {
  if (a.cols != b.rows) throw Error("", "gemm", "inner sizes differ");
  if (c && (c->rows != a.rows || c->cols != b.cols)) throw Error("", "gemm", "C has the wrong shape");
  Matrix z(a.rows, b.cols);
  for (int64_t m = 0; m < a.rows; ++m)
    for (int64_t n = 0; n < b.cols; ++n) {
      float acc = 0.0f;
      if (c) acc = fma32(alpha, c->at(m, n), acc);
      for (int64_t j = 0; j < a.cols; ++j) acc = fma32(a.at(m, j), b.at(j, n), acc);
      z.at(m, n) = acc;
    }
  return z;
}

Matrix gram_replay(const Matrix& a, const Matrix& b, int lanes) {
  if (a.rows != b.rows) throw Error("", "gram", "row counts differ");
  if (lanes < 1) throw Error("", "gram", "lanes must be positive");
  Matrix z(a.cols, b.cols);
  std::vector<float> p(static_cast<size_t>(lanes));
  for (int64_t i = 0; i < a.cols; ++i)
    for (int64_t j = 0; j < b.cols; ++j) {
      std::fill(p.begin(), p.end(), 0.0f);
      for (int64_t m = 0; m < a.rows; ++m) {
        float& s = p[static_cast<size_t>(m % lanes)];
        s = fma32(a.at(m, i), b.at(m, j), s);
      }
      float acc = p[0];
      for (int l = 1; l < lanes; ++l) acc = fma32(acc, 1.0f, p[static_cast<size_t>(l)]);
      z.at(i, j) = acc;
    }
  return z;
}

Matrix spmm_replay(const mtx::CsrF32& a, const Matrix& b) {
  if (a.cols != b.rows) throw Error("", "spmm", "inner sizes differ");
  Matrix z(a.rows, b.cols);
  for (int64_t m = 0; m < a.rows; ++m)
    for (int64_t n = 0; n < b.cols; ++n) {
      float acc = 0.0f;
      for (int64_t e = a.row_ptr[static_cast<size_t>(m)]; e < a.row_ptr[static_cast<size_t>(m + 1)]; ++e)
        acc = fma32(a.val[static_cast<size_t>(e)], b.at(a.col[static_cast<size_t>(e)], n), acc);
      z.at(m, n) = acc;
    }
  return z;
}

}  // namespace cello::mac
