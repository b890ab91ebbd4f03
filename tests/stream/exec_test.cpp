// The executor against independent references: numerics bit for bit against
// the golden fp32 DAG runner with the MAC array's order, convergence against
// the double-precision solvers, DRAM traffic against `cello model`'s CELLO on the
// same schedule, the final DRAM image, and bad streams refused before they run.
#include <catch2/catch.hpp>

#include <bit>
#include <cmath>
#include <filesystem>
#include <random>

#include "sw/common/error.hpp"
#include "tests/common/error_message.hpp"
#include "sw/exec/random_program.hpp"
#include "sw/golden/solvers.hpp"
#include "tests/stream/exec_checks.hpp"
#include "tests/stream/stream_test_util.hpp"
#include "sw/traffic/from_score.hpp"
#include "sw/traffic/models.hpp"

using namespace cello;
using stream::Opcode;
using namespace cello::test;


TEST_CASE("CG on the HPCG stencil: bit-exact with the golden fp32 replay, traffic equal to the model", "[exec]") {
  const arch::Arch a = test::arch_from();
  for (int n : {1, 4, 8}) {
    INFO("N=" << n);
    const test::Run r = check_solver_run({.workload = "cg", .grid = 12, .n = n, .iters = 10}, a);
    CHECK(r.result.cycles >= r.result.roofline_cycles);
    CHECK(r.result.macs > 0);
  }
}

TEST_CASE("BiCGStab and GCN (with register-file passes) run bit-exact on several architectures", "[exec]") {
  const std::vector<nlohmann::json> patches = {
      nlohmann::json::object(),
      {{"mac_arrays", {{{"name", "mac"}, {"rows", 2}, {"cols", 8}, {"fma_stages", 5}, {"rf_rows", 8}}}}},
      {{"chords", {{{"name", "chord"}, {"depth", 2048}, {"word_width", 32}, {"entries", 16}, {"riff", false}}}}},
  };
  for (const auto& patch : patches) {
    const arch::Arch a = test::arch_from(patch);
    INFO(patch.dump());
    check_solver_run({.workload = "bicgstab", .grid = 10, .n = 4, .iters = 4}, a);
    // K = 17 > rf_rows: several register-file passes
    const test::Run g = test::compile_and_run({.workload = "gcn", .grid = 14, .n = 17, .o = 5, .iters = 2}, a);
    check_bit_exact(g, a);
    check_traffic(g, a);
  }
}

TEST_CASE("the architecture carries the CHORD config's policy to the traffic models", "[exec][arch]") {
  nlohmann::json j = gen::default_hw_config_json();
  auto params_of = [](const nlohmann::json& cfg) {
    return arch::model_params_of(gen::arch_of(gen::parse_hw_config(cfg, "t"), "t"));
  };
  const traffic::ModelParams def = params_of(j);
  CHECK(def.chord_riff);
  CHECK(def.chord_reserve);  // the default policy (docs/chord.md)
  CHECK(def.chord_inplace);
  CHECK(def.chord_claim);  // the default CHORD is on the top's datapath (docs/top.md)
  CHECK(def.chord_clean);
  CHECK(def.chord_victim == chord::Victim::Distance);
  j["chords"][0]["claim"] = false;
  CHECK_FALSE(params_of(j).chord_claim);
  j["chords"][0]["clean"] = false;
  CHECK_FALSE(params_of(j).chord_clean);
  j["chords"][0]["flush"] = false;  // flush and claim need RIFF, which the PRELUDE-only case below turns off
  j["chords"][0]["victim"] = "uses";
  j["chords"][0]["reserve"] = false;
  j["chords"][0]["inplace"] = false;
  const traffic::ModelParams p = params_of(j);
  CHECK_FALSE(p.chord_reserve);
  CHECK_FALSE(p.chord_inplace);
  CHECK(p.chord_victim == chord::Victim::Uses);
  j["chords"][0].erase("reserve");
  j["chords"][0].erase("inplace");
  j["chords"][0]["riff"] = false;  // PRELUDE-only: reserve and inplace follow riff
  const traffic::ModelParams pre = params_of(j);
  CHECK_FALSE(pre.chord_riff);
  CHECK_FALSE(pre.chord_reserve);
  CHECK_FALSE(pre.chord_inplace);
}

