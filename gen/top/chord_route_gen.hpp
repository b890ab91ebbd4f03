// `<top>_chord_route`: which of a launch's granule accesses go to CHORD
// (docs/top.md, "CHORD on the datapath"). When a launch starts it latches the
// regions of its three read operands (a, b, c: first granule, end, and for a
// CSR operand where its column indices and values start) with the command
// unit's answers for them (live in CHORD, first CHORD id, reads are fills) and
// its result's (live, id). Each read client's granule address is then looked up
// against those regions: a read of a live operand that is not a fill goes to
// CHORD under the operand's id (a CSR operand's arrays are ids id, id + 1,
// id + 2). The DRAM response path looks up the granule a load unit asked DRAM
// for: a read of a live operand whose reads are fills is written into CHORD.
// The result's writes go to CHORD when the result is live.
#pragma once

#include <string>

#include "gen/design.hpp"

namespace cello::gen {

struct ChordRouteShape {
  int clients = 5;     // read clients (the load units)
  int addr_bits = 26;  // granule address
  int id_bits = 16;    // CHORD's tensor id
};

void add_chord_route(Design& design, const std::string& module, const ChordRouteShape& s);

}  // namespace cello::gen
