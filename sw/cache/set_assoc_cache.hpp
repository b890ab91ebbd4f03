// Set-associative, write-back cache simulator used by the Flex+LRU and
// Flex+BRRIP baselines (CELLO Table IV). It counts DRAM line fills and dirty
// write-backs for an address trace; it holds no data.
//
// Replacement policies:
//   LRU   - least recently used way of the set is the victim.
//   BRRIP - bimodal re-reference interval prediction (Jaleel et al., ISCA 2010)
//           with M-bit re-reference prediction values (RRPV). A hit sets the
//           RRPV to 0 (hit priority). A fill is inserted with the "distant"
//           RRPV (2^M - 1), except for a small fraction (1/32 by default) of
//           fills that get the "long" RRPV (2^M - 2). The victim is the first
//           way (lowest index) whose RRPV is 2^M - 1; if none has it, every
//           RRPV of the set is aged until one does.
//
// Writes allocate. A write miss does not fetch the line from DRAM by default
// (the traces written by the traffic models always overwrite whole lines, which
// a write-combining front end turns into full-line writes); set
// fetch_on_write_miss to count the fetch anyway. Dirty lines are written back
// when evicted and by flush().
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace cello::cache {

enum class Policy { LRU, BRRIP };

const char* to_string(Policy p);

struct CacheConfig {
  uint64_t capacity_bytes = 4ull << 20;
  uint32_t line_bytes = 16;  // power of two
  uint32_t ways = 8;
  Policy policy = Policy::LRU;
  bool fetch_on_write_miss = false;
  // BRRIP parameters.
  uint32_t rrpv_bits = 2;           // M
  uint32_t brrip_long_inverse = 32;  // 1 in this many fills is inserted "long"
  uint64_t seed = 0x9e3779b97f4a7c15ull;

  uint64_t sets() const { return capacity_bytes / (uint64_t(line_bytes) * ways); }
  // Throws cello::Error when the geometry is impossible.
  void validate() const;
};

// Every member is a uint64_t counter (operator+= sums them with add_counters).
struct CacheStats {
  uint64_t accesses = 0;
  uint64_t hits = 0;
  uint64_t misses = 0;
  uint64_t read_accesses = 0;
  uint64_t write_accesses = 0;
  uint64_t fills = 0;       // lines read from DRAM
  uint64_t writebacks = 0;  // dirty lines written to DRAM (evictions + flush)

  CacheStats& operator+=(const CacheStats& o);
};

// Decides which fills BRRIP inserts with the "long" RRPV: a deterministic
// pseudo-random draw with probability 1/inverse, consumed once per fill. Both
// the fast simulator and the brute-force reference use it, so they agree on
// every insertion.
class BimodalThrottle {
 public:
  BimodalThrottle(uint32_t inverse, uint64_t seed) : inverse_(inverse), state_(seed ? seed : 1) {}
  bool insert_long() {
    // xorshift64*
    state_ ^= state_ >> 12;
    state_ ^= state_ << 25;
    state_ ^= state_ >> 27;
    uint64_t r = state_ * 0x2545f4914f6cdd1dull;
    return inverse_ <= 1 || (r >> 32) % inverse_ == 0;
  }

 private:
  uint32_t inverse_;
  uint64_t state_;
};

class SetAssocCache {
 public:
  explicit SetAssocCache(const CacheConfig& cfg);

  // One access to the line holding byte address addr. Returns true on a hit.
  bool access(uint64_t addr, bool write) { return access_line(addr >> line_shift_, write); }
  // Same, with the line number (addr / line_bytes) already computed.
  bool access_line(uint64_t line, bool write);

  // Writes every dirty line back (counted in writebacks) and marks it clean.
  void flush();

  const CacheStats& stats() const { return stats_; }
  const CacheConfig& config() const { return cfg_; }
  uint64_t sets() const { return sets_; }
  unsigned line_shift() const { return line_shift_; }
  // Whether the line holding addr is present (no state change).
  bool contains(uint64_t addr) const;

 private:
  uint64_t set_of(uint64_t line) const { return pow2_sets_ ? (line & set_mask_) : (line % sets_); }
  unsigned victim_lru(uint64_t base) const;
  unsigned victim_brrip(uint64_t base);

  CacheConfig cfg_;
  uint64_t sets_ = 0;
  uint64_t set_mask_ = 0;
  bool pow2_sets_ = false;
  unsigned line_shift_ = 4;
  unsigned ways_ = 8;
  uint8_t rrpv_max_ = 3;
  // Per way, flattened as set * ways + way. tag = line + 1; 0 means invalid.
  std::vector<uint64_t> tag_;
  std::vector<uint64_t> stamp_;  // LRU: time of last use
  std::vector<uint8_t> rrpv_;    // BRRIP
  std::vector<uint8_t> dirty_;
  uint64_t clock_ = 0;
  BimodalThrottle throttle_;
  CacheStats stats_;
};

}  // namespace cello::cache
