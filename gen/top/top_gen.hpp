// The accelerator top `<top>` and its parts (docs/top.md): command decoder,
// sequencer with the tensor table, scalar engine, load and store units, DRAM
// arbiter and perf counters, each its own generated module. add_top() appends
// the parts and then the top that wires them to the command, DRAM, host and
// register ports.
#pragma once

#include "gen/design.hpp"
#include "gen/hw_config.hpp"
#include "sw/arch/arch.hpp"

namespace cello::gen {

void add_top(Design& design, const HwConfig& cfg);

// The DRAM arbiter's client tag width (the top's DRAM tag adds the client
// field): the load units' line tags, or CHORD's adapter's ring slots when
// CHORD is on the datapath and they are wider.
int arbiter_tag_bits(const HwConfig& cfg, const arch::Arch& a);

// The tile index bits above a load unit's line tag in its client's tags (0 on
// a top of one tile; docs/top.md, "Tiles").
int tile_tag_bits_of(const arch::Arch& a);

}  // namespace cello::gen
