// Golden references on the HPCG problem: double-precision block CG and BiCGStab
// converge and satisfy A x = b; the fp32 DAG runner follows its documented
// operation order bit for bit and its CG/BiCGStab converge too.
#include <catch2/catch.hpp>
#include <cmath>
#include <random>

#include "sw/common/error.hpp"
#include "sw/fp/fp32.hpp"
#include "sw/golden/fp32_dag.hpp"
#include "sw/golden/solvers.hpp"
#include "sw/ir/cello_format.hpp"
#include "sw/mtx/hpcg.hpp"

using namespace cello;

namespace {

struct Problem {
  mtx::Csr a;
  std::vector<double> x_true, b;
  int n;
};

// B = A X_true for a seeded random X_true (independent columns: block CG needs them).
Problem make_problem(mtx::Csr a, int n, uint64_t seed) {
  Problem p{std::move(a), {}, {}, n};
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  p.x_true.resize(static_cast<size_t>(p.a.rows) * n);
  for (double& v : p.x_true) v = u(rng);
  p.b = mtx::spmm(p.a, p.x_true, n);
  return p;
}

double max_rel_error(const std::vector<double>& x, const std::vector<double>& ref) {
  double num = 0, den = 0;
  for (size_t i = 0; i < x.size(); ++i) num = std::max(num, std::fabs(x[i] - ref[i])), den = std::max(den, std::fabs(ref[i]));
  return num / den;
}

std::vector<float> to_float(const std::vector<double>& v) { return std::vector<float>(v.begin(), v.end()); }
std::vector<double> to_double(const std::vector<float>& v) { return std::vector<double>(v.begin(), v.end()); }

}  // namespace

TEST_CASE("double block CG and BiCGStab solve the HPCG problem", "[golden]") {
  for (int n : {1, 4, 8}) {
    Problem pb = make_problem(mtx::hpcg_stencil(12, 12, 12), n, 42 + n);
    golden::SolveOptions o;
    o.tol = 1e-10;
    o.max_iters = 500;
    for (const char* method : {"cg", "bicgstab"}) {
      INFO(method << " N=" << n);
      golden::SolveResult r = std::string(method) == "cg" ? golden::block_cg(pb.a, pb.b, n, o)
                                                          : golden::block_bicgstab(pb.a, pb.b, n, o);
      CHECK(r.converged);
      CHECK(r.stop == "converged");
      CHECK(r.iters < 100);
      // Direct check, independent of the solver's recurrences.
      CHECK(golden::true_relative_residual(pb.a, r.x, pb.b, n) < 1e-9);
      CHECK(max_rel_error(r.x, pb.x_true) < 1e-7);
      // The recurrence residual falls (CG monotonically in the A-norm; check the trend).
      REQUIRE(r.history.size() >= 2);
      CHECK(r.history.back() < r.history.front());
    }
  }
}

TEST_CASE("golden solvers report non-convergence and bad shapes", "[golden]") {
  Problem pb = make_problem(mtx::hpcg_stencil(8, 8, 8), 2, 1);
  golden::SolveOptions o;
  o.max_iters = 2;
  o.tol = 1e-12;
  golden::SolveResult r = golden::block_cg(pb.a, pb.b, 2, o);
  CHECK_FALSE(r.converged);
  CHECK(r.stop == "max_iters");
  CHECK_THROWS_AS(golden::block_cg(pb.a, std::vector<double>(5), 2, o), Error);
  // Identical columns make P^T A P singular: a clean breakdown, not NaNs.
  std::vector<double> b2(static_cast<size_t>(pb.a.rows) * 2);
  for (int64_t i = 0; i < pb.a.rows; ++i) b2[2 * i] = b2[2 * i + 1] = pb.b[2 * i];
  golden::SolveResult s = golden::block_cg(pb.a, b2, 2, golden::SolveOptions{});
  CHECK_FALSE(s.converged);
  CHECK(s.stop.rfind("breakdown", 0) == 0);
}

