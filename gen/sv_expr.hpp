// Width-exact SystemVerilog expression helpers. The generator knows every width,
// so it pads and compares explicitly and Verilator's WIDTH lint stays quiet; and
// runs of assignments with their operators aligned, as a hand-written block reads.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace cello::gen {

// Zero-extends a `from`-bit expression to `to` bits ({pad, expr}); no-op if equal.
std::string zext(const std::string& expr, int from, int to);
// The low `bits` bits of a `width`-bit signal name (the name itself if equal).
std::string low_bits(const std::string& name, int width, int bits);

// "assign <lhs> = <rhs>;" lines, the '=' aligned after the longest lhs.
std::string assign_lines(const std::vector<std::pair<std::string, std::string>>& lhs_rhs);
// "<indent><reg> <= '0;" lines, the '<=' aligned after the longest register name.
std::string reset_lines(const std::vector<std::string>& regs, const std::string& indent);

}  // namespace cello::gen
