// Seeded random tensor DAGs in .cello text, for property tests (classification
// never fails, every edge gets one class, print/parse round trips) and for the
// compile-time benchmark. They mix the op shapes of the solver workloads (SpMM,
// skinny GEMM with accumulate, Gram, element-wise, host solves) with balanced
// GEMMs, and read tensors both just produced and produced long before, so they
// contain chains, fan-out, multicasts and long transitive edges.
#pragma once

#include <cstdint>
#include <string>

namespace cello::workloads {

struct RandomDagParams {
  int ops = 50;
  uint64_t seed = 1;
  double far_read = 0.15;  // chance that an operand is drawn from the whole history
};

std::string random_dag_text(const RandomDagParams& p);

}  // namespace cello::workloads