TEST_CASE("fp32 contraction follows the documented order bit for bit", "[golden][fp32]") {
  // Z[m,n] = 0.5 * C[m,n] - A[m,j] * B[j,n], values that make rounding order visible.
  const int M = 3, J = 37, N = 2;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<float> a(M * J), b(J * N), c(M * N);
  for (float& v : a) v = u(rng) * 1e3f;
  for (float& v : b) v = u(rng);
  for (float& v : c) v = u(rng);
  ir::Program p = ir::parse_cello(
      "rank m = 3\nrank j = 37\nrank n = 2\ninput A[m,j]\ninput B[j,n]\ninput C[m,n]\n"
      "op z: Z[m,n] = 0.5 * C[m,n] - A[m,j] * B[j,n]\n");
  golden::Fp32Inputs in;
  in.dense = {{"A", a}, {"B", b}, {"C", c}};
  const int z = *p.find_tensor("Z");
  for (int lanes : {1, 2, 5}) {
    for (bool tree : {false, true}) {
      for (bool acc_first : {true, false}) {
        golden::Fp32Order o;
        o.lanes = lanes;
        o.tree = tree;
        o.acc_first = acc_first;
        std::vector<float> got = golden::run_fp32(p, in, o)[z];
        for (int mi = 0; mi < M; ++mi)
          for (int ni = 0; ni < N; ++ni) {
            // Written out from the spec in sw/golden/fp32_dag.hpp.
            const float cz = fp::mul32(0.5f, c[mi * N + ni]);
            std::vector<float> l(lanes, 0.0f);
            if (acc_first) l[0] = cz;
            for (int q = 0; q < J; ++q) {
              float& t = l[q % lanes];
              t = acc_first ? fp::fma32(fp::mul32(-1.0f, a[mi * J + q]), b[q * N + ni], t)
                            : fp::fma32(a[mi * J + q], b[q * N + ni], t);
            }
            float sum;
            if (!tree) {
              sum = l[0];
              for (int k = 1; k < lanes; ++k) sum = fp::add32(sum, l[k]);
            } else {
              while (l.size() > 1) {
                std::vector<float> h;
                for (size_t k = 0; k + 1 < l.size(); k += 2) h.push_back(fp::add32(l[k], l[k + 1]));
                if (l.size() % 2) h.push_back(l.back());
                l = h;
              }
              sum = l[0];
            }
            const float want = acc_first ? sum : fp::fma32(-1.0f, sum, cz);
            INFO("lanes " << lanes << " tree " << tree << " acc_first " << acc_first);
            REQUIRE(fp::bits_of(got[mi * N + ni]) == fp::bits_of(want));
          }
      }
    }
  }
  // The order is a real parameter: some element changes with the lane count.
  golden::Fp32Order one, four;
  four.lanes = 4;
  CHECK(golden::run_fp32(p, in, one)[z] != golden::run_fp32(p, in, four)[z]);
}

TEST_CASE("fp32 SpMM walks each row in CSR order or reversed", "[golden][fp32]") {
  mtx::Csr a = mtx::hpcg_stencil(3, 3, 1);  // rows with 4, 6 and 9 nonzeros
  ir::Program p = ir::parse_cello("rank m = 9\nrank k = m\nrank n = 2\ninput A[m,k] csr nnz=49\ninput P[m,n]\n"
                                  "op s: S[m,n] = A[m,k] * P[k,n]\n");
  std::vector<float> x(18);
  for (int i = 0; i < 18; ++i) x[i] = 1.0f / static_cast<float>(3 + i * 7);
  golden::Fp32Inputs in;
  in.csr["A"] = &a;
  in.dense["P"] = x;
  for (bool rev : {false, true}) {
    golden::Fp32Order o;
    o.reverse_csr = rev;
    std::vector<float> got = golden::run_fp32(p, in, o)[*p.find_tensor("S")];
    for (int r = 0; r < 9; ++r)
      for (int c = 0; c < 2; ++c) {
        float t = 0.0f;
        for (int64_t k = 0; k < a.row_ptr[r + 1] - a.row_ptr[r]; ++k) {
          int64_t q = rev ? a.row_ptr[r + 1] - 1 - k : a.row_ptr[r] + k;
          t = fp::fma32(static_cast<float>(a.val[q]), x[a.col[q] * 2 + c], t);
        }
        REQUIRE(fp::bits_of(got[r * 2 + c]) == fp::bits_of(t));
      }
  }
}

