#include "sw/buffet/buffet_model.hpp"

#include <stdexcept>

#include "sw/common/enum_names.hpp"

namespace cello::buffet {

constexpr const char* kWaitNames[] = {"ready", "index not filled", "slot awaiting an update",
                                      "slot not awaiting an update", "every scoreboard entry in use",
                                      "shrink exceeds occupancy", "buffet full", "a masked target has no credit",
                                      "beyond the buffet size"};
static_assert(names_cover(kWaitNames, Wait::Never));
const char* to_string(Wait w) { return name_of(w, kWaitNames); }

BuffetModel::BuffetModel(unsigned size, bool scoreboard, unsigned scoreboard_entries)
    : size_(size), scoreboard_(scoreboard), scoreboard_entries_(scoreboard_entries), credits_pending_(size), credits_offered_(size),
      data_(size, 0), up_to_date_(size, true) {
  if (size == 0) throw std::invalid_argument("buffet size must be positive");
}

Wait BuffetModel::check_fill() const { return occupancy_ < size_ ? Wait::Ready : Wait::Full; }

void BuffetModel::fill(uint64_t data) {
  if (check_fill() != Wait::Ready) throw std::logic_error("fill into a full buffet");
  unsigned s = slot(occupancy_);
  data_[s] = data;
  if (!up_to_date_[s]) --awaiting_;  // a slot shrunk away while awaiting its update
  up_to_date_[s] = true;
  ++occupancy_;
}

Wait BuffetModel::check_read(uint64_t index, bool will_update) const {
  if (index >= size_) return Wait::Never;
  if (index >= occupancy_) return Wait::NotFilled;
  if (scoreboard_ && !up_to_date_[slot(index)]) return Wait::AwaitingUpdate;
  if (scoreboard_ && will_update && scoreboard_entries_ > 0 && awaiting_ >= scoreboard_entries_)
    return Wait::ScoreboardFull;
  return Wait::Ready;
}

uint64_t BuffetModel::read(uint64_t index, bool will_update) {
  if (check_read(index, will_update) != Wait::Ready) throw std::logic_error("read not ready");
  unsigned s = slot(index);
  if (scoreboard_ && will_update) {
    up_to_date_[s] = false;
    ++awaiting_;
  }
  return data_[s];
}

bool BuffetModel::awaiting_update(uint64_t index) const {
  return index < occupancy_ && !up_to_date_[slot(index)];
}

Wait BuffetModel::check_update(uint64_t index) const {
  if (index >= size_) return Wait::Never;
  if (index >= occupancy_) return Wait::NotFilled;
  if (scoreboard_ && up_to_date_[slot(index)]) return Wait::NotAwaiting;
  return Wait::Ready;
}

void BuffetModel::update(uint64_t index, uint64_t data) {
  if (check_update(index) != Wait::Ready) throw std::logic_error("illegal update");
  unsigned s = slot(index);
  data_[s] = data;
  if (!up_to_date_[s]) --awaiting_;
  up_to_date_[s] = true;
}

Wait BuffetModel::check_shrink(uint64_t num) const {
  if (num > size_) return Wait::Never;
  // Algorithm 1 writes wait_until(num < occupancy); we allow num == occupancy so
  // that a buffet can be emptied completely (see docs/buffet.md).
  return num <= occupancy_ ? Wait::Ready : Wait::Occupancy;
}

void BuffetModel::shrink(uint64_t num) {
  if (check_shrink(num) != Wait::Ready) throw std::logic_error("illegal shrink");
  head_ = static_cast<unsigned>((head_ + num) % size_);
  occupancy_ -= static_cast<unsigned>(num);
  credits_pending_ += static_cast<unsigned>(num);
  credits_offered_ += num;
}

void BuffetModel::take_credits(unsigned n) {
  if (n > credits_pending_) throw std::logic_error("more credits taken than offered");
  credits_pending_ -= n;
}

}  // namespace cello::buffet
