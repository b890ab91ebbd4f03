#include "sw/cache/set_assoc_cache.hpp"

#include <fmt/core.h>

#include "sw/common/counters.hpp"
#include "sw/common/error.hpp"
#include "sw/common/enum_names.hpp"

namespace cello::cache {

constexpr const char* kPolicyNames[] = {"LRU", "BRRIP"};
static_assert(names_cover(kPolicyNames, Policy::BRRIP));
const char* to_string(Policy p) { return name_of(p, kPolicyNames); }

CacheStats& CacheStats::operator+=(const CacheStats& o) { return add_counters(*this, o); }

void CacheConfig::validate() const {
  if (line_bytes == 0 || (line_bytes & (line_bytes - 1)) != 0)
    throw Error("", "cache", fmt::format("line size {} B is not a power of two", line_bytes));
  if (ways == 0 || ways > 255) throw Error("", "cache", fmt::format("associativity {} is out of 1..255", ways));
  if (capacity_bytes % (uint64_t(line_bytes) * ways) != 0 || sets() == 0)
    throw Error("", "cache",
                fmt::format("capacity {} B is not a positive multiple of ways x line ({} x {} B)", capacity_bytes,
                            ways, line_bytes));
  if (rrpv_bits == 0 || rrpv_bits > 7) throw Error("", "cache", fmt::format("RRPV width {} is out of 1..7", rrpv_bits));
}

SetAssocCache::SetAssocCache(const CacheConfig& cfg) : cfg_(cfg), throttle_(cfg.brrip_long_inverse, cfg.seed) {
  cfg_.validate();
  sets_ = cfg_.sets();
  pow2_sets_ = (sets_ & (sets_ - 1)) == 0;
  set_mask_ = sets_ - 1;
  line_shift_ = 0;
  while ((1u << line_shift_) < cfg_.line_bytes) ++line_shift_;
  ways_ = cfg_.ways;
  rrpv_max_ = static_cast<uint8_t>((1u << cfg_.rrpv_bits) - 1);
  const uint64_t n = sets_ * ways_;
  tag_.assign(n, 0);
  dirty_.assign(n, 0);
  if (cfg_.policy == Policy::LRU)
    stamp_.assign(n, 0);
  else
    rrpv_.assign(n, rrpv_max_);
}

unsigned SetAssocCache::victim_lru(uint64_t base) const {
  unsigned v = 0;
  uint64_t oldest = stamp_[base];
  for (unsigned w = 1; w < ways_; ++w)
    if (stamp_[base + w] < oldest) {
      oldest = stamp_[base + w];
      v = w;
    }
  return v;
}

unsigned SetAssocCache::victim_brrip(uint64_t base) {
  uint8_t* r = &rrpv_[base];
  uint8_t top = 0;
  for (unsigned w = 0; w < ways_; ++w) {
    if (r[w] == rrpv_max_) return w;
    if (r[w] > top) top = r[w];
  }
  // Age the whole set at once by the amount repeated increments would.
  const uint8_t add = static_cast<uint8_t>(rrpv_max_ - top);
  unsigned v = ways_;
  for (unsigned w = 0; w < ways_; ++w) {
    r[w] = static_cast<uint8_t>(r[w] + add);
    if (v == ways_ && r[w] == rrpv_max_) v = w;
  }
  return v;
}

bool SetAssocCache::access_line(uint64_t line, bool write) {
  ++stats_.accesses;
  if (write)
    ++stats_.write_accesses;
  else
    ++stats_.read_accesses;
  const uint64_t base = set_of(line) * ways_;
  const uint64_t tag = line + 1;
  uint64_t* t = &tag_[base];
  unsigned invalid = ways_;
  for (unsigned w = 0; w < ways_; ++w) {
    if (t[w] == tag) {
      ++stats_.hits;
      if (write) dirty_[base + w] = 1;
      if (cfg_.policy == Policy::LRU)
        stamp_[base + w] = ++clock_;
      else
        rrpv_[base + w] = 0;
      return true;
    }
    if (t[w] == 0 && invalid == ways_) invalid = w;
  }
  ++stats_.misses;
  unsigned v = invalid;
  if (v == ways_) v = cfg_.policy == Policy::LRU ? victim_lru(base) : victim_brrip(base);
  if (t[v] != 0 && dirty_[base + v]) ++stats_.writebacks;
  t[v] = tag;
  dirty_[base + v] = write ? 1 : 0;
  if (!write || cfg_.fetch_on_write_miss) ++stats_.fills;
  if (cfg_.policy == Policy::LRU)
    stamp_[base + v] = ++clock_;
  else
    rrpv_[base + v] = throttle_.insert_long() ? static_cast<uint8_t>(rrpv_max_ - 1) : rrpv_max_;
  return false;
}

void SetAssocCache::flush() {
  for (uint64_t i = 0; i < tag_.size(); ++i)
    if (tag_[i] != 0 && dirty_[i]) {
      ++stats_.writebacks;
      dirty_[i] = 0;
    }
}

bool SetAssocCache::contains(uint64_t addr) const {
  const uint64_t line = addr >> line_shift_;
  const uint64_t base = set_of(line) * ways_;
  for (unsigned w = 0; w < ways_; ++w)
    if (tag_[base + w] == line + 1) return true;
  return false;
}

}  // namespace cello::cache
