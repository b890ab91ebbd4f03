// `<top>_counters`: the top's perf counters and its register read port. Register
// 0 is the status word, 1 the record that stopped the top, 2.. one 64-bit
// counter per event (docs/top.md, "Registers"). Reads are combinational.
#pragma once

#include <string>
#include <vector>

#include "gen/design.hpp"

namespace cello::gen {

struct CounterSpec {
  std::string name;     // e.g. "cycles"
  std::string meaning;  // what one count is
};

// The counters of the top, in register order (register 2 + index): the
// event counters, then engine_cycle_counters().
const std::vector<CounterSpec>& top_counters();

// The register index of the counter named `name` (2 + its place in
// top_counters()); throws std::logic_error for an unknown name.
size_t counter_register(const std::string& name);

// The counters that split the engine's running cycles (engine_cycles) by where
// each went, the last of top_counters(); every running cycle is in exactly one.
const std::vector<CounterSpec>& engine_cycle_counters();

// count_bits > 1 (a top of several tiles): each counter adds a count of that
// many bits per cycle instead of one pulse.
void add_counters(Design& design, const std::string& module, int count_bits = 1);

}  // namespace cello::gen
