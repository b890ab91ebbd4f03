// The tensor-DAG IR that SCORE compiles: named ranks with sizes, tensors (dense,
// or CSR with an nnz count) and einsum operations listed in schedule order.
//
// Each op produces exactly one tensor; every tensor name is produced at most once
// (single assignment), so iterations are unrolled with versioned names such as
// R.3. A read of a tensor refers to its producer op, which gives the DAG
// (sw/ir/dag.hpp). Tensors with no producer are application inputs.
//
// Op kinds:
//   Contract  out = alpha * C + beta * sum(A * B)    (C optional: "accumulate")
//             Contracted ranks are the ranks of A and B missing from out.
//   Eltwise   out = alpha * A + beta * B             (B optional: scale / add)
//   Host      out = fn(args...)                      (tiny N x N work on the host,
//                                                     e.g. fn = "solve": A^-1 B)
// Contract and Eltwise may carry an activation (act = "relu") applied last.
//
// The text form is documented in docs/cello-format.md (sw/ir/cello_format.hpp).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace cello::ir {

using RankId = int;
using TensorId = int;
using OpId = int;

struct Rank {
  std::string name;
  int64_t size = 0;
  bool operator==(const Rank&) const = default;
};

enum class Format { Dense, Csr };

struct Tensor {
  std::string name;
  std::vector<RankId> dims;  // shape, outermost (slowest in memory) first
  Format format = Format::Dense;
  int64_t nnz = 0;           // stored entries (CSR only)
  bool input = false;        // provided by the application, never produced by an op
  bool output = false;       // a final result that must reach DRAM
  bool operator==(const Tensor&) const = default;
};

// One subscript of an operand: a rank, or a sliding window a+b (convolution).
struct Index {
  RankId a = -1;
  RankId b = -1;  // -1 unless this is a window a+b
  bool window() const { return b >= 0; }
  bool operator==(const Index&) const = default;
};

struct Operand {
  TensorId tensor = -1;
  std::vector<Index> idx;  // one per tensor dimension
  bool operator==(const Operand&) const = default;
};

enum class OpKind { Contract, Eltwise, Host };

struct Op {
  std::string name;
  OpKind kind = OpKind::Contract;
  Operand out;
  // Contract: {A, B} or, with accumulate, {C, A, B}. Eltwise: {A} or {A, B}. Host: args.
  std::vector<Operand> in;
  bool acc = false;      // Contract only: in[0] is the accumulated tensor C
  double alpha = 1.0;    // coefficient of C (Contract) or A (Eltwise)
  double beta = 1.0;     // coefficient of the product (Contract) or of B (Eltwise)
  std::string fn;        // Host: function name; Contract/Eltwise: activation or ""
  int iter = 0;          // loop iteration the op belongs to (0 = set-up / none)
  std::string line;      // algorithm line it implements, free text ("" = none)
  bool operator==(const Op&) const = default;

  // Contract operands by role.
  const Operand& mul_a() const { return in[acc ? 1 : 0]; }
  const Operand& mul_b() const { return in[acc ? 2 : 1]; }
};

struct Program {
  std::string name;  // workload name (free text, may be empty)
  std::vector<Rank> ranks;
  std::vector<Tensor> tensors;
  std::vector<Op> ops;  // schedule order: producers before consumers
  bool operator==(const Program&) const = default;

  std::optional<RankId> find_rank(const std::string& name) const;
  std::optional<TensorId> find_tensor(const std::string& name) const;
  std::optional<OpId> find_op(const std::string& name) const;

  // Convenience builders for code that constructs programs (workloads, tests).
  RankId add_rank(const std::string& name, int64_t size);
  TensorId add_input(const std::string& name, const std::vector<RankId>& dims, Format f = Format::Dense,
                     int64_t nnz = 0);
};

const char* to_string(OpKind k);
const char* to_string(Format f);

// Ranks an op iterates over (output ranks first, then contracted ranks in order of
// first appearance), and which of them are contracted.
std::vector<RankId> op_ranks(const Op& op);
bool is_contracted(const Op& op, RankId r);
// Ranks used to subscript tensor t anywhere in op's inputs (both parts of windows).
std::vector<RankId> ranks_indexing(const Op& op, TensorId t);

// Elements of a tensor (nnz for CSR) and the words it occupies: dense = elements,
// CSR = values + column indices + row pointers.
double tensor_elements(const Program& p, TensorId t);
double tensor_words(const Program& p, TensorId t);
// Multiply-accumulates of an op (CSR operands count their nonzeros only).
double op_macs(const Program& p, const Op& op);

// Structural checks shared by the parser and the programmatic builders: names,
// shapes, single assignment, producers before consumers. `where(op, operand)`
// names the place for an error (operand -1 = the op itself, -2 = its output);
// the default names the op. Throws cello::Error(file, where, reason).
using WhereFn = std::function<std::string(OpId op, int operand)>;
void check_program(const Program& p, const std::string& file = "", const WhereFn& where = {});

}  // namespace cello::ir
