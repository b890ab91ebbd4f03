#include "sw/mac/pipeline_buffer_model.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "sw/common/error.hpp"

namespace cello::mac {

PipelineBufferModel::PipelineBufferModel(int tile, int hold_tiles)
    : tile_(tile), hold_tiles_(hold_tiles), done_(static_cast<size_t>(hold_tiles > 0 ? 2 : 1), 0) {
  if (tile < 1 || hold_tiles < 0) throw Error("", "pipeline buffer model", "tile >= 1 and hold_tiles >= 0 required");
}

uint64_t PipelineBufferModel::tiles_shrinkable() const { return *std::min_element(done_.begin(), done_.end()); }

bool PipelineBufferModel::serviceable(int c, int idx) const {
  const uint64_t t = done_[static_cast<size_t>(c)];
  if (idx < 0 || idx >= tile_) return false;
  if (t - tiles_shrinkable() >= static_cast<uint64_t>(depth_tiles())) return false;
  return t * static_cast<uint64_t>(tile_) + static_cast<uint64_t>(idx) < data_.size();
}

uint64_t PipelineBufferModel::read(int c, int idx, bool last) {
  if (!serviceable(c, idx))
    throw Error("", fmt::format("consumer {} tile {} index {}", c, done_[static_cast<size_t>(c)], idx),
                "read accepted before its element could be in the buffer");
  uint64_t v = data_[static_cast<size_t>(done_[static_cast<size_t>(c)] * static_cast<uint64_t>(tile_) +
                                          static_cast<uint64_t>(idx))];
  if (last) ++done_[static_cast<size_t>(c)];
  return v;
}

}  // namespace cello::mac
