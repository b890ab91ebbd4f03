#include "sw/workloads/workloads.hpp"

#include <fmt/core.h>

#include "sw/common/error.hpp"
#include "sw/ir/cello_format.hpp"
#include "sw/mtx/hpcg.hpp"

namespace cello::workloads {

// Each workload's text up to its output line (workload_text adds it).
std::string cg_text(const Params& p);
std::string bicgstab_text(const Params& p);
std::string gcn_text(const Params& p);
std::string resnet_text(const Params& p);

const std::vector<std::string>& names() {
  static const std::vector<std::string> n{"cg", "bicgstab", "gcn", "resnet"};
  return n;
}

Params default_params(const std::string& name) {
  Params p;
  if (name == "gcn") {
    p.m = 2708;
    p.nnz = 9464;
    p.n = 1433;
    p.o = 7;
  } else if (name == "resnet") {
    p.n = 128;
    p.hw = 28;
  } else {
    // The embedded default problem: the HPCG stencil on a 16^3 grid.
    p.m = 16 * 16 * 16;
    p.nnz = mtx::hpcg_nnz(16, 16, 16);
  }
  return p;
}

std::string workload_text(const std::string& name, const Params& p) {
  // 1000 iterations compile in about a second into a ~20 MB schedule; the old
  // maximum (100000) took over a minute and gigabytes.
  if (p.iters < 1 || p.iters > 1000) throw Error("", "--iters", "iterations must be between 1 and 1000");
  if (p.n < 1 || p.o < 1 || p.hw < 1) throw Error("", name, "sizes must be positive");
  if (name == "cg" || name == "bicgstab" || name == "gcn") {
    if (p.m < 1) throw Error("", name, "the matrix needs at least one row");
    if (p.nnz < 0 || static_cast<double>(p.nnz) > static_cast<double>(p.m) * static_cast<double>(p.m))
      throw Error("", name, "nnz out of range 0..M*M");
  }
  // Every built-in workload's output is its last iterate, X.<iterations>.
  const std::string output = fmt::format("output X.{}\n", p.iters);
  if (name == "cg") return cg_text(p) + output;
  if (name == "bicgstab") return bicgstab_text(p) + output;
  if (name == "gcn") return gcn_text(p) + output;
  if (name == "resnet") return resnet_text(p) + output;
  throw Error("", "--workload", "unknown workload '" + name + "' (cg, bicgstab, gcn, resnet)");
}

ir::Program make_workload(const std::string& name, const Params& p) {
  return ir::parse_cello(workload_text(name, p), "<workload " + name + ">");
}

namespace {

// The start both block Krylov solvers share: the title comment, the ranks (n2
// and j stand for N), the inputs A, B and X.0, and the initial residual
// R.0 = B - A X.0.
std::string krylov_preamble(const std::string& title, const std::string& workload, const Params& p) {
  return fmt::format(
      "# {}: M={} nnz={} N={} iterations={}\n"
      "workload {}\n"
      "rank m = {}\nrank k = m\nrank n = {}\nrank n2 = n\nrank j = n\n"
      "input A[m,k] csr nnz={}\ninput B[m,n]\ninput X.0[m,n]\n"
      "op r0 line=0: R.0[m,n] = B[m,n] - A[m,k] * X.0[k,n]\n",
      title, p.m, p.nnz, p.n, p.iters, workload, p.m, p.n, p.nnz);
}

// The search direction iteration i reads: "P = R" before the loop is a rename,
// so iteration 1 reads R.0 and iteration i > 1 the P.(i-1) its predecessor wrote.
std::string direction_read_in(int i) { return i == 1 ? "R.0" : fmt::format("P.{}", i - 1); }

}  // namespace

// CELLO Algorithm 1. Greek tensors: Delta, Lambda, Gamma, Phi; n2 stands for n'.
// Lines 2 and 6 each end in a tiny N x N solve that runs on the host (op l2h/l6).
std::string cg_text(const Params& p) {
  std::string s = krylov_preamble("block CG, CELLO Algorithm 1", "cg", p) +
                  "op g0 line=0: Gamma.0[n2,n] = R.0[k,n2] * R.0[k,n]\n";
  for (int i = 1; i <= p.iters; ++i) {
    const std::string P = direction_read_in(i);
    const int q = i - 1;
    s += fmt::format(
        "op l1.{0} iter={0} line=1: S.{0}[m,n] = A[m,k] * {1}[k,n]\n"
        "op l2.{0} iter={0} line=2: Delta.{0}[n2,n] = {1}[k,n2] * S.{0}[k,n]\n"
        "op l2h.{0} iter={0} line=2: Lambda.{0}[n2,n] = host solve(Delta.{0}[n2,j], Gamma.{2}[j,n])\n"
        "op l3.{0} iter={0} line=3: X.{0}[m,n] = X.{2}[m,n] + {1}[m,j] * Lambda.{0}[j,n]\n"
        "op l4.{0} iter={0} line=4: R.{0}[m,n] = R.{2}[m,n] - S.{0}[m,j] * Lambda.{0}[j,n]\n"
        "op l5.{0} iter={0} line=5: Gamma.{0}[n2,n] = R.{0}[k,n2] * R.{0}[k,n]\n"
        "op l6.{0} iter={0} line=6: Phi.{0}[n2,n] = host solve(Gamma.{2}[n2,j], Gamma.{0}[j,n])\n"
        "op l7.{0} iter={0} line=7: P.{0}[m,n] = R.{0}[m,n] + {1}[m,j] * Phi.{0}[j,n]\n",
        i, P, q);
  }
  return s;
}

// Block BiCGStab (Guennouni, Jbilou, Sadok 2003) with shadow residual R.0:
//   V = A P; alpha = (R0^T V)^-1 R0^T R; S = R - V alpha; T = A S;
//   omega = tr(T^T S) / tr(T^T T) (as omega*I); X += P alpha + S omega;
//   R = S - T omega; beta = (R0^T V)^-1 R0^T T; P = R - (P - V omega) beta.
// For N = 1 this is textbook BiCGStab. Host ops: solve (A^-1 B), omega.
std::string bicgstab_text(const Params& p) {
  std::string s = krylov_preamble("block BiCGStab", "bicgstab", p);
  for (int i = 1; i <= p.iters; ++i) {
    const std::string P = direction_read_in(i);
    s += fmt::format(
        "op b1.{0} iter={0} line=1: V.{0}[m,n] = A[m,k] * {1}[k,n]\n"
        "op b2.{0} iter={0} line=2: Gv.{0}[n2,n] = R.0[k,n2] * V.{0}[k,n]\n"
        "op b3.{0} iter={0} line=3: Gr.{0}[n2,n] = R.0[k,n2] * R.{2}[k,n]\n"
        "op b3h.{0} iter={0} line=3: Alpha.{0}[n2,n] = host solve(Gv.{0}[n2,j], Gr.{0}[j,n])\n"
        "op b4.{0} iter={0} line=4: S.{0}[m,n] = R.{2}[m,n] - V.{0}[m,j] * Alpha.{0}[j,n]\n"
        "op b5.{0} iter={0} line=5: T.{0}[m,n] = A[m,k] * S.{0}[k,n]\n"
        "op b6.{0} iter={0} line=6: Ts.{0}[n2,n] = T.{0}[k,n2] * S.{0}[k,n]\n"
        "op b7.{0} iter={0} line=7: Tt.{0}[n2,n] = T.{0}[k,n2] * T.{0}[k,n]\n"
        "op b7h.{0} iter={0} line=7: Omega.{0}[n2,n] = host omega(Ts.{0}[n2,n], Tt.{0}[n2,n])\n"
        "op b8.{0} iter={0} line=8: Xa.{0}[m,n] = X.{2}[m,n] + {1}[m,j] * Alpha.{0}[j,n]\n"
        "op b9.{0} iter={0} line=9: X.{0}[m,n] = Xa.{0}[m,n] + S.{0}[m,j] * Omega.{0}[j,n]\n"
        "op b10.{0} iter={0} line=10: R.{0}[m,n] = S.{0}[m,n] - T.{0}[m,j] * Omega.{0}[j,n]\n"
        "op b11.{0} iter={0} line=11: Gt.{0}[n2,n] = R.0[k,n2] * T.{0}[k,n]\n"
        "op b11h.{0} iter={0} line=11: Beta.{0}[n2,n] = host solve(Gv.{0}[n2,j], Gt.{0}[j,n])\n"
        "op b12.{0} iter={0} line=12: Pt.{0}[m,n] = {1}[m,n] - V.{0}[m,j] * Omega.{0}[j,n]\n"
        "op b13.{0} iter={0} line=13: P.{0}[m,n] = R.{0}[m,n] - Pt.{0}[m,j] * Beta.{0}[j,n]\n",
        i, P, i - 1);
  }
  return s;
}

// GCN (GOGETA Sec. 2.2.2): Z = A X (aggregation), X' = relu(Z W) (combination).
// Layer 1 maps N input features to O; later layers map O to O.
std::string gcn_text(const Params& p) {
  std::string s = fmt::format(
      "# GCN: M={} nnz={} N={} O={} layers={}\n"
      "workload gcn\n"
      "rank m = {}\nrank k = m\nrank n = {}\nrank j = n\nrank o = {}\nrank q = o\n"
      "input A[m,k] csr nnz={}\ninput X.0[m,n]\ninput W.1[n,o]\n",
      p.m, p.nnz, p.n, p.o, p.iters, p.m, p.n, p.o, p.nnz);
  for (int l = 2; l <= p.iters; ++l) s += fmt::format("input W.{}[q,o]\n", l);
  for (int l = 1; l <= p.iters; ++l) {
    const char* f = l == 1 ? "n" : "o";
    const char* c = l == 1 ? "j" : "q";
    s += fmt::format(
        "op agg.{0} iter={0} line=1: Z.{0}[m,{2}] = A[m,k] * X.{1}[k,{2}]\n"
        "op comb.{0} iter={0} line=2: X.{0}[m,o] = relu(Z.{0}[m,{3}] * W.{0}[{3},o])\n",
        l, l - 1, f, c);
  }
  return s;
}

// ResNet basic blocks (3x3 convolutions, "same" zero padding, identity skip). A
// stem convolution produces the first block's input so the skip edge has a
// producer: X.b-1 feeds conv1.b and, delayed, add.b.
std::string resnet_text(const Params& p) {
  std::string s = fmt::format(
      "# ResNet basic residual blocks: {}x{}x{} activations, blocks={}\n"
      "workload resnet\n"
      "rank h = {}\nrank w = h\nrank c = {}\nrank k = c\nrank r = 3\nrank s = 3\n"
      "input I[h,w,c]\ninput Ws[r,s,c,k]\n",
      p.hw, p.hw, p.n, p.iters, p.hw, p.n);
  for (int b = 1; b <= p.iters; ++b) s += fmt::format("input W1.{0}[r,s,c,k]\ninput W2.{0}[r,s,c,k]\n", b);
  s += "op stem line=0: X.0[h,w,k] = relu(I[h+r,w+s,c] * Ws[r,s,c,k])\n";
  for (int b = 1; b <= p.iters; ++b)
    s += fmt::format(
        "op conv1.{0} iter={0} line=1: Y1.{0}[h,w,k] = relu(X.{1}[h+r,w+s,c] * W1.{0}[r,s,c,k])\n"
        "op conv2.{0} iter={0} line=2: Y2.{0}[h,w,k] = Y1.{0}[h+r,w+s,c] * W2.{0}[r,s,c,k]\n"
        "op add.{0} iter={0} line=3: X.{0}[h,w,k] = relu(Y2.{0}[h,w,k] + X.{1}[h,w,k])\n",
        b, b - 1);
  return s;
}

}  // namespace cello::workloads
