// Multicast fill/credit unit (buffets paper, Sec. 4.2): the fill side of K
// target buffets. It keeps one credit counter per target, passes a transfer
// request (an index for the upstream read port, and a target mask) upstream
// only while every masked target has a credit, takes one credit from each
// masked target when the request leaves, and delivers the upstream's response,
// in request order, to the fill ports of the masked targets. Each target
// returns its shrinks' credits on its own credit port. docs/buffet.md,
// "Composition and multicast", has the ports and the invariants.
#pragma once

#include <string>

#include "gen/design.hpp"

namespace cello::gen {

struct MulticastShape {
  std::string name;   // module name
  int targets;        // K >= 2
  int index_width;    // request payload passed upstream (the L2 read index)
  int data_width;     // response and fill data
  int count_width;    // bits of a target's credit count (0..its depth)
};

// Appends the unit's module (and the fifo_sync primitive it uses) to the design.
void add_multicast(Design& design, const MulticastShape& s, const nlohmann::json& config);

}  // namespace cello::gen