// The walk's CHORD trace (traffic::ChordHooks::trace) is what a CHORD on the
// top's datapath must see: replayed on a fresh model with the walk's geometry
// (plus `flush`, for the write-backs the walk counts), every operation is legal
// and the counters come out as the walk's.
TEST_CASE("the traffic walk's CHORD trace replays to the walk's CHORD counters", "[exec][chord]") {
  const std::pair<const char*, nlohmann::json> variants[] = {
      {"default CHORD (CG fits)", nlohmann::json::object()},
      {"2 KB CHORD, 16 entries", {{"chords", {{{"name", "chord"}, {"depth", 512}, {"entries", 16}}}}}},
      {"2 KB CHORD with claim", {{"chords", {{{"name", "chord"}, {"depth", 512}, {"entries", 16}, {"claim", true}}}}}},
      {"2 KB CHORD with claim and clean",
       {{"chords", {{{"name", "chord"}, {"depth", 512}, {"entries", 16}, {"claim", true}, {"clean", true}}}}}},
      {"1 KB CHORD, 4 entries, victim uses",
       {{"chords", {{{"name", "chord"}, {"depth", 256}, {"entries", 4}, {"victim", "uses"}}}}}},
      {"2 KB PRELUDE-only", {{"chords", {{{"name", "chord"}, {"depth", 512}, {"riff", false}}}}}}};
  const stream::Problem pr = stream::make_problem({.workload = "cg", .grid = 4, .n = 2, .iters = 3});
  uint64_t evicted = 0, spills = 0, unbypassed = 0;
  for (const auto& [what, patch] : variants) {
    INFO(what);
    const arch::Arch a = arch_from(patch);
    const exec::Prepared prep = exec::prepare(pr, a);
    const traffic::Workload w = traffic::from_schedule(prep.schedule, pr.pattern, a.word_bytes);
    const traffic::ModelParams mp = arch::model_params_of(a);
    std::vector<chord::TraceOp> trace;
    traffic::ChordHooks hooks;
    hooks.trace = &trace;
    const traffic::Traffic t = traffic::run_model(w, traffic::MemorySystem::CELLO, mp, &hooks);
    chord::Geometry g = traffic::walk_geometry(mp, true, uint64_t{1} << 40);
    g.flush = true;
    chord::ChordModel m(g);
    uint64_t kinds[static_cast<size_t>(chord::OpKind::Illegal) + 1] = {};
    for (size_t i = 0; i < trace.size(); ++i) {
      const chord::Access r = chord::apply(m, trace[i]);
      if (r.status != chord::Status::Ok) FAIL("operation " << i << " of the trace is refused");
      ++kinds[static_cast<size_t>(trace[i].kind)];
    }
    const chord::TensorStats tot = m.totals();
    CHECK(chord::access_count(trace) == t.chord.accesses);
    CHECK(tot.read_hits == t.chord.read_hits);
    CHECK(tot.read_misses == t.chord.read_misses);
    CHECK(tot.write_hits == t.chord.write_hits);
    CHECK(tot.spills == t.chord.spills);
    CHECK(tot.evictions == t.chord.evicted_words);
    // What reaches DRAM from the outputs and temporaries (spills, write-backs,
    // flushes; the walk leaves inputs' write-backs out, and with `clean` the
    // inputs' filled words are never written back) is the walk's every write
    // when no tensor found the table full (its writes bypass CHORD).
    if (t.chord.bypass_tensors == 0) {
      uint64_t writes = 0;
      for (size_t k = 0; k < w.tensors.size(); ++k)
        for (uint32_t q = 1; q <= 3; ++q)
          if (!w.tensors[k].input || mp.chord_clean) writes += m.stats(static_cast<uint32_t>(4 * k + q)).dram_writes;
      CHECK(writes * mp.line_bytes == t.write_bytes);
      ++unbypassed;
    }
    // Every kind the walk makes shows up: registrations, releases, reads,
    // writes and fills, the outputs' flushes; claims and commits with claim.
    CHECK(kinds[static_cast<size_t>(chord::OpKind::Register)] > 0);
    CHECK(kinds[static_cast<size_t>(chord::OpKind::Release)] > 0);
    CHECK(kinds[static_cast<size_t>(chord::OpKind::Read)] > 0);
    CHECK(kinds[static_cast<size_t>(chord::OpKind::Write)] > 0);
    CHECK(kinds[static_cast<size_t>(chord::OpKind::Flush)] > 0);
    CHECK((kinds[static_cast<size_t>(chord::OpKind::Claim)] > 0) == mp.chord_claim);
    CHECK(kinds[static_cast<size_t>(chord::OpKind::Commit)] == kinds[static_cast<size_t>(chord::OpKind::Claim)]);
    evicted += t.chord.evicted_words;
    spills += t.chord.spills;
  }
  // The small CHORDs overflow: the replay covers spills and evictions.
  CHECK(evicted > 0);
  CHECK(spills > 0);
  CHECK(unbypassed >= 3);
}

