#include "tb/buffet/buffet_program.hpp"

#include <algorithm>
#include <stdexcept>

#include "sw/common/enum_names.hpp"

namespace cello::tb {

BuffetProgram::BuffetProgram(unsigned size, unsigned data_width, bool has_update, bool scoreboard, bool shrink_sync,
                             Rng& rng, unsigned max_awaiting)
    : size_(size), width_(data_width), has_update_(has_update), scoreboard_(scoreboard), shrink_sync_(shrink_sync),
      rng_(rng), max_awaiting_(max_awaiting) {}

int64_t BuffetProgram::push(BuffetOp op) {
  ops_.push_back(op);
  return static_cast<int64_t>(ops_.size()) - 1;
}

void BuffetProgram::read(uint32_t idx, bool will_update) {
  if (idx >= size_) throw std::logic_error("program read beyond the buffet size");
  will_update = will_update && has_update_;
  uint64_t elem = head_ + idx;
  if (will_update && max_awaiting_ > 0 && awaiting_.size() >= max_awaiting_ && !awaiting_.count(elem)) {
    auto oldest = std::min_element(awaiting_.begin(), awaiting_.end(),
                                   [](const auto& a, const auto& b) { return a.second < b.second; });
    update(static_cast<uint32_t>(oldest->first - head_));
  }
  BuffetOp op{BuffetOp::Read};
  op.idx = idx;
  op.will_update = will_update;
  op.dep[0] = last_shrink_;
  if (!scoreboard_) {
    if (awaiting_.count(elem)) throw std::logic_error("read of an element awaiting an update without scoreboard");
    auto it = update_of_.find(elem);
    if (it != update_of_.end()) op.dep[1] = it->second;
  } else if (will_update && awaiting_.count(elem)) {
    throw std::logic_error("second will_update read before the update");
  }
  last_read_ = push(op);
  if (will_update) awaiting_[elem] = last_read_;
  known_filled_ = std::max(known_filled_, idx + 1);
}

void BuffetProgram::update(uint32_t idx) {
  uint64_t elem = head_ + idx;
  auto it = awaiting_.find(elem);
  if (it == awaiting_.end()) throw std::logic_error("update of an element not awaiting one");
  BuffetOp op{BuffetOp::Update};
  op.idx = idx;
  op.data = rng_.bits(static_cast<int>(width_));
  op.dep[0] = it->second;
  op.dep[1] = last_shrink_;
  last_update_ = push(op);
  update_of_[elem] = last_update_;
  awaiting_.erase(it);
}

void BuffetProgram::finish_updates() {
  while (!awaiting_.empty()) update(static_cast<uint32_t>(awaiting_.begin()->first - head_));
}

void BuffetProgram::shrink(uint32_t num) {
  if (num > size_) throw std::logic_error("program shrink beyond the buffet size");
  if (!shrink_sync_ && num > known_filled_) throw std::logic_error("unsynchronised shrink of unread elements");
  for (uint32_t i = 0; i < num; ++i)
    if (awaiting_.count(head_ + i)) throw std::logic_error("shrink over an element awaiting its update");
  BuffetOp op{BuffetOp::Shrink};
  op.num = num;
  op.dep[0] = last_read_;
  op.dep[1] = last_update_;
  last_shrink_ = push(op);
  head_ += num;
  known_filled_ = known_filled_ > num ? known_filled_ - num : 0;
  for (auto it = update_of_.begin(); it != update_of_.end();)
    it = it->first < head_ ? update_of_.erase(it) : std::next(it);
}

constexpr const char* kMixNames[] = {"streaming", "sliding window", "in-place update with RAW hazards",
                                     "shrinks at full and empty", "random mix"};
static_assert(names_cover(kMixNames, BuffetMix::Random));
const char* to_string(BuffetMix m) { return name_of(m, kMixNames); }

void append_mix(BuffetProgram& p, BuffetMix mix, size_t ops, Rng& rng) {
  const unsigned size = p.size();
  size_t target = p.length() + ops;
  switch (mix) {
    case BuffetMix::Streaming:
      // Read each element once in order, shrinking in random batches.
      while (p.length() < target) {
        uint32_t batch = static_cast<uint32_t>(rng.range(1, size));
        for (uint32_t i = 0; i < batch; ++i) p.read(i);
        p.shrink(batch);
      }
      break;
    case BuffetMix::SlidingWindow:
      // Read a window wider than the step, so reads run past the next shrink.
      while (p.length() < target) {
        uint32_t window = static_cast<uint32_t>(rng.range(std::min(2u, size), size));
        uint32_t step = static_cast<uint32_t>(rng.range(1, std::max(1u, window - 1)));
        for (uint32_t i = 0; i < window; ++i) p.read(i);
        p.shrink(step);
      }
      break;
    case BuffetMix::UpdateRaw:
      // Read-modify-write of a tile; with a scoreboard, re-read each element right
      // away so the read must wait for its update (RAW hazard).
      while (p.length() < target) {
        uint32_t tile = static_cast<uint32_t>(rng.range(1, size));
        for (uint32_t i = 0; i < tile && !p.has_update(); ++i) p.read(i);
        for (uint32_t i = 0; i < tile && p.has_update(); ++i) {
          p.read(i, true);
          if (p.scoreboard()) p.read(i);
          p.update(i);
          if (!p.scoreboard()) p.read(i);
        }
        for (uint32_t i = 0; i < tile; ++i) p.read(i);
        p.shrink(tile);
      }
      break;
    case BuffetMix::FullEmpty:
      // Shrink 0 on an empty window, wait for the buffet to fill completely, then
      // drain it with a single shrink of everything.
      while (p.length() < target) {
        p.shrink(0);
        p.read(size - 1);
        for (uint32_t i = 0; i < size; ++i)
          if (rng.chance(0.25)) p.read(i);
        p.shrink(size);
      }
      break;
    case BuffetMix::Random:
      while (p.length() < target) {
        uint64_t r = rng.below(10);
        if (r < 6) {
          uint32_t idx = static_cast<uint32_t>(rng.below(size));
          bool upd = rng.chance(0.3);
          if (p.awaiting(idx)) {
            if (p.scoreboard()) p.read(idx);  // hazard: waits for the update
            p.update(idx);
          } else {
            p.read(idx, upd);
          }
        } else if (r < 8) {
          p.finish_updates();
          // With shrink synchronisation the shrink may wait for fills.
          uint32_t limit = p.shrink_sync() ? size : p.known_filled();
          p.shrink(static_cast<uint32_t>(rng.below(uint64_t{limit} + 1)));
        } else {
          p.finish_updates();
        }
      }
      break;
  }
  p.finish_updates();
}

}  // namespace cello::tb
