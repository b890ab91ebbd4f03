// Randomised differential test of one generated MAC-array configuration against
// the bit-exact replay (sw/mac/mac_reference.hpp). tb/mac_array/CMakeLists.txt
// builds it once per configs/tb/mac_array/<name>.json and verilates the RTL as
// Vmac; the shape and options come from the parameter header `cello gen` wrote
// beside it (CELLO_TB_PARAMS, namespace of module CELLO_TB_MODULE).
// Every run stalls the command, operand and result streams at random rates
// (one segment in three without stalls) and compares every result bit for bit.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include CELLO_TB_PARAMS
#include "sw/common/bits.hpp"
#include "sw/common/skip_test.hpp"
#include "Vmac.h"
#include "sw/fp/fp32.hpp"
#include "sw/mac/mac_reference.hpp"
#include "sw/mac/mac_stream.hpp"
#include "sw/mtx/hpcg.hpp"
#include "tb/harness/checked.hpp"
#include "tb/mac_array/mac_array_driver.hpp"

using namespace cello;
using namespace cello::tb;

namespace {

namespace P = cello::params::CELLO_TB_MODULE;
constexpr int kRows = P::rows, kCols = P::cols, kStages = P::fma_stages, kRfRows = P::rf_rows;
constexpr bool kGram = P::gram, kSpmm = P::spmm;
// The SpMM row ports (op_last, op_pad) exist only on an array built with SpMM.
#define MAC_SPMM_PORTS CELLO_HAS_PORT(CELLO_TB_MODULE, op_last)
#if MAC_SPMM_PORTS
static_assert(kSpmm, "an array without SpMM has no op_last port");
#else
static_assert(!kSpmm, "an array with SpMM has an op_last port");
#endif

const mac::ArrayShape kShape{kRows, kCols, kStages, kRfRows};
using Driver = MacArrayDriver<Vmac, kSpmm>;

// CELLO_MAC_SCALE=0.1 shrinks the large shapes for quick runs.
double scale() {
  const char* s = std::getenv("CELLO_MAC_SCALE");
  return s ? std::strtod(s, nullptr) : 1.0;
}
int64_t scaled(int64_t m) { return std::max<int64_t>(1, static_cast<int64_t>(static_cast<double>(m) * scale())); }

// Mostly moderate normals of both signs; a few exact zeros, powers of two and
// (when `specials`) subnormals, infinities and NaNs.
float random_value(Rng& rng, bool specials) {
  uint64_t k = rng.below(1000);
  if (specials && k < 4) {
    static const uint32_t sp[] = {0x00000001u, 0x807fffffu, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0x7f800123u};
    return fp::float_of(sp[rng.below(6)]);
  }
  if (k < 20) return rng.chance(0.5) ? 0.0f : -0.0f;
  if (k < 40) return std::ldexp(rng.chance(0.5) ? 1.0f : -1.0f, static_cast<int>(rng.range(0, 20)) - 10);
  uint32_t e = static_cast<uint32_t>(rng.range(110, 140));
  return fp::float_of((rng.chance(0.5) ? 0x80000000u : 0u) | (e << 23) | static_cast<uint32_t>(rng.bits(23)));
}

mac::Matrix random_matrix(Rng& rng, int64_t rows, int64_t cols, bool specials = false) {
  mac::Matrix m(rows, cols);
  for (auto& x : m.v) x = random_value(rng, specials);
  return m;
}

// Random CSR: row lengths from `max_nnz` down to 0 (some rows empty), columns
// ascending and distinct.
mtx::CsrF32 random_csr(Rng& rng, int64_t rows, int64_t cols, int64_t max_nnz, double empty_share) {
  mtx::CsrF32 a;
  a.rows = rows;
  a.cols = cols;
  for (int64_t m = 0; m < rows; ++m) {
    int64_t n = rng.chance(empty_share) ? 0 : static_cast<int64_t>(rng.range(1, static_cast<uint64_t>(std::min(max_nnz, cols))));
    std::vector<int32_t> cs;
    while (static_cast<int64_t>(cs.size()) < n) {
      int32_t c = static_cast<int32_t>(rng.below(static_cast<uint64_t>(cols)));
      if (std::find(cs.begin(), cs.end(), c) == cs.end()) cs.push_back(c);
    }
    std::sort(cs.begin(), cs.end());
    for (int32_t c : cs) {
      a.col.push_back(c);
      a.val.push_back(random_value(rng, false));
    }
    a.row_ptr.push_back(static_cast<int64_t>(a.col.size()));
  }
  return a;
}

// HPCG-style 27-point stencil on an nx*ny*nz grid (26 off-diagonal -1, diagonal 26).
bool same_bits(const mac::Matrix& a, const mac::Matrix& b, std::string& where) {
  if (a.rows != b.rows || a.cols != b.cols) {
    where = "shape differs";
    return false;
  }
  for (int64_t r = 0; r < a.rows; ++r)
    for (int64_t c = 0; c < a.cols; ++c)
      if (fp::bits_of(a.at(r, c)) != fp::bits_of(b.at(r, c))) {
        where = fmt::format("Z[{}][{}] = {:08x}, replay {:08x}", r, c, fp::bits_of(a.at(r, c)), fp::bits_of(b.at(r, c)));
        return false;
      }
  return true;
}

MacRates random_rates(Rng& rng, int segment) {
  if (segment % 3 == 0) return {};
  auto r = [&] { return 0.15 + 0.85 * static_cast<double>(rng.below(1000)) / 1000.0; };
  return {r(), r(), r()};
}

struct Bench {
  explicit Bench(uint64_t seed) : rng(seed_from_env(seed)), drv(sim, rng, kShape) {
    auto& d = sim.dut();
    d.cmd_valid = 0;
    d.op_valid = 0;
    d.res_ready = 0;
    sim.reset();
  }
  // Runs the plan and checks the gathered results against `expect`.
  MacRunStats check(const mac::StreamProgram& p, const mac::Matrix& expect, int segment, const std::string& what) {
    std::vector<std::vector<uint32_t>> beats;
    MacRunStats st = drv.run(p, random_rates(rng, segment), beats);
    mac::Matrix z = mac::gather_results(p, beats);
    std::string where;
    if (!same_bits(z, expect, where)) throw Failure(what + ": " + where);
    return st;
  }
  Sim<Vmac> sim;
  Rng rng;
  Driver drv;
};

}  // namespace