TEST_CASE("a top without CHORD moves every operand through DRAM (Flexagon-like)", "[exec]") {
  nlohmann::json j = gen::default_hw_config_json();
  j["top"].erase("chord");
  const arch::Arch a = gen::arch_of(gen::parse_hw_config(j, "t"), "t");
  REQUIRE(!a.has_chord());
  const stream::ProblemSpec spec{.workload = "cg", .grid = 10, .n = 4, .iters = 2};
  const test::Run r = test::compile_and_run(spec, a);
  check_bit_exact(r, a);
  check_traffic(r, a);
  const test::Run with = test::compile_and_run(spec, test::arch_from());
  CHECK(with.result.read_bytes + with.result.write_bytes < r.result.read_bytes + r.result.write_bytes);
}

// The executor's prediction for this top (exec::Result::top) against a count
// by hand: with no op the engine splits (N = 4, one register-file pass, one
// gather block), the top reads each distinct operand of an op once and
// writes its result once, but a fused GRAM's Z, which it takes from the
// producer's accumulators. On a top whose CHORD is off its datapath that is
// every tensor; with CHORD on it, every tensor not flagged chord. The top
// testbench checks the same prediction against the RTL.
TEST_CASE("the prediction for this top: every tensor CHORD does not hold, each operand once per op", "[exec]") {
  const stream::ProblemSpec spec{.workload = "cg", .grid = 12, .n = 4, .iters = 2};  // SCORE pipelines R^T R and P^T S
  auto by_hand = [&](const test::Run& r, const arch::Arch& a, bool only_unflagged) {
    const exec::ExecProgram& p = r.result.program;
    std::vector<bool> fused(p.ops.size(), false);
    for (size_t g : exec::pipelined_grams(r.prep.compiled.stream, p, a)) fused[g] = true;
    // A fused GRAM reads nothing of Z (its second operand); on a split array
    // (these tops: 4x4 PEs, 8 lanes) nothing of X either, in X^T Z: the
    // product unit takes X's rows from the SPMM's gather buffer, which holds
    // the grid's 1728 rows in one block.
    const bool split = arch::engine_split_gram(a);
    uint64_t rd = 0, wr = 0;
    for (size_t i = 0; i < p.ops.size(); ++i) {
      const exec::ExecOp& op = p.ops[i];
      std::vector<int> seen;
      for (int id : {op.a, op.b, op.c}) {
        if (id < 0 || std::find(seen.begin(), seen.end(), id) != seen.end()) continue;
        seen.push_back(id);
        if ((fused[i] && (id == op.b || split)) || (only_unflagged && p.tensors[static_cast<size_t>(id)].chord())) continue;
        rd += p.tensors[static_cast<size_t>(id)].bytes;
      }
      if (!(only_unflagged && p.tensors[static_cast<size_t>(op.out)].chord())) wr += p.tensors[static_cast<size_t>(op.out)].bytes;
    }
    return std::pair{rd, wr};
  };
  auto unflagged = [](const exec::Result& res, const std::vector<uint64_t>& per_tensor) {
    uint64_t n = 0;
    for (size_t t = 0; t < per_tensor.size(); ++t) n += res.program.tensors[t].chord() ? 0 : per_tensor[t];
    return n;
  };
  {  // CHORD on the datapath (the default)
    const arch::Arch a = test::arch_from();
    REQUIRE(a.chord_on_datapath);
    const test::Run r = test::compile_and_run(spec, a);
    CHECK(r.result.top.exact);
    CHECK(!exec::pipelined_grams(r.prep.compiled.stream, r.result.program, a).empty());
    const auto [rd, wr] = by_hand(r, a, true);
    CHECK(unflagged(r.result, r.result.top.tensor_read_bytes) == rd);
    CHECK(unflagged(r.result, r.result.top.tensor_write_bytes) == wr);
    CHECK(wr > 0);  // the N x N tensors, which CELLO's walk keeps on chip
    CHECK(unflagged(r.result, r.result.tensor_write_bytes) == 0);
  }
  {  // a CHORD off the datapath (RIFF off): every tensor through DRAM
    const arch::Arch a = test::arch_from(
        {{"chords", {{{"name", "chord"}, {"depth", 8192}, {"word_width", 128}, {"entries", 64}, {"riff", false}}}}});
    REQUIRE(a.has_chord());
    REQUIRE(!a.chord_on_datapath);
    const test::Run r = test::compile_and_run(spec, a);
    const auto [rd, wr] = by_hand(r, a, false);
    CHECK(r.result.top.read_bytes == rd);
    CHECK(r.result.top.write_bytes == wr);
    CHECK(r.result.top.chord.read_hits + r.result.top.chord.read_misses == 0);
  }
  {  // no CHORD: the prediction is the CHORD-less executor's own
    nlohmann::json j = gen::default_hw_config_json();
    j["top"].erase("chord");
    const test::Run r = test::compile_and_run(spec, gen::arch_of(gen::parse_hw_config(j, "t"), "t"));
    CHECK(r.result.top.tensor_read_bytes == r.result.tensor_read_bytes);
    CHECK(r.result.top.tensor_write_bytes == r.result.tensor_write_bytes);
  }
}

