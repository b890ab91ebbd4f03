#pragma once
// Names for the values of an enum whose values run 0, 1, 2, ... in declaration
// order: the table is a plain array with one string per value, in that order.
//
//   constexpr const char* kModeNames[] = {"gemm", "gram"};
//   static_assert(names_cover(kModeNames, Mode::Gram));  // Mode::Gram is the last value
//   const char* to_string(Mode m) { return name_of(m, kModeNames); }
//
// The static_assert checks at compile time that the table has exactly one name
// per value up to the enum's last one.

#include <cstddef>

namespace cello {

// True when `names` holds exactly one name for each value from 0 to `last`.
template <typename Enum, std::size_t N>
constexpr bool names_cover(const char* const (&)[N], Enum last) {
  return N == static_cast<std::size_t>(last) + 1;
}

// The name of `value`, or "?" for a value outside the table.
template <typename Enum, std::size_t N>
constexpr const char* name_of(Enum value, const char* const (&names)[N]) {
  const auto i = static_cast<std::size_t>(value);
  return i < N ? names[i] : "?";
}

}  // namespace cello
