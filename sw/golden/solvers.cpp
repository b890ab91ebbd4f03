#include "sw/golden/solvers.hpp"

#include <algorithm>
#include <cmath>

#include "sw/common/error.hpp"

namespace cello::golden {

namespace {
using Vec = std::vector<double>;

// A recurrence residual this many times |b| (or NaN) will not come back.
constexpr double kDiverged = 1e10;

// Z[i,j] = sum_k X[k,i] * Y[k,j]  (M x N)^T (M x N) -> N x N
Vec gram(const Vec& x, const Vec& y, int64_t m, int n) {
  Vec g(static_cast<size_t>(n) * n, 0.0);
  for (int64_t k = 0; k < m; ++k)
    for (int i = 0; i < n; ++i) {
      const double xi = x[k * n + i];
      for (int j = 0; j < n; ++j) g[i * n + j] += xi * y[k * n + j];
    }
  return g;
}

// Z = C + s * X W  with X: M x N, W: N x N
Vec gemm_acc(const Vec& c, double s, const Vec& x, const Vec& w, int64_t m, int n) {
  Vec z = c;
  for (int64_t r = 0; r < m; ++r)
    for (int j = 0; j < n; ++j) {
      double acc = 0;
      for (int q = 0; q < n; ++q) acc += x[r * n + q] * w[q * n + j];
      z[r * n + j] += s * acc;
    }
  return z;
}

Vec sub(const Vec& a, const Vec& b) {
  Vec z(a.size());
  for (size_t i = 0; i < a.size(); ++i) z[i] = a[i] - b[i];
  return z;
}

Vec column_norms(const Vec& x, int64_t m, int n) {
  Vec s(n, 0.0);
  for (int64_t r = 0; r < m; ++r)
    for (int j = 0; j < n; ++j) s[j] += x[r * n + j] * x[r * n + j];
  for (double& v : s) v = std::sqrt(v);
  return s;
}

double worst_ratio(const Vec& r, const Vec& bn, int64_t m, int n) {
  Vec rn = column_norms(r, m, n);
  double w = 0;
  for (int j = 0; j < n; ++j) w = std::max(w, bn[j] > 0 ? rn[j] / bn[j] : rn[j]);
  return w;
}

void check_shapes(const mtx::Csr& a, const Vec& b, int n, const Vec* x0) {
  if (!a.square()) throw Error("", "golden", "the matrix must be square");
  if (n < 1 || b.size() != static_cast<size_t>(a.rows) * n) throw Error("", "golden", "B must be M x N");
  if (x0 && x0->size() != b.size()) throw Error("", "golden", "X0 must be M x N");
}

// The state both solvers start from, once the shapes are checked: X = X0 (or 0),
// the column norms of B, and the residual R = B - A X.
struct Start {
  SolveResult res;
  Vec b_norms;
  Vec r;
};
Start start(const mtx::Csr& a, const Vec& b, int n, const Vec* x0) {
  check_shapes(a, b, n, x0);
  Start s;
  s.res.x = x0 ? *x0 : Vec(b.size(), 0.0);
  s.b_norms = column_norms(b, a.rows, n);
  s.r = sub(b, mtx::spmm(a, s.res.x, n));
  return s;
}

// Ends a solve, saying why it stopped; only "converged" marks it converged.
SolveResult stopped(SolveResult& res, const std::string& why) {
  res.converged = why == "converged";
  res.stop = why;
  return std::move(res);
}

// Records an iteration's residual ratio; true when it has diverged (or is NaN).
bool diverged_after(SolveResult& res, double ratio) {
  res.history.push_back(ratio);
  return !(ratio < kDiverged);
}
}  // namespace

bool solve_dense(Vec d, Vec g, int n, int r, Vec& x) {
  double scale = 0;
  for (double v : d) scale = std::max(scale, std::fabs(v));
  for (int c = 0; c < n; ++c) {
    int piv = c;
    for (int i = c + 1; i < n; ++i)
      if (std::fabs(d[i * n + c]) > std::fabs(d[piv * n + c])) piv = i;
    if (!(std::fabs(d[piv * n + c]) > 1e-14 * scale)) return false;
    if (piv != c) {
      for (int q = 0; q < n; ++q) std::swap(d[c * n + q], d[piv * n + q]);
      for (int q = 0; q < r; ++q) std::swap(g[c * r + q], g[piv * r + q]);
    }
    for (int i = c + 1; i < n; ++i) {
      const double f = d[i * n + c] / d[c * n + c];
      for (int q = c; q < n; ++q) d[i * n + q] -= f * d[c * n + q];
      for (int q = 0; q < r; ++q) g[i * r + q] -= f * g[c * r + q];
    }
  }
  x.assign(static_cast<size_t>(n) * r, 0.0);
  for (int i = n - 1; i >= 0; --i)
    for (int q = 0; q < r; ++q) {
      double s = g[i * r + q];
      for (int c = i + 1; c < n; ++c) s -= d[i * n + c] * x[c * r + q];
      x[i * r + q] = s / d[i * n + i];
    }
  return true;
}

double true_relative_residual(const mtx::Csr& a, const Vec& x, const Vec& b, int n) {
  Vec r = sub(b, mtx::spmm(a, x, n));
  return worst_ratio(r, column_norms(b, a.rows, n), a.rows, n);
}

SolveResult block_cg(const mtx::Csr& a, const Vec& b, int n, const SolveOptions& o, const Vec* x0) {
  auto [res, bn, r] = start(a, b, n, x0);  // R = B - A X
  const int64_t m = a.rows;
  Vec gamma = gram(r, r, m, n);           // Gamma = R^T R
  Vec p = r;                              // P = R
  auto done = [&](const Vec& g) {
    for (int j = 0; j < n; ++j)
      if (g[j * n + j] > o.tol * o.tol * bn[j] * bn[j]) return false;
    return true;
  };
  if (done(gamma)) return stopped(res, "converged");
  for (res.iters = 1; res.iters <= o.max_iters; ++res.iters) {
    Vec s = mtx::spmm(a, p, n);            // 1: S = A P
    Vec delta = gram(p, s, m, n);          // 2: Delta = P^T S
    Vec lambda;                            //    Lambda = Delta^-1 Gamma
    if (!solve_dense(delta, gamma, n, n, lambda)) return stopped(res, "breakdown: P^T A P is singular");
    res.x = gemm_acc(res.x, 1.0, p, lambda, m, n);  // 3: X = X + P Lambda
    r = gemm_acc(r, -1.0, s, lambda, m, n);         // 4: R = R - S Lambda
    Vec gamma_prev = gamma;
    gamma = gram(r, r, m, n);                        // 5: Gamma = R^T R
    if (diverged_after(res, worst_ratio(r, bn, m, n))) return stopped(res, "diverged");
    if (done(gamma)) return stopped(res, "converged");
    Vec phi;                                         // 6: Phi = Gamma_prev^-1 Gamma
    if (!solve_dense(gamma_prev, gamma, n, n, phi)) return stopped(res, "breakdown: R^T R is singular");
    p = gemm_acc(r, 1.0, p, phi, m, n);              // 7: P = R + P Phi
  }
  res.iters = o.max_iters;
  return stopped(res, "max_iters");
}

SolveResult block_bicgstab(const mtx::Csr& a, const Vec& b, int n, const SolveOptions& o, const Vec* x0) {
  auto [res, bn, r] = start(a, b, n, x0);
  const int64_t m = a.rows;
  const Vec r0 = r;  // shadow residual
  Vec p = r;
  if (worst_ratio(r, bn, m, n) <= o.tol) return stopped(res, "converged");
  for (res.iters = 1; res.iters <= o.max_iters; ++res.iters) {
    Vec v = mtx::spmm(a, p, n);                      // V = A P
    Vec gv = gram(r0, v, m, n), gr = gram(r0, r, m, n);
    Vec alpha;
    if (!solve_dense(gv, gr, n, n, alpha)) return stopped(res, "breakdown: R0^T A P is singular");
    Vec s = gemm_acc(r, -1.0, v, alpha, m, n);       // S = R - V alpha
    Vec t = mtx::spmm(a, s, n);                      // T = A S
    Vec ts = gram(t, s, m, n), tt = gram(t, t, m, n);
    double trs = 0, trt = 0;
    for (int j = 0; j < n; ++j) trs += ts[j * n + j], trt += tt[j * n + j];
    if (!(trt > 0)) {
      // T = 0 means S = 0: X + P alpha is the solution.
      res.x = gemm_acc(res.x, 1.0, p, alpha, m, n);
      return stopped(res, "converged");
    }
    const double omega = trs / trt;
    Vec om(static_cast<size_t>(n) * n, 0.0);
    for (int j = 0; j < n; ++j) om[j * n + j] = omega;
    res.x = gemm_acc(gemm_acc(res.x, 1.0, p, alpha, m, n), 1.0, s, om, m, n);  // X += P alpha + S omega
    r = gemm_acc(s, -1.0, t, om, m, n);                                          // R = S - T omega
    if (diverged_after(res, worst_ratio(r, bn, m, n))) return stopped(res, "diverged");
    if (res.history.back() <= o.tol) return stopped(res, "converged");
    if (omega == 0) return stopped(res, "breakdown: omega = 0");
    Vec gt = gram(r0, t, m, n), beta;
    if (!solve_dense(gv, gt, n, n, beta)) return stopped(res, "breakdown: R0^T A P is singular");
    Vec pt = gemm_acc(p, -1.0, v, om, m, n);        // Pt = P - V omega
    p = gemm_acc(r, -1.0, pt, beta, m, n);          // P = R - Pt beta
  }
  res.iters = o.max_iters;
  return stopped(res, "max_iters");
}

}  // namespace cello::golden
