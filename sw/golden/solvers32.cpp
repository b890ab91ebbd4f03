#include <fmt/core.h>

#include "sw/common/error.hpp"
#include "sw/golden/fp32_dag.hpp"
#include "sw/workloads/workloads.hpp"

namespace cello::golden {

std::vector<float> solver_fp32(const std::string& workload, const mtx::Csr& a, const std::vector<float>& b,
                               const std::vector<float>& x0, int n, int iters, const Fp32Order& order) {
  if (workload != "cg" && workload != "bicgstab") throw Error("", "golden", "fp32 solvers: cg or bicgstab");
  workloads::Params prm;
  prm.m = a.rows;
  prm.nnz = a.nnz();
  prm.n = n;
  prm.iters = iters;
  ir::Program p = workloads::make_workload(workload, prm);
  Fp32Inputs in;
  in.csr["A"] = &a;
  in.dense["B"] = b;
  in.dense["X.0"] = x0;
  auto v = run_fp32(p, in, order);
  return v[*p.find_tensor(fmt::format("X.{}", iters))];
}

}  // namespace cello::golden