TEST_CASE("fp32 windows and transposes follow their definitions", "[golden][fp32]") {
  // Y[h,k] = relu(I[h+r,c] * W[r,c,k]) with "same" padding: I is read at h+r-1, zero outside.
  const int H = 5, R = 3, C = 2, K = 2;
  std::vector<float> img(H * C), w(R * C * K);
  for (int i = 0; i < H * C; ++i) img[i] = 0.25f * static_cast<float>(i) - 1.1f;
  for (int i = 0; i < R * C * K; ++i) w[i] = 0.5f - 0.125f * static_cast<float>(i);
  ir::Program p = ir::parse_cello(
      "rank h = 5\nrank r = 3\nrank c = 2\nrank k = 2\ninput I[h,c]\ninput W[r,c,k]\n"
      "op y: Y[h,k] = relu(I[h+r,c] * W[r,c,k])\nop t: T[k,h] = -2 * Y[h,k]\n");
  golden::Fp32Inputs in;
  in.dense = {{"I", img}, {"W", w}};
  auto v = golden::run_fp32(p, in, {});
  const auto& y = v[*p.find_tensor("Y")];
  const auto& t = v[*p.find_tensor("T")];
  for (int h = 0; h < H; ++h)
    for (int k = 0; k < K; ++k) {
      float acc = 0.0f;  // contracted ranks r (slow) then c (fast), as they first appear
      for (int r = 0; r < R; ++r)
        for (int c = 0; c < C; ++c) {
          const int row = h + r - 1;
          const float x = row < 0 || row >= H ? 0.0f : img[row * C + c];
          acc = fp::fma32(x, w[(r * C + c) * K + k], acc);
        }
      const float want = acc < 0.0f ? 0.0f : acc;
      REQUIRE(fp::bits_of(y[h * K + k]) == fp::bits_of(want));
      REQUIRE(fp::bits_of(t[k * H + h]) == fp::bits_of(fp::mul32(-2.0f, want)));
    }
}

TEST_CASE("fp32 host solve agrees with the double solve", "[golden][fp32]") {
  const int n = 8, r = 3;
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> d(n * n), g(n * r), x;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) d[i * n + j] = u(rng) + (i == j ? 4 : 0);
  for (double& v : g) v = u(rng);
  REQUIRE(golden::solve_dense(d, g, n, r, x));
  std::vector<float> xf = golden::solve32(to_float(d), to_float(g), n, r);
  for (size_t i = 0; i < x.size(); ++i) CHECK(std::fabs(xf[i] - x[i]) < 1e-5);
  // Check the solution itself: D x = g.
  for (int i = 0; i < n; ++i)
    for (int q = 0; q < r; ++q) {
      double s = 0;
      for (int j = 0; j < n; ++j) s += d[i * n + j] * x[j * r + q];
      CHECK(std::fabs(s - g[i * r + q]) < 1e-12);
    }
}

TEST_CASE("fp32 block CG and BiCGStab converge on the HPCG problem", "[golden][fp32]") {
  const int n = 4;
  Problem pb = make_problem(mtx::hpcg_stencil(8, 8, 8), n, 5);
  const std::vector<float> b32 = to_float(pb.b), x0(pb.b.size(), 0.0f);
  for (const char* method : {"cg", "bicgstab"}) {
    for (int lanes : {1, 16}) {
      golden::Fp32Order o;
      o.lanes = lanes;
      o.tree = lanes > 1;
      std::vector<double> x = to_double(golden::solver_fp32(method, pb.a, b32, x0, n, 12, o));
      INFO(method << " lanes " << lanes);
      CHECK(golden::true_relative_residual(pb.a, x, pb.b, n) < 1e-4);
      CHECK(max_rel_error(x, pb.x_true) < 1e-4);
    }
  }
  // Missing inputs are reported, not read out of bounds.
  ir::Program p = ir::parse_cello("rank m = 2\ninput A[m]\nop x: Z[m] = 2 * A[m]\n");
  CHECK_THROWS_WITH(golden::run_fp32(p, {}, {}), "tensor 'A': missing dense input");
}
