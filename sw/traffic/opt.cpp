#include "sw/traffic/opt.hpp"

#include <algorithm>
#include <stdexcept>

namespace cello::traffic {

namespace {
constexpr uint32_t kNever = 0xffffffffu;  // no further read
}

void OptTrace::push(uint32_t tensor, uint64_t addr, OptEvent::Kind k) {
  if (addr >= kNever) throw std::invalid_argument("OPT trace: address beyond 32 bits");
  if (ev_.size() >= kNever - 1) throw std::invalid_argument("OPT trace: more than 2^32 events");
  ev_.push_back({static_cast<uint32_t>(addr), tensor, k});
}

OptCost belady_min(const OptTrace& trace, uint64_t capacity, const std::vector<bool>& output) {
  const auto& ev = trace.events();
  OptCost c;
  c.tensor_reads.assign(output.size(), 0);
  c.tensor_writes.assign(output.size(), 0);
  uint32_t top = 0;
  for (const auto& e : ev) top = std::max(top, e.addr + 1);
  for (const auto& e : ev)
    if (e.tensor >= output.size()) throw std::invalid_argument("OPT trace: tensor index out of range");

  // Next read of the word each event leaves behind: the next Read of the same
  // address before it is written again (a Write or Fill starts a new value).
  std::vector<uint32_t> next(ev.size());
  {
    std::vector<uint32_t> upcoming(top, kNever);
    for (size_t i = ev.size(); i-- > 0;) {
      const auto& e = ev[i];
      next[i] = upcoming[e.addr];
      upcoming[e.addr] = e.kind == OptEvent::Read ? static_cast<uint32_t>(i) : kNever;
    }
  }

  // Resident words: key[a] = index of their next read (kNever = not resident).
  // A max-heap of (next read, address) with lazy deletion finds the victim.
  std::vector<uint32_t> key(top, kNever), owner(top, 0);
  std::vector<uint8_t> dirty(top, 0);
  std::vector<uint64_t> heap;
  uint64_t used = 0;
  auto pack = [](uint32_t n, uint32_t a) { return (uint64_t(n) << 32) | a; };
  auto writeback = [&](uint32_t a) {
    ++c.writebacks;
    ++c.tensor_writes[owner[a]];
    dirty[a] = 0;
  };
  auto drop = [&](uint32_t a, bool dead) {
    // A dead dirty word owes DRAM its value only if it belongs to a final output.
    if (dirty[a] && (!dead || output[owner[a]])) writeback(a);
    dirty[a] = 0;
    key[a] = kNever;
    --used;
  };
  // A new value replaces the resident one: the old value is dead, no cost.
  auto replace = [&](uint32_t a) {
    if (key[a] == kNever) return;
    dirty[a] = 0;
    key[a] = kNever;
    --used;
  };
  auto set_key = [&](uint32_t a, uint32_t n) {
    key[a] = n;
    heap.push_back(pack(n, a));
    std::push_heap(heap.begin(), heap.end());
    // Keep the lazy heap from growing far beyond the resident set.
    if (heap.size() > 4 * capacity + 1024) {
      heap.clear();
      for (uint32_t x = 0; x < top; ++x)
        if (key[x] != kNever) heap.push_back(pack(key[x], x));
      std::make_heap(heap.begin(), heap.end());
    }
  };
  // Keeps word a (next read n) if MIN would: free space, or a resident word
  // read later than n, which is evicted.
  auto allocate = [&](uint32_t a, uint32_t n, uint32_t t, bool is_dirty) {
    if (n == kNever || capacity == 0) return false;
    if (used >= capacity) {
      while (!heap.empty()) {
        uint64_t h = heap.front();
        uint32_t hn = static_cast<uint32_t>(h >> 32), ha = static_cast<uint32_t>(h);
        if (key[ha] == hn) break;
        std::pop_heap(heap.begin(), heap.end());
        heap.pop_back();
      }
      if (heap.empty()) return false;
      uint64_t h = heap.front();
      uint32_t hn = static_cast<uint32_t>(h >> 32), ha = static_cast<uint32_t>(h);
      if (hn <= n) return false;  // bypass: everything resident is read sooner
      std::pop_heap(heap.begin(), heap.end());
      heap.pop_back();
      drop(ha, false);
    }
    ++used;
    owner[a] = t;
    dirty[a] = is_dirty ? 1 : 0;
    set_key(a, n);
    return true;
  };

  for (size_t i = 0; i < ev.size(); ++i) {
    const auto& e = ev[i];
    const uint32_t a = e.addr, n = next[i];
    switch (e.kind) {
      case OptEvent::Read:
        if (key[a] != kNever) {
          ++c.hits;
          if (n == kNever) drop(a, true);
          else set_key(a, n);
        } else {
          ++c.read_misses;
          ++c.tensor_reads[e.tensor];
          allocate(a, n, e.tensor, false);
        }
        break;
      case OptEvent::Fill:
        replace(a);
        allocate(a, n, e.tensor, false);
        break;
      case OptEvent::Write:
        replace(a);  // the old value is overwritten
        if (allocate(a, n, e.tensor, true)) break;
        // Not kept: it goes to DRAM if it is read later or is a final output;
        // a value nobody reads and nobody needs is dead on arrival.
        if (n != kNever || output[e.tensor]) {
          ++c.spills;
          ++c.tensor_writes[e.tensor];
        }
        break;
    }
  }
  // Anything still resident (a trace cut short) owes its write-back if dirty.
  for (uint32_t a = 0; a < top; ++a)
    if (key[a] != kNever && dirty[a] && output[owner[a]]) writeback(a);
  return c;
}

}  // namespace cello::traffic
