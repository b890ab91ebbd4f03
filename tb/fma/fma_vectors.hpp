// Operand generators for the fp32 FMA tests. Each class aims at one part of the
// datapath; all of them mix signs and keep a share of special operands.
//   RandomBits   uniform 32-bit patterns (every exponent, NaN payloads, subnormals)
//   Aligned      exponents chosen so the addend lands everywhere across the
//                alignment window, including both clamp limits
//   Cancellation c close to -(a*b): massive cancellation, exact zeros
//   TiesCarries  a*b + c exactly halfway between two floats, and sums whose
//                rounding carries out of the mantissa
//   Extremes     results near overflow and near 2^-126 (flush boundary), and
//                operands drawn from a table of special values
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <string>

#include "sw/common/enum_names.hpp"
#include "sw/fp/fp32.hpp"
#include "tb/harness/rng.hpp"

namespace cello::tb {

struct FmaOperands {
  uint32_t a = 0, b = 0, c = 0;
};

enum class FmaClass { RandomBits, Aligned, Cancellation, TiesCarries, Extremes };

inline constexpr const char* kFmaClassNames[] = {"random bits", "aligned exponents", "cancellation",
                                                 "ties and carries", "overflow, underflow and specials"};
static_assert(names_cover(kFmaClassNames, FmaClass::Extremes));
inline std::string to_string(FmaClass k) { return name_of(k, kFmaClassNames); }

// Values that exercise every special-case path (both signs are added by the caller).
inline constexpr std::array<uint32_t, 20> kFmaSpecials = {
    0x00000000u,  // zero
    0x00000001u,  // smallest subnormal
    0x007fffffu,  // largest subnormal
    0x00400000u,  // mid subnormal
    0x00800000u,  // smallest normal 2^-126
    0x00800001u,  // just above it
    0x00ffffffu,  // just below 2^-125
    0x7f7fffffu,  // largest normal
    0x7f000000u,  // 2^127
    0x7f800000u,  // infinity
    0x7fc00000u,  // canonical quiet NaN
    0x7f800001u,  // signalling NaN
    0x7fffffffu,  // NaN, all payload bits
    0x3f800000u,  // 1
    0x3f800001u,  // 1 + ulp
    0x3fffffffu,  // 2 - ulp
    0x3f000000u,  // 0.5
    0x1f800000u,  // 2^-64
    0x5f800000u,  // 2^64
    0x40400000u,  // 3
};

class FmaVectorGen {
 public:
  explicit FmaVectorGen(Rng& rng) : rng_(rng) {}

  FmaOperands next(FmaClass k) {
    FmaOperands v;
    switch (k) {
      case FmaClass::RandomBits: v = random_bits(); break;
      case FmaClass::Aligned: v = aligned(); break;
      case FmaClass::Cancellation: v = cancellation(); break;
      case FmaClass::TiesCarries: v = rng_.chance(0.5) ? tie() : carry(); break;
      case FmaClass::Extremes: v = extremes(); break;
    }
    // A small share of every class gets one special operand.
    if (k != FmaClass::Extremes && rng_.chance(0.02)) {
      uint32_t s = special();
      switch (rng_.below(3)) {
        case 0: v.a = s; break;
        case 1: v.b = s; break;
        default: v.c = s; break;
      }
    }
    return v;
  }

 private:
  uint32_t sign() { return rng_.chance(0.5) ? 0x80000000u : 0u; }
  uint32_t mant() { return static_cast<uint32_t>(rng_.bits(23)); }
  uint32_t special() { return kFmaSpecials[rng_.below(kFmaSpecials.size())] | sign(); }
  static uint32_t pack(uint32_t s, int e, uint32_t m) { return s | (static_cast<uint32_t>(e) << 23) | (m & 0x7fffffu); }
  static int clamp_exp(int e) { return e < 1 ? 1 : (e > 254 ? 254 : e); }
  // A mantissa with only the top `bits` fraction bits random (short products are exact).
  uint32_t short_mant(int bits) { return bits <= 0 ? 0u : static_cast<uint32_t>(rng_.bits(bits)) << (23 - bits); }

  FmaOperands random_bits() {
    return {static_cast<uint32_t>(rng_.bits(32)), static_cast<uint32_t>(rng_.bits(32)),
            static_cast<uint32_t>(rng_.bits(32))};
  }

  FmaOperands aligned() {
    int ea = static_cast<int>(rng_.range(1, 254)), eb = static_cast<int>(rng_.range(1, 254));
    // The addend's shift is ea+eb-ec-100: sweep it over [-40, 120] so the clamp
    // limits (0 and 74) and everything between are hit.
    int sh = static_cast<int>(rng_.range(0, 160)) - 40;
    int ec = ea + eb - 100 - sh;
    if (ec < 1 || ec > 254) {  // move the product instead
      ec = static_cast<int>(rng_.range(1, 254));
      int sum = ec + 100 + sh;
      ea = clamp_exp(sum / 2);
      eb = clamp_exp(sum - ea);
    }
    return {pack(sign(), ea, mant()), pack(sign(), eb, mant()), pack(sign(), clamp_exp(ec), mant())};
  }

