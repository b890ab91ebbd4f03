// DRAM model for the top's testbenches: one request port and one response port,
// both ready/valid, moving one granule per request, with a configurable latency
// (fixed, or uniformly random in [min, max]) and bandwidth (bytes per cycle, a
// token bucket, so 16 B/cycle with 32 B granules accepts a request every other
// cycle). Writes carry byte enables. Every request gets a response carrying its tag: read data, or a write
// acknowledgement once the write has landed (what a FENCE waits for).
//
// A request accepted in cycle c is offered as a response from cycle c + latency
// (latency >= 1).
//
// Order: memory changes when a request is accepted, so every request sees all
// the writes accepted before it, whatever the latencies. Responses leave in
// request order by default; with `in_order = false` each leaves when its own
// latency has passed (tags tell them apart).
//
// It counts bytes read and written per region (tensor regions of the command
// stream); a request outside every region counts as "other". Out-of-image or
// misaligned requests throw Failure: the design broke the protocol.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <deque>
#include <string>
#include <vector>

#include "tb/harness/rng.hpp"
#include "tb/harness/stream.hpp"

namespace cello::tb {

struct DramTiming {
  unsigned granule_bytes = 16;
  double bytes_per_cycle = 16;  // bandwidth (> 0)
  uint64_t latency_min = 100;   // cycles from acceptance to the response being offered
  uint64_t latency_max = 100;   // == latency_min: fixed latency
  bool in_order = true;
  size_t queue = 256;           // requests in flight before the request port stalls
};

struct DramRequest {
  uint64_t addr = 0;  // byte address, granule aligned
  bool write = false;
  std::vector<uint8_t> data;  // write data: granule_bytes
  uint64_t tag = 0;
  std::vector<bool> strb;     // write byte enables (empty: every byte)
};

struct DramResponse {
  uint64_t tag = 0;
  bool write = false;
  std::vector<uint8_t> data;  // read data: granule_bytes
  uint64_t due = 0;           // first cycle it may be offered
};

struct DramRegion {
  std::string name;
  uint64_t base = 0, bytes = 0;
  uint64_t read = 0, written = 0;            // bytes moved through the port
  uint64_t host_read = 0, host_written = 0;  // bytes the host moved (count_host)
};

class DramModel {
 public:
  DramModel(std::vector<uint8_t>& image, const DramTiming& t, Rng& rng) : mem_(image), t_(t), rng_(rng) {
    if (t_.bytes_per_cycle <= 0) throw Failure("DRAM model: bandwidth must be positive");
    if (t_.latency_min < 1 || t_.latency_max < t_.latency_min) throw Failure("DRAM model: latency must be 1 <= min <= max");
    if (t_.granule_bytes == 0) throw Failure("DRAM model: granule must be positive");
    tokens_ = cap();
  }

  // Regions to count traffic by (a later region wins where two overlap).
  void add_region(const std::string& name, uint64_t base, uint64_t bytes) { regions_.push_back({name, base, bytes}); }
  const std::vector<DramRegion>& regions() const { return regions_; }
  uint64_t other_read() const { return other_read_; }
  uint64_t other_written() const { return other_written_; }
  uint64_t bytes_read() const { return total_read_; }
  uint64_t bytes_written() const { return total_written_; }
  // The host's own DRAM traffic (HOST commands read operands and write the
  // result in the image directly), counted beside the port's, per region.
  void count_host(uint64_t addr, uint64_t n, bool write) {
    (write ? host_written_ : host_read_) += n;
    if (DramRegion* r = region_of(addr)) (write ? r->host_written : r->host_read) += n;
  }
  uint64_t host_bytes_read() const { return host_read_; }
  uint64_t host_bytes_written() const { return host_written_; }
  uint64_t cycle() const { return cycle_; }
  size_t in_flight() const { return pending_.size(); }

  // Request port: may a request be accepted this cycle?
  bool req_ready() const { return tokens_ >= static_cast<double>(t_.granule_bytes) && pending_.size() < t_.queue; }

