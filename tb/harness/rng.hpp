// Seeded randomness for testbenches. The seed comes from CELLO_SEED when set
// (to replay a failure) or from the caller; every failure message includes it.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>

namespace cello::tb {

inline uint64_t seed_from_env(uint64_t fallback) {
  const char* s = std::getenv("CELLO_SEED");
  return s ? std::strtoull(s, nullptr, 0) : fallback;
}

class Rng {
 public:
  explicit Rng(uint64_t seed) : seed_(seed), gen_(seed) {}
  uint64_t seed() const { return seed_; }
  uint64_t bits(int width) {  // uniform value of `width` bits (1..64)
    uint64_t v = gen_();
    return width >= 64 ? v : (v & ((uint64_t{1} << width) - 1));
  }
  uint64_t below(uint64_t n) { return n == 0 ? 0 : std::uniform_int_distribution<uint64_t>(0, n - 1)(gen_); }
  uint64_t range(uint64_t lo, uint64_t hi) { return std::uniform_int_distribution<uint64_t>(lo, hi)(gen_); }
  bool chance(double p) { return p >= 1.0 || (p > 0.0 && std::uniform_real_distribution<double>(0, 1)(gen_) < p); }

 private:
  uint64_t seed_;
  std::mt19937_64 gen_;
};

// A random handshake rate for a port: often 1 (no stalls), else 0.1 .. 1.
inline double random_rate(Rng& rng) {
  return rng.chance(0.3) ? 1.0 : 0.1 + 0.9 * static_cast<double>(rng.below(100)) / 100.0;
}

}  // namespace cello::tb
