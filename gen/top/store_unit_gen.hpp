// `<top>_store_unit`: word writes of the top's results, merged into granule
// writes. Writes to the granule being assembled merge into it (byte enables
// record which words are written); a write to another granule, or `flush`,
// sends the assembled granule to DRAM with its byte enables. `idle` says every
// write has been sent and acknowledged (what FENCE and an op's end wait for).
// docs/top.md.
#pragma once

#include <string>

#include "gen/design.hpp"
#include "gen/top/load_unit_gen.hpp"

namespace cello::gen {

void add_store_unit(Design& design, const std::string& module, const LoadUnitShape& s);

}  // namespace cello::gen