  FmaOperands cancellation() {
    int ea = static_cast<int>(rng_.range(70, 180)), eb = static_cast<int>(rng_.range(70, 180));
    FmaOperands v;
    if (rng_.chance(0.3)) {  // short mantissas: the product is exact, so c = -a*b cancels to zero
      int bits = static_cast<int>(rng_.range(0, 11));
      v.a = pack(sign(), ea, short_mant(bits));
      v.b = pack(sign(), eb, short_mant(bits));
    } else {
      v.a = pack(sign(), ea, mant());
      v.b = pack(sign(), eb, mant());
    }
    float p = fp::float_of(v.a) * fp::float_of(v.b);  // a*b rounded: the residual is the rounding error
    uint32_t pc = fp::bits_of(-p);
    int delta = static_cast<int>(rng_.range(0, 8)) - 4;
    if ((pc & 0x7f800000u) != 0 && (pc & 0x7f800000u) != 0x7f800000u) pc = static_cast<uint32_t>(static_cast<int64_t>(pc) + delta);
    v.c = pc;
    if (rng_.chance(0.1)) v.c ^= 0x80000000u;  // occasionally the near-doubling instead
    return v;
  }

  // a*b is (2t+1) half-ulps of c, so a*b + c sits exactly between two floats
  // (unless the sum changes binade).
  FmaOperands tie() {
    int ec = static_cast<int>(rng_.range(30, 254));
    uint32_t c = pack(sign(), ec, mant());
    int r = static_cast<int>(rng_.range(0, 20));
    uint32_t odd = static_cast<uint32_t>(2 * rng_.bits(r) + 1) & 0xffffffu;  // < 2^24, exactly representable
    float b = static_cast<float>(odd | 1u);
    float a = std::ldexp(1.0f, ec - 151);  // half an ulp of c
    uint32_t ab = fp::bits_of(a) | sign();
    uint32_t bb = fp::bits_of(b) | sign();
    if (rng_.chance(0.5)) std::swap(ab, bb);
    return {ab, bb, c};
  }

  // c has a run of trailing ones in its mantissa and a*b pushes it over.
  FmaOperands carry() {
    int ec = static_cast<int>(rng_.range(40, 254));
    int ones = static_cast<int>(rng_.range(1, 23));
    uint32_t m = (mant() | ((1u << ones) - 1u)) & 0x7fffffu;
    if (rng_.chance(0.3)) m = 0x7fffffu;
    uint32_t s = sign();
    uint32_t c = pack(s, ec, m);
    int shift = static_cast<int>(rng_.range(0, 30));  // product between ~2 ulps and far below
    int ep = ec - 22 - shift;                           // unbiased: a*b ~ 2^(ep-127)
    int ea = clamp_exp((ep + 127) / 2), eb = clamp_exp(ep + 127 - ea);
    uint32_t same_sign = rng_.chance(0.85) ? s : (s ^ 0x80000000u);
    return {pack(same_sign, ea, mant()), pack(0, eb, mant()), c};
  }

  FmaOperands extremes() {
    switch (rng_.below(4)) {
      case 0: {  // overflow: a*b near or above 2^128, c large or zero
        int sum = static_cast<int>(rng_.range(376, 384));  // ea + eb, so a*b ~ 2^(sum-254)
        int ea = clamp_exp(sum - static_cast<int>(rng_.range(127, 254)));
        int eb = clamp_exp(sum - ea);
        uint32_t c = rng_.chance(0.5) ? pack(sign(), static_cast<int>(rng_.range(250, 254)), mant()) : sign();
        uint32_t ma = rng_.chance(0.3) ? 0x7fffffu : mant();
        return {pack(sign(), ea, ma), pack(sign(), eb, rng_.chance(0.3) ? 0u : mant()), c};
      }
      case 1: {  // underflow: a*b near 2^-126, c zero, tiny or cancelling
        int sum = static_cast<int>(rng_.range(124, 131));
        int ea = static_cast<int>(rng_.range(1, static_cast<uint64_t>(sum - 1)));
        int eb = clamp_exp(sum - ea);
        FmaOperands v{pack(sign(), ea, mant()), pack(sign(), eb, mant()), 0};
        switch (rng_.below(3)) {
          case 0: v.c = sign(); break;
          case 1: v.c = pack(sign(), static_cast<int>(rng_.range(1, 3)), mant()); break;
          default: {  // c = -(a*b rounded to a nearby normal): tiny residuals
            float p = fp::float_of(v.a) * fp::float_of(v.b);
            uint32_t pc = fp::bits_of(-p);
            if ((pc & 0x7f800000u) == 0) pc = (pc & 0x80000000u) | 0x00800000u | (pc & 0x7fffffu);
            v.c = pc;
          }
        }
        return v;
      }
      case 2: {  // all three from the special table
        return {special(), special(), special()};
      }
      default: {  // one or two specials with random normals
        FmaOperands v = random_bits();
        if (rng_.chance(0.7)) v.a = special();
        if (rng_.chance(0.5)) v.b = special();
        if (rng_.chance(0.5)) v.c = special();
        return v;
      }
    }
  }

  Rng& rng_;
};

}  // namespace cello::tb
