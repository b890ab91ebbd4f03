// Buffet hierarchy generator (buffets paper, Sec. 4.1-4.2, Fig. 9): an L2 buffet
// whose read port fills K L1 buffets, through the multicast fill/credit unit
// (gen/buffet/multicast_gen.hpp) when K > 1. Both levels are buffets generated
// by gen/buffet; this module only instantiates and wires them.
#pragma once

#include "gen/buffet/buffet_group_config.hpp"
#include "gen/design.hpp"

namespace cello::gen {

// Appends the L2 and L1 buffets, the multicast unit (K > 1) and the group module.
void add_buffet_group(Design& design, const BuffetGroupConfig& cfg);

}  // namespace cello::gen
