// Consumer-side programs for buffet testbenches: sequences of read / update /
// shrink operations with the ordering a real index generator would respect.
//
// Ordering rules (also in docs/buffet.md):
//  - a read or update is issued after every earlier shrink was accepted (its
//    index is relative to the head those shrinks produced);
//  - an update is issued after its will_update read was accepted;
//  - a shrink is issued after every earlier read and update was accepted;
//  - without a RAW scoreboard, a read of an updated element waits for the update.
// Reads may run ahead of updates, which is what exercises the RAW scoreboard.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "tb/harness/rng.hpp"

namespace cello::tb {

struct BuffetOp {
  enum Kind { Read, Update, Shrink } kind;
  uint32_t idx = 0;          // read / update index relative to the head
  bool will_update = false;  // read: an update of this element follows
  uint32_t num = 0;          // shrink count
  uint64_t data = 0;         // update value
  int64_t dep[2] = {-1, -1};  // program positions that must be accepted first
};

class BuffetProgram {
 public:
  // size: elements in the buffet region; data_width: bits of update data;
  // has_update false turns every will_update read into a plain read.
  // max_awaiting > 0 (a scoreboard CAM of that many entries): before a
  // will_update read that would exceed it, the oldest awaiting element is
  // updated, so the program never needs more entries than the buffet has.
  BuffetProgram(unsigned size, unsigned data_width, bool has_update, bool scoreboard, bool shrink_sync, Rng& rng,
                unsigned max_awaiting = 0);

  void read(uint32_t idx, bool will_update = false);
  void update(uint32_t idx);  // idx must be awaiting an update (read with will_update)
  void shrink(uint32_t num);
  // Updates every element still awaiting one (before a shrink that covers it).
  void finish_updates();

  unsigned size() const { return size_; }
  bool scoreboard() const { return scoreboard_; }
  bool shrink_sync() const { return shrink_sync_; }
  bool has_update() const { return has_update_; }
  // Elements known to be filled (an accepted read proves it): the bound on a
  // shrink when the buffet has no shrink synchronisation.
  uint32_t known_filled() const { return known_filled_; }
  bool awaiting(uint32_t idx) const { return awaiting_.count(head_ + idx) != 0; }
  std::vector<BuffetOp> take() { return std::move(ops_); }
  size_t length() const { return ops_.size(); }

 private:
  int64_t push(BuffetOp op);
  unsigned size_, width_;
  bool has_update_, scoreboard_, shrink_sync_;
  Rng& rng_;
  unsigned max_awaiting_;
  std::vector<BuffetOp> ops_;
  uint64_t head_ = 0;  // absolute element number at index 0
  uint32_t known_filled_ = 0;
  int64_t last_shrink_ = -1, last_read_ = -1, last_update_ = -1;
  std::map<uint64_t, int64_t> awaiting_;     // element -> position of its will_update read
  std::map<uint64_t, int64_t> update_of_;  // element -> position of its last update
};

// The traffic mixes of the buffet test plan. Each appends about `ops` operations.
enum class BuffetMix { Streaming, SlidingWindow, UpdateRaw, FullEmpty, Random };
const char* to_string(BuffetMix m);
void append_mix(BuffetProgram& p, BuffetMix mix, size_t ops, Rng& rng);

}  // namespace cello::tb
