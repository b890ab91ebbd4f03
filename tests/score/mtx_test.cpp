// Matrix Market reader, the HPCG stencil and the generated test matrices.
#include <zlib.h>

#include <array>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>

#include "sw/common/error.hpp"
#include "tests/common/error_message.hpp"
#include "sw/mtx/generated.hpp"
#include "sw/mtx/hpcg.hpp"
#include "sw/mtx/matrix_market.hpp"

using namespace cello;

namespace {

std::string mtx_error_of(const std::string& text, bool square = false) {
  return test::error_message([&] { mtx::parse_matrix_market(text, "m.mtx", square); });
}

double at(const mtx::Csr& a, int64_t r, int64_t c) {
  for (int64_t p = a.row_ptr[r]; p < a.row_ptr[r + 1]; ++p)
    if (a.col[p] == c) return a.val[p];
  return 0.0;
}

std::filesystem::path temp_file(const std::string& name) {
  return std::filesystem::temp_directory_path() / ("cello_score_test_" + name);
}

}  // namespace

TEST_CASE("coordinate real general", "[mtx]") {
  mtx::MtxInfo info;
  mtx::Csr a = mtx::parse_matrix_market(
      "%%MatrixMarket matrix coordinate real general\n% comment\n\n2 3 4\n1 3 -1.5\n2 1 2e1\n1 1 +.25\n2 3 4\n", "m",
      false, &info);
  CHECK(a.rows == 2);
  CHECK(a.cols == 3);
  CHECK(a.nnz() == 4);
  CHECK(info.field == "real");
  CHECK(at(a, 0, 0) == 0.25);
  CHECK(at(a, 0, 2) == -1.5);
  CHECK(at(a, 1, 0) == 20.0);
  CHECK(at(a, 1, 2) == 4.0);
  CHECK(a.row_ptr == std::vector<int64_t>{0, 2, 4});
  CHECK(a.col == std::vector<int32_t>{0, 2, 0, 2});  // sorted within rows
}

TEST_CASE("symmetric files are mirrored, pattern and integer values read", "[mtx]") {
  mtx::Csr s = mtx::parse_matrix_market(
      "%%MatrixMarket matrix coordinate integer symmetric\n3 3 4\n1 1 4\n2 1 -1\n3 2 7\n3 3 2\n", "m", true);
  CHECK(s.nnz() == 6);
  CHECK(at(s, 0, 1) == -1.0);
  CHECK(at(s, 1, 0) == -1.0);
  CHECK(at(s, 1, 2) == 7.0);
  CHECK(at(s, 2, 1) == 7.0);
  CHECK(at(s, 2, 2) == 2.0);
  mtx::Csr p = mtx::parse_matrix_market("%%MatrixMarket matrix coordinate pattern general\r\n2 2 2\r\n1 2\r\n2 1\r\n", "m");
  CHECK(p.nnz() == 2);
  CHECK(at(p, 0, 1) == 1.0);
  // Duplicate entries add up.
  mtx::Csr d = mtx::parse_matrix_market("%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n1 1 2\n", "m");
  CHECK(d.nnz() == 1);
  CHECK(at(d, 0, 0) == 3.0);
}

