// Real matrices from ../shared/data (read in place, never copied). When a file
// is absent the test prints why and exits with 77, which CTest shows as skipped.
#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>

#include "sw/common/skip_test.hpp"
#include "sw/golden/fp32_dag.hpp"
#include "sw/golden/solvers.hpp"
#include "sw/mtx/matrix_market.hpp"
#include "sw/score/compile.hpp"
#include "sw/workloads/workloads.hpp"

using namespace cello;

namespace {

std::string data_file(const std::string& rel) {
  std::string path = std::string(CELLO_SHARED_DATA) + "/" + rel;
  if (!std::filesystem::exists(path)) {
    skip_test(path + " not found (the shared data folder is not present)");
  }
  return path;
}

std::vector<double> random_block(int64_t m, int n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> x(static_cast<size_t>(m) * n);
  for (double& v : x) v = u(rng);
  return x;
}

// Solves A X = A X_true and checks convergence and the residual recomputed from X.
golden::SolveResult solve_and_check(const std::string& method, const mtx::Csr& a, int n, double tol, int max_iters) {
  std::vector<double> b = mtx::spmm(a, random_block(a.rows, n, 11), n);
  golden::SolveOptions o;
  o.tol = tol;
  o.max_iters = max_iters;
  INFO(method << " N=" << n);
  golden::SolveResult r = method == "cg" ? golden::block_cg(a, b, n, o) : golden::block_bicgstab(a, b, n, o);
  CHECK(r.converged);
  CHECK(golden::true_relative_residual(a, r.x, b, n) < 10 * tol);
  return r;
}

}  // namespace

TEST_CASE("fv1: reader, golden solvers, and the CG schedule", "[data]") {
  mtx::MtxInfo info;
  mtx::Csr a = mtx::read_matrix_market(data_file("suitesparse/fv1.mtx"), true, &info);
  // SuiteSparse's published figures (PROVENANCE.md, CELLO Table VI): 9604 rows, 85264 nonzeros.
  CHECK(a.rows == 9604);
  CHECK(a.nnz() == 85264);
  CHECK(info.symmetry == "symmetric");
  CHECK(info.stored == 47434);
  solve_and_check("cg", a, 8, 1e-8, 2000);
  solve_and_check("bicgstab", a, 8, 1e-8, 2000);

  // fp32 CG on the real matrix: the true residual falls well below the start.
  const int n = 2;
  std::vector<double> b = mtx::spmm(a, random_block(a.rows, n, 3), n);
  std::vector<float> x32 = golden::solver_fp32("cg", a, std::vector<float>(b.begin(), b.end()),
                                               std::vector<float>(b.size(), 0.0f), n, 40, golden::Fp32Order{});
  CHECK(golden::true_relative_residual(a, std::vector<double>(x32.begin(), x32.end()), b, n) < 1e-3);

  // The schedule of `cello compile --workload cg --matrix fv1.mtx --n 8 --iters 10`.
  workloads::Params prm;
  prm.m = a.rows;
  prm.nnz = a.nnz();
  prm.n = 8;
  prm.iters = 10;
  score::Schedule s = score::compile(workloads::make_workload("cg", prm));
  std::vector<int> c = score::class_counts(s);
  // docs/score.md: per iteration 2 pipelineable (S, R); 4 delayed writeback (S 1->4,
  // R 4->7, X and R into the next iteration), only the first 2 in iteration 1; the
  // set-up op r0 multicasts R.0; everything else sequential.
  using score::EdgeClass;
  CHECK(c[static_cast<int>(EdgeClass::Pipelineable)] == 2 * 10);
  CHECK(c[static_cast<int>(EdgeClass::DelayedWriteback)] == 4 * 9 + 2);
  CHECK(c[static_cast<int>(EdgeClass::ParallelMulticast)] == 1);
  CHECK(c[static_cast<int>(EdgeClass::DelayedHold)] == 0);
  CHECK(c[static_cast<int>(EdgeClass::Sequential)] == static_cast<int>(s.dag.edges.size()) - 20 - 38 - 1);
  CHECK(s.swizzle_penalty == 0);
}

TEST_CASE("nasa4704 (gzip): reader and golden solvers", "[data]") {
  mtx::Csr a = mtx::read_matrix_market(data_file("suitesparse/nasa4704.mtx.gz"), true);
  CHECK(a.rows == 4704);
  CHECK(a.nnz() == 104756);
  // Symmetric: every stored entry has its mirror.
  for (int64_t r = 0; r < a.rows; r += 97)
    for (int64_t p = a.row_ptr[r]; p < a.row_ptr[r + 1]; ++p) {
      const int64_t c = a.col[p];
      bool found = false;
      for (int64_t q = a.row_ptr[c]; q < a.row_ptr[c + 1]; ++q) found |= a.col[q] == r && a.val[q] == a.val[p];
      REQUIRE(found);
    }
  solve_and_check("cg", a, 8, 1e-6, 20000);
  // nasa4704 is badly conditioned: block BiCGStab with N = 8 does not converge on
  // it even in double (its residual grows past 1e10 after ~4000 iterations and the
  // solver stops with "diverged"); plain BiCGStab (N = 1) converges.
  solve_and_check("bicgstab", a, 1, 1e-6, 5000);
}
