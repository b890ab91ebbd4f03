// Buffet generator (buffets paper, Algorithm 1): one specialised module per
// BuffetConfig, with exactly the port names of DESIGN.md's contract. Options that
// are off remove their ports and logic.
#pragma once

#include "gen/buffet/buffet_config.hpp"
#include "gen/design.hpp"

namespace cello::gen {

// Appends the buffet module (and the RAM primitive it needs) to the design.
void add_buffet(Design& design, const BuffetConfig& cfg);

}  // namespace cello::gen
