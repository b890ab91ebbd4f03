// The parts that spread the top's launches over its tiles (docs/top.md,
// "Tiles"): a top whose MAC array holds several engines' worth of PEs has one
// engine per tile (arch::engine_tiles), each with its own operand load units
// and store unit.
// - `<top>_tile_dispatch` starts a launch on the tiles: a GEMM pass or an
//   SPMM that pipelines no GRAM (the SPMM's dense operand in one gather
//   block) and an ELTW on every tile, each on its slice of the result's rows
//   (exec::launch_on_tiles, arch::tile_rows), any other launch on tile 0; it
//   reports done once every started tile is done.
// - `<top>_tile_read_merge` puts the tiles' load units of one port on that
//   port's one DRAM/CHORD client: round robin, the tile index above the
//   unit's tag, each response back to its tile by that index.
// - `<top>_tile_write_merge` does the same for the store units; a write that
//   went to CHORD is acknowledged in order, so a FIFO remembers its tile.
#pragma once

#include <string>

#include "gen/design.hpp"

namespace cello::gen {

struct TileDispatchShape {
  int tiles = 2;          // a power of two >= 2
  int count_bits = 32;    // the engine's row counts (its CW)
  int granule_bytes = 16; // the slice quantum (arch::tile_row_quantum)
  int gather_words = 131072;  // the gather buffer (an SPMM runs on the tiles when X fits it in one block)
};
void add_tile_dispatch(Design& design, const std::string& module, const TileDispatchShape& s);

struct TileMergeShape {
  int tiles = 2;          // a power of two >= 2
  int addr_bits = 30;     // byte address
  int granule_bytes = 16;
  int tag_bits = 5;       // a unit's own tag (a load unit's line; 0 for a store unit)
  int chord_acks = 0;     // write merge: CHORD writes acknowledged in order, at most this many outstanding (0: no CHORD)
};
// The merged tag: the tile index (bits_for(tiles - 1)) above the unit's tag.
int tile_tag_bits(const TileMergeShape& s);
void add_tile_read_merge(Design& design, const std::string& module, const TileMergeShape& s);
void add_tile_write_merge(Design& design, const std::string& module, const TileMergeShape& s);

}  // namespace cello::gen
