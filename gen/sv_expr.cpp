#include "gen/sv_expr.hpp"

#include <fmt/format.h>

#include <algorithm>

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

std::string assign_lines(const std::vector<std::pair<std::string, std::string>>& lhs_rhs) {
  size_t w = 0;
  for (const auto& [lhs, rhs] : lhs_rhs) w = std::max(w, lhs.size());
  std::string out;
  for (const auto& [lhs, rhs] : lhs_rhs) out += fmt::format("assign {:<{}} = {};\n", lhs, w, rhs);
  return out;
}

std::string reset_lines(const std::vector<std::string>& regs, const std::string& indent) {
  size_t w = 0;
  for (const auto& r : regs) w = std::max(w, r.size());
  std::string out;
  for (const auto& r : regs) out += fmt::format("{}{:<{}} <= '0;\n", indent, r, w);
  return out;
}

}  // namespace cello::gen
