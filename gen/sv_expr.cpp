#include "gen/sv_expr.hpp"

#include <fmt/format.h>

#include "sw/common/error.hpp"

namespace cello::gen {

std::string zext(const std::string& expr, int from, int to) {
  if (from > to) throw Error("", "generator", fmt::format("cannot zero-extend {} bits to {}", from, to));
  if (from == to) return expr;
  return fmt::format("{{{}'d0, {}}}", to - from, expr);
}

std::string low_bits(const std::string& name, int width, int bits) {
  if (bits > width) throw Error("", "generator", fmt::format("cannot take {} bits of {}-bit {}", bits, width, name));
  if (bits == width) return name;
  return bits == 1 ? fmt::format("{}[0]", name) : fmt::format("{}[{}:0]", name, bits - 1);
}

}  // namespace cello::gen