TEST_CASE("the final DRAM image holds every output, and inputs whose region is not reused, bit for bit", "[exec]") {
  const arch::Arch a = test::arch_from();
  const test::Run r = test::compile_and_run({.workload = "cg", .grid = 10, .n = 4, .iters = 3}, a);
  const auto& prog = r.result.program;
  for (size_t t = 0; t < prog.tensors.size(); ++t) {
    const auto& d = prog.tensors[t];
    if (d.csr || !(d.output() || d.input())) continue;
    bool shared = false;  // an input whose region a later version reuses (X.0 -> X.1) is overwritten
    for (const auto& o : prog.tensors)
      if (&o != &d && o.described && o.shares_bytes(d)) shared = true;
    if (d.input() && shared) continue;
    INFO(d.name);
    const auto img = exec::read_dense(r.result.image, d);
    size_t bad = 0;
    while (bad < img.size() && std::bit_cast<uint32_t>(img[bad]) == std::bit_cast<uint32_t>(r.result.values[t][bad])) ++bad;
    INFO("first difference at element " << bad << " of " << img.size() << (d.col_major() ? " (column-major)" : ""));
    CHECK(bad == img.size());
  }
}

namespace {

// Runs a stream edited by `edit` and returns the error (empty: it ran).
std::string exec_error(const std::function<void(stream::Stream&)>& edit) {
  const arch::Arch a = test::arch_from();
  auto pr = stream::make_problem({.workload = "cg", .grid = 10, .n = 4, .iters = 1});
  auto prep = exec::prepare(pr, a);
  stream::Stream s = prep.compiled.stream;
  edit(s);
  return test::error_message([&] { exec::execute(s, "c.bin", a, prep.image, "img.bin"); });
}

size_t find(const stream::Stream& s, Opcode op, size_t from = 0) {
  for (size_t i = from; i < s.records.size(); ++i)
    if (s.records[i].op() == op) return i;
  return SIZE_MAX;
}

}  // namespace

