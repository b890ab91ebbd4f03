// Memory layout and access walk of a workload, in granules (DRAM bursts; the
// cache line size). Every tensor region starts on a granule boundary; a CSR
// tensor is three aligned arrays (row pointers, column indices, values).
//
// walk() replays the op-by-op execution described in workload.hpp and reports
// granule ranges to a Sink. Within one stream (a dense tensor, one CSR array,
// one gather) a granule touched again right after itself is reported once, as
// a coalescing load/store unit would merge it.
#pragma once

#include <cstdint>
#include <vector>

#include "sw/traffic/workload.hpp"

namespace cello::traffic {

struct Footprint {
  unsigned granule_words = 4;
  std::vector<uint64_t> granules;  // per tensor, sum of its aligned arrays
  // CSR: first granule of the column-index and value arrays within the tensor.
  std::vector<uint64_t> csr_col_at, csr_val_at;
};
Footprint footprint(const Workload& w, unsigned granule_words);

// Base granule of every tensor in one global address space: the workload's own
// placement when it has one (Workload::base, a command stream's), else this:
// inputs get their own regions; a produced tensor reuses a dead region of the
// same storage (or updates in place the region of a same-storage tensor its op
// streams and kills), otherwise it gets a fresh one.
struct Layout {
  std::vector<uint64_t> base;
  uint64_t total = 0;
};
Layout layout(const Workload& w, const Analysis& a, const Footprint& f);

class Sink {
 public:
  virtual ~Sink() = default;
  virtual void op_begin(size_t /*op*/) {}
  virtual void op_end(size_t /*op*/) {}
  // Between two passes of an op walked pass by pass (Op::passes).
  virtual void next_pass(size_t /*op*/) {}
  // Granules [lo, hi) of tensor t, relative to the tensor's first granule.
  virtual void read(int t, uint64_t lo, uint64_t hi) = 0;
  virtual void write(int t, uint64_t lo, uint64_t hi) = 0;
};

struct WalkOptions {
  // Read gathered operands as one in-order pass (the oracle intra-op reuse of
  // the explicit dataflows) instead of following the column indices.
  bool gather_as_stream = false;
};

void walk(const Workload& w, const Footprint& f, Sink& sink, const WalkOptions& opt = {});

}  // namespace cello::traffic
