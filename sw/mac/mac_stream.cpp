#include "sw/mac/mac_stream.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <deque>

#include "sw/common/error.hpp"
#include "sw/fp/fp32.hpp"

namespace cello::mac {

namespace {

using fp::bits_of;

void check_shape(const ArrayShape& s) {
  if (s.rows < 1 || s.rows > 64 || s.cols < 1 || s.lanes < 1 || s.rf_rows < 1)
    throw Error("", "mac array shape", "rows 1..64, cols/lanes/rf_rows >= 1 required");
}

OpBeat empty_beat(const ArrayShape& s) {
  OpBeat o;
  o.a.assign(static_cast<size_t>(s.rows), 0u);
  o.b.assign(static_cast<size_t>(s.rows * s.cols), 0u);
  return o;
}

uint64_t all_rows(const ArrayShape& s) { return s.rows == 64 ? ~0ULL : ((1ULL << s.rows) - 1); }

}  // namespace

StreamProgram plan_gemm(const ArrayShape& s, const Matrix& a, const Matrix& b, const Matrix* c, float alpha) {
  check_shape(s);
  const int64_t M = a.rows, K = a.cols, N = b.cols;
  if (b.rows != K) throw Error("", "gemm", "A.cols != B.rows");
  if (K > s.rf_rows) throw Error("", "gemm", fmt::format("K = {} exceeds the register file ({} rows)", K, s.rf_rows));
  if (c && (c->rows != M || c->cols != N)) throw Error("", "gemm", "C has the wrong shape");
  if (!c && K == 0) throw Error("", "gemm", "K = 0 without C");
  StreamProgram p;
  p.shape = s;
  p.out_rows = M;
  p.out_cols = N;
  p.useful_macs = static_cast<uint64_t>(M * N * (K + (c ? 1 : 0)));
  const int R = s.rows, C = s.cols, L = s.lanes;
  const int64_t tile_rows = static_cast<int64_t>(R) * L;
  const int64_t tiles = (M + tile_rows - 1) / tile_rows;
  const int S = static_cast<int>(K) + (c ? 1 : 0);
  for (int64_t n0 = 0; n0 < N; n0 += C) {
    const int64_t nc = std::min<int64_t>(C, N - n0);
    if (K > 0) {
      p.commands.push_back({Mode::LoadRf, static_cast<uint32_t>(K), 0, false, 0});
      for (int64_t j = 0; j < K; ++j) {
        OpBeat o = empty_beat(s);
        for (int64_t q = 0; q < nc; ++q) o.b[static_cast<size_t>(q)] = bits_of(b.at(j, n0 + q));
        p.ops.push_back(std::move(o));
      }
    }
    if (tiles == 0) continue;
    p.commands.push_back({Mode::Gemm, static_cast<uint32_t>(tiles), static_cast<uint32_t>(K), c != nullptr, bits_of(alpha)});
    for (int64_t t = 0; t < tiles; ++t) {
      for (int step = 0; step < S; ++step)
        for (int l = 0; l < L; ++l) {
          OpBeat o = empty_beat(s);
          for (int r = 0; r < R; ++r) {
            int64_t m = t * tile_rows + static_cast<int64_t>(l) * R + r;
            if (m >= M) continue;
            if (c && step == 0) {
              for (int64_t q = 0; q < nc; ++q) o.b[static_cast<size_t>(r * C + q)] = bits_of(c->at(m, n0 + q));
            } else {
              o.a[static_cast<size_t>(r)] = bits_of(a.at(m, step - (c ? 1 : 0)));
            }
          }
          p.ops.push_back(std::move(o));
        }
      for (int l = 0; l < L; ++l) {
        ResultRoute rr;
        rr.mask = all_rows(s);
        rr.col0 = n0;
        rr.ncols = nc;
        for (int r = 0; r < R; ++r) {
          int64_t m = t * tile_rows + static_cast<int64_t>(l) * R + r;
          rr.dest_row.push_back(m < M ? m : -1);
        }
        p.results.push_back(std::move(rr));
      }
    }
  }
  return p;
}

StreamProgram plan_gram(const ArrayShape& s, const Matrix& a, const Matrix& b) {
  check_shape(s);
  if (a.rows != b.rows) throw Error("", "gram", "A and B have different row counts");
  const int64_t M = a.rows, N1 = a.cols, N2 = b.cols;
  StreamProgram p;
  p.shape = s;
  p.out_rows = N1;
  p.out_cols = N2;
  p.useful_macs = static_cast<uint64_t>(M * N1 * N2);
  const int R = s.rows, C = s.cols;
  for (int64_t i0 = 0; i0 < N1; i0 += R)
    for (int64_t j0 = 0; j0 < N2; j0 += C) {
      const int64_t ni = std::min<int64_t>(R, N1 - i0), nj = std::min<int64_t>(C, N2 - j0);
      p.commands.push_back({Mode::Gram, static_cast<uint32_t>(M), 0, false, 0});
      for (int64_t m = 0; m < M; ++m) {
        OpBeat o = empty_beat(s);
        for (int64_t r = 0; r < ni; ++r) o.a[static_cast<size_t>(r)] = bits_of(a.at(m, i0 + r));
        for (int64_t q = 0; q < nj; ++q) o.b[static_cast<size_t>(q)] = bits_of(b.at(m, j0 + q));
        p.ops.push_back(std::move(o));
      }
      ResultRoute rr;
      rr.mask = all_rows(s);
      rr.col0 = j0;
      rr.ncols = nj;
      for (int r = 0; r < R; ++r) rr.dest_row.push_back(r < ni ? i0 + r : -1);
      p.results.push_back(std::move(rr));
    }
  return p;
}

StreamProgram plan_spmm(const ArrayShape& s, const mtx::CsrF32& a, const Matrix& b) {
  check_shape(s);
  if (a.cols != b.rows) throw Error("", "spmm", "A.cols != B.rows");
  const int64_t M = a.rows, N = b.cols;
  StreamProgram p;
  p.shape = s;
  p.out_rows = M;
  p.out_cols = N;
  p.useful_macs = static_cast<uint64_t>(a.nnz() * N);
  const int R = s.rows, C = s.cols, L = s.lanes;
  struct Slot {
    int64_t row = -1, pos = 0;  // matrix row in progress (-1: idle), next element
  };
  for (int64_t n0 = 0; n0 < N; n0 += C) {
    const int64_t nc = std::min<int64_t>(C, N - n0);
    std::vector<Slot> slots(static_cast<size_t>(R * L));
    int64_t next_row = 0, busy = 0;
    uint32_t beats = 0;
    for (int64_t t = 0; next_row < M || busy > 0; ++t) {
      const int l = static_cast<int>(t % L);
      OpBeat o = empty_beat(s);
      ResultRoute rr;
      rr.col0 = n0;
      rr.ncols = nc;
      rr.dest_row.assign(static_cast<size_t>(R), -1);
      for (int r = 0; r < R; ++r) {
        Slot& sl = slots[static_cast<size_t>(r * L + l)];
        if (sl.row < 0 && next_row < M) {
          sl.row = next_row++;
          sl.pos = a.row_ptr[static_cast<size_t>(sl.row)];
          ++busy;
        }
        const uint64_t bit = 1ULL << r;
        if (sl.row < 0) {
          o.pad |= bit;  // nothing left for this lane
          continue;
        }
        const int64_t end = a.row_ptr[static_cast<size_t>(sl.row + 1)];
        if (sl.pos == end) {  // empty row: a pad that ends it
          o.pad |= bit;
        } else {
          o.a[static_cast<size_t>(r)] = bits_of(a.val[static_cast<size_t>(sl.pos)]);
          const int64_t k = a.col[static_cast<size_t>(sl.pos)];
          for (int64_t q = 0; q < nc; ++q) o.b[static_cast<size_t>(r * C + q)] = bits_of(b.at(k, n0 + q));
          ++sl.pos;
        }
        if (sl.pos == end) {
          o.last |= bit;
          rr.mask |= bit;
          rr.dest_row[static_cast<size_t>(r)] = sl.row;
          sl.row = -1;
          --busy;
        }
      }
      p.ops.push_back(std::move(o));
      if (rr.mask) p.results.push_back(std::move(rr));
      ++beats;
    }
    if (beats > 0) p.commands.push_back({Mode::Spmm, beats, 0, false, 0});
  }
  return p;
}

Matrix gather_results(const StreamProgram& p, const std::vector<std::vector<uint32_t>>& beats) {
  if (beats.size() != p.results.size())
    throw Error("", "results", fmt::format("{} result beats, expected {}", beats.size(), p.results.size()));
  Matrix z(p.out_rows, p.out_cols);
  const int C = p.shape.cols;
  for (size_t i = 0; i < beats.size(); ++i) {
    const ResultRoute& rr = p.results[i];
    for (int r = 0; r < p.shape.rows; ++r) {
      if (!((rr.mask >> r) & 1) || rr.dest_row[static_cast<size_t>(r)] < 0) continue;
      for (int64_t q = 0; q < rr.ncols; ++q)
        z.at(rr.dest_row[static_cast<size_t>(r)], rr.col0 + q) = fp::float_of(beats[i][static_cast<size_t>(r * C + q)]);
    }
  }
  return z;
}

}  // namespace cello::mac
