// fp32 arithmetic exactly as the RTL (rtl/fp32_fma.sv) computes it. Every
// bit-exact golden result in the project is built from these functions.
//
// fma32(a, b, c) is defined as follows, and the RTL matches it bit for bit:
//   1. Inputs: a subnormal operand is replaced by zero of the same sign.
//   2. The exact value a*b + c is rounded once to binary32, round to nearest,
//      ties to even, exactly as IEEE 754 (std::fmaf) does, including gradual
//      underflow: results below 2^-126 are first rounded to the subnormal grid.
//   3. Output: if that rounded result is subnormal it becomes zero with its
//      sign. The flush happens AFTER rounding, so an exact value in
//      [2^-126 - 2^-150, 2^-126) rounds up to the smallest normal 2^-126 and is
//      kept; everything smaller than that flushes to a signed zero.
//   4. Any NaN result is the canonical quiet NaN 0x7fc00000 (input payloads and
//      signs are not propagated). inf*0 and inf - inf are NaN.
// Infinities and signed zeros follow IEEE 754; an exact zero sum is +0 unless
// both addends are -0. For normal inputs and normal results fma32 equals
// std::fmaf bit for bit.
#pragma once

#include <cstdint>

namespace cello::fp {

inline constexpr uint32_t kCanonicalNaN = 0x7fc00000u;

// Subnormal -> signed zero; everything else unchanged.
float flush_subnormal(float x);
// a*b + c with one rounding and the flush/NaN rules above.
float fma32(float a, float b, float c);
// a + b and a * b built from fma32 (a*1 + b, a*b + (-0)), so they round the same
// way as the datapath's FMA does when used for an add or a multiply.
float add32(float a, float b);
float mul32(float a, float b);

uint32_t bits_of(float x);
float float_of(uint32_t bits);
// Bit-level form of fma32, convenient for test vectors.
uint32_t fma32_bits(uint32_t a, uint32_t b, uint32_t c);

}  // namespace cello::fp