TEST_CASE("semantically bad streams are refused before anything runs, naming record and status bit", "[exec]") {
  CHECK(exec_error([](stream::Stream&) {}).empty());
  CHECK_THAT(exec_error([](stream::Stream& s) { s.records.pop_back(); }),
             Catch::Matches("c\\.bin: record \\d+: the stream has no END \\(status: bad_order\\)"));
  CHECK_THAT(exec_error([](stream::Stream& s) { s.records.insert(s.records.end() - 1, stream::Record::make(Opcode::End)); }),
             Catch::Matches("c\\.bin: record \\d+: record after END \\(status: bad_order\\)"));
  CHECK_THAT(exec_error([](stream::Stream& s) {
               const size_t g = find(s, Opcode::Spmm);
               s.records[g].set_field("a", 999);
             }),
             Catch::Matches("c\\.bin: record \\d+: a tensor 999 was never described \\(status: bad_tensor\\)"));
  CHECK_THAT(exec_error([](stream::Stream& s) {
               const size_t t = find(s, Opcode::Tensor);
               s.records[t].set_field("base", s.header.memory_bytes);
             }),
             Catch::Matches("c\\.bin: record 0: tensor 0: \\[.*\\) is outside the \\d+-byte DRAM image \\(status: bad_address\\)"));
  CHECK_THAT(exec_error([](stream::Stream& s) {
               // Two live tensors on the same bytes: give B the base of A.
               size_t a = find(s, Opcode::Tensor), b = find(s, Opcode::Tensor, a + 1);
               s.records[b].set_field("base", s.records[a].field("base"));
             }),
             Catch::Matches("c\\.bin: memory layout: tensor \\d+ \\(.*\\) and tensor \\d+ \\(.*\\) share DRAM bytes while both are live \\(status: bad_address\\)"));
  CHECK_THAT(exec_error([](stream::Stream& s) {
               // The first SPMM's result on the bytes of its dense operand.
               const size_t g = find(s, Opcode::Spmm);
               auto tensor = [&](uint64_t id) {
                 size_t t = find(s, Opcode::Tensor);
                 while (s.records[t].field("id") != id) t = find(s, Opcode::Tensor, t + 1);
                 return t;
               };
               const size_t a = tensor(s.records[g].field("a")), b = tensor(s.records[g].field("b"));
               const size_t x = s.records[a].field("format") == 1 ? b : a;
               s.records[tensor(s.records[g].field("out"))].set_field("base", s.records[x].field("base"));
             }),
             Catch::Matches("c\\.bin: record \\d+: the SPMM's result tensor \\d+ \\(.*\\) overwrites its dense operand "
                            "tensor \\d+ \\(.*\\), whose rows it reads all through the launch \\(status: bad_address\\)"));
  CHECK_THAT(exec_error([](stream::Stream& s) {
               const size_t t = find(s, Opcode::Tensor);
               s.records[t].set_field("base", s.records[t].field("base") + 4);
             }),
             Catch::Matches("c\\.bin: record 0: tensor 0: base 0x[0-9a-f]+ is not 16-byte aligned \\(status: bad_address\\)"));
  CHECK_THAT(exec_error([](stream::Stream& s) {
               // The first SpMM reads a tensor that only a later op writes.
               size_t last = 0;  // the last GEMM whose result lives in DRAM or CHORD
               for (size_t i = 0; i < s.records.size(); ++i)
                 if (s.records[i].op() == Opcode::Gemm && (s.records[i].field("binds") & 0xf) <= 2) last = i;
               s.records[find(s, Opcode::Spmm)].set_field("b", s.records[last].field("out"));
             }),
             Catch::Matches("c\\.bin: record \\d+: .* is read before any op wrote it \\(status: bad_order\\)"));
  CHECK_THAT(exec_error([](stream::Stream& s) {
               const size_t g = find(s, Opcode::Gemm);
               s.records[g - 1] = stream::Record::make(Opcode::Fence);  // drop its RF_LOAD
             }),
             Catch::Matches("c\\.bin: record \\d+: GEMM without an RF_LOAD before it \\(status: bad_order\\)"));
  CHECK_THAT(exec_error([](stream::Stream& s) {
               const size_t r = find(s, Opcode::ChordReg);
               const size_t t = find(s, Opcode::Tensor);
               s.records[r].set_field("id", s.records[t].field("id"));  // A is an input not bound to CHORD? use flags
               s.records[t].set_field("flags", s.records[t].field("flags") & ~uint64_t{stream::kTensorChord});
             }),
             Catch::Matches("c\\.bin: record \\d+: .* is not bound to CHORD \\(status: chord_error\\)"));
  CHECK_THAT(exec_error([](stream::Stream& s) {
               // The first HOST's result registered in CHORD before it.
               const size_t h = find(s, Opcode::Host);
               const uint64_t out = s.records[h].field("out");
               size_t t = find(s, Opcode::Tensor);
               while (s.records[t].field("id") != out) t = find(s, Opcode::Tensor, t + 1);
               s.records[t].set_field("flags", s.records[t].field("flags") | stream::kTensorChord);
               stream::Record reg = stream::Record::make(Opcode::ChordReg);
               reg.set_field("id", out);
               s.records.insert(s.records.begin() + static_cast<long>(h - 1), reg);  // before its FENCE
             }),
             Catch::Matches("c\\.bin: record \\d+: HOST names tensor \\d+ \\(.*\\), which is live in CHORD \\(the host "
                            "reads and writes DRAM only\\) \\(status: chord_error\\)"));
  CHECK_THAT(exec_error([](stream::Stream& s) {
               // R = B - A X0 released right after the SPMM that wrote it into CHORD.
               const size_t g = find(s, Opcode::Spmm);
               REQUIRE((s.records[g].field("flags") & stream::kLaunchWithC) != 0);
               REQUIRE((s.records[g].field("binds") & 0xf) == static_cast<uint64_t>(stream::Bind::Chord));
               stream::Record rel = stream::Record::make(Opcode::ChordRel);
               rel.set_field("id", s.records[g].field("out"));
               s.records.insert(s.records.begin() + static_cast<long>(g + 1), rel);
             }),
             Catch::Matches("c\\.bin: record \\d+: tensor \\d+ \\(R\\.0\\) is read after the CHORD_REL that dropped it "
                            "\\(an intermediate CHORD held is not written back\\) \\(status: chord_error\\)"));
  CHECK_THAT(exec_error([](stream::Stream& s) { s.records[find(s, Opcode::Tensor)].set_field("id", 1024); }),
             Catch::Matches("c\\.bin: record 0: tensor id 1024 is not below the top's 1024 descriptors "
                            "\\(top\\.tensor_table\\) \\(status: bad_tensor\\)"));
  CHECK_THAT(exec_error([](stream::Stream& s) { s.header.memory_bytes = uint64_t{1} << 40; }),
             Catch::Matches("c\\.bin: header: the stream addresses \\d+ bytes, the top \\d+ \\(top\\.memory_mb\\) \\(status: bad_address\\)"));
}

