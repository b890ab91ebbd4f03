// Compressed sparse row matrices: the one CSR layout of the project.
//   CsrPattern       the sparsity pattern alone (the traffic models, the
//                    command-stream encoder);
//   CsrOf<V>         the pattern with one value of type V per stored element:
//     Csr    = CsrOf<double>  what the Matrix Market reader and the HPCG stencil
//                             generator produce and the golden solvers multiply with;
//     CsrF32 = CsrOf<float>   the MAC array's reference models and the executor's
//                             CSR inputs.
// A CsrOf<V> is a CsrPattern, so its pattern is a copy of its base
// (`CsrPattern p = m;`) and it passes wherever a pattern is read.
//
// Index types: rows, cols and row pointers are int64_t; column indices are
// int32_t, so a matrix has at most kMaxCsrCols = 2^31 columns. Whatever builds a
// CSR from outside data (the Matrix Market reader, the graph and stencil data
// sets, the executor's memory image) checks its sizes against that first, so no
// index is narrowed silently.
#pragma once

#include <cstdint>
#include <vector>

namespace cello::mtx {

inline constexpr int64_t kMaxCsrCols = int64_t{1} << 31;  // every column index fits int32_t

struct CsrPattern {
  int64_t rows = 0, cols = 0;
  std::vector<int64_t> row_ptr{0};  // rows + 1 entries
  std::vector<int32_t> col;         // ascending and unique within each row

  int64_t nnz() const { return static_cast<int64_t>(col.size()); }
  bool square() const { return rows == cols; }
};

template <class V>
struct CsrOf : CsrPattern {
  std::vector<V> val;  // one per column index
};

using Csr = CsrOf<double>;
using CsrF32 = CsrOf<float>;

// The same matrix with every value converted to To.
template <class To, class From>
CsrOf<To> convert_values(const CsrOf<From>& m) {
  CsrOf<To> out{m, {}};
  out.val.reserve(m.val.size());
  for (const From& v : m.val) out.val.push_back(static_cast<To>(v));
  return out;
}

struct Triplet {
  int64_t row, col;
  double val;
};

// Builds CSR from entries in any order; duplicate (row, col) entries are summed.
Csr csr_from_triplets(int64_t rows, int64_t cols, std::vector<Triplet> entries);

// Y = A X for row-major dense blocks X (cols x n) and Y (rows x n), in double.
std::vector<double> spmm(const Csr& a, const std::vector<double>& x, int64_t n);

}  // namespace cello::mtx
