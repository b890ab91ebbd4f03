#include "sw/traffic/datasets.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <random>
#include <sstream>
#include <unordered_map>

#include "sw/common/error.hpp"
#include "sw/mtx/hpcg.hpp"
#include "sw/mtx/matrix_market.hpp"

namespace cello::traffic {

namespace {

// Rows of column lists -> CSR (each row sorted, duplicates dropped). The
// callers keep cols <= mtx::kMaxCsrCols, so their column numbers fit int32_t.
std::shared_ptr<mtx::CsrPattern> from_rows(uint64_t cols, std::vector<std::vector<int32_t>>& rows) {
  auto p = std::make_shared<mtx::CsrPattern>();
  p->rows = static_cast<int64_t>(rows.size());
  p->cols = static_cast<int64_t>(cols);
  p->row_ptr.reserve(rows.size() + 1);
  for (auto& r : rows) {
    std::sort(r.begin(), r.end());
    r.erase(std::unique(r.begin(), r.end()), r.end());
    p->col.insert(p->col.end(), r.begin(), r.end());
    p->row_ptr.push_back(p->nnz());
  }
  return p;
}

std::string first_existing(const std::string& dir, std::initializer_list<const char*> names) {
  for (const char* n : names) {
    auto path = (std::filesystem::path(dir) / n).string();
    if (std::filesystem::exists(path)) return path;
  }
  std::string list;
  for (const char* n : names) list += (list.empty() ? "" : ", ") + std::string(n);
  throw Error(dir, "", "none of " + list + " found");
}

// Calls `f(line, place)` for each line of the file at `path` (gzipped or not);
// place is "line N", for the errors `f` throws.
void for_each_line(const std::string& path,
                   const std::function<void(const std::string& line, const std::string& place)>& f) {
  std::istringstream in(mtx::read_maybe_gzip(path));
  std::string line;
  int lineno = 0;
  while (std::getline(in, line)) f(line, fmt::format("line {}", ++lineno));
}

}  // namespace

Dataset load_matrix_market(const std::string& path, const mtx::HeaderCheck& check) {
  Dataset d;
  auto stem = std::filesystem::path(path).filename().string();
  for (const char* ext : {".gz", ".mtx"})
    if (stem.size() > std::string(ext).size() && stem.ends_with(ext)) stem.resize(stem.size() - std::string(ext).size());
  d.name = stem;
  d.source = path;
  d.pattern = std::make_shared<mtx::CsrPattern>(mtx::read_matrix_market(path, false, nullptr, check));
  return d;
}

Dataset load_cora(const std::string& dir) {
  const std::string content = first_existing(dir, {"cora.content.gz", "cora.content"});
  const std::string cites = first_existing(dir, {"cora.cites"});
  std::unordered_map<std::string, int32_t> index;
  for_each_line(content, [&](const std::string& line, const std::string& place) {
    std::istringstream ls(line);
    std::string id;
    if (!(ls >> id)) return;
    if (index.size() == static_cast<uint64_t>(mtx::kMaxCsrCols)) throw Error(content, place, "more than 2^31 papers");
    if (!index.emplace(id, static_cast<int32_t>(index.size())).second)
      throw Error(content, place, "paper id '" + id + "' listed twice");
  });
  if (index.empty()) throw Error(content, "", "no papers");
  std::vector<std::vector<int32_t>> rows(index.size());
  for_each_line(cites, [&](const std::string& line, const std::string& place) {
    std::istringstream ls(line);
    std::string a, b;
    if (!(ls >> a)) return;
    if (!(ls >> b)) throw Error(cites, place, "expected '<cited> <citing>'");
    auto ia = index.find(a), ib = index.find(b);
    if (ia == index.end() || ib == index.end()) throw Error(cites, place, "paper id not in cora.content");
    if (ia->second == ib->second) return;
    rows[ia->second].push_back(ib->second);
    rows[ib->second].push_back(ia->second);
  });
  Dataset d;
  d.name = "cora";
  d.source = dir;
  d.pattern = from_rows(index.size(), rows);
  return d;
}

Dataset load_tu_graphs(const std::string& dir, const std::string& prefix, int graphs) {
  const std::string ind_path = first_existing(dir, {(prefix + "_graph_indicator.txt").c_str()});
  const std::string a_path = first_existing(dir, {(prefix + "_A.txt.gz").c_str(), (prefix + "_A.txt").c_str()});
  uint64_t m = 0;
  for_each_line(ind_path, [&](const std::string& line, const std::string& place) {
    if (line.empty()) return;
    long g = 0;
    try {
      g = std::stol(line);
    } catch (...) {
      throw Error(ind_path, place, "expected a graph number");
    }
    if (g <= graphs) ++m;
  });
  if (m == 0) throw Error(ind_path, "", "no nodes in the selected graphs");
  if (m > static_cast<uint64_t>(mtx::kMaxCsrCols)) throw Error(ind_path, "", "more than 2^31 nodes in the selected graphs");
  std::vector<std::vector<int32_t>> rows(m);
  for_each_line(a_path, [&](const std::string& line, const std::string& place) {
    if (line.empty()) return;
    auto comma = line.find(',');
    if (comma == std::string::npos) throw Error(a_path, place, "expected 'a, b'");
    uint64_t a = 0, b = 0;
    try {
      a = std::stoull(line.substr(0, comma));
      b = std::stoull(line.substr(comma + 1));
    } catch (...) {
      throw Error(a_path, place, "expected two node numbers");
    }
    if (a == 0 || b == 0) throw Error(a_path, place, "node numbers start at 1");
    if (a <= m && b <= m) rows[a - 1].push_back(static_cast<int32_t>(b - 1));
  });
  Dataset d;
  d.name = fmt::format("{} ({} graphs)", prefix, graphs);
  d.source = dir;
  d.pattern = from_rows(m, rows);
  return d;
}

Dataset hpcg(int n) {
  Dataset d;
  d.name = fmt::format("hpcg{}", n);
  d.source = fmt::format("generated: HPCG 27-point stencil {}^3", n);
  d.pattern = std::make_shared<mtx::CsrPattern>(mtx::hpcg_stencil(n, n, n));
  return d;
}

Dataset stencil(int nx, int ny, int nz) {
  if (nx < 1 || ny < 1 || nz < 1 || uint64_t(nx) * uint64_t(ny) * uint64_t(nz) > (1ull << 31))
    throw Error("", "stencil", fmt::format("grid {}x{}x{} is empty or too large", nx, ny, nz));
  const uint64_t m = uint64_t(nx) * uint64_t(ny) * uint64_t(nz);
  std::vector<std::vector<int32_t>> rows(m);
  for (int z = 0; z < nz; ++z)
    for (int y = 0; y < ny; ++y)
      for (int x = 0; x < nx; ++x) {
        auto at = [&](int i, int j, int k) { return static_cast<int32_t>((uint64_t(k) * ny + j) * nx + i); };
        auto& r = rows[at(x, y, z)];
        if (z > 0) r.push_back(at(x, y, z - 1));
        if (y > 0) r.push_back(at(x, y - 1, z));
        if (x > 0) r.push_back(at(x - 1, y, z));
        r.push_back(at(x, y, z));
        if (x + 1 < nx) r.push_back(at(x + 1, y, z));
        if (y + 1 < ny) r.push_back(at(x, y + 1, z));
        if (z + 1 < nz) r.push_back(at(x, y, z + 1));
      }
  Dataset d;
  d.name = nz == 1 ? fmt::format("st2d-{}x{}", nx, ny) : fmt::format("st3d-{}x{}x{}", nx, ny, nz);
  d.source = nz == 1 ? fmt::format("generated: 5-point stencil {}x{}", nx, ny)
                     : fmt::format("generated: 7-point stencil {}x{}x{}", nx, ny, nz);
  d.pattern = from_rows(m, rows);
  return d;
}

Dataset banded(uint64_t rows, uint64_t half_band, int per_side, uint64_t seed) {
  if (rows == 0 || rows > (1ull << 31) || half_band == 0 || per_side < 0 || uint64_t(per_side) > half_band)
    throw Error("", "banded", fmt::format("bad banded matrix: {} rows, half band {}, {} per side", rows, half_band,
                                          per_side));
  std::mt19937_64 rng(seed);
  std::vector<std::vector<int32_t>> out(rows);
  for (uint64_t i = 0; i < rows; ++i) {
    out[i].push_back(static_cast<int32_t>(i));
    // Lower couplings chosen at random; the mirror makes the pattern symmetric.
    for (int k = 0; k < per_side && i > 0; ++k) {
      uint64_t off = 1 + rng() % std::min(half_band, i);
      int32_t j = static_cast<int32_t>(i - off);
      if (std::find(out[i].begin(), out[i].end(), j) != out[i].end()) continue;
      out[i].push_back(j);
      out[static_cast<size_t>(j)].push_back(static_cast<int32_t>(i));
    }
  }
  Dataset d;
  d.name = fmt::format("band-{}k-b{}", rows / 1000, half_band);
  d.source = fmt::format("generated: random banded SPD pattern, {} rows, half band {}, {} per side, seed {}", rows,
                         half_band, per_side, seed);
  d.pattern = from_rows(rows, out);
  return d;
}

Dataset proxy_matrix(const std::string& name, uint64_t rows, uint64_t nnz, uint64_t seed) {
  if (rows == 0 || nnz < rows || nnz > rows * std::min<uint64_t>(rows, 64))
    throw Error("", name, fmt::format("proxy needs rows <= nnz <= 64 x rows (got {} rows, {} nnz)", rows, nnz));
  if (rows > static_cast<uint64_t>(mtx::kMaxCsrCols))
    throw Error("", name, fmt::format("proxy has {} rows, more than 2^31", rows));
  std::mt19937_64 rng(seed);
  const int64_t R = static_cast<int64_t>(rows);
  int64_t W = 1;
  while ((W + 1) * (W + 1) <= R) ++W;
  const uint64_t extra = nnz - rows;
  std::vector<std::vector<int32_t>> out(rows);
  std::vector<int64_t> cand;
  for (int64_t i = 0; i < R; ++i) {
    const uint64_t k = (static_cast<uint64_t>(i) + 1) * extra / rows - static_cast<uint64_t>(i) * extra / rows;
    auto& row = out[static_cast<size_t>(i)];
    row.push_back(static_cast<int32_t>(i));
    cand.clear();
    for (int64_t d : {int64_t{-1}, int64_t{1}, -W, W, -W - 1, W + 1, -W + 1, W - 1, int64_t{-2}, int64_t{2}, -2 * W, 2 * W}) {
      int64_t c = i + d;
      if (c >= 0 && c < R && c != i) cand.push_back(c);
    }
    // Prefer the four nearest mesh neighbours, in a row-dependent order.
    std::shuffle(cand.begin(), cand.begin() + std::min<size_t>(4, cand.size()), rng);
    size_t next = 0;
    while (row.size() < k + 1) {
      int64_t c;
      if (rng() % 32 == 0 || next >= cand.size())
        c = static_cast<int64_t>(rng() % rows);  // long-range coupling
      else
        c = cand[next++];
      if (std::find(row.begin(), row.end(), static_cast<int32_t>(c)) == row.end())
        row.push_back(static_cast<int32_t>(c));
    }
  }
  Dataset d;
  d.name = name + " (proxy)";
  d.source = fmt::format("generated: mesh-like proxy, {} rows, {} nnz, seed {}", rows, nnz, seed);
  d.proxy = true;
  d.pattern = from_rows(rows, out);
  return d;
}

}  // namespace cello::traffic
