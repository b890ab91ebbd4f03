// SCORE pass 6: binding (CELLO Sec. V-C).
//
// Edge: a pipelined class (pipelineable, delayed_hold, parallel_multicast) whose
// loop orders allow it travels through a pipeline buffer; every other edge
// reads the tensor where it is stored.
// Tensor: a dense tensor that fits the register file lives there; a produced,
// non-output tensor whose every read is pipelined never leaves the pipeline
// buffers (nor does a dead one, which nobody reads); everything else is written
// to / read through CHORD (inputs included).
// A delayed_hold edge keeps `span` tiles in its pipeline buffer (the reuse
// distance in pipeline stages, CELLO Fig. 6).
#pragma once

#include <vector>

#include "sw/ir/dag.hpp"
#include "sw/score/schedule.hpp"

namespace cello::score {

struct Bindings {
  std::vector<Binding> tensor;  // per tensor
  std::vector<Binding> edge;    // per edge
  std::vector<int> hold_tiles;  // per edge
};

Bindings bind_tensors(const ir::Program& p, const ir::Dag& dag, const std::vector<EdgeClass>& cls,
              const std::vector<char>& loop_ok, const std::vector<int>& span, const Target& target);

}  // namespace cello::score
