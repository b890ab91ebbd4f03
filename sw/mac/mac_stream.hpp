// The MAC array's stream formats as data: commands, operand beats and the
// route of every result beat, planned for a whole problem (a GEMM, a Gram or a
// CSR SpMM of any size). This is what the top level's address generators
// produce for the array; testbenches and `cello bench datapath` drive the RTL
// with it. docs/datapath.md describes the formats.
#pragma once

#include <cstdint>
#include <vector>

#include "sw/mac/mac_reference.hpp"

namespace cello::mac {

struct ArrayShape {
  int rows = 4;      // R
  int cols = 4;      // C
  int lanes = 3;     // L = FMA pipeline depth
  int rf_rows = 16;  // register-file rows (largest K)
};

enum class Mode : uint8_t { LoadRf = 0, Gemm = 1, Gram = 2, Spmm = 3 };

struct Command {
  Mode mode = Mode::Gemm;
  uint32_t count = 0;  // LOAD_RF rows / GEMM tiles / Gram rows / SpMM beats
  uint32_t k = 0;      // GEMM inner size
  bool with_c = false;
  uint32_t alpha = 0;  // fp32 bits
};

// One operand beat: a[r] (R words), b[r][c] (R*C words, row-major), SpMM flags.
struct OpBeat {
  std::vector<uint32_t> a, b;
  uint64_t last = 0, pad = 0;  // bit r: PE row r
};

// Where the rows of one result beat go: Z[dest_row[r]][col0 + c] = z[r][c] for
// c < ncols, for each row r in `mask`; dest_row[r] = -1 discards a padding row.
struct ResultRoute {
  uint64_t mask = 0;
  std::vector<int64_t> dest_row;
  int64_t col0 = 0;
  int64_t ncols = 0;
};

struct StreamProgram {
  ArrayShape shape;
  std::vector<Command> commands;
  std::vector<OpBeat> ops;           // all operand beats, in stream order
  std::vector<ResultRoute> results;  // all result beats, in stream order
  int64_t out_rows = 0, out_cols = 0;
  uint64_t useful_macs = 0;  // multiply-adds the operation needs (alpha*C counts as one per element)
};

// Z = alpha*C + A*B (C may be null). B is split into column blocks of C words,
// each loaded into the register file (K = A.cols <= rf_rows).
StreamProgram plan_gemm(const ArrayShape& s, const Matrix& a, const Matrix& b, const Matrix* c, float alpha);
// Z = A^T B, in blocks of R x C outputs, each a Gram command over all rows.
StreamProgram plan_gram(const ArrayShape& s, const Matrix& a, const Matrix& b);
// Z = A*B for CSR A: matrix rows are handed to (PE row, lane) slots greedily in
// row order; B's rows arrive gathered per element. Column blocks of C words.
StreamProgram plan_spmm(const ArrayShape& s, const mtx::CsrF32& a, const Matrix& b);

// Scatters result beats (z[r][c] words, in order) into Z using the routes.
Matrix gather_results(const StreamProgram& p, const std::vector<std::vector<uint32_t>>& beats);

}  // namespace cello::mac