// Two rules of the top SCORE's schedule does not know (docs/commands.md,
// "Ordering rules"): the encoder keeps every tensor a HOST op names in DRAM (at
// N = 16 SCORE binds the N x N tensors to CHORD: a 16-row register file of 4
// columns cannot hold them), and releases a CHORD-bound intermediate after its
// last reader of any binding (BiCGStab on 12^3 reads T through the pipeline
// buffer after its last read through CHORD). The stream check refuses either
// mistake, so these runs fail without the encoder's rules.
TEST_CASE("compiled streams keep HOST tensors in DRAM and CHORD intermediates until their last reader", "[exec]") {
  const arch::Arch a = test::arch_from();
  for (const stream::ProblemSpec& spec : {stream::ProblemSpec{.workload = "cg", .grid = 6, .n = 16, .iters = 2},
                                          stream::ProblemSpec{.workload = "bicgstab", .grid = 12, .n = 1, .iters = 1}}) {
    INFO(spec.workload << " on " << spec.grid << "^3, N=" << spec.n);
    const test::Run r = test::compile_and_run(spec, a);
    check_bit_exact(r, a);
    const auto& recs = r.prep.compiled.stream.records;
    size_t host_tensors = 0, chord_tensors = 0;
    for (const auto& rec : recs)
      if (rec.op() == Opcode::Host)
        for (const char* f : {"out", "a", "b"}) {
          const auto& d = r.result.program.tensors[rec.field(f)];
          ++host_tensors;
          chord_tensors += d.chord();
        }
    CHECK(host_tensors > 0);
    CHECK(chord_tensors == 0);
  }
}

