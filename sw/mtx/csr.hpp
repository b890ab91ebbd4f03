// Compressed sparse row matrices: what the Matrix Market reader and the HPCG
// stencil generator produce, and what the golden solvers multiply with.
#pragma once

#include <cstdint>
#include <vector>

namespace cello::mtx {

struct Csr {
  int64_t rows = 0, cols = 0;
  std::vector<int64_t> row_ptr{0};  // rows + 1 entries
  std::vector<int32_t> col;         // ascending and unique within each row
  std::vector<double> val;

  int64_t nnz() const { return static_cast<int64_t>(col.size()); }
  bool square() const { return rows == cols; }
};

struct Triplet {
  int64_t row, col;
  double val;
};

// Builds CSR from entries in any order; duplicate (row, col) entries are summed.
Csr csr_from_triplets(int64_t rows, int64_t cols, std::vector<Triplet> entries);

// Y = A X for row-major dense blocks X (cols x n) and Y (rows x n), in double.
std::vector<double> spmm(const Csr& a, const std::vector<double>& x, int64_t n);

}  // namespace cello::mtx
