// SCORE schedule -> command stream (docs/commands.md).
//
// The memory-layout pass gives every tensor version a DRAM region, reusing the
// region of a dead version of the same variable in place exactly as the traffic
// models do (traffic::layout), so the stream's addresses and the models' agree.
// Each op becomes its CHORD registrations, its launch (a GEMM whose inner size
// exceeds the register file becomes several passes that accumulate through the
// output), and its CHORD updates / releases; a FENCE precedes every HOST.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "sw/arch/arch.hpp"
#include "sw/score/schedule.hpp"
#include "sw/stream/format.hpp"
#include "sw/traffic/workload.hpp"

namespace cello::stream {

// How an op runs on the MAC array (or the host).
enum class Mode { Gemm, Gram, Spmm, Eltw, Host };
const char* to_string(Mode m);

struct OpPlan {
  Mode mode = Mode::Host;
  int streamed = -1, rf = -1;  // GEMM: operand index (in op.in) streamed and held in the register file
  int csr = -1, gathered = -1; // SPMM: operand index of the CSR matrix and of the gathered dense factor
  int64_t k = 0;               // GEMM: inner size
};

// Checks that the MAC array can run op i of the program and how (throws cello::Error
// "op NAME: reason" naming the limit otherwise).
OpPlan plan_op(const ir::Program& p, size_t i, const arch::Arch& a);

struct Compiled {
  Stream stream;
  traffic::Workload workload;   // the traffic models' view of the same schedule
  std::vector<uint64_t> base;   // per IR tensor: DRAM byte address of its region
  std::vector<uint64_t> bytes;  // per IR tensor: bytes of its region
  std::vector<OpPlan> plans;    // per op
  std::vector<int> k_chunk;     // per op: GEMM register-file passes of this many rows (0 = one pass)
  std::vector<size_t> descriptor;  // per IR tensor: index of its TENSOR record
};

// `matrix` is the pattern of the program's CSR tensor (needed for its footprint).
Compiled encode_schedule(const score::Schedule& s, const arch::Arch& a,
                         const std::shared_ptr<const mtx::CsrPattern>& matrix);

}  // namespace cello::stream
