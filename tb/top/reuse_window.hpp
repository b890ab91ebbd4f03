// Reference of the load unit's reuse window (docs/top.md, "Load unit"): the
// granules fetched since the last inval, the newest `window` of them. A read of
// a granule in the window shares its line; any other read goes to DRAM and its
// granule enters the window in place of the oldest. Window 1 is plain
// coalescing: one DRAM read per change of granule in the read stream.
// Pins: a pinned read keeps a copy of its granule, among the last `pins`
// granules pinned since the last inval, and a read the window misses takes a
// pinned copy instead of going to DRAM. The store unit's open granules follow
// the same rule without pins (a DRAM write per granule opened).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <deque>

namespace cello::tb {

class ReuseWindow {
 public:
  explicit ReuseWindow(size_t window, size_t pins = 0) : window_(window), pins_(pins) {}
  void inval() {
    fetched_.clear();
    pinned_.clear();
  }
  // True when the read of granule g goes to DRAM.
  bool miss(uint64_t g, bool pin = false) {
    const bool pinned = has(pinned_, g);
    const bool hit = has(fetched_, g) || pinned;
    if (!hit) push(fetched_, g, window_);
    if (pin && !pinned) push(pinned_, g, pins_);
    return !hit;
  }

 private:
  static bool has(const std::deque<uint64_t>& d, uint64_t g) { return std::find(d.begin(), d.end(), g) != d.end(); }
  static void push(std::deque<uint64_t>& d, uint64_t g, size_t cap) {
    if (cap == 0) return;
    d.push_back(g);
    if (d.size() > cap) d.pop_front();
  }
  size_t window_, pins_;
  std::deque<uint64_t> fetched_, pinned_;
};

}  // namespace cello::tb