TEST_CASE("malformed Matrix Market files give one-line errors", "[mtx]") {
  const std::string h = "%%MatrixMarket matrix coordinate real general\n";
  CHECK(mtx_error_of("") == "m.mtx: line 0: empty file (expected a %%MatrixMarket header)");
  CHECK(mtx_error_of("%MatrixMarket matrix coordinate real general\n1 1 0\n") ==
        "m.mtx: line 1: malformed header: the first line must start with %%MatrixMarket");
  CHECK(mtx_error_of("%%MatrixMarket matrix coordinate real\n") ==
        "m.mtx: line 1: malformed header: expected '%%MatrixMarket matrix coordinate <field> <symmetry>'");
  CHECK(mtx_error_of("%%MatrixMarket matrix array real general\n2 1\n1\n2\n") ==
        "m.mtx: line 1: unsupported format 'array' (only 'coordinate'; dense 'array' files are not sparse matrices)");
  CHECK(mtx_error_of("%%MatrixMarket matrix coordinate complex general\n") ==
        "m.mtx: line 1: unsupported field 'complex' (real, integer or pattern)");
  CHECK(mtx_error_of("%%MatrixMarket matrix coordinate real hermitian\n") ==
        "m.mtx: line 1: unsupported symmetry 'hermitian' (general or symmetric)");
  CHECK(mtx_error_of(h + "% only comments\n") == "m.mtx: line 2: missing size line 'rows cols entries'");
  CHECK(mtx_error_of(h + "3 3\n") == "m.mtx: line 2: malformed size line: expected 'rows cols entries'");
  CHECK(mtx_error_of(h + "3 x 1\n") == "m.mtx: line 2: column count 'x' is not a whole number");
  CHECK(mtx_error_of(h + "0 3 1\n") == "m.mtx: line 2: matrix dimensions must be between 1 and 2^31-1");
  CHECK(mtx_error_of(h + "2 2 5\n") == "m.mtx: line 2: entry count 5 out of range 0..rows*cols");
  CHECK(mtx_error_of(h + "2 2 1\n3 1 1.0\n") == "m.mtx: line 3: row index 3 out of range 1..2");
  CHECK(mtx_error_of(h + "2 2 1\n1 0 1.0\n") == "m.mtx: line 3: column index 0 out of range 1..2");
  CHECK(mtx_error_of(h + "2 2 2\n1 1 1.0\n") == "m.mtx: line 3: file ends after 1 of the 2 entries the size line announces");
  CHECK(mtx_error_of(h + "2 2 1\n1 1 1.0\n2 2 1.0\n") == "m.mtx: line 4: more entries than the 1 the size line announces");
  CHECK(mtx_error_of(h + "2 2 1\n1 1\n") == "m.mtx: line 3: expected 3 fields ('row col value') but found 2");
  CHECK(mtx_error_of(h + "2 2 1\n1 1 1.0D+00\n") == "m.mtx: line 3: value '1.0D+00' is not a number");
  CHECK(mtx_error_of(h + "2 2 1\n1 1 nan\n") == "m.mtx: line 3: value 'nan' is not finite");
  CHECK(mtx_error_of(h + "2 3 0\n", true) == "m.mtx: line 2: the matrix must be square, not 2 x 3");
  CHECK(mtx_error_of("%%MatrixMarket matrix coordinate real symmetric\n2 3 0\n") ==
        "m.mtx: line 2: a symmetric matrix must be square, not 2 x 3");
  CHECK(mtx_error_of("%%MatrixMarket matrix coordinate real symmetric\n2 2 1\n1 2 1.0\n") ==
        "m.mtx: line 3: entry (1, 2) lies above the diagonal; a symmetric file stores the lower triangle");
}

TEST_CASE("gzip-compressed and plain files read the same; bad files fail cleanly", "[mtx]") {
  const std::string text = "%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n1 1 2\n3 1 -1\n3 3 5\n";
  auto plain = temp_file("plain.mtx"), gz = temp_file("packed.mtx.gz"), cut = temp_file("cut.mtx.gz");
  {
    FILE* f = std::fopen(plain.c_str(), "wb");
    std::fwrite(text.data(), 1, text.size(), f);
    std::fclose(f);
    gzFile g = gzopen(gz.c_str(), "wb9");
    gzwrite(g, text.data(), static_cast<unsigned>(text.size()));
    gzclose(g);
    // A truncated copy of the compressed file.
    FILE* in = std::fopen(gz.c_str(), "rb");
    std::string packed(4096, '\0');
    packed.resize(std::fread(packed.data(), 1, packed.size(), in));
    std::fclose(in);
    FILE* out = std::fopen(cut.c_str(), "wb");
    std::fwrite(packed.data(), 1, packed.size() - 10, out);
    std::fclose(out);
  }
  mtx::Csr a = mtx::read_matrix_market(plain.string(), true);
  mtx::Csr b = mtx::read_matrix_market(gz.string(), true);
  CHECK(a.row_ptr == b.row_ptr);
  CHECK(a.col == b.col);
  CHECK(a.val == b.val);
  CHECK(b.nnz() == 4);
  CHECK_THROWS_WITH(mtx::read_matrix_market(cut.string()), Catch::Contains("corrupt gzip data"));
  CHECK_THROWS_WITH(mtx::read_matrix_market("/nonexistent/x.mtx"), "/nonexistent/x.mtx: cannot open file (No such file or directory)");
  std::filesystem::remove(plain);
  std::filesystem::remove(gz);
  std::filesystem::remove(cut);
}

