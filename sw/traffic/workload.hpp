// The traffic models' view of a scheduled workload: tensors with a memory
// layout, ops in schedule order with how each touches its operands, and the
// producer/consumer edges with SCORE's dependency class. It is deliberately
// small: sw/traffic/from_score.* fills it from the IR and a SCORE schedule, and
// tests build tiny DAGs directly.
//
// Execution model (shared by every configuration): an op walks its dominant
// rank outermost. Stream operands are read (and a Stream output written) row
// by row in that walk; Whole operands (small tensors held in the register file,
// weights) are read once when the op starts and a Whole output is written once
// when it ends; a Gather operand is read row by row in the order the column
// indices of the op's CSR operand name them (SpMM). A CSR operand is streamed:
// row pointer, then per row its column indices and values.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sw/mtx/csr.hpp"
#include "sw/score/schedule.hpp"

namespace cello::traffic {

// Edge classes are SCORE's (sw/score/schedule.hpp); to_string comes with them.
using EdgeClass = score::EdgeClass;

enum class Use { Stream, Whole, Gather };
const char* to_string(Use u);

// Where SCORE placed a tensor (CELLO only): CHORD, or on chip for good
// (pipeline buffers, register file).
enum class Bind { Chord, OnChip };

struct Tensor {
  std::string name{};
  // Versions of one variable (R.1, R.2...) name the same storage; the address
  // allocator lets a version reuse a dead version's region. "" = its own.
  std::string storage{};
  uint64_t rows = 1, row_words = 1;       // dense, row-major
  std::shared_ptr<const mtx::CsrPattern> csr{};  // set for CSR tensors (values are irrelevant to traffic)
  bool input = false;                     // provided by the application (starts in DRAM)
  bool output = false;                    // final result (must end in DRAM)
  // SCORE-driven workloads only (Workload::score): binding and the ops that
  // read the tensor from its binding rather than from a pipeline buffer.
  Bind bind = Bind::Chord;
  std::vector<int> mem_reads{};

  bool sparse() const { return static_cast<bool>(csr); }
  // Words in memory: dense rows x row_words; CSR row pointers + indices + values.
  uint64_t words() const;
};

struct Operand {
  int tensor = -1;
  Use use = Use::Stream;
  int index_by = -1;  // Gather: the CSR tensor whose column indices select the rows
  // Read again after the op has started writing its result (a GEMM run as several
  // register-file passes reads its streamed operand in every pass): the result
  // must not take this operand's region in place.
  bool reread = false;
};

// A RIFF command SCORE issues around an op (see score/riff.hpp): Register
// before the op, Update / Release after it.
struct RiffCmd {
  enum class Action { Register, Update, Release };
  int tensor = -1;
  Action action = Action::Update;
  uint32_t distance = 0;   // ops until the next memory read (0 = none)
  uint32_t remaining = 0;  // memory reads still to come
};

struct Op {
  std::string name;
  std::vector<Operand> in;
  int out = -1;
  Use out_use = Use::Stream;
  uint64_t macs = 0;
  std::vector<RiffCmd> riff;  // SCORE-driven workloads only
  // The executor's walk of the top: the op's launches (a GEMM's
  // register-file passes; one for any other op), each with the granules its
  // engine's units move (granules [lo, hi) from the tensor's base), in place
  // of the op's streams. Between passes CHORD commits what the op claimed
  // and claims it again, as the top's command unit does for a continuation
  // pass (docs/top.md, "CHORD's command unit").
  struct Access {
    bool write = false;
    int tensor = -1;
    uint64_t lo = 0, hi = 0;
  };
  std::vector<std::vector<Access>> passes;
};

struct Edge {
  int src = -1, dst = -1;  // producer op, consumer op
  int tensor = -1;
  EdgeClass cls = EdgeClass::Sequential;
};

struct Workload {
  std::string name;
  unsigned word_bytes = 4;
  std::vector<Tensor> tensors;
  std::vector<Op> ops;  // schedule order
  std::vector<Edge> edges;
  // True when bindings, mem_reads and RIFF commands come from a SCORE
  // schedule; CELLO then follows them instead of deriving its own.
  bool score = false;
  // Per tensor: its first granule where a command stream placed it (the
  // executor's workload); empty: traffic::layout places the tensors itself.
  std::vector<uint64_t> base;

  // Throws cello::Error naming the workload and the broken rule: indices in
  // range, every produced tensor produced once and before use, inputs never
  // produced, an edge for every producer->consumer pair, CSR shapes coherent.
  void validate() const;
  uint64_t total_macs() const;
  int add_tensor(Tensor t);
};

// Derived facts the models share.
struct Analysis {
  std::vector<int> producer;                  // per tensor: op or -1
  std::vector<std::vector<int>> consumers;    // per tensor: consumer ops, schedule order, unique
  std::vector<std::vector<EdgeClass>> classes;  // per tensor: class of each consumer edge
  std::vector<int> last_use;                  // per tensor: last consumer op or -1
};
Analysis analyze(const Workload& w);

}  // namespace cello::traffic