TEST_CASE("a corrupt CSR matrix in the image is refused before anything runs", "[exec]") {
  const arch::Arch a = test::arch_from();
  auto pr = stream::make_problem({.workload = "cg", .grid = 10, .n = 1});
  auto prep = exec::prepare(pr, a);
  auto img = prep.image;
  const size_t t = static_cast<size_t>(*prep.schedule.program.find_tensor("A"));
  img[prep.compiled.base[t] + 8] = 0xff;  // row pointer 2
  CHECK_THROWS_WITH(exec::execute(prep.compiled.stream, "c.bin", a, img, "img.bin"),
                    Catch::Matches("img\\.bin: tensor \\d+ \\(A\\): row pointer \\d+ = \\d+ is not a valid CSR row pointer"));
  img.pop_back();
  CHECK_THROWS_WITH(exec::execute(prep.compiled.stream, "c.bin", a, img, "img.bin"),
                    Catch::Matches("img\\.bin: the image is \\d+ bytes, the stream addresses \\d+"));
}

TEST_CASE("the encoder names the op and the limit when an op cannot run", "[exec]") {
  nlohmann::json patch = {{"mac_arrays", {{{"name", "mac"}, {"spmm", false}}}}};
  const arch::Arch a = test::arch_from(patch);
  stream::ProblemSpec spec{.workload = "cg", .grid = 4, .n = 2};
  CHECK_THROWS_WITH(exec::prepare(stream::make_problem(spec), a),
                    Catch::Matches("op r0: the MAC array was built without SpMM \\(mac_arrays\\[\\]\\.spmm\\)"));
  spec.workload = "resnet";
  CHECK_THROWS_WITH(stream::make_problem(spec), Catch::Contains("cannot run on the command set"));
}

TEST_CASE("random legal programs pass the stream check and run on several architectures", "[exec]") {
  const std::vector<nlohmann::json> patches = {
      nlohmann::json::object(),
      {{"mac_arrays", {{{"name", "mac"}, {"rows", 2}, {"cols", 2}, {"fma_stages", 1}, {"rf_rows", 2}}}},
       {"top", {{"granule_bytes", 64}}}},
      {{"mac_arrays", {{{"name", "mac"}, {"rows", 4}, {"cols", 4}, {"fma_stages", 6}, {"rf_rows", 16}}}},
       {"top", {{"granule_bytes", 4}, {"dram_bytes_per_cycle", 4}}}},
  };
  for (const auto& patch : patches) {
    const arch::Arch a = test::arch_from(patch);
    INFO(patch.dump());
    for (uint64_t seed = 1; seed <= 40; ++seed) {
      INFO("seed " << seed);
      const exec::RandomProgram p = exec::random_program(seed, a);  // throws if the stream check refuses it
      const exec::Result r = exec::execute(p.stream, "<random>", a, p.image);
      size_t outputs = 0;
      for (const auto& d : r.program.tensors) outputs += d.described && d.output();
      CHECK(outputs > 0);
      CHECK(stream::decode(stream::encode(p.stream), "<random>", a.config_hash).records.size() ==
            p.stream.records.size());
    }
  }
}

TEST_CASE("a GEMM of several passes whose result overwrites its streamed operand is refused", "[exec]") {
  // A 2-row register file: every GEMM with K > 2 runs in passes.
  const arch::Arch a = test::arch_from({{"mac_arrays", {{{"name", "mac"}, {"rows", 2}, {"cols", 2}, {"rf_rows", 2}}}}});
  int refused = 0;
  for (uint64_t seed = 1; seed <= 200 && refused < 3; ++seed) {
    exec::RandomProgram p = exec::random_program(seed, a);
    for (size_t i = 0; i < p.stream.records.size(); ++i) {
      const stream::Record& g = p.stream.records[i];
      if (g.op() != Opcode::Gemm || !(g.field("flags") & stream::kLaunchCont)) continue;
      // The streamed operand is the one not bound to the register file (slot a or b).
      const bool rf_in_a = (g.field("binds") >> 4 & 0xf) == static_cast<uint64_t>(stream::Bind::Rf);
      const uint64_t out = g.field("out"), streamed = g.field(rf_in_a ? "b" : "a");
      stream::Record* out_desc = nullptr;
      uint64_t streamed_base = 0;
      for (auto& r : p.stream.records)
        if (r.op() == Opcode::Tensor) {
          if (r.field("id") == out) out_desc = &r;
          if (r.field("id") == streamed) streamed_base = r.field("base");
        }
      REQUIRE(out_desc);
      out_desc->set_field("base", streamed_base);
      CHECK_THROWS_WITH(exec::check_stream(p.stream, "s.bin", a),
                        Catch::Contains("overwrites") && Catch::Contains("every pass reads") &&
                            Catch::Contains("status: bad_address"));
      ++refused;
      break;
    }
  }
  CHECK(refused == 3);
}

