// `<top>_chord_port`: the units' granule requests for CHORD-bound tensors
// into CHORD's one read port and one write port (docs/top.md, "CHORD's
// units port"). Reads come from N read clients (the load units), each naming
// the tensor's CHORD id and a granule-aligned byte address; they are granted
// round robin into a registered slot, and a FIFO of (client, tag) hands
// CHORD's in-order read data back to the client that asked, under its tag.
// Writes come from the store unit (with its byte strobes as CHORD's `wr_be`)
// and fills from the fill path (an input's granule read from DRAM, written in
// whole with `wr_fill`); the two share the write port round robin. A store
// write is acknowledged once CHORD takes it. `idle` says no read is waiting
// for its data and no acknowledgement is pending.
#pragma once

#include <string>

#include "gen/design.hpp"
#include "gen/hw_config.hpp"
#include "gen/top/load_unit_gen.hpp"

namespace cello::gen {

struct ChordPortShape {
  int clients = 5;        // read clients
  int granule_bytes = 16;
  int addr_bits = 30;     // byte address; CHORD's word address has addr_bits - log2(granule_bytes)
  int tag_bits = 6;       // the read clients' tag
  int id_bits = 16;       // CHORD's tensor id
  int reads = 4;          // reads in CHORD (a power of two, >= 2): the routing FIFO's depth
};

// The top's port: its load units (of shape `mem`) as clients, their line
// tags, and the id width and read queue of the top's CHORD `c`.
// `tile_bits`: a top of several tiles puts the tile index above the line tag.
ChordPortShape chord_port_shape(const ChordConfig& c, const LoadUnitShape& mem, int tile_bits = 0);
// Store writes the port holds unacknowledged, at most.
int chord_port_acks();

void add_chord_port(Design& design, const std::string& module, const ChordPortShape& s);

}  // namespace cello::gen
