#include "sw/mtx/hpcg.hpp"

#include <fmt/format.h>

#include "sw/common/error.hpp"
#include "sw/common/limits.hpp"

namespace cello::mtx {

Csr hpcg_stencil(int nx, int ny, int nz) {
  if (nx < 1 || ny < 1 || nz < 1 || static_cast<int64_t>(nx) * ny * nz > (int64_t{1} << 30))
    throw Error("", "hpcg", "grid dimensions must be >= 1 with at most 2^30 points");
  const int64_t rows = static_cast<int64_t>(nx) * ny * nz;
  limits::check_memory(static_cast<uint64_t>(hpcg_nnz(nx, ny, nz)) * (sizeof(int32_t) + sizeof(double)) +
                           static_cast<uint64_t>(rows + 1) * sizeof(int64_t),
                       "", "hpcg", fmt::format("the {}x{}x{} stencil", nx, ny, nz));
  Csr m;
  m.rows = m.cols = rows;
  m.row_ptr.reserve(static_cast<size_t>(m.rows) + 1);
  m.col.reserve(static_cast<size_t>(hpcg_nnz(nx, ny, nz)));
  m.val.reserve(static_cast<size_t>(hpcg_nnz(nx, ny, nz)));
  for (int z = 0; z < nz; ++z)
    for (int y = 0; y < ny; ++y)
      for (int x = 0; x < nx; ++x) {
        const int64_t row = x + static_cast<int64_t>(nx) * (y + static_cast<int64_t>(ny) * z);
        for (int dz = -1; dz <= 1; ++dz)
          for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) {
              int cx = x + dx, cy = y + dy, cz = z + dz;
              if (cx < 0 || cy < 0 || cz < 0 || cx >= nx || cy >= ny || cz >= nz) continue;
              const int64_t c = cx + static_cast<int64_t>(nx) * (cy + static_cast<int64_t>(ny) * cz);
              m.col.push_back(static_cast<int32_t>(c));
              m.val.push_back(c == row ? 26.0 : -1.0);
            }
        m.row_ptr.push_back(static_cast<int64_t>(m.col.size()));
      }
  return m;
}

int64_t hpcg_nnz(int nx, int ny, int nz) {
  if (nx < 1 || ny < 1 || nz < 1) throw Error("", "hpcg", "grid dimensions must be >= 1");
  return (3 * int64_t{nx} - 2) * (3 * int64_t{ny} - 2) * (3 * int64_t{nz} - 2);
}

}  // namespace cello::mtx