TEST_CASE("skinny GEMM with accumulate, CG shapes", "[mac][gemm]") {
  Bench b(101);
  run_checked(b, [&] {
    int seg = 0;
    for (int64_t n : {1, 2, 4, 8, 16}) {
      for (int64_t m : {int64_t{1}, int64_t{37}, scaled(n == 16 || n == 1 ? 10000 : 1500)}) {
        int64_t k = std::min<int64_t>(n, kRfRows);
        auto A = b.rng.chance(0.5) ? random_matrix(b.rng, m, k) : random_matrix(b.rng, m, k, true);
        auto B = random_matrix(b.rng, k, n);
        auto C = random_matrix(b.rng, m, n);
        // CG uses alpha = +-1 (X += P*L, R -= S*L, P = R + P*F); also a general alpha.
        float alpha = seg % 3 == 0 ? 1.0f : (seg % 3 == 1 ? -1.0f : random_value(b.rng, false));
        auto p = mac::plan_gemm(kShape, A, B, &C, alpha);
        b.check(p, mac::gemm_replay(A, B, &C, alpha), seg++, fmt::format("GEMM M={} K={} N={}", m, k, n));
      }
    }
  });
}

TEST_CASE("plain GEMM without C, every K", "[mac][gemm]") {
  Bench b(102);
  run_checked(b, [&] {
    int seg = 0;
    for (int64_t k = 1; k <= kRfRows; ++k) {
      int64_t n = static_cast<int64_t>(b.rng.range(1, 2 * kCols + 1));
      int64_t m = static_cast<int64_t>(b.rng.range(1, 5 * kRows * kStages));
      auto A = random_matrix(b.rng, m, k, true), B = random_matrix(b.rng, k, n, true);
      auto p = mac::plan_gemm(kShape, A, B, nullptr, 0.0f);
      b.check(p, mac::gemm_replay(A, B, nullptr, 0.0f), seg++, fmt::format("GEMM M={} K={} N={}", m, k, n));
    }
    // K = 0 with C: Z = alpha*C.
    auto A = random_matrix(b.rng, 20, 0), B = random_matrix(b.rng, 0, 3), C = random_matrix(b.rng, 20, 3, true);
    auto p = mac::plan_gemm(kShape, A, B, &C, -2.5f);
    b.check(p, mac::gemm_replay(A, B, &C, -2.5f), seg++, "GEMM K=0");
  });
}

