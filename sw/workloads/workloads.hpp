// Built-in workloads as tensor DAGs (sw/ir), written out as .cello text and
// parsed, so each one is also a readable example of the format:
//   cg        block CG exactly as CELLO Algorithm 1 (set-up + I iterations)
//   bicgstab  block BiCGStab (Guennouni et al.), same tensor shapes as CG
//   gcn       GCN layers: aggregation SpMM + combination GEMM (cora-shaped default)
//   resnet    ResNet basic residual blocks (3x3 convs, identity skip)
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sw/ir/program.hpp"

namespace cello::workloads {

struct Params {
  int64_t m = 0;    // rows of the sparse matrix A (CG, BiCGStab, GCN vertices)
  int64_t nnz = 0;  // its nonzeros
  int n = 8;        // block width N (CG, BiCGStab); input features (GCN); channels (ResNet)
  int o = 7;        // output features (GCN)
  int hw = 28;      // feature-map height = width (ResNet)
  int iters = 1;    // CG/BiCGStab iterations, GCN layers, ResNet blocks
};

const std::vector<std::string>& names();
// Defaults per workload (GCN: cora, M=2708 nnz=9464 N=1433 O=7; ResNet: 28x28x128).
Params default_params(const std::string& name);
// The .cello text of a workload; throws cello::Error for an unknown name or bad sizes.
std::string workload_text(const std::string& name, const Params& p);
ir::Program make_workload(const std::string& name, const Params& p);

}  // namespace cello::workloads
