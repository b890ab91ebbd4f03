// SCORE's output: plain structs that the traffic models, the command-stream
// encoder and the CHORD driver read. All indices refer to the compiled
// ir::Program (ops in schedule order, tensors, ranks) and its ir::Dag edges.
//
//   OpSchedule      per op: dominance, critical-path data, loop order, tiles,
//                   register-file tensor, RIFF updates issued at that point
//   EdgeSchedule    per DAG edge: dependency class (CELLO Algorithm 2),
//                   transitivity, swizzle, binding, hold depth
//   TensorSchedule  per tensor: binding, layout, memory uses
//   Schedule        all of the above + critical path and swizzle penalty
//
// docs/score.md explains every field and how each pass decides it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sw/ir/dag.hpp"
#include "sw/ir/program.hpp"

namespace cello::score {

// What the compiler may assume about the hardware (docs/compile.md).
struct Target {
  int pe_rows = 128;                     // MAC array rows (16384 MACs = 128 x 128)
  int pe_cols = 128;
  int64_t rf_words = 256;                // register file: one N x N tensor, N <= 16
  int64_t pipeline_buffer_words = 65536; // explicit pipeline buffer (tiles in flight)
  int64_t chord_words = 1 << 20;         // CHORD SRAM (4 MB of 4-byte words)
  int word_bytes = 4;
};

// GOGETA Sec. 4.2 thresholds.
struct Thresholds {
  double dominant_min = 1000;  // a dominant rank is larger than this ...
  double dominant_ratio = 100; // ... and this many times larger than every other rank
  double balanced_min = 50;    // 'bal' when no rank dominates and all are at least this
};

struct Options {
  Thresholds thresholds;
  int loop_order_passes = 4;   // swizzle-minimisation sweeps after the greedy pass
};

enum class Dominance { Uncontracted, Contracted, Balanced, Small };
enum class EdgeClass { Sequential, Pipelineable, DelayedHold, DelayedWriteback, ParallelMulticast };
enum class Binding { PipelineBuffer, Chord, RegisterFile };

const char* to_string(Dominance d);   // "U", "C", "bal", "small"
const char* to_string(EdgeClass c);   // "sequential", "pipelineable", "delayed_hold", ...
const char* to_string(Binding b);     // "pipeline_buffer", "chord", "register_file"
bool is_pipelined_class(EdgeClass c); // pipelineable, delayed_hold, parallel_multicast

// One rank of an op's loop nest, outermost first.
struct Loop {
  ir::RankId rank = -1;
  int64_t size = 0;  // full extent
  int64_t tile = 0;  // extent of one tile (== size when the rank is not split)
};

// A RIFF metadata change SCORE sends to CHORD when an op is issued.
struct RiffUpdate {
  enum class Action { Register, Update, Release };
  ir::TensorId tensor = -1;
  Action action = Action::Update;
  int next_use = -1;   // schedule position (op index) of the next memory read, -1 = none
  int distance = 0;    // next_use - current position (ops until the next read), 0 = none
  int remaining = 0;   // memory reads still to come
};
const char* to_string(RiffUpdate::Action a);

// The rule of Algorithm 2 (docs/score.md) that decided an edge's class.
enum class Reason {
  SourceContracted,  // source is contracted-dominant
  SourceHost,        // source is a host op
  DestHost,          // destination is a host op: it takes the whole tensor
  DestUnshared,      // destination's dominant rank does not subscript the tensor
  Adjacent,          // non-transitive and the step pipelines
  FirstStepBlocked,  // delayed: the source does not pipeline into the next op of the path
  PathBreaks,        // delayed: a later step of the path does not pipeline
  HeldUnshared,      // delayed: the path pipelines, but the destination cannot take held tiles in order
  PathPipelines,     // delayed: every step of the path pipelines
};
const char* to_string(Reason r);

struct OpSchedule {
  // Dominance (GOGETA Sec. 4.2).
  Dominance dominance = Dominance::Small;
  std::vector<ir::RankId> dominant;   // the dominant rank group (empty for bal/small)
  bool tensor_mac = true;             // contraction or element-wise (not a host op)
  // Critical path.
  int depth = 0;                      // longest path (in edges) from any DAG source
  ir::OpId crit_pred = -1;            // predecessor on the longest path into this op
  bool on_critical_path = false;      // on the DAG's overall longest path
  bool parallel_multicast = false;    // more than one non-transitive out-edge
  // Loop order and tiling.
  std::vector<Loop> loops;            // outermost first
  ir::TensorId rf_tensor = -1;        // operand held whole in the register file
  double tile_words = 0;              // buffer words one tile step keeps live
  double macs = 0;
  // RIFF updates issued with this op (applied after the op reads its operands).
  std::vector<RiffUpdate> riff;
};

struct EdgeSchedule {
  EdgeClass cls = EdgeClass::Sequential;
  bool transitive = false;     // not the edge through which dst's longest path arrives
  int span = 1;                // depth(dst) - depth(src): pipeline stages spanned
  ir::OpId path_break = -1;    // delayed edges: op whose incoming path step does not pipeline
  bool swizzled = false;       // consumer reads the tensor in another rank order than stored
  bool loop_ok = true;         // loop orders allow pipelining (pipelined classes only)
  Binding binding = Binding::Chord;
  int hold_tiles = 0;          // delayed-hold: tiles the pipeline buffer keeps (= span)
  Reason reason = Reason::Adjacent;  // why the class (describe_edge() says it in words)
};

struct TensorSchedule {
  Binding binding = Binding::Chord;
  std::vector<int> layout;         // dimension order as stored, outermost first
  std::vector<ir::OpId> reads;     // every consumer op, schedule order
  std::vector<ir::OpId> mem_reads; // consumers served from the binding (not a pipeline buffer)
  double words = 0;
};

struct Schedule;
// One-line explanation of edge e's class, e.g. "path l1.2..l4.2 breaks at l2.2 -> l2h.2".
std::string describe_edge(const Schedule& s, size_t e);

struct Schedule {
  ir::Program program;
  ir::Dag dag;
  Target target;
  Options options;
  std::vector<OpSchedule> ops;
  std::vector<EdgeSchedule> edges;  // parallel to dag.edges
  std::vector<TensorSchedule> tensors;
  std::vector<ir::OpId> critical_path;
  int swizzle_penalty = 0;          // swizzled sequential/writeback edges (GOGETA Alg. 3)
  int loop_order_violations = 0;    // pipelined edges whose loop orders could not be made compatible
  uint64_t search_steps = 0;        // edge evaluations of the loop-order search (bounded per edge)
};

}  // namespace cello::score