TEST_CASE("HPCG stencil matches a direct construction", "[mtx][hpcg]") {
  const int nx = 3, ny = 4, nz = 5;
  mtx::Csr a = mtx::hpcg_stencil(nx, ny, nz);
  REQUIRE(a.rows == nx * ny * nz);
  REQUIRE(a.square());
  // Independent rule: A(i,j) = 26 if i == j, -1 if the grid points differ by at
  // most one in every coordinate, else 0.
  auto coords = [&](int64_t i) { return std::array<int64_t, 3>{i % nx, (i / nx) % ny, i / (nx * ny)}; };
  int64_t nnz = 0;
  for (int64_t i = 0; i < a.rows; ++i)
    for (int64_t j = 0; j < a.cols; ++j) {
      auto ci = coords(i), cj = coords(j);
      bool near = std::abs(ci[0] - cj[0]) <= 1 && std::abs(ci[1] - cj[1]) <= 1 && std::abs(ci[2] - cj[2]) <= 1;
      double want = i == j ? 26.0 : near ? -1.0 : 0.0;
      nnz += want != 0.0;
      REQUIRE(at(a, i, j) == want);
    }
  CHECK(a.nnz() == nnz);
  CHECK(mtx::hpcg_nnz(nx, ny, nz) == nnz);
  // Per dimension the neighbour count is 3n-2, and the stencil is their product.
  CHECK(mtx::hpcg_stencil(16, 16, 16).nnz() == 46 * 46 * 46);
  CHECK_THROWS_AS(mtx::hpcg_stencil(0, 1, 1), Error);
}

namespace {

// Symmetric, with a positive diagonal that dominates each row strictly or,
// for `weak`, at least equals the row's off-diagonal absolute sum: with
// symmetry, enough for positive (semi)definiteness by Gershgorin.
void check_symmetric_dominant(const mtx::Csr& a, bool weak) {
  for (int64_t r = 0; r < a.rows; ++r) {
    double diag = 0, off = 0;
    for (int64_t p = a.row_ptr[r]; p < a.row_ptr[r + 1]; ++p) {
      const int64_t c = a.col[p];
      REQUIRE(at(a, c, r) == a.val[p]);
      if (c == r) diag = a.val[p]; else off += std::abs(a.val[p]);
    }
    REQUIRE(diag > 0);
    if (weak) REQUIRE(diag >= off); else REQUIRE(diag > off);
  }
}

}  // namespace

TEST_CASE("generated SPD matrices: sizes, symmetry, dominance and the Matrix Market round trip", "[mtx]") {
  // 7-point stencil: n^3 diagonals, and along each axis 2 (n - 1) neighbour
  // entries on each of its n^2 lines.
  const int n = 5;
  const mtx::Csr s7 = mtx::stencil7_3d(n);
  CHECK(s7.rows == n * n * n);
  CHECK(s7.nnz() == n * n * n + 3 * 2 * (n - 1) * n * n);
  CHECK(at(s7, 0, 0) == 6.0);
  CHECK(at(s7, 0, 1) == -1.0);
  CHECK(at(s7, 0, n) == -1.0);
  CHECK(at(s7, 0, n * n) == -1.0);
  CHECK(at(s7, 0, n + 1) == 0.0);
  check_symmetric_dominant(s7, true);

  const mtx::Csr an = mtx::anisotropic_2d(7, 4, 0.01);
  CHECK(an.rows == 28);
  CHECK(an.nnz() == 28 + 2 * 6 * 4 + 2 * 3 * 7);
  CHECK(at(an, 0, 1) == -1.0);
  CHECK(at(an, 0, 7) == -0.01);
  check_symmetric_dominant(an, true);

  const mtx::Csr b = mtx::banded_spd(300, 6, 42);
  CHECK(b.rows == 300);
  for (int64_t r = 0; r < b.rows; ++r)
    for (int64_t p = b.row_ptr[r]; p < b.row_ptr[r + 1]; ++p) REQUIRE(std::abs(b.col[p] - r) <= 6);
  CHECK(b.nnz() > 300 * 4);  // about 6 off-diagonal entries a row on average
  check_symmetric_dominant(b, false);
  CHECK(mtx::banded_spd(300, 6, 42).val == b.val);   // the seed fixes it
  CHECK(mtx::banded_spd(300, 6, 43).val != b.val);

  for (const mtx::Csr* m : {&s7, &an, &b}) {
    const mtx::Csr back = mtx::parse_matrix_market(mtx::matrix_market_coordinate(*m), "gen.mtx", true);
    CHECK(back.row_ptr == m->row_ptr);
    CHECK(back.col == m->col);
    CHECK(back.val == m->val);
  }
}