TEST_CASE("Gram / long reduction, CG shapes", "[mac][gram]") {
  if (!kGram) cello::skip_test("the array is built without the Gram hardware");
  Bench b(201);
  run_checked(b, [&] {
    int seg = 0;
    for (int64_t n : {1, 2, 4, 8, 16}) {
      for (int64_t m : {int64_t{0}, int64_t{1}, int64_t{kStages - 1 > 0 ? kStages - 1 : 1}, int64_t{53},
                        scaled(n == 16 || n == 1 ? 10000 : 2000)}) {
        auto A = random_matrix(b.rng, m, n), B = random_matrix(b.rng, m, n);
        auto p = mac::plan_gram(kShape, A, B);
        b.check(p, mac::gram_replay(A, B, kStages), seg++, fmt::format("Gram M={} N={}", m, n));
      }
    }
    // Different widths (P^T S with different blocks) and special values.
    auto A = random_matrix(b.rng, 300, 3, true), B = random_matrix(b.rng, 300, 7, true);
    auto p = mac::plan_gram(kShape, A, B);
    b.check(p, mac::gram_replay(A, B, kStages), seg++, "Gram 300x3 by 300x7");
  });
}

#if MAC_SPMM_PORTS
TEST_CASE("CSR SpMM rows: ragged, empty and stencil rows, CG shapes", "[mac][spmm]") {
  Bench b(301);
  run_checked(b, [&] {
    int seg = 0;
    for (int64_t n : {1, 2, 4, 8, 16}) {
      auto A = random_csr(b.rng, scaled(n == 1 ? 10000 : 600), 500, 30, 0.15);
      auto B = random_matrix(b.rng, 500, n);
      auto p = mac::plan_spmm(kShape, A, B);
      b.check(p, mac::spmm_replay(A, B), seg++, fmt::format("SpMM random M={} N={}", A.rows, n));
    }
    auto S = mtx::convert_values<float>(mtx::hpcg_stencil(10, 10, 10));
    for (int64_t n : {4, 16}) {
      auto B = random_matrix(b.rng, S.cols, n);
      auto p = mac::plan_spmm(kShape, S, B);
      b.check(p, mac::spmm_replay(S, B), seg++, fmt::format("SpMM stencil N={}", n));
    }
    // All rows empty, a single row, and very long rows.
    auto E = random_csr(b.rng, 23, 40, 1, 1.0);
    auto BE = random_matrix(b.rng, 40, 3);
    b.check(mac::plan_spmm(kShape, E, BE), mac::spmm_replay(E, BE), seg++, "SpMM all rows empty");
    auto Lr = random_csr(b.rng, 5, 400, 400, 0.0);
    auto BL = random_matrix(b.rng, 400, 2, true);
    b.check(mac::plan_spmm(kShape, Lr, BL), mac::spmm_replay(Lr, BL), seg++, "SpMM long rows");
  });
}
#endif

TEST_CASE("mixed command sequence with results in flight across modes", "[mac]") {
  Bench b(401);
  run_checked(b, [&] {
    for (int round = 0; round < 6; ++round) {
      // Concatenate several plans into one program so commands follow each other
      // back to back; each part is checked against its own replay.
      std::vector<mac::StreamProgram> parts;
      std::vector<mac::Matrix> expect;
      for (int i = 0; i < 5; ++i) {
        uint64_t kind = b.rng.below(3);
        if (kind == 1 && !kGram) kind = 0;
        if (kind == 2 && !kSpmm) kind = 0;
        if (kind == 0) {
          int64_t k = static_cast<int64_t>(b.rng.range(1, kRfRows)), n = static_cast<int64_t>(b.rng.range(1, kCols));
          int64_t m = static_cast<int64_t>(b.rng.range(1, 3 * kRows * kStages));
          auto A = random_matrix(b.rng, m, k), B = random_matrix(b.rng, k, n), C = random_matrix(b.rng, m, n);
          bool with_c = b.rng.chance(0.5);
          parts.push_back(mac::plan_gemm(kShape, A, B, with_c ? &C : nullptr, 0.5f));
          expect.push_back(mac::gemm_replay(A, B, with_c ? &C : nullptr, 0.5f));
        } else if (kind == 1) {
          int64_t m = static_cast<int64_t>(b.rng.range(0, 40));
          auto A = random_matrix(b.rng, m, static_cast<int64_t>(b.rng.range(1, kRows)));
          auto B = random_matrix(b.rng, m, static_cast<int64_t>(b.rng.range(1, kCols)));
          parts.push_back(mac::plan_gram(kShape, A, B));
          expect.push_back(mac::gram_replay(A, B, kStages));
        } else {
          auto A = random_csr(b.rng, static_cast<int64_t>(b.rng.range(1, 30)), 20, 8, 0.3);
          auto B = random_matrix(b.rng, 20, static_cast<int64_t>(b.rng.range(1, kCols)));
          parts.push_back(mac::plan_spmm(kShape, A, B));
          expect.push_back(mac::spmm_replay(A, B));
        }
      }
      mac::StreamProgram all;
      all.shape = kShape;
      for (const auto& q : parts) {
        all.commands.insert(all.commands.end(), q.commands.begin(), q.commands.end());
        all.ops.insert(all.ops.end(), q.ops.begin(), q.ops.end());
        all.results.insert(all.results.end(), q.results.begin(), q.results.end());
      }
      std::vector<std::vector<uint32_t>> beats;
      b.drv.run(all, random_rates(b.rng, round), beats);
      size_t at = 0;
      for (size_t i = 0; i < parts.size(); ++i) {
        std::vector<std::vector<uint32_t>> mine(beats.begin() + static_cast<long>(at),
                                                beats.begin() + static_cast<long>(at + parts[i].results.size()));
        at += parts[i].results.size();
        std::string where;
        if (!same_bits(mac::gather_results(parts[i], mine), expect[i], where))
          throw Failure(fmt::format("round {} part {}: {}", round, i, where));
      }
    }
  });
}

