// The read rules of the top's load units and SPMM's entry fetcher (docs/top.md,
// "Load unit" and "Stream engine"), which the executor's prediction of the
// top's DRAM traffic follows and the load and store units' testbenches check
// the RTL against.
//
// ReuseWindow: the granules fetched since the last inval, the newest `window`
// of them. A read of a granule in the window shares its line; any other read
// goes to DRAM and its granule enters the window in place of the oldest.
// Window 1 is plain coalescing: one DRAM read per change of granule in the
// read stream. Pins: a pinned read keeps a copy of its granule, among the last
// `pins` granules pinned since the last inval, and a read the window misses
// takes a pinned copy instead of going to DRAM. The store unit's open granules
// follow the same rule without pins (a DRAM write per granule opened).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <vector>

namespace cello::exec {

class ReuseWindow {
 public:
  explicit ReuseWindow(size_t window, size_t pins = 0) : window_(window), pins_(pins) {}
  void inval() {
    fetched_.clear();
    pinned_.clear();
  }
  // True when the read of granule g goes to DRAM.
  bool miss(uint64_t g, bool pin = false) {
    if (!pin && !fetched_.empty() && fetched_.back() == g) return false;  // the newest granule again
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

// SPMM's entry fetcher's order over a CSR matrix's entries (one column block):
// groups of 4 rows, the group's rows interleaved round robin (each row's
// entries in CSR order), f(entry, pin) per entry, where pin marks a row's first
// entry: its granule holds the end of the row before, which comes late in the
// group.
template <class RowPtr, class F>
void csr_entry_order(const RowPtr& row_ptr, F&& f) {
  const size_t rows = row_ptr.size() - 1;
  for (size_t i0 = 0; i0 < rows; i0 += 4) {
    const size_t n = std::min<size_t>(4, rows - i0);
    uint64_t cur[4], end[4];
    for (size_t r = 0; r < n; ++r) {
      cur[r] = static_cast<uint64_t>(row_ptr[i0 + r]);
      end[r] = static_cast<uint64_t>(row_ptr[i0 + r + 1]);
    }
    for (bool left = true; left;) {
      left = false;
      for (size_t r = 0; r < n; ++r)
        if (cur[r] < end[r]) {
          f(cur[r], cur[r] == static_cast<uint64_t>(row_ptr[i0 + r]));
          ++cur[r];
          left = true;
        }
    }
  }
}

}  // namespace cello::exec
