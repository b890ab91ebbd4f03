// `<top>_chord_dram`: CHORD's DRAM port as one client of the top's DRAM
// arbiter (docs/top.md, "CHORD on the datapath"). CHORD's word is the top's
// granule: a word address becomes a granule-aligned byte address. CHORD takes
// its read data in request order, while the arbiter answers by tag, possibly
// out of order; the adapter numbers its requests in a ring of `slots`, holds
// early answers there and hands read data back in order. Write
// acknowledgements retire their slots silently; `idle` says every request
// has been answered (what END waits for after CHORD's flushes).
#pragma once

#include <string>

#include "gen/design.hpp"
#include "sw/arch/arch.hpp"

namespace cello::gen {

struct ChordDramShape {
  int granule_bytes = 16;
  int addr_bits = 30;  // DRAM byte address; CHORD's word address has addr_bits - log2(granule_bytes)
  int slots = 8;       // requests in flight (a power of two, >= 2): the DRAM tag is the slot
};

// The adapter carries every CHORD miss and spill, each holding its slot for a
// DRAM round trip: enough slots for DRAM's whole bandwidth over its latency
// (load_unit_gen.hpp, dram_requests_in_flight), within [4, 1024].
ChordDramShape chord_dram_shape(const arch::Arch& a);

void add_chord_dram(Design& design, const std::string& module, const ChordDramShape& s);

}  // namespace cello::gen
