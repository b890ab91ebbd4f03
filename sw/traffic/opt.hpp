// The offline reference for CHORD's replacement policy (config `opt`): Belady's
// MIN with bypass, run on exactly the granule trace CHORD sees, at the same
// capacity (docs/model.md, "OPT").
//
// The trace is recorded by the CHORD-backed traffic model. Each event touches
// one word (one granule) of the global address space:
//   Read   a consumer reads the word; a miss costs one DRAM read
//   Write  the producer writes the word (dirty); not keeping it costs a spill
//   Fill   an input's first read through CHORD: the word comes from DRAM (that
//          read is counted outside) and may be kept, clean
// MIN's rules: keep a word only if its next read comes before the next read of
// some resident word, and then evict the resident word read furthest in the
// future. A word whose last read has passed (or that is overwritten before it
// is read again) is dead: it is dropped for free, except that a dirty word of a
// final output costs its write-back (which it owes anyway). Evicting a dirty
// word that will be read again costs a write-back. With write-back costs MIN
// is a near-optimum, not a proof of optimality (see tests/model/opt_test.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace cello::traffic {

struct OptEvent {
  enum Kind : uint8_t { Read, Write, Fill };
  uint32_t addr = 0;    // word (granule) address
  uint32_t tensor = 0;  // attribution of the traffic
  Kind kind = Read;
};

class OptTrace {
 public:
  void read(uint32_t tensor, uint64_t addr) { push(tensor, addr, OptEvent::Read); }
  void write(uint32_t tensor, uint64_t addr) { push(tensor, addr, OptEvent::Write); }
  void fill(uint32_t tensor, uint64_t addr) { push(tensor, addr, OptEvent::Fill); }
  const std::vector<OptEvent>& events() const { return ev_; }
  size_t size() const { return ev_.size(); }

 private:
  void push(uint32_t tensor, uint64_t addr, OptEvent::Kind k);
  std::vector<OptEvent> ev_;
};

struct OptCost {
  uint64_t read_misses = 0;  // DRAM reads (Read events that missed)
  uint64_t spills = 0;       // writes not kept (including dead output words)
  uint64_t writebacks = 0;   // dirty words evicted, or dirty output words at their end
  uint64_t hits = 0;
  std::vector<uint64_t> tensor_reads, tensor_writes;  // per tensor index
  uint64_t total() const { return read_misses + spills + writebacks; }
};

// MIN with bypass at `capacity` words. output[t]: tensor t is a final output
// (its dirty words must reach DRAM). `tensors` sizes the per-tensor vectors.
OptCost belady_min(const OptTrace& trace, uint64_t capacity, const std::vector<bool>& output);

}  // namespace cello::traffic
