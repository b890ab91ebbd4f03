// Word-address streams for the load and store unit testbenches: 1 to 6 pieces,
// each a sequential run, a stride, random words, or one word again and again.
#pragma once

#include <cstdint>
#include <vector>

#include "tb/harness/rng.hpp"

namespace cello::tb {

inline std::vector<uint64_t> word_pattern(Rng& rng, uint64_t image_words) {
  std::vector<uint64_t> w;
  const int pieces = 1 + static_cast<int>(rng.below(6));
  for (int p = 0; p < pieces; ++p) {
    const uint64_t n = 1 + rng.below(300), at = rng.below(image_words), stride = 1 + rng.below(40);
    const uint64_t shape = rng.below(4);
    for (uint64_t i = 0; i < n; ++i) {
      const uint64_t word = shape == 0 ? at + i : shape == 1 ? at + i * stride : shape == 2 ? rng.below(image_words) : at;
      w.push_back(word % image_words);
    }
  }
  return w;
}

}  // namespace cello::tb
