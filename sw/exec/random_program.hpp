// Random legal command streams (small programs) and their initial DRAM images,
// for differential tests of the top against the executor. A program describes
// dense inputs (row- or column-major) and CSR matrices (with empty rows), then
// runs random launches whose operands fit: GEMM of one or several
// register-file passes (the register-file operand in slot a or b), GRAM, SPMM
// (the CSR operand in slot a or b, with or without C), ELTW (with or without B),
// with random alpha, beta and relu, FENCEs between some of them, and END. Every
// result is a final output in its own region, so the whole final image can be
// compared. The stream passes check_stream for the architecture it was
// made for.
#pragma once

#include <cstdint>
#include <vector>

#include "sw/arch/arch.hpp"
#include "sw/stream/format.hpp"

namespace cello::exec {

struct RandomProgramOptions {
  int launches = 6;      // launch records (a GEMM of several passes counts once)
  int max_rows = 40;     // long dimension (rows of the streamed operands)
  int max_small = 20;    // short dimensions (block widths, GEMM inner sizes)
  int max_tensors = 60;  // tensor ids used: 1 .. max_tensors (id 0 means "absent")
  bool spmm_only = false;  // every launch an SPMM (its dense operand row- or column-major)
  int band = 0;            // > 0: a CSR row r holds only columns r .. r+band-1 (the gather's rows come in order)
  // CSR matrices of 96 to 256 columns (at most the gather buffer's words)
  // whose rows are long (most columns) or short (a few entries), a row
  // group's last row mostly a third as long: it then ends many granules before
  // the group's other rows (SPMM's entry fetcher, docs/top.md).
  bool ragged = false;
  // Tensors flagged `chord` at random (inputs, CSR matrices and results alike),
  // their launch bindings `chord` most of the time, and random RIFF records
  // around the launches that use them: CHORD_REG before (sometimes again for a
  // tensor still registered), CHORD_UPD after, CHORD_REL after some uses (so
  // that some are registered again later, and some stay to END), with random
  // distance and remaining. Needs a top with CHORD.
  bool chord = false;
  // Every launch a GEMM or (mostly) a square SPMM that pipes its result into
  // the GRAM that follows it (pipe_gram, or pipe_gram_x for half the SPMMs): with the generator's
  // short inner loops and sparse rows, many producer row groups are shorter
  // than their Gram products (the split array's product unit, docs/top.md).
  // Half its CSR matrices are strictly lower triangular and sparse (under a
  // tenth of the entries), most SPMMs run without C and at a narrow width (3
  // to min(8, V) columns), so that an SPMM's gather fill lags the rows of X
  // its X^T Z products read (the walker's catch-up, docs/top.md, "Pipelined GRAM").
  bool pipe_every = false;
};

struct RandomProgram {
  stream::Stream stream;
  std::vector<uint8_t> image;  // initial DRAM image (inputs written, the rest 0)
};

RandomProgram random_program(uint64_t seed, const arch::Arch& a, const RandomProgramOptions& o = {});

}  // namespace cello::exec
