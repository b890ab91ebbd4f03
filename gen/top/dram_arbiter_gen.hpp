// `<top>_dram_arb`: the top's one DRAM port shared by its clients (load unit,
// store unit, and CHORD's DRAM port when the top has one). Round-robin grants
// into a registered request slot; the DRAM tag is {client, client tag}, and
// responses go back to the client the tag names. docs/top.md.
#pragma once

#include <string>

#include "gen/design.hpp"

namespace cello::gen {

struct DramArbiterShape {
  int clients = 2;
  int granule_bytes = 16;
  int addr_bits = 30;
  int tag_bits = 6;  // widest client tag
};

void add_dram_arbiter(Design& design, const std::string& module, const DramArbiterShape& s);

}  // namespace cello::gen
