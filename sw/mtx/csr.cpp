#include "sw/mtx/csr.hpp"

#include <algorithm>

namespace cello::mtx {

Csr csr_from_triplets(int64_t rows, int64_t cols, std::vector<Triplet> e) {
  std::sort(e.begin(), e.end(), [](const Triplet& a, const Triplet& b) {
    return a.row != b.row ? a.row < b.row : a.col < b.col;
  });
  Csr m;
  m.rows = rows;
  m.cols = cols;
  m.row_ptr.assign(static_cast<size_t>(rows) + 1, 0);
  for (size_t k = 0; k < e.size(); ++k) {
    if (!m.col.empty() && k > 0 && e[k].row == e[k - 1].row && e[k].col == e[k - 1].col) {
      m.val.back() += e[k].val;
      continue;
    }
    m.col.push_back(static_cast<int32_t>(e[k].col));
    m.val.push_back(e[k].val);
    ++m.row_ptr[static_cast<size_t>(e[k].row) + 1];
  }
  for (int64_t r = 0; r < rows; ++r) m.row_ptr[r + 1] += m.row_ptr[r];
  return m;
}

std::vector<double> spmm(const Csr& a, const std::vector<double>& x, int64_t n) {
  std::vector<double> y(static_cast<size_t>(a.rows * n), 0.0);
  for (int64_t r = 0; r < a.rows; ++r)
    for (int64_t p = a.row_ptr[r]; p < a.row_ptr[r + 1]; ++p) {
      const double v = a.val[p];
      const double* xr = &x[static_cast<size_t>(a.col[p]) * n];
      double* yr = &y[static_cast<size_t>(r * n)];
      for (int64_t j = 0; j < n; ++j) yr[j] += v * xr[j];
    }
  return y;
}

}  // namespace cello::mtx
