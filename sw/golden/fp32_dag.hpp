// fp32 golden results: runs a tensor DAG (sw/ir) op by op in fp32 with the
// project's FTZ fused multiply-add (cello::fp::fma32), in an operation order
// given as a parameter, so that an RTL run can be replayed bit for bit.
//
// Order of one contraction Z = alpha*C + beta*sum(A*B), per output element:
//   the terms are taken in a fixed sequence: for an SpMM, the row's nonzeros
//   in CSR order (reverse_csr: last first), then any other contracted ranks;
//   otherwise the contracted ranks lexicographically, first rank slowest.
//   Term q goes to partial sum q mod `lanes` (lane = a PE accumulating its own
//   slice), each a chain t = fma32(a, b, t) from +0.
//   acc_first: lane 0 starts at alpha*C and every term is fma32(beta*a, b, t);
//   else the lanes are summed first and Z = fma32(beta, sum, alpha*C).
//   Lanes combine in order (((l0 + l1) + l2) ...) or, with `tree`, pairwise
//   (l0+l1, l2+l3, ... then again), all with add32.
//   c_plus_zero: the C term enters as fma32(alpha, C, +0), as the MAC array's
//   ring starts every accumulation from +0 (else mul32(alpha, C)).
//   op_lanes overrides `lanes` for the ops it names (a Gram on the MAC array
//   uses the FMA depth L, a GEMM or SpMM one chain per element). op_k_chunk:
//   after every k_chunk terms, when more follow, the partial sum restarts as
//   fma32(1, z, +0) (a GEMM whose K exceeds the register file runs in passes
//   that accumulate through C).
// Element-wise: Z = fma32(beta, B, alpha*A) (one operand: alpha*A). relu last.
// Products alpha*x are mul32 (exact for alpha = +-1).
// Windows a+b: "valid" (dimension = |a|+|b|-1) reads a+b; "same" (dimension =
// |a|) reads a+b-(|b|-1)/2 with zeros outside.
// Host functions: solve(D, G) = D^-1 G (fp32 Gaussian elimination, partial
// pivoting; see solve32), omega(Ts, Tt) = (tr Ts / tr Tt) * I.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "sw/ir/program.hpp"
#include "sw/mtx/csr.hpp"

namespace cello::golden {

struct Fp32Order {
  int lanes = 1;
  bool tree = false;
  bool acc_first = true;
  bool reverse_csr = false;
  bool c_plus_zero = false;
  std::map<std::string, int> op_lanes;
  std::map<std::string, int> op_k_chunk;
};

struct Fp32Inputs {
  std::map<std::string, const mtx::Csr*> csr;           // CSR inputs by tensor name
  std::map<std::string, std::vector<float>> dense;      // dense inputs, row-major in declared rank order
};

// Every tensor's value after the run (row-major in its dims; CSR inputs empty).
// Throws cello::Error for missing/mis-sized inputs or an unknown host function.
std::vector<std::vector<float>> run_fp32(const ir::Program& p, const Fp32Inputs& in, const Fp32Order& order);

// D^-1 G for N x N row-major D and N x R G: Gaussian elimination with partial
// pivoting (first largest |pivot|), r = mul32(d, 1/pivot) with 1/pivot an IEEE
// fp32 division, updates fma32(-f, x, y), back substitution likewise. A zero pivot
// gives zeros for that row (no trap), as a host routine without exceptions would.
std::vector<float> solve32(std::vector<float> d, std::vector<float> g, int n, int r);

// omega(Ts, Tt) = (tr Ts / tr Tt) * I for N x N row-major operands: traces summed
// with add32 in index order, one IEEE division (flushed), 0 when tr Tt = 0.
std::vector<float> omega32(const std::vector<float>& ts, const std::vector<float>& tt, int n);

}  // namespace cello::golden

namespace cello::golden {

// fp32 block CG / BiCGStab: the cg / bicgstab workload DAG (sw/workloads) for
// A's size, N and `iters` iterations, run by run_fp32. Returns the final X (M x N).
std::vector<float> solver_fp32(const std::string& workload, const mtx::Csr& a, const std::vector<float>& b,
                               const std::vector<float>& x0, int n, int iters, const Fp32Order& order);

}  // namespace cello::golden
