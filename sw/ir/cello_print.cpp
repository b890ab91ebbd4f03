// Printer for the .cello format: canonical text that parses back to the same IR.
#include <fmt/core.h>

#include <cmath>

#include "sw/ir/cello_format.hpp"

namespace cello::ir {

namespace {
std::string operand_str(const Program& p, const Operand& x) {
  std::string s = p.tensors[x.tensor].name + "[";
  for (size_t d = 0; d < x.idx.size(); ++d) {
    if (d) s += ",";
    s += p.ranks[x.idx[d].a].name;
    if (x.idx[d].window()) s += "+" + p.ranks[x.idx[d].b].name;
  }
  return s + "]";
}

// "coef * " in front of the first term (nothing when the coefficient is 1).
std::string lead(double c) { return c == 1.0 && !std::signbit(c) ? "" : fmt::format("{} * ", c); }
// " + coef * " / " - |coef| * " between terms.
std::string join(double c) {
  if (std::signbit(c)) return c == -1.0 ? " - " : fmt::format(" - {} * ", -c);
  return c == 1.0 ? " + " : fmt::format(" + {} * ", c);
}
}  // namespace

std::string print_einsum(const Program& p, const Op& op) {
  std::string rhs;
  switch (op.kind) {
    case OpKind::Host: {
      rhs = "host " + op.fn + "(";
      for (size_t k = 0; k < op.in.size(); ++k) rhs += (k ? ", " : "") + operand_str(p, op.in[k]);
      rhs += ")";
      break;
    }
    case OpKind::Contract: {
      std::string prod = operand_str(p, op.mul_a()) + " * " + operand_str(p, op.mul_b());
      if (op.acc)
        rhs = lead(op.alpha) + operand_str(p, op.in[0]) + join(op.beta) + prod;
      else
        rhs = lead(op.beta) + prod;
      break;
    }
    case OpKind::Eltwise: {
      rhs = lead(op.alpha) + operand_str(p, op.in[0]);
      if (op.in.size() > 1) rhs += join(op.beta) + operand_str(p, op.in[1]);
      break;
    }
  }
  if (op.kind != OpKind::Host && !op.fn.empty()) rhs = op.fn + "(" + rhs + ")";
  return operand_str(p, op.out) + " = " + rhs;
}

std::string print_cello(const Program& p) {
  std::string s = "# tensor DAG, see docs/cello-format.md\ncello 1\n";
  if (!p.name.empty()) s += "workload " + p.name + "\n";
  for (const Rank& r : p.ranks) s += fmt::format("rank {} = {}\n", r.name, r.size);
  for (const Tensor& t : p.tensors) {
    if (!t.input) continue;
    s += "input " + t.name + "[";
    for (size_t d = 0; d < t.dims.size(); ++d) s += (d ? "," : "") + p.ranks[t.dims[d]].name;
    s += "]";
    if (t.format == Format::Csr) s += fmt::format(" csr nnz={}", t.nnz);
    s += "\n";
  }
  for (const Op& op : p.ops) {
    s += "op " + op.name;
    if (op.iter) s += fmt::format(" iter={}", op.iter);
    if (!op.line.empty()) s += " line=" + op.line;
    s += ": " + print_einsum(p, op) + "\n";
  }
  for (const Tensor& t : p.tensors)
    if (t.output) s += "output " + t.name + "\n";
  return s;
}

}  // namespace cello::ir
