// `<top>_scalar_engine`: the top's first datapath. It runs one launch (GEMM pass,
// GRAM, SPMM or ELTW) element by element with one fp32_fma, in exactly the
// accumulation order of docs/commands.md ("What each launch computes"), so its
// results equal the executor's bit for bit. Operands are word reads through the
// load unit and results word writes through the store unit: every binding is
// served from DRAM (the MAC array, CHORD and pipeline-buffer routing replace it
// later; docs/top.md, "Scalar engine"). A damaged CSR operand (a row pointer past
// nnz or falling, a column index past the dense operand) stops it with `err`
// instead of reading outside the tensor.
#pragma once

#include <string>

#include "design.hpp"

namespace cello::gen {

struct ScalarEngineShape {
  int addr_bits = 30;   // byte address width (the load/store units' AW)
  int fma_stages = 3;   // pipeline depth of the fp32_fma
  int gram_lanes = 3;   // GRAM partial sums (the MAC array's fma_stages)
  int rf_rows = 16;     // largest K of one GEMM pass (the A-row buffer)
};

void add_scalar_engine(Design& design, const std::string& module, const ScalarEngineShape& s);

}  // namespace cello::gen