  // Call when the request handshake happened this cycle.
  void accept(const DramRequest& r) {
    if (!req_ready()) throw Failure("DRAM model: request accepted while not ready");
    const uint64_t g = t_.granule_bytes;
    if (r.addr % g) throw Failure(fmt::format("DRAM: address {:#x} is not aligned to the {}-byte granule", r.addr, g));
    if (r.addr > mem_.size() || g > mem_.size() - r.addr)
      throw Failure(fmt::format("DRAM: address {:#x} is outside the {}-byte image", r.addr, mem_.size()));
    tokens_ -= static_cast<double>(g);
    DramResponse rsp;
    rsp.tag = r.tag;
    rsp.write = r.write;
    rsp.due = cycle_ + (t_.latency_min == t_.latency_max ? t_.latency_min : rng_.range(t_.latency_min, t_.latency_max));
    if (r.write) {
      if (r.data.size() != g) throw Failure("DRAM: write data is not one granule");
      if (!r.strb.empty() && r.strb.size() != g) throw Failure("DRAM: write byte enables are not one granule");
      for (uint64_t b = 0; b < g; ++b)
        if (r.strb.empty() || r.strb[b]) mem_[r.addr + b] = r.data[b];
      count(r.addr, g, true);
    } else {
      rsp.data.assign(mem_.begin() + static_cast<std::ptrdiff_t>(r.addr), mem_.begin() + static_cast<std::ptrdiff_t>(r.addr + g));
      count(r.addr, g, false);
    }
    pending_.push_back(std::move(rsp));
  }

  // Response port: the response offered this cycle, or nullptr. It stays
  // offered (the same one) until taken.
  const DramResponse* response() const {
    return offered_ == kNone ? nullptr : &pending_[offered_];
  }
  void taken() {
    if (offered_ == kNone) throw Failure("DRAM model: response taken while none is offered");
    pending_.erase(pending_.begin() + static_cast<std::ptrdiff_t>(offered_));
    offered_ = kNone;
  }

  // End of cycle: refill the bandwidth tokens and pick the next response.
  void tick() {
    ++cycle_;
    // A full burst's worth of tokens at most, so idle cycles do not bank bandwidth.
    tokens_ = std::min(tokens_ + t_.bytes_per_cycle, cap());
    pick();
  }

 private:
  double cap() const { return std::max(t_.bytes_per_cycle, static_cast<double>(t_.granule_bytes)); }
  void pick() {
    if (offered_ != kNone) return;  // keep offering the same one until it is taken
    if (t_.in_order) {
      if (!pending_.empty() && pending_.front().due <= cycle_) offered_ = 0;
      return;
    }
    for (size_t i = 0; i < pending_.size(); ++i)
      if (pending_[i].due <= cycle_) {
        offered_ = i;
        return;
      }
  }
  DramRegion* region_of(uint64_t addr) {
    for (auto it = regions_.rbegin(); it != regions_.rend(); ++it)
      if (addr >= it->base && addr < it->base + it->bytes) return &*it;
    return nullptr;
  }
  void count(uint64_t addr, uint64_t n, bool write) {
    (write ? total_written_ : total_read_) += n;
    if (DramRegion* r = region_of(addr))
      (write ? r->written : r->read) += n;
    else
      (write ? other_written_ : other_read_) += n;
  }

  std::vector<uint8_t>& mem_;
  DramTiming t_;
  Rng& rng_;
  std::deque<DramResponse> pending_;
  static constexpr size_t kNone = SIZE_MAX;
  size_t offered_ = kNone;  // index in pending_ of the response offered, or none
  double tokens_ = 0;
  uint64_t cycle_ = 0;
  std::vector<DramRegion> regions_;
  uint64_t other_read_ = 0, other_written_ = 0, total_read_ = 0, total_written_ = 0, host_read_ = 0, host_written_ = 0;
};

// A random DRAM for randomised tests: 4, 16 or 64 B per cycle; latency 1, 5
// or 100 cycles, fixed or random up to 150 more; responses in or out of order.
inline DramTiming random_dram_timing(Rng& rng, unsigned granule_bytes) {
  DramTiming t;
  t.granule_bytes = granule_bytes;
  t.bytes_per_cycle = std::vector<double>{4, 16, 64}[rng.below(3)];
  t.latency_min = std::vector<uint64_t>{1, 5, 100}[rng.below(3)];
  t.latency_max = rng.chance(0.5) ? t.latency_min : t.latency_min + rng.below(150);
  t.in_order = rng.chance(0.5);
  return t;
}

}  // namespace cello::tb
