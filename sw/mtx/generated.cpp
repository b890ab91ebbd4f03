#include "sw/mtx/generated.hpp"

#include <fmt/format.h>

#include <cmath>
#include <random>
#include <stdexcept>
#include <vector>

namespace cello::mtx {

Csr stencil7_3d(int n) {
  if (n < 1) throw std::invalid_argument("stencil7_3d: the grid needs at least one point per axis");
  std::vector<Triplet> t;
  const auto id = [n](int x, int y, int z) { return (static_cast<int64_t>(z) * n + y) * n + x; };
  for (int z = 0; z < n; ++z)
    for (int y = 0; y < n; ++y)
      for (int x = 0; x < n; ++x) {
        const int64_t r = id(x, y, z);
        t.push_back({r, r, 6.0});
        if (x > 0) t.push_back({r, id(x - 1, y, z), -1.0});
        if (x + 1 < n) t.push_back({r, id(x + 1, y, z), -1.0});
        if (y > 0) t.push_back({r, id(x, y - 1, z), -1.0});
        if (y + 1 < n) t.push_back({r, id(x, y + 1, z), -1.0});
        if (z > 0) t.push_back({r, id(x, y, z - 1), -1.0});
        if (z + 1 < n) t.push_back({r, id(x, y, z + 1), -1.0});
      }
  const int64_t rows = static_cast<int64_t>(n) * n * n;
  return csr_from_triplets(rows, rows, std::move(t));
}

Csr anisotropic_2d(int nx, int ny, double eps) {
  if (nx < 1 || ny < 1) throw std::invalid_argument("anisotropic_2d: the grid needs at least one point per axis");
  if (!(eps > 0)) throw std::invalid_argument("anisotropic_2d: the y coupling must be positive");
  std::vector<Triplet> t;
  const auto id = [nx](int x, int y) { return static_cast<int64_t>(y) * nx + x; };
  for (int y = 0; y < ny; ++y)
    for (int x = 0; x < nx; ++x) {
      const int64_t r = id(x, y);
      t.push_back({r, r, 2.0 + 2.0 * eps});
      if (x > 0) t.push_back({r, id(x - 1, y), -1.0});
      if (x + 1 < nx) t.push_back({r, id(x + 1, y), -1.0});
      if (y > 0) t.push_back({r, id(x, y - 1), -eps});
      if (y + 1 < ny) t.push_back({r, id(x, y + 1), -eps});
    }
  const int64_t rows = static_cast<int64_t>(nx) * ny;
  return csr_from_triplets(rows, rows, std::move(t));
}

Csr banded_spd(int64_t rows, int half_band, uint64_t seed) {
  if (rows < 1 || half_band < 0) throw std::invalid_argument("banded_spd: needs rows >= 1 and half_band >= 0");
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> value(-1.0, 0.0);
  std::vector<double> row_sum(static_cast<size_t>(rows), 0.0);
  std::vector<Triplet> t;
  for (int64_t r = 0; r < rows; ++r) {
    // Each column within half_band to the right, with probability 1/2; the
    // mirrors below the diagonal keep the matrix symmetric.
    for (int d = 1; d <= half_band; ++d) {
      const int64_t c = r + d;
      if ((rng() & 1) == 0 || c >= rows) continue;
      const double v = value(rng);
      t.push_back({r, c, v});
      t.push_back({c, r, v});
      row_sum[static_cast<size_t>(r)] += -v;
      row_sum[static_cast<size_t>(c)] += -v;
    }
  }
  for (int64_t r = 0; r < rows; ++r) t.push_back({r, r, row_sum[static_cast<size_t>(r)] + 1.0});
  return csr_from_triplets(rows, rows, std::move(t));
}

std::string matrix_market_coordinate(const Csr& m) {
  std::string out = "%%MatrixMarket matrix coordinate real general\n";
  out += fmt::format("{} {} {}\n", m.rows, m.cols, m.nnz());
  for (int64_t r = 0; r < m.rows; ++r)
    for (int64_t k = m.row_ptr[static_cast<size_t>(r)]; k < m.row_ptr[static_cast<size_t>(r) + 1]; ++k)
      out += fmt::format("{} {} {:.17g}\n", r + 1, m.col[static_cast<size_t>(k)] + 1, m.val[static_cast<size_t>(k)]);
  return out;
}

}  // namespace cello::mtx
