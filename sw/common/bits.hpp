// Bit widths, written once for the generator, the models, the benches and the
// testbenches. Header-only and constexpr, so testbenches can size constants.
#pragma once

#include <bit>
#include <cstdint>

namespace cello {

// Bits that hold every value 0 .. max_value: at least 1 (a 1-bit signal for a
// maximum of 0 or 1, and for a negative maximum).
constexpr int bits_for(long long max_value) {
  return max_value < 2 ? 1 : static_cast<int>(std::bit_width(static_cast<unsigned long long>(max_value)));
}

// Smallest b with 2^b >= n: 0 for n <= 1. Exact log2 of a power of two.
constexpr int ceil_log2(uint64_t n) { return n <= 1 ? 0 : static_cast<int>(std::bit_width(n - 1)); }

// a / b rounded up, for b > 0: how many b-sized pieces cover a.
constexpr uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

// The value with the low `bits` bits set: all 64 for bits >= 64.
constexpr uint64_t low_mask(unsigned bits) { return bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1; }

static_assert(bits_for(0) == 1 && bits_for(1) == 1 && bits_for(2) == 2 && bits_for(255) == 8 && bits_for(256) == 9);
static_assert(ceil_log2(1) == 0 && ceil_log2(2) == 1 && ceil_log2(5) == 3 && ceil_log2(1024) == 10);
static_assert(ceil_div(0, 4) == 0 && ceil_div(1, 4) == 1 && ceil_div(8, 4) == 2 && ceil_div(9, 4) == 3);
static_assert(low_mask(0) == 0 && low_mask(8) == 0xff && low_mask(64) == ~uint64_t{0});

}  // namespace cello
