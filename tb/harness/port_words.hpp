// Access to Verilator ports of any width as 32-bit words: ports up to 64 bits
// are C integers, wider ones are VlWide arrays of 32-bit words.
#pragma once

#include <cstdint>
#include <type_traits>
#include <vector>

namespace cello::tb {

template <class P>
void put_words(P& port, const std::vector<uint32_t>& w) {
  if constexpr (std::is_integral_v<P>) {
    uint64_t v = 0;
    for (size_t i = 0; i < w.size() && i < 2; ++i) v |= static_cast<uint64_t>(w[i]) << (32 * i);
    port = static_cast<P>(v);
  } else {
    for (size_t i = 0; i < w.size(); ++i) port[i] = w[i];
  }
}

template <class P>
uint32_t get_word(const P& port, size_t i) {
  if constexpr (std::is_integral_v<P>) {
    return static_cast<uint32_t>(static_cast<uint64_t>(port) >> (32 * i));
  } else {
    return port[i];
  }
}

template <class P>
std::vector<uint32_t> get_words(const P& port, size_t n) {
  std::vector<uint32_t> out(n);
  for (size_t i = 0; i < n; ++i) out[i] = get_word(port, i);
  return out;
}

// Sets bits [lo, lo + width) of a packed vector of 32-bit words to the low
// `width` bits of v: one client's slice of a packed port.
inline void put_slice(std::vector<uint32_t>& w, size_t lo, size_t width, const std::vector<uint32_t>& v) {
  for (size_t b = 0; b < width; ++b) {
    const size_t at = lo + b;
    const uint32_t bit = b / 32 < v.size() ? (v[b / 32] >> (b % 32)) & 1u : 0u;
    w[at / 32] = (w[at / 32] & ~(1u << (at % 32))) | (bit << (at % 32));
  }
}

// Bits [lo, lo + width) of a packed vector of 32-bit words (width <= 64): one
// client's slice of a packed port.
inline uint64_t get_slice(const std::vector<uint32_t>& w, size_t lo, size_t width) {
  uint64_t v = 0;
  for (size_t b = 0; b < width; ++b) v |= uint64_t{(w[(lo + b) / 32] >> ((lo + b) % 32)) & 1u} << b;
  return v;
}

}  // namespace cello::tb
