// Semantic checks of a decoded command stream, done before anything runs, and
// the program they leave: described tensors and ops (a launch with its
// continuation passes and register-file loads, or a HOST) with the CHORD
// commands around them. Each rule names the status bit the hardware raises for
// it (docs/commands.md, "Status"); a violation is one cello::Error
// "file: record N: reason (status: NAME)".
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sw/arch/arch.hpp"
#include "sw/stream/format.hpp"

namespace cello::exec {

// Status register bits of the top (docs/commands.md), defined with the format.
using stream::StatusBit;
using stream::to_string;

struct TensorDesc {
  bool described = false;
  bool csr = false;
  uint8_t flags = 0;
  uint32_t rows = 0, cols = 0, nnz = 0;
  uint64_t base = 0, bytes = 0;
  std::string name;  // from NAME records ("" = none)
  bool input() const { return flags & stream::kTensorInput; }
  bool output() const { return flags & stream::kTensorOutput; }
  bool chord() const { return flags & stream::kTensorChord; }
  bool col_major() const { return flags & stream::kTensorColMajor; }
  // The two regions share at least one byte.
  bool shares_bytes(const TensorDesc& o) const { return base < o.base + o.bytes && o.base < base + bytes; }
  // Word offset of element [r][c] in the region.
  uint64_t offset(uint64_t r, uint64_t c) const { return col_major() ? c * rows + r : r * cols + c; }
  // CSR arrays inside the region (granule aligned): row pointers, column indices, values.
  uint64_t col_at(unsigned granule) const;
  uint64_t val_at(unsigned granule) const;
};

// The descriptor a TENSOR record gives (region bytes for `granule`-byte
// granules), unchecked.
TensorDesc tensor_desc(const stream::Record& r, unsigned granule);

// One pass of a launch: its record and, for GEMM, the register-file load before it.
struct Pass {
  size_t record = 0;
  size_t rf_load = SIZE_MAX;
};

// One operation as the stream runs it.
struct ExecOp {
  stream::Opcode kind = stream::Opcode::End;  // Gemm, Gram, Spmm, Eltw or Host
  size_t record = 0;                          // first launch (or the HOST)
  std::vector<Pass> passes;                   // launches: one, or several GEMM passes
  std::vector<size_t> pre, post;              // CHORD_REG records before / UPD and REL after
  int out = -1, a = -1, b = -1, c = -1;       // tensor ids (-1 = none)
  stream::Bind bind[4] = {};                  // out, a, b, c
  stream::Use use[4] = {};
  bool relu = false;
  float alpha = 1, beta = 1;
  stream::HostFn fn = stream::HostFn::Solve;
  std::string name() const;  // "GEMM #12" style, for messages
};

struct ExecProgram {
  std::vector<TensorDesc> tensors;  // indexed by id
  std::vector<ExecOp> ops;
  std::vector<int> producer;        // per id: op index or -1
};

ExecProgram check_stream(const stream::Stream& s, const std::string& file, const arch::Arch& a);

// Whether a launch runs on every tile of the top, each on its own rows of the
// result (docs/top.md, "Tiles"; the tile dispatch's on_tiles): a GEMM pass
// that pipelines no GRAM, an ELTW, and an SPMM that pipelines no GRAM and
// whose dense operand X (`x_rows` rows) fits the gather buffer in one column
// block of the result's `z_cols` columns (tile 0 fills every tile's copy of
// the buffer). Their rows are independent; a GRAM sums over rows, and a fused
// launch keeps its Gram's partial sums in one tile. `flags` are the launch
// record's.
bool launch_on_tiles(stream::Opcode kind, uint64_t flags, uint64_t x_rows, uint64_t z_cols, uint64_t gather_words);

// Whether the top's engine runs GEMM pass `rec` on row pairs
// (gen/top/stream_engine_pairs.cpp, docs/top.md "GEMM row pairs"): a top
// with word pairs (a split array of V >= 2 lanes, granules of 2 words or
// more), a pass of V columns and k <= 8 without a fused GRAM (flagged
// pipe_gram alone, at most 8 columns), Z of an even number of rows, A as tall
// as Z, and A, C and Z with even word bases and strides (rows when
// column-major, columns when row-major); k and k0 even when A is row-major.
// A is the streamed operand (tensor id `streamed`: the one not bound rf).
bool gemm_row_pairs(const arch::Arch& a, const stream::Record& rec, const ExecProgram& p, int streamed);
// ... and whether the top has word pairs at all.
inline bool engine_row_pairs(const arch::Arch& a) {
  return arch::engine_split_gram(a) && a.granule_bytes >= 8 && arch::engine_lanes(a) >= 2;
}
// The streamed operand of GEMM op: the one not bound rf.
inline int gemm_streamed(const ExecOp& op) { return op.bind[1] == stream::Bind::Rf ? op.b : op.a; }
// An SPMM's dense operand X (the operand that is not CSR).
inline int spmm_dense(const ExecProgram& p, const ExecOp& op) {
  return p.tensors.at(static_cast<size_t>(op.a)).csr ? op.b : op.a;
}

// The GRAM ops (indices into p.ops) the top runs from its pipeline buffer: the
// GRAM of the op before's result Z (bound pipe) with itself (bound pipe; the op
// before flagged pipe_gram) or with the op before's dense SPMM operand X of as
// many rows (flagged pipe_gram_x); no RF_LOAD or HOST record between; the op
// before a GEMM or SPMM whose result the engine can take row group by row
// group: at most 8 columns, and an SPMM's dense operand in one gather-buffer
// block of them (or too tall for the buffer). docs/top.md, "Pipelined GRAM".
std::vector<size_t> pipelined_grams(const stream::Stream& s, const ExecProgram& p, const arch::Arch& a);

}  // namespace cello::exec
