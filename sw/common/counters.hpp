// Field-wise sums of counter structs, written once for the cache, CHORD and
// bench statistics.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace cello {

// a += b for every member of a struct whose members are all uint64_t counters
// (no padding, no other member types: the static_assert checks the size and
// the padding, the struct's comment names the rule). Returns a.
template <class T>
constexpr T& add_counters(T& a, const T& b) {
  static_assert(std::is_aggregate_v<T> && std::has_unique_object_representations_v<T> &&
                    sizeof(T) % sizeof(uint64_t) == 0,
                "add_counters needs a struct of uint64_t counters");
  using Words = std::array<uint64_t, sizeof(T) / sizeof(uint64_t)>;
  auto sum = std::bit_cast<Words>(a);
  const auto add = std::bit_cast<Words>(b);
  for (std::size_t i = 0; i < sum.size(); ++i) sum[i] += add[i];
  a = std::bit_cast<T>(sum);
  return a;
}

namespace detail {
struct CounterPair {
  uint64_t first = 0, second = 0;
};
constexpr bool counters_add_fieldwise() {
  CounterPair a{1, 2};
  add_counters(a, CounterPair{10, 20});
  return a.first == 11 && a.second == 22;
}
static_assert(counters_add_fieldwise());
}  // namespace detail

}  // namespace cello
