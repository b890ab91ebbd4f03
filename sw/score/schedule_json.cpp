// schedule.json and the Target's JSON form.
#include <fmt/core.h>

#include "sw/common/error.hpp"
#include "sw/ir/cello_format.hpp"
#include "sw/score/compile.hpp"

namespace cello::score {

using json = nlohmann::ordered_json;

nlohmann::ordered_json schedule_json(const Schedule& s, const nlohmann::ordered_json& source) {
  const ir::Program& p = s.program;
  auto op_name = [&](ir::OpId o) { return o < 0 ? json(nullptr) : json(p.ops[o].name); };
  auto rank_names = [&](const std::vector<ir::RankId>& v) {
    json a = json::array();
    for (ir::RankId r : v) a.push_back(p.ranks[r].name);
    return a;
  };
  json j;
  j["format"] = "cello-schedule";
  j["version"] = 1;
  j["workload"] = p.name;
  j["source"] = source;
  j["summary"] = nullptr;  // filled below; keeps its place near the top
  j["target"] = target_json(s.target);
  j["thresholds"] = {{"dominant_min", s.options.thresholds.dominant_min},
                     {"dominant_ratio", s.options.thresholds.dominant_ratio},
                     {"balanced_min", s.options.thresholds.balanced_min}};
  json cls = json::object();
  std::vector<int> counts = class_counts(s);
  for (int c = 0; c < 5; ++c) cls[to_string(static_cast<EdgeClass>(c))] = counts[c];
  json path = json::array();
  for (ir::OpId o : s.critical_path) path.push_back(p.ops[o].name);
  j["summary"] = {{"ops", p.ops.size()},          {"edges", s.dag.edges.size()},
                  {"tensors", p.tensors.size()},  {"edge_classes", cls},
                  {"swizzle_penalty", s.swizzle_penalty},
                  {"loop_order_violations", s.loop_order_violations},
                  {"critical_path_length", s.critical_path.size()},
                  {"critical_path", path}};
  j["ranks"] = json::array();
  for (const ir::Rank& r : p.ranks) j["ranks"].push_back({{"name", r.name}, {"size", r.size}});

  j["ops"] = json::array();
  for (size_t o = 0; o < p.ops.size(); ++o) {
    const ir::Op& op = p.ops[o];
    const OpSchedule& os = s.ops[o];
    json loops = json::array();
    for (const Loop& l : os.loops) loops.push_back({{"rank", p.ranks[l.rank].name}, {"size", l.size}, {"tile", l.tile}});
    json riff = json::array();
    for (const RiffUpdate& u : os.riff)
      riff.push_back({{"tensor", p.tensors[u.tensor].name},
                      {"action", to_string(u.action)},
                      {"next_use", op_name(u.next_use)},
                      {"distance", u.distance},
                      {"remaining", u.remaining}});
    json jo = {{"position", o},
               {"name", op.name},
               {"iter", op.iter},
               {"line", op.line},
               {"kind", ir::to_string(op.kind)},
               {"einsum", ir::print_einsum(p, op)},
               {"dominance", to_string(os.dominance)},
               {"dominant", rank_names(os.dominant)},
               {"depth", os.depth},
               {"on_critical_path", os.on_critical_path},
               {"parallel_multicast", os.parallel_multicast},
               {"loop_order", rank_names([&] {
                  std::vector<ir::RankId> v;
                  for (const Loop& l : os.loops) v.push_back(l.rank);
                  return v;
                }())},
               {"loops", loops},
               {"register_file", os.rf_tensor < 0 ? json(nullptr) : json(p.tensors[os.rf_tensor].name)},
               {"tile_words", os.tile_words},
               {"macs", os.macs},
               {"riff", riff}};
    j["ops"].push_back(jo);
  }

  j["edges"] = json::array();
  for (size_t e = 0; e < s.dag.edges.size(); ++e) {
    const ir::Edge& ed = s.dag.edges[e];
    const EdgeSchedule& es = s.edges[e];
    j["edges"].push_back({{"from", p.ops[ed.src].name},
                          {"to", p.ops[ed.dst].name},
                          {"tensor", p.tensors[ed.tensor].name},
                          {"class", to_string(es.cls)},
                          {"transitive", es.transitive},
                          {"span", es.span},
                          {"path_break", op_name(es.path_break)},
                          {"swizzled", es.swizzled},
                          {"loop_ok", es.loop_ok},
                          {"binding", to_string(es.binding)},
                          {"hold_tiles", es.hold_tiles},
                          {"reason", to_string(es.reason)},
                          {"why", describe_edge(s, e)}});
  }

  j["tensors"] = json::array();
  for (size_t t = 0; t < p.tensors.size(); ++t) {
    const ir::Tensor& x = p.tensors[t];
    const TensorSchedule& ts = s.tensors[t];
    json reads = json::array(), mem = json::array(), layout = json::array();
    for (ir::OpId o : ts.reads) reads.push_back(p.ops[o].name);
    for (ir::OpId o : ts.mem_reads) mem.push_back(p.ops[o].name);
    for (int d : ts.layout) layout.push_back(p.ranks[x.dims[d]].name);
    json jt = {{"name", x.name},
               {"dims", rank_names(x.dims)},
               {"format", ir::to_string(x.format)},
               {"words", ts.words},
               {"input", x.input},
               {"output", x.output},
               {"binding", to_string(ts.binding)},
               {"layout", layout},
               {"reads", reads},
               {"memory_reads", mem}};
    if (x.format == ir::Format::Csr) jt["nnz"] = x.nnz;
    j["tensors"].push_back(jt);
  }
  return j;
}

nlohmann::ordered_json target_json(const Target& t) {
  return {{"pe_rows", t.pe_rows},       {"pe_cols", t.pe_cols},
          {"rf_words", t.rf_words},     {"pipeline_buffer_words", t.pipeline_buffer_words},
          {"chord_words", t.chord_words}, {"word_bytes", t.word_bytes}};
}

Target parse_target(const nlohmann::json& j, const std::string& file) {
  if (!j.is_object()) throw Error(file, "", "a target must be a JSON object");
  Target t;
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string& k = it.key();
    if (!it->is_number_integer()) throw Error(file, k, "expected a whole number");
    // An unsigned value above 2^63-1 would read back negative: show it as written.
    const bool huge = it->is_number_unsigned() && it->get<uint64_t>() > static_cast<uint64_t>(INT64_MAX);
    const int64_t v = huge ? INT64_MAX : it->get<int64_t>();
    auto in = [&](int64_t lo, int64_t hi) {
      if (huge || v < lo || v > hi) throw Error(file, k, fmt::format("{} out of range {}..{}", it->dump(), lo, hi));
      return v;
    };
    if (k == "pe_rows") t.pe_rows = static_cast<int>(in(1, 1 << 16));
    else if (k == "pe_cols") t.pe_cols = static_cast<int>(in(1, 1 << 16));
    else if (k == "rf_words") t.rf_words = in(1, int64_t{1} << 40);
    else if (k == "pipeline_buffer_words") t.pipeline_buffer_words = in(1, int64_t{1} << 40);
    else if (k == "chord_words") t.chord_words = in(1, int64_t{1} << 40);
    else if (k == "word_bytes") t.word_bytes = static_cast<int>(in(1, 16));
    else throw Error(file, k, "unknown target field (pe_rows, pe_cols, rf_words, pipeline_buffer_words, chord_words, word_bytes)");
  }
  return t;
}

}  // namespace cello::score
