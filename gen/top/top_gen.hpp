// The accelerator top `<top>` and its parts (docs/top.md): command decoder,
// sequencer with the tensor table, scalar engine, load and store units, DRAM
// arbiter and perf counters, each its own generated module. add_top() appends
// the parts and then the top that wires them to the command, DRAM, host and
// register ports.
#pragma once

#include "gen/design.hpp"
#include "gen/hw_config.hpp"

namespace cello::gen {

void add_top(Design& design, const HwConfig& cfg);

}  // namespace cello::gen
