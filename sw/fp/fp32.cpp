#include "sw/fp/fp32.hpp"

#include <cmath>
#include <cstring>

namespace cello::fp {

uint32_t bits_of(float x) {
  uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}

float float_of(uint32_t bits) {
  float x;
  std::memcpy(&x, &bits, sizeof x);
  return x;
}

float flush_subnormal(float x) {
  uint32_t u = bits_of(x);
  if ((u & 0x7f800000u) == 0) return float_of(u & 0x80000000u);
  return x;
}

float fma32(float a, float b, float c) {
  // std::fmaf rounds once with IEEE gradual underflow; the subnormal flush of
  // the result is applied to that rounded value (see fp32.hpp, rule 3).
  float r = flush_subnormal(std::fmaf(flush_subnormal(a), flush_subnormal(b), flush_subnormal(c)));
  if (std::isnan(r)) return float_of(kCanonicalNaN);
  return r;
}

float add32(float a, float b) { return fma32(a, 1.0f, b); }
float mul32(float a, float b) { return fma32(a, b, -0.0f); }

uint32_t fma32_bits(uint32_t a, uint32_t b, uint32_t c) {
  return bits_of(fma32(float_of(a), float_of(b), float_of(c)));
}

}  // namespace cello::fp