TEST_CASE("illegal commands are reported and dropped, never hang", "[mac]") {
  Bench b(501);
  run_checked(b, [&] {
    struct Bad {
      const char* what;
      mac::Command c;
    };
    std::vector<Bad> bad = {
        {"GEMM with K = 0 and no C", {mac::Mode::Gemm, 1, 0, false, 0}},
        {"LOAD_RF of more rows than the register file has", {mac::Mode::LoadRf, kRfRows + 1, 0, false, 0}},
    };
    // cmd_k is just wide enough for rf_rows; K = rf_rows + 1 only exists when it fits.
    const int k_bits = cello::bits_for(kRfRows);
    if (kRfRows + 1 < (1 << k_bits))
      bad.push_back({"GEMM with K beyond the register file", {mac::Mode::Gemm, 1, kRfRows + 1, false, 0}});
    if (!kGram) bad.push_back({"Gram on an array built without it", {mac::Mode::Gram, 4, 0, false, 0}});
    if (!kSpmm) bad.push_back({"SpMM on an array built without it", {mac::Mode::Spmm, 4, 0, false, 0}});
    for (const auto& x : bad) {
      Bench fresh(502);
      INFO(x.what);
      CHECK((fresh.drv.probe_command(x.c) & 1u) == 1u);
      CHECK(fresh.sim.dut().busy == 0);
      // The array still works afterwards (the error bit is sticky, so read it once).
    }
#if MAC_SPMM_PORTS
    // An SpMM command that stops inside a row sets bit 1.
    {
      Bench fresh(503);
      const mac::OpBeat open_row;  // one beat, last of no row
      CHECK((fresh.drv.probe_command({mac::Mode::Spmm, 1, 0, false, 0}, &open_row) & 2u) == 2u);
    }
#endif
  });
}

TEST_CASE("unstalled streams keep the array busy", "[mac][perf]") {
  Bench b(601);
  run_checked(b, [&] {
    // Shapes that fill the array: N = C columns, K = register-file rows, M long.
    const int64_t m = scaled(4000);
    auto A = random_matrix(b.rng, m, kRfRows), B = random_matrix(b.rng, kRfRows, kCols), C = random_matrix(b.rng, m, kCols);
    std::vector<std::vector<uint32_t>> beats;
    auto pg = mac::plan_gemm(kShape, A, B, &C, 1.0f);
    auto st = b.drv.run(pg, MacRates{}, beats);
    double util = static_cast<double>(st.useful_macs) / (static_cast<double>(st.cycles) * kRows * kCols);
    INFO("GEMM utilisation " << util);
    CHECK(util >= 0.95);
    if (kGram) {
      auto G1 = random_matrix(b.rng, m, kRows), G2 = random_matrix(b.rng, m, kCols);
      auto pr = mac::plan_gram(kShape, G1, G2);
      st = b.drv.run(pr, MacRates{}, beats);
      util = static_cast<double>(st.useful_macs) / (static_cast<double>(st.cycles) * kRows * kCols);
      INFO("Gram utilisation " << util);
      CHECK(util >= 0.95);
    }
  });
}
