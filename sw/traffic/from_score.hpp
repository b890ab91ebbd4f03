// Builds the traffic models' Workload from a compiled SCORE schedule.
//
//   tensors   rows = extent of the first stored dimension (TensorSchedule.layout),
//             row_words = product of the others; CSR tensors take the given
//             sparsity pattern (its rows and nnz must match the IR's).
//             Versions "R.3" share the storage "R".
//   operands  the op's register-file tensor and tensors without the op's
//             outermost loop rank are Whole; tensors subscripted by it are
//             Stream; in an op with a CSR operand, a dense operand subscripted by
//             the CSR's column rank is a Gather through it.
//   edges     SCORE's class; a pipelined class whose edge SCORE did not bind to
//             a pipeline buffer (loop orders incompatible) counts as sequential.
//   CELLO     SCORE's tensor bindings, memory reads and RIFF commands
//             (Workload::score), so CHORD sees exactly what SCORE would send.
#pragma once

#include <memory>

#include "sw/score/schedule.hpp"
#include "sw/traffic/workload.hpp"

namespace cello::traffic {

Workload from_schedule(const score::Schedule& s, const std::shared_ptr<const mtx::CsrPattern>& matrix,
                       unsigned word_bytes);

}  // namespace cello::traffic
