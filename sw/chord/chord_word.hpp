// CHORD data words of up to 2048 bits (a word is the top's DRAM granule when
// CHORD sits on its datapath), and the byte masks of partial writes.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "sw/common/bits.hpp"

namespace cello::chord {

// A data word: 64-bit limbs, lowest first. Missing limbs are zero, so a word
// of up to 64 bits compares equal to its value (Word(5) == 5) and the empty
// word is zero.
struct Word {
  std::vector<uint64_t> limbs;
  Word() = default;
  Word(uint64_t v) : limbs{v} {}  // NOLINT(google-explicit-constructor): words of up to 64 bits read as numbers
  uint64_t limb(size_t i) const { return i < limbs.size() ? limbs[i] : 0; }
  uint64_t low() const { return limb(0); }
  friend bool operator==(const Word& a, const Word& b) {
    for (size_t i = 0; i < std::max(a.limbs.size(), b.limbs.size()); ++i)
      if (a.limb(i) != b.limb(i)) return false;
    return true;
  }
};

inline size_t word_limbs(unsigned bits) { return (bits + 63) / 64; }

// The word cut to `bits` bits: word_limbs(bits) limbs, the last one masked.
inline Word fit_word(const Word& w, unsigned bits) {
  Word r;
  r.limbs.resize(word_limbs(bits));
  for (size_t i = 0; i < r.limbs.size(); ++i) r.limbs[i] = w.limb(i);
  if (bits % 64) r.limbs.back() &= low_mask(bits % 64);
  return r;
}

// A word of `bits` bits made from a 64-bit seed: the seed itself in limb 0,
// and in each further limb a splitmix64 step of the seed and the limb's index,
// so every bit of a wide word depends on the seed. Seed 0 gives the zero word.
// Traces and testbenches make their wide data with it.
inline Word expand_word(uint64_t seed, unsigned bits) {
  Word w;
  w.limbs.resize(word_limbs(bits));
  for (size_t i = 0; i < w.limbs.size(); ++i) {
    uint64_t z = seed;
    if (i > 0 && seed != 0) {
      z = seed + i * 0x9e3779b97f4a7c15ull;
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
      z ^= z >> 31;
    }
    w.limbs[i] = z;
  }
  return fit_word(w, bits);
}

// Byte enables of a write: bit b (limb b / 64, bit b % 64) set = byte b is
// written. The empty mask writes the whole word.
using ByteMask = Word;

// `old` with the bytes `be` enables taken from `data`, cut to `bits` bits.
inline Word merge_bytes(const Word& old, const Word& data, const ByteMask& be, unsigned bits) {
  if (be.limbs.empty()) return fit_word(data, bits);
  Word r = fit_word(old, bits);
  for (unsigned byte = 0; 8 * byte < bits; ++byte) {
    if (!((be.limb(byte / 64) >> (byte % 64)) & 1)) continue;
    const uint64_t m = uint64_t{0xff} << (8 * (byte % 8));
    uint64_t& limb = r.limbs[byte / 8];
    limb = (limb & ~m) | (data.limb(byte / 8) & m);
  }
  return fit_word(r, bits);
}

// Hex, most significant limb first ("0x..." of the number the limbs make).
inline std::string to_hex(const Word& w) {
  size_t n = w.limbs.size();
  while (n > 1 && w.limbs[n - 1] == 0) --n;
  std::string s = fmt::format("{:#x}", w.limb(n ? n - 1 : 0));
  for (size_t i = n > 0 ? n - 1 : 0; i-- > 0;) s += fmt::format("{:016x}", w.limbs[i]);
  return s;
}

}  // namespace cello::chord
