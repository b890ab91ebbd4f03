// fp32 arithmetic exactly as the RTL computes it: round-to-nearest-even fused
// multiply-add with subnormal inputs and results flushed to zero (sign kept).
// Every bit-exact golden result in the project is built from these functions.
#pragma once

#include <cstdint>

namespace cello::fp {

// Subnormal -> signed zero; everything else unchanged.
float flush_subnormal(float x);
// a*b + c, one rounding, FTZ on inputs and result.
float fma32(float a, float b, float c);
// a + b and a * b built from fma32 (a*1 + b, a*b + (-0)), so they round the same way.
float add32(float a, float b);
float mul32(float a, float b);

uint32_t bits_of(float x);
float float_of(uint32_t bits);

}  // namespace cello::fp
