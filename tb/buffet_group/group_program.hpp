// Programs for a buffet group's index generators (tb/buffet_group): the L2
// read generator's reads (index, target mask) and shrinks, and each L1
// reader's reads and shrinks, consistent with the number of elements each L1
// receives, so that every program can finish.
#pragma once

#include <cstdint>
#include <vector>

#include "tb/harness/rng.hpp"

namespace cello::tb {

struct GroupOp {
  enum Kind { Read, Shrink } kind = Read;
  uint64_t idx = 0, mask = 0, num = 0;
};

// One buffet's reads and shrinks in program order.
struct GroupProgram {
  std::vector<GroupOp> ops;
  void read(uint64_t idx, uint64_t mask = 0) { ops.push_back({GroupOp::Read, idx, mask, 0}); }
  void shrink(uint64_t num) { ops.push_back({GroupOp::Shrink, 0, 0, num}); }
  uint64_t reads() const;
  uint64_t reads_for(unsigned target) const;  // reads whose mask names the target
};

// How the L2 read generator picks masks.
enum class MaskMix { Random, Unicast, Broadcast };

// n L2 reads of random in-window indices with masks drawn per `mix` (Random:
// a third one bit, a third every target, a third any non-empty subset), and
// shrinks of random size after a fraction `shrink_rate` of them.
GroupProgram random_l2_program(unsigned l2_size, unsigned targets, uint64_t n, MaskMix mix, double shrink_rate,
                               Rng& rng);

// An L1 reader over `elements` elements: random reads in the window, and a
// shrink instead of a read with probability shrink_rate; it ends by shrinking
// every element (shrink_rate 0: reads only, never a shrink).
GroupProgram random_l1_program(unsigned l1_size, uint64_t elements, double shrink_rate, Rng& rng);

}  // namespace cello::tb
