// The verilated MAC array linked into `cello` (tb/mac_array/cello_models.cmake),
// driven with unstalled streams for `cello bench datapath`.
#pragma once

#include <cstdint>

#include "sw/mac/mac_reference.hpp"
#include "sw/mac/mac_stream.hpp"

namespace cello::tb {

struct MacSimRun {
  uint64_t cycles = 0;        // first operand beat accepted .. last result beat taken
  uint64_t total_cycles = 0;  // simulated cycles including reset and drain
  uint64_t useful_macs = 0;
  double wall_seconds = 0;    // host time spent simulating
  bool bit_exact = false;     // gathered results equal `expect` bit for bit
};

// Shape of the array verilated into cello (bench_mac).
mac::ArrayShape bench_mac_shape();
// Runs the program on a fresh bench_mac with every stream always valid/ready.
MacSimRun run_bench_mac(const mac::StreamProgram& p, const mac::Matrix& expect);

}  // namespace cello::tb
