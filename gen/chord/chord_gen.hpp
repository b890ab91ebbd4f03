// CHORD generator (CELLO Sec. VI): three specialised modules per ChordConfig,
//   <name>_riff_table  the RIFF index table (entries, id lookups, hit/slot arithmetic)
//   <name>_prelude     the PRELUDE controller (decisions, victim scan, eviction
//                      write-back, DRAM queue, in-order read responses, counters)
//   <name>             the CHORD top: table + controller + SRAM (rtl/ram_*.sv)
// The decisions are exactly those of the functional model in sw/chord.
#pragma once

#include "gen/chord/chord_config.hpp"
#include "gen/design.hpp"

namespace cello::gen {

// Appends the three modules (and the RAM primitive) to the design.
void add_chord(Design& design, const ChordConfig& cfg);

// Status bits of the top's sticky status_err output.
enum ChordStatusBit {
  kChordErrReadUnregistered = 0,
  kChordErrReadRange = 1,
  kChordErrWriteUnregistered = 2,
  kChordErrWriteOrder = 3,
  kChordErrTableFull = 4,
  kChordErrDuplicate = 5,
  kChordErrBadRange = 6,
  kChordErrCmdUnregistered = 7,
  kChordErrCmdOpcode = 8,
  kChordStatusBits = 9,
};

}  // namespace cello::gen
