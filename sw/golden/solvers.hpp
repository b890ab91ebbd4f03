// Double-precision golden solvers for convergence checks: block CG exactly as
// CELLO Algorithm 1 and block BiCGStab (the op sequence of the bicgstab
// workload). Blocks are row-major M x N (the [m,n] layout of the tensor DAG).
// Converged: every column's residual norm <= tol * that column's |b| (for CG
// the test is diag(Gamma) against tol^2 diag(B^T B), as in Algorithm 1).
#pragma once

#include <string>
#include <vector>

#include "sw/mtx/csr.hpp"

namespace cello::golden {

struct SolveOptions {
  int max_iters = 1000;
  double tol = 1e-8;
};

struct SolveResult {
  std::vector<double> x;          // M x N
  int iters = 0;                  // loop iterations run
  bool converged = false;
  std::string stop;               // "converged", "max_iters", "diverged", "breakdown: ..."
  std::vector<double> history;    // per iteration: max over columns of |r_j| / |b_j| (recurrence residual)
};

SolveResult block_cg(const mtx::Csr& a, const std::vector<double>& b, int n, const SolveOptions& o,
                     const std::vector<double>* x0 = nullptr);
SolveResult block_bicgstab(const mtx::Csr& a, const std::vector<double>& b, int n, const SolveOptions& o,
                           const std::vector<double>* x0 = nullptr);

// max over columns of |b_j - (A x)_j| / |b_j|, recomputed from scratch.
double true_relative_residual(const mtx::Csr& a, const std::vector<double>& x, const std::vector<double>& b, int n);

// Solves D X = G for N x N row-major D and N x R G (partial pivoting).
// Returns false when D is singular to working precision.
bool solve_dense(std::vector<double> d, std::vector<double> g, int n, int r, std::vector<double>& x);

}  // namespace cello::golden
