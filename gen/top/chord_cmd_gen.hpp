// `<top>_chord_cmd`: the sequencer's side of CHORD's command port (docs/top.md,
// "CHORD's command unit"). It turns the stream's RIFF records and a launch's
// start and end into CHORD's commands, deciding as the executor's traffic walk
// does: a CSR tensor is three CHORD tensors (ids 4t + 1..3, one per array; a
// dense tensor is 4t + 1); a registration that finds CHORD's table full leaves
// the tensor in DRAM; a dense tensor registered over the region of a live one
// of the same size takes over its entry (`rewrite`, option inplace); the
// tensors an op registers claim their space when it starts and commit it when
// it has drained (option claim); an output is flushed before its release and,
// when still live, at END (option flush). It keeps a mirror of CHORD's live
// tensors (one row per live tensor, as many rows as CHORD has entries), which
// also answers the launch's routing questions: is a tensor live in CHORD, under
// which id, and is its next read a fill.
#pragma once

#include <string>

#include "gen/design.hpp"
#include "gen/hw_config.hpp"
#include "gen/top/load_unit_gen.hpp"

namespace cello::gen {

struct ChordCmdShape {
  int tensor_table = 1024;  // tensor ids 0 .. tensor_table - 1
  int addr_bits = 26;       // granule address (CHORD's word address)
  int id_bits = 16;         // CHORD's tensor id
  int dist_bits = 16;       // CHORD's next-use distance (0: a PRELUDE-only CHORD, no metadata)
  int uses_bits = 8;        // CHORD's remaining uses
  int entries = 64;         // CHORD's table entries: the mirror's rows
  bool inplace = true;      // CHORD has the rewrite command
  bool claim = false;       // CHORD has claim and commit
  bool flush = false;       // CHORD has flush
};

// The unit of a top whose CHORD is `c`, whose load units have the shape `mem`
// (its granule addresses) and whose tensor table holds `tensor_table` descriptors.
ChordCmdShape chord_cmd_shape(const ChordConfig& c, const LoadUnitShape& mem, int tensor_table);

void add_chord_cmd(Design& design, const std::string& module, const ChordCmdShape& s);

}  // namespace cello::gen
