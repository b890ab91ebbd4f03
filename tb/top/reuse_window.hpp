// Reference of the load unit's reuse window (docs/top.md, "Load unit"): the
// granules fetched since the last inval, the newest `window` of them. A read of
// a granule in the window shares its line; any other read goes to DRAM and its
// granule enters the window in place of the oldest. Window 1 is plain
// coalescing: one DRAM read per change of granule in the read stream.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <deque>

namespace cello::tb {

class ReuseWindow {
 public:
  explicit ReuseWindow(size_t window) : window_(window) {}
  void inval() { fetched_.clear(); }
  // True when the read of granule g goes to DRAM.
  bool miss(uint64_t g) {
    if (std::find(fetched_.begin(), fetched_.end(), g) != fetched_.end()) return false;
    fetched_.push_back(g);
    if (fetched_.size() > window_) fetched_.pop_front();
    return true;
  }

 private:
  size_t window_;
  std::deque<uint64_t> fetched_;
};

}  // namespace cello::tb
