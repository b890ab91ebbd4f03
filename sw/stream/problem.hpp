// A problem to compile and run: the workload's tensor DAG, the sparse matrix A
// with its values, and every dense input's values. `cello compile`, `cello
// exec`, the tests and the benches build problems here, so they all run the
// same inputs for the same options and seed.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "sw/ir/program.hpp"
#include "sw/mtx/csr.hpp"

namespace cello::stream {

struct ProblemSpec {
  std::string workload{};  // cg, bicgstab, gcn (a built-in workload)
  std::string matrix{};    // Matrix Market file (cg, bicgstab, gcn), or "" for the generated one
  std::string dataset{};   // gcn: "cora:DIR" or "proteins:DIR" (graph data set folder)
  int grid = 16;           // HPCG stencil grid when no matrix is given (cg, bicgstab)
  int n = 0, o = 0;        // 0 = the workload's default
  int iters = 1;
  uint64_t seed = 1;       // dense inputs
  uint64_t max_image_bytes = 0;  // the DRAM the top addresses (arch.memory_bytes); 0: not checked here
};

struct Problem {
  std::string workload;
  std::string source;  // where A came from, for reports
  ir::Program program;
  mtx::Csr matrix;     // A with values (graphs: 1.0 per edge)
  std::shared_ptr<const mtx::CsrPattern> pattern;  // A's pattern for the traffic models
  std::map<std::string, std::vector<float>> dense;     // dense inputs, row-major
};

// Throws cello::Error for an unknown workload or a bad matrix / data set. A
// matrix file's size line is checked before anything is allocated: the dense
// inputs must fit the memory budget, and A's CSR arrays with the dense inputs
// the top's DRAM (spec.max_image_bytes).
Problem make_problem(const ProblemSpec& spec);

// Bytes of every dense input of a program as fp32 values (saturating).
uint64_t dense_input_bytes(const ir::Program& p);

// Deterministic values for every dense input of a program (B and W uniform in
// [-1, 1), GCN features in [0, 1), initial guesses X.0 zero), seeded per tensor name.
std::map<std::string, std::vector<float>> make_dense_inputs(const ir::Program& p, uint64_t seed);

}  // namespace cello::stream
