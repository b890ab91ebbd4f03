#include "sw/score/compile.hpp"

#include "sw/score/binding.hpp"
#include "sw/score/classify.hpp"
#include "sw/score/critical_path.hpp"
#include "sw/score/dominance.hpp"
#include "sw/score/loop_order.hpp"
#include "sw/score/riff.hpp"
#include "sw/score/tiling.hpp"

#include "sw/common/enum_names.hpp"

namespace cello::score {

constexpr const char* kDominanceNames[] = {"U", "C", "bal", "small"};
static_assert(names_cover(kDominanceNames, Dominance::Small));
const char* to_string(Dominance d) { return name_of(d, kDominanceNames); }

constexpr const char* kEdgeClassNames[] = {"sequential", "pipelineable", "delayed_hold", "delayed_writeback",
                                           "parallel_multicast"};
static_assert(names_cover(kEdgeClassNames, EdgeClass::ParallelMulticast));
const char* to_string(EdgeClass c) { return name_of(c, kEdgeClassNames); }

constexpr const char* kBindingNames[] = {"pipeline_buffer", "chord", "register_file"};
static_assert(names_cover(kBindingNames, Binding::RegisterFile));
const char* to_string(Binding b) { return name_of(b, kBindingNames); }

constexpr const char* kActionNames[] = {"register", "update", "release"};
static_assert(names_cover(kActionNames, RiffUpdate::Action::Release));
const char* to_string(RiffUpdate::Action a) { return name_of(a, kActionNames); }

constexpr const char* kReasonNames[] = {"source_contracted", "source_host", "destination_host",
                                        "destination_unshared", "adjacent", "first_step_blocked", "path_breaks",
                                        "held_unshared", "path_pipelines"};
static_assert(names_cover(kReasonNames, Reason::PathPipelines));
const char* to_string(Reason r) { return name_of(r, kReasonNames); }

std::string describe_edge(const Schedule& s, size_t e) {
  const ir::Program& p = s.program;
  const ir::Edge& ed = s.dag.edges[e];
  const EdgeSchedule& es = s.edges[e];
  auto name = [&](ir::OpId o) { return p.ops[o].name; };
  const std::string delayed = es.transitive ? "delayed edge; " : "";
  const std::string path = name(ed.src) + ".." + name(ed.dst);
  switch (es.reason) {
    case Reason::SourceContracted: return delayed + "source is contracted-dominant";
    case Reason::SourceHost: return delayed + "source is a host op";
    case Reason::DestHost: return delayed + "destination is a host op (it takes the whole tensor)";
    case Reason::DestUnshared: return "destination's dominant rank does not subscript the tensor";
    case Reason::Adjacent:
      return es.cls == EdgeClass::ParallelMulticast ? "adjacent step pipelines; the source feeds several ops at once"
                                                    : "adjacent step pipelines";
    case Reason::FirstStepBlocked:
      return delayed + "the source does not pipeline into the next op of the path (" + name(es.path_break) + ")";
    case Reason::PathBreaks:
      return delayed + "path " + path + " breaks at " + name(s.ops[es.path_break].crit_pred) + " -> " +
             name(es.path_break);
    case Reason::HeldUnshared:
      return delayed + "path " + path + " pipelines, but the destination's dominant rank does not subscript the tensor";
    case Reason::PathPipelines: return delayed + "every step of the path " + path + " pipelines";
  }
  return "?";
}

bool is_pipelined_class(EdgeClass c) {
  return c == EdgeClass::Pipelineable || c == EdgeClass::DelayedHold || c == EdgeClass::ParallelMulticast;
}

Schedule compile(ir::Program program, const Target& target, const Options& options) {
  ir::check_program(program);
  Schedule s;
  s.program = std::move(program);
  s.target = target;
  s.options = options;
  const ir::Program& p = s.program;
  const int n = static_cast<int>(p.ops.size());
  s.dag = ir::build_dag(p);
  const size_t ne = s.dag.edges.size();

  CriticalPath cp = analyze_paths(s.dag, n);
  std::vector<OpDominance> dom(n);
  for (ir::OpId o = 0; o < n; ++o) dom[o] = op_dominance(p, p.ops[o], options.thresholds);
  EdgeClasses ec = classify_edges(p, s.dag, cp, dom);
  LoopOrders lo = choose_loop_orders(p, s.dag, dom, ec.cls, options.loop_order_passes);
  std::vector<int> span(ne);
  std::vector<char> piped(ne);
  for (size_t e = 0; e < ne; ++e) {
    span[e] = cp.depth[s.dag.edges[e].dst] - cp.depth[s.dag.edges[e].src];
    piped[e] = is_pipelined_class(ec.cls[e]) && lo.loop_ok[e];
  }
  Tiling tl = tile_ops(p, s.dag, lo, piped, target);
  // A pipelined edge needs both ends' tile step to fit the pipeline buffer;
  // where tiling could not make it fit, the tensor goes through CHORD instead.
  std::vector<char> fits = lo.loop_ok;
  const double cap = static_cast<double>(target.pipeline_buffer_words);
  for (size_t e = 0; e < ne; ++e)
    if (piped[e] && (tl.tile_words[s.dag.edges[e].src] > cap || tl.tile_words[s.dag.edges[e].dst] > cap)) fits[e] = 0;
  Bindings bd = bind_tensors(p, s.dag, ec.cls, fits, span, target);
  RiffMeta rm = riff_metadata(p, s.dag, bd.tensor, bd.edge);

  s.ops.resize(n);
  for (ir::OpId o = 0; o < n; ++o) {
    OpSchedule& os = s.ops[o];
    os.dominance = dom[o].dominance;
    os.dominant = dom[o].dominant;
    os.tensor_mac = p.ops[o].kind != ir::OpKind::Host;
    os.depth = cp.depth[o];
    os.crit_pred = cp.crit_pred[o];
    os.on_critical_path = cp.on_path[o];
    os.parallel_multicast = ec.multicast[o];
    os.loops = std::move(tl.loops[o]);
    os.rf_tensor = tl.rf_tensor[o];
    os.tile_words = tl.tile_words[o];
    os.macs = ir::op_macs(p, p.ops[o]);
    os.riff = std::move(rm.updates[o]);
  }
  s.edges.resize(ne);
  for (size_t e = 0; e < ne; ++e) {
    EdgeSchedule& es = s.edges[e];
    es.cls = ec.cls[e];
    es.transitive = cp.transitive[e];
    es.span = span[e];
    es.path_break = ec.path_break[e];
    es.swizzled = lo.swizzled[e];
    es.loop_ok = lo.loop_ok[e];
    es.binding = bd.edge[e];
    es.hold_tiles = bd.hold_tiles[e];
    es.reason = ec.reason[e];
  }
  s.tensors.resize(p.tensors.size());
  for (size_t t = 0; t < p.tensors.size(); ++t) {
    TensorSchedule& ts = s.tensors[t];
    ts.binding = bd.tensor[t];
    ts.layout = std::move(lo.layout[t]);
    ts.mem_reads = std::move(rm.mem_reads[t]);
    ts.words = ir::tensor_words(p, static_cast<ir::TensorId>(t));
  }
  for (ir::OpId o = 0; o < n; ++o)
    for (const ir::Operand& x : p.ops[o].in) {
      auto& r = s.tensors[x.tensor].reads;
      if (r.empty() || r.back() != o) r.push_back(o);
    }
  s.critical_path = std::move(cp.path);
  s.swizzle_penalty = lo.swizzle_penalty;
  s.loop_order_violations = lo.violations;
  s.search_steps = lo.steps;
  return s;
}

std::vector<int> class_counts(const Schedule& s) {
  std::vector<int> c(5, 0);
  for (const EdgeSchedule& e : s.edges) ++c[static_cast<int>(e.cls)];
  return c;
}

}  // namespace cello::score
