// Reference model of a pipeline buffer (gen/pipeline_buffer): the data each
// consumer read must return, and the delayed-hold rule as checkable bounds.
//
// Elements are numbered in production order. A consumer working on its t-th
// tile that reads index i gets element t*TILE + i; a request with `last` moves
// it to tile t+1. Tile t is shrunk (its TILE slots freed for the producer) only
// after every consumer has finished it, so at any time
//   elements produced <= credit_bound() = DEPTH + TILE * min over consumers of tiles finished.
// A read is serviceable once its element has been produced and its tile is
// within the DEPTH_TILES tiles of storage counted from the oldest unshrunk tile.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace cello::mac {

class PipelineBufferModel {
 public:
  PipelineBufferModel(int tile, int hold_tiles);

  int consumers() const { return hold_tiles_ > 0 ? 2 : 1; }
  int depth_tiles() const { return hold_tiles_ + 2; }
  uint64_t depth() const { return static_cast<uint64_t>(tile_) * static_cast<uint64_t>(depth_tiles()); }

  void produce(uint64_t value) { data_.push_back(value); }
  // The value a read by consumer c returns; advances c's tile when last.
  // Throws cello::Error for an index outside the tile or a read of storage
  // that cannot hold its tile yet (the RTL must never accept such a read).
  uint64_t read(int c, int idx, bool last);
  bool serviceable(int c, int idx) const;

  uint64_t tiles_done(int c) const { return done_[static_cast<size_t>(c)]; }
  uint64_t tiles_shrinkable() const;  // min over consumers
  uint64_t credit_bound() const { return depth() + static_cast<uint64_t>(tile_) * tiles_shrinkable(); }
  uint64_t produced() const { return data_.size(); }

 private:
  int tile_, hold_tiles_;
  std::vector<uint64_t> data_;
  std::vector<uint64_t> done_;
};

}  // namespace cello::mac
