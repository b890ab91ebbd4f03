// Buffet-group simulations that the `cello` program runs itself (`cello bench
// buffet --multicast`), on the group verilated by tb/buffet_group/cello_models.cmake
// (configs/bench/bench_group4.json: an L2 of 256 slots filling 4 L1s of 64).
#pragma once

#include <cstdint>
#include <string>

namespace cello::tb {

// A 1D-convolution-like stream over the hierarchy (buffets paper, Sec. 4.4):
// each pass stages `filter` weights and the input tile of every L1 partition
// (`outputs` outputs each, plus the filter - 1 halo shared with the next
// partition) in the L2; the L2 read generator delivers the weights to every
// L1 and each input to the L1s whose tile holds it, either as one multicast
// read per element or as one unicast read per (element, L1); each L1 reader
// reads a weight, then the inputs it multiplies (weight stationary), and
// shrinks the pass.
struct ConvStream {
  unsigned filter = 3, outputs = 16, passes = 200;
  bool multicast = true;
};

struct ConvFigures {
  unsigned targets = 0, l2_depth = 0, l1_depth = 0;
  uint64_t cycles = 0, l2_reads = 0, dram_fills = 0, l1_fills = 0, l1_reads = 0;
  uint64_t credit_stall_cycles = 0;
  double seconds = 0;
  bool passed = false;
  std::string failure;  // first mismatch with the composed model, with the seed to replay
};

// Elements one pass stages in the L2 and in each L1.
unsigned conv_l2_pass(const ConvStream& s, unsigned targets);
unsigned conv_l1_pass(const ConvStream& s);
// The linked group's sizes (targets, L2 depth, L1 depth).
unsigned bench_group_targets();
unsigned bench_group_l2_depth();
unsigned bench_group_l1_depth();

// Runs the stream without stalls, checked against the composed model. Throws
// cello::Error when a pass does not fit the linked group.
ConvFigures bench_group_conv(const ConvStream& s);

}  // namespace cello::tb
