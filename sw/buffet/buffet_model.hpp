// C++ reference model of a buffet (buffets paper, Algorithm 1). It is the spec
// the generated RTL is checked against, transaction by transaction.
//
// Each operation has a check_*() that says whether it may take effect now (the
// wait_until conditions of Algorithm 1) and an apply function that performs it.
// Within one clock cycle the RTL applies accepted operations as if in the order
// read, update, shrink, fill, all against the state at the start of the cycle;
// a testbench feeds the model in that order.
#pragma once

#include <cstdint>
#include <deque>
#include <vector>

namespace cello::buffet {

enum class Wait {
  Ready,           // the operation may take effect now
  NotFilled,       // read/update index >= occupancy (wait for fills)
  AwaitingUpdate,  // read of a slot marked by a will_update read
  NotAwaiting,     // update of a slot no read marked (illegal with the scoreboard)
  ScoreboardFull,  // will_update read while every scoreboard CAM entry is in use
  Occupancy,       // shrink larger than occupancy
  Full,            // fill with no free slot
  NoCredit,        // multicast transfer while a masked target has no credit
  Never,           // can never become legal (index or count beyond the size)
};

const char* to_string(Wait w);

class BuffetModel {
 public:
  // size: slots in the buffet's region; scoreboard: RAW tracking of will_update;
  // scoreboard_entries: 0 tracks every slot, N > 0 at most N slots awaiting an
  // update at once (the scoreboard CAM), a further will_update read waits.
  BuffetModel(unsigned size, bool scoreboard, unsigned scoreboard_entries = 0);

  unsigned size() const { return size_; }
  unsigned occupancy() const { return occupancy_; }
  unsigned head() const { return head_; }  // slot of the oldest element, 0-based in the region
  uint64_t credits_offered() const { return credits_offered_; }

  Wait check_fill() const;
  void fill(uint64_t data);

  Wait check_read(uint64_t index, bool will_update = false) const;
  uint64_t read(uint64_t index, bool will_update);

  Wait check_update(uint64_t index) const;
  void update(uint64_t index, uint64_t data);

  Wait check_shrink(uint64_t num) const;
  void shrink(uint64_t num);

  // Credits the buffet owes its producer: size after reset plus every shrink,
  // minus what has been handed out with take_credits().
  unsigned credits_pending() const { return credits_pending_; }
  void take_credits(unsigned n);

  // Slot awaiting an update (scoreboard) at a given window index.
  bool awaiting_update(uint64_t index) const;

 private:
  unsigned slot(uint64_t index) const { return static_cast<unsigned>((head_ + index) % size_); }

  unsigned size_;
  bool scoreboard_;
  unsigned scoreboard_entries_;
  unsigned awaiting_ = 0;
  unsigned head_ = 0, occupancy_ = 0, credits_pending_;
  uint64_t credits_offered_;
  std::vector<uint64_t> data_;
  std::vector<bool> up_to_date_;
};

}  // namespace cello::buffet
