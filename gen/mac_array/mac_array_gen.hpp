// MAC-array generator: R x C processing elements, each an fp32 FMA whose
// pipeline is closed into a ring, so a PE keeps L = fma_stages accumulations in
// flight (one per pipeline slot). A command processor sequences the three modes
// (skinny GEMM with accumulate, Gram / long reduction, CSR SpMM rows) and the
// register-file load over one operand stream and one result stream.
// docs/datapath.md describes the stream formats and the accumulation order;
// sw/mac/ holds the bit-exact replay and the stream planner.
#pragma once

#include "gen/design.hpp"
#include "gen/mac_array/mac_array_config.hpp"

namespace cello::gen {

// Appends <name>_pe, <name>_rf and <name> (plus fp32_fma and ram_flop).
void add_mac_array(Design& design, const MacArrayConfig& cfg);

}  // namespace cello::gen
