// `<top>_sequencer`: takes the decoder's checked records one at a time and runs
// them. It keeps the tensor table (descriptors by id, in a RAM of
// top.tensor_table entries), checks what one record can be checked against it
// (ids described once, regions inside the image and aligned, operand shapes,
// CHORD flags, RF_LOAD before its GEMM), launches the engine with the operands'
// descriptors, drains the store unit and invalidates the load unit after every
// launch, serves FENCE, raises host_req for HOST, and finishes at END. The first
// illegal record stops it with one status bit (docs/commands.md, "Status").
// Field positions come from the command-stream field table (sw/stream/format.cpp).
#pragma once

#include <string>

#include "sw/arch/arch.hpp"
#include "gen/design.hpp"

namespace cello::gen {

struct SequencerShape {
  int addr_bits = 30;      // byte address width
  int granule_bytes = 16;  // DRAM granule (region alignment)
  int tensor_table = 1024; // descriptor entries (ids 0 .. tensor_table-1)
  int rf_rows = 16;        // register-file rows (RF_LOAD limit)
  bool chord = true;       // the top has a CHORD
  bool chord_datapath = false;  // CHORD is on the datapath: events to the command unit, routing fields
};

void add_sequencer(Design& design, const std::string& module, const SequencerShape& s);

}  // namespace cello::gen
