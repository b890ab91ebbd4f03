#include "sw/ir/program.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <unordered_map>
#include <string_view>
#include <unordered_set>

#include "sw/common/error.hpp"
#include "sw/common/enum_names.hpp"

namespace cello::ir {

namespace {
template <class T>
std::optional<int> find_named(const std::vector<T>& v, const std::string& name) {
  for (size_t i = 0; i < v.size(); ++i)
    if (v[i].name == name) return static_cast<int>(i);
  return std::nullopt;
}
}  // namespace

std::optional<RankId> Program::find_rank(const std::string& n) const { return find_named(ranks, n); }
std::optional<TensorId> Program::find_tensor(const std::string& n) const { return find_named(tensors, n); }
std::optional<OpId> Program::find_op(const std::string& n) const { return find_named(ops, n); }

RankId Program::add_rank(const std::string& n, int64_t size) {
  ranks.push_back({n, size});
  return static_cast<RankId>(ranks.size() - 1);
}

TensorId Program::add_input(const std::string& n, const std::vector<RankId>& dims, Format f, int64_t nnz) {
  Tensor t;
  t.name = n;
  t.dims = dims;
  t.format = f;
  t.nnz = nnz;
  t.input = true;
  tensors.push_back(t);
  return static_cast<TensorId>(tensors.size() - 1);
}

constexpr const char* kOpKindNames[] = {"contract", "eltwise", "host"};
static_assert(names_cover(kOpKindNames, OpKind::Host));
const char* to_string(OpKind k) { return name_of(k, kOpKindNames); }

const char* to_string(Format f) { return f == Format::Csr ? "csr" : "dense"; }

std::vector<RankId> op_ranks(const Op& op) {
  std::vector<RankId> out;
  auto add = [&](RankId r) {
    if (r >= 0 && std::find(out.begin(), out.end(), r) == out.end()) out.push_back(r);
  };
  for (const auto& i : op.out.idx) add(i.a);
  for (const auto& o : op.in)
    for (const auto& i : o.idx) add(i.a), add(i.b);
  return out;
}

bool is_contracted(const Op& op, RankId r) {
  if (op.kind != OpKind::Contract) return false;
  for (const auto& i : op.out.idx)
    if (i.a == r) return false;
  return true;
}

std::vector<RankId> ranks_indexing(const Op& op, TensorId t) {
  std::vector<RankId> out;
  for (const auto& o : op.in) {
    if (o.tensor != t) continue;
    for (const auto& i : o.idx)
      for (RankId r : {i.a, i.b})
        if (r >= 0 && std::find(out.begin(), out.end(), r) == out.end()) out.push_back(r);
  }
  return out;
}

double tensor_elements(const Program& p, TensorId t) {
  const Tensor& x = p.tensors[t];
  if (x.format == Format::Csr) return static_cast<double>(x.nnz);
  double e = 1;
  for (RankId r : x.dims) e *= static_cast<double>(p.ranks[r].size);
  return e;
}

double tensor_words(const Program& p, TensorId t) {
  const Tensor& x = p.tensors[t];
  if (x.format == Format::Csr) return 2.0 * x.nnz + static_cast<double>(p.ranks[x.dims[0]].size) + 1;
  return tensor_elements(p, t);
}

double op_macs(const Program& p, const Op& op) {
  if (op.kind == OpKind::Host) return 0;
  if (op.kind == OpKind::Eltwise) return tensor_elements(p, op.out.tensor);
  // Iteration space of the product; a CSR operand replaces its two ranks by its nnz.
  std::vector<RankId> ranks = op_ranks(op);
  double macs = 1;
  std::vector<RankId> covered;
  for (const Operand* o : {&op.mul_a(), &op.mul_b()}) {
    const Tensor& t = p.tensors[o->tensor];
    if (t.format != Format::Csr) continue;
    macs *= static_cast<double>(t.nnz);
    for (const auto& i : o->idx) covered.push_back(i.a);
  }
  for (RankId r : ranks)
    if (std::find(covered.begin(), covered.end(), r) == covered.end()) macs *= static_cast<double>(p.ranks[r].size);
  return macs;
}

// ---------------------------------------------------------------------------
// check_program

namespace {
constexpr int64_t kMaxRankSize = int64_t{1} << 40;

// Names must be tokens of the text format so that every program can be printed.
bool is_identifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.')) return false;
  return true;
}
bool is_line_label(const std::string& s) {
  return s.empty() || is_identifier(s) ||
         std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

struct Checker {
  const Program& p;
  const std::string& file;
  const WhereFn& where;

  [[noreturn]] void fail(OpId op, int operand, const std::string& why) const {
    std::string place;
    if (where) place = where(op, operand);
    if (place.empty()) place = "op '" + p.ops[op].name + "'";
    throw Error(file, place, why);
  }
  [[noreturn]] void fail_global(const std::string& place, const std::string& why) const {
    throw Error(file, place, why);
  }
  std::string rname(RankId r) const { return p.ranks[r].name; }
  std::string index_str(const Index& i) const { return i.window() ? rname(i.a) + "+" + rname(i.b) : rname(i.a); }

  void ranks_and_tensors() const {
    if (!p.name.empty() && !is_identifier(p.name)) fail_global("workload", "name '" + p.name + "' is not an identifier");
    std::unordered_set<std::string_view> names;
    names.reserve(std::max(p.ranks.size(), p.tensors.size()));
    for (const auto& r : p.ranks) {
      if (!is_identifier(r.name)) fail_global("rank '" + r.name + "'", "name is not an identifier");
      if (!names.insert(r.name).second) fail_global("rank '" + r.name + "'", "duplicate name");
      if (r.size < 1 || r.size > kMaxRankSize)
        fail_global("rank '" + r.name + "'", fmt::format("size {} out of range 1..2^40", r.size));
    }
    names.clear();
    for (const auto& t : p.tensors) {
      std::string place = "tensor '" + t.name + "'";
      if (!is_identifier(t.name)) fail_global(place, "name is not an identifier");
      if (!names.insert(t.name).second) fail_global(place, "duplicate name");
      if (t.dims.empty()) fail_global(place, "a tensor needs at least one rank");
      for (RankId r : t.dims)
        if (r < 0 || r >= static_cast<int>(p.ranks.size())) fail_global(place, "unknown rank");
      if (t.format == Format::Csr) {
        if (!t.input) fail_global(place, "only input tensors can be CSR");
        if (t.dims.size() != 2) fail_global(place, "a CSR tensor has exactly two ranks");
        double cap = static_cast<double>(p.ranks[t.dims[0]].size) * static_cast<double>(p.ranks[t.dims[1]].size);
        if (t.nnz < 0 || static_cast<double>(t.nnz) > cap)
          fail_global(place, fmt::format("nnz {} out of range 0..rows*cols", t.nnz));
      } else if (t.nnz != 0) {
        fail_global(place, "nnz is only meaningful for CSR tensors");
      }
    }
  }

  void operand(OpId o, int k, const Operand& x, const std::vector<int>& producer, bool allow_window) const {
    if (x.tensor < 0 || x.tensor >= static_cast<int>(p.tensors.size())) fail(o, k, "unknown tensor");
    const Tensor& t = p.tensors[x.tensor];
    if (!t.input && (producer[x.tensor] < 0 || producer[x.tensor] >= o))
      fail(o, k, "tensor '" + t.name + "' is used before it is produced");
    if (x.idx.size() != t.dims.size())
      fail(o, k, fmt::format("shape mismatch: '{}' has {} ranks, subscripted with {}", t.name, t.dims.size(),
                             x.idx.size()));
    for (size_t d = 0; d < x.idx.size(); ++d) {
      const Index& i = x.idx[d];
      if (i.a < 0 || i.a >= static_cast<int>(p.ranks.size()) || i.b >= static_cast<int>(p.ranks.size()))
        fail(o, k, "unknown rank");
      int64_t want = p.ranks[t.dims[d]].size;
      int64_t sa = p.ranks[i.a].size;
      if (!i.window()) {
        if (sa != want)
          fail(o, k, fmt::format("shape mismatch: dimension {} of '{}' is {} ({}) but rank {} is {}", d, t.name,
                                 rname(t.dims[d]), want, rname(i.a), sa));
        continue;
      }
      if (!allow_window) fail(o, k, "a window subscript " + index_str(i) + " is only allowed on a product operand");
      if (t.format == Format::Csr) fail(o, k, "a CSR tensor cannot be subscripted with a window");
      int64_t sb = p.ranks[i.b].size;
      if (want != sa + sb - 1 && want != sa)
        fail(o, k, fmt::format("shape mismatch: window {} spans {} (or {} zero-padded) but dimension {} of '{}' is {}",
                               index_str(i), sa + sb - 1, sa, d, t.name, want));
    }
    for (size_t d = 0; d < x.idx.size(); ++d)
      for (size_t e = d + 1; e < x.idx.size(); ++e)
        if (x.idx[d] == x.idx[e]) fail(o, k, "rank " + index_str(x.idx[d]) + " subscripts two dimensions");
  }

  void run() const {
    ranks_and_tensors();
    std::vector<int> producer(p.tensors.size(), -1);
    std::unordered_set<std::string_view> op_names;
    op_names.reserve(p.ops.size());
    for (OpId o = 0; o < static_cast<int>(p.ops.size()); ++o) {
      const Op& op = p.ops[o];
      if (!is_identifier(op.name)) fail(o, -1, "op name '" + op.name + "' is not an identifier");
      if (!is_line_label(op.line)) fail(o, -1, "line label '" + op.line + "' is not an identifier or number");
      if (!op.fn.empty() && !is_identifier(op.fn)) fail(o, -1, "function '" + op.fn + "' is not an identifier");
      if (!op_names.insert(op.name).second) fail(o, -1, "duplicate op name '" + op.name + "'");
      if (op.out.tensor < 0 || op.out.tensor >= static_cast<int>(p.tensors.size())) fail(o, -2, "unknown tensor");
      const Tensor& ot = p.tensors[op.out.tensor];
      if (ot.input) fail(o, -2, "tensor '" + ot.name + "' is an input and cannot be produced");
      if (producer[op.out.tensor] >= 0)
        fail(o, -2, "duplicate name: tensor '" + ot.name + "' is already produced by op '" +
                        p.ops[producer[op.out.tensor]].name + "'");
      producer[op.out.tensor] = o;
      if (!std::isfinite(op.alpha) || !std::isfinite(op.beta)) fail(o, -1, "coefficients must be finite");
      if (op.iter < 0) fail(o, -1, "iteration must be >= 0");
    }
    for (size_t t = 0; t < p.tensors.size(); ++t)
      if (!p.tensors[t].input && producer[t] < 0)
        fail_global("tensor '" + p.tensors[t].name + "'", "declared but neither an input nor produced by any op");
    // Canonical order (what the parser builds): inputs first, then outputs of ops in op order.
    size_t inputs = 0;
    while (inputs < p.tensors.size() && p.tensors[inputs].input) ++inputs;
    for (OpId o = 0; o < static_cast<int>(p.ops.size()); ++o)
      if (p.ops[o].out.tensor != static_cast<int>(inputs + o))
        fail(o, -2, "tensors must list the inputs first, then each op's output in op order");

    for (OpId o = 0; o < static_cast<int>(p.ops.size()); ++o) {
      const Op& op = p.ops[o];
      // Output: plain distinct ranks matching the tensor's shape.
      const Tensor& ot = p.tensors[op.out.tensor];
      if (op.out.idx.size() != ot.dims.size()) fail(o, -2, "shape mismatch: output subscripts differ from its shape");
      for (size_t d = 0; d < op.out.idx.size(); ++d) {
        const Index& i = op.out.idx[d];
        if (i.window()) fail(o, -2, "an output cannot be subscripted with a window");
        if (i.a < 0 || i.a >= static_cast<int>(p.ranks.size())) fail(o, -2, "unknown rank");
        if (i.a != ot.dims[d]) fail(o, -2, "shape mismatch: output subscripts differ from its shape");
        for (size_t e = 0; e < d; ++e)
          if (op.out.idx[e].a == i.a) fail(o, -2, "rank " + rname(i.a) + " subscripts two output dimensions");
      }
      switch (op.kind) {
        case OpKind::Contract: contract(o, producer); break;
        case OpKind::Eltwise: eltwise(o, producer); break;
        case OpKind::Host: host(o, producer); break;
      }
    }
  }

  void no_csr(OpId o, int k) const {
    if (p.tensors[p.ops[o].in[k].tensor].format == Format::Csr)
      fail(o, k, "a CSR tensor can only be a product operand");
  }

  void contract(OpId o, const std::vector<int>& producer) const {
    const Op& op = p.ops[o];
    if (op.in.size() != (op.acc ? 3u : 2u)) fail(o, -1, "a contraction has two factors and an optional accumulator");
    if (!op.acc && op.alpha != 1.0) fail(o, -1, "alpha is only meaningful with an accumulator");
    if (!op.fn.empty() && op.fn != "relu") fail(o, -1, "unknown activation '" + op.fn + "'");
    for (int k = 0; k < static_cast<int>(op.in.size()); ++k) {
      bool factor = !op.acc || k > 0;
      operand(o, k, op.in[k], producer, factor);
      if (!factor) no_csr(o, k);
    }
    if (op.acc && op.in[0].idx != op.out.idx)
      fail(o, 0, "shape mismatch: the accumulated tensor must be subscripted exactly like the output");
    if (p.tensors[op.mul_a().tensor].format == Format::Csr && p.tensors[op.mul_b().tensor].format == Format::Csr)
      fail(o, -1, "a product of two CSR tensors is not supported");
    for (const Index& i : op.out.idx) {
      bool found = false;
      for (const Operand* x : {&op.mul_a(), &op.mul_b()})
        for (const Index& j : x->idx) found |= (j.a == i.a || j.b == i.a);
      if (!found) fail(o, -2, "output rank " + rname(i.a) + " does not appear in the product");
    }
  }

  void eltwise(OpId o, const std::vector<int>& producer) const {
    const Op& op = p.ops[o];
    if (op.in.empty() || op.in.size() > 2) fail(o, -1, "an element-wise op has one or two operands");
    if (op.acc) fail(o, -1, "an element-wise op has no accumulator");
    if (op.in.size() == 1 && op.beta != 1.0) fail(o, -1, "beta is only meaningful with a second operand");
    if (!op.fn.empty() && op.fn != "relu") fail(o, -1, "unknown activation '" + op.fn + "'");
    for (int k = 0; k < static_cast<int>(op.in.size()); ++k) {
      operand(o, k, op.in[k], producer, false);
      no_csr(o, k);
      for (const Index& i : op.in[k].idx) {
        bool in_out = false;
        for (const Index& j : op.out.idx) in_out |= (j.a == i.a);
        if (!in_out) fail(o, k, "element-wise operand rank " + rname(i.a) + " is not an output rank");
      }
      if (op.in[k].idx.size() != op.out.idx.size())
        fail(o, k, "shape mismatch: element-wise operands must have the output's ranks");
    }
  }

  void host(OpId o, const std::vector<int>& producer) const {
    const Op& op = p.ops[o];
    if (op.fn.empty()) fail(o, -1, "a host op needs a function name");
    if (op.acc || op.alpha != 1.0 || op.beta != 1.0) fail(o, -1, "a host op has no accumulator or coefficients");
    for (int k = 0; k < static_cast<int>(op.in.size()); ++k) {
      operand(o, k, op.in[k], producer, false);
      no_csr(o, k);
    }
  }
};
}  // namespace

void check_program(const Program& p, const std::string& file, const WhereFn& where) {
  Checker{p, file, where}.run();
}

}  // namespace cello::ir