TEST_CASE("tiles: the mapping rule's slices cover a launch's rows in order, in whole quanta", "[exec][tiles]") {
  // Tiles per array (docs/top.md, "Tiles"): whole 2V-PE engines, a power of
  // two, at most kMaxTiles; the default 4x4 has one.
  CHECK(arch::engine_tiles(16, 131072) == 1);
  CHECK(arch::engine_tiles(64, 131072) == 4);
  CHECK(arch::engine_tiles(256, 131072) == 16);
  CHECK(arch::engine_tiles(48, 131072) == 2);      // three tiles' PEs: rounded down to a power of two
  CHECK(arch::engine_tiles(16, 64) == 2);          // a 64-word gather buffer holds V to 4: two 8-PE tiles
  CHECK(arch::engine_tiles(4096, 131072) == arch::kMaxTiles);
  CHECK(arch::engine_tiles(15, 131072) == 1);      // 8 lanes, no product unit
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 2000; ++trial) {
    const int tiles = 1 << std::uniform_int_distribution<int>(0, 4)(rng);
    const uint64_t granule = uint64_t{4} << std::uniform_int_distribution<int>(0, 6)(rng);
    const uint64_t rows = std::uniform_int_distribution<uint64_t>(1, 50000)(rng);
    const uint64_t q = arch::tile_row_quantum(granule);
    INFO(tiles << " tiles, " << granule << "-byte granules, " << rows << " rows");
    uint64_t next = 0, longest = 0;
    for (int t = 0; t < tiles; ++t) {
      const arch::RowSlice s = arch::tile_rows(rows, tiles, t, granule);
      CHECK(s.lo == next);                                  // in tile order, no gap, no overlap
      CHECK(s.lo <= s.hi);
      CHECK((s.lo % q == 0 || s.lo == rows));               // starts on a quantum (8 rows, a granule's words)
      CHECK((s.hi % q == 0 || s.hi == rows));
      longest = std::max(longest, s.hi - s.lo);
      next = s.hi;
    }
    CHECK(next == rows);
    // No slice is longer than the rows split evenly, rounded up to a quantum.
    CHECK(longest <= ((rows + tiles - 1) / tiles + q - 1) / q * q);
  }
  // Which launches run on the tiles.
  CHECK(exec::launch_on_tiles(Opcode::Gemm, 0, 0, 8, 131072));
  CHECK_FALSE(exec::launch_on_tiles(Opcode::Gemm, stream::kLaunchPipeGram, 0, 8, 131072));
  CHECK(exec::launch_on_tiles(Opcode::Eltw, stream::kLaunchRelu, 0, 8, 131072));
  CHECK_FALSE(exec::launch_on_tiles(Opcode::Gram, 0, 0, 8, 131072));
  CHECK(exec::launch_on_tiles(Opcode::Spmm, 0, 9604, 8, 131072));        // X in one 8-column block
  CHECK_FALSE(exec::launch_on_tiles(Opcode::Spmm, 0, 9604, 16, 131072)); // two blocks
  CHECK_FALSE(exec::launch_on_tiles(Opcode::Spmm, stream::kLaunchPipeGramX, 9604, 8, 131072));
  CHECK_FALSE(exec::launch_on_tiles(Opcode::Spmm, 0, 200000, 1, 131072)); // gathered from DRAM
}
