// Randomised test of the top's CHORD command unit (`<top>_chord_cmd`) against
// the executor's traffic walk (docs/top.md, "CHORD's command unit"). SCORE
// compiles CG, BiCGStab and GCN for the top of this config; the executor runs
// each stream and hands over its walk's CHORD operations
// (traffic::ChordHooks::trace). The testbench feeds the unit the stream's
// events in order (each op's CHORD_REG records, its start, its end, its
// CHORD_UPD / CHORD_REL records, and END), with random gaps, and takes CHORD's
// commands with random back-pressure. Checked:
//  - every command equals the walk's next command, field by field (register:
//    id, first and end granule, metadata in the build's widths; update and
//    rewrite: id, new id, metadata; claim, commit, flush, release: id), and
//    none is missing at the end (flushes only where CHORD has them);
//  - when each op starts, the routing answers for its operands: every access
//    the walk makes through CHORD in that op is to a tensor the unit calls
//    live, under the unit's id, and is a fill exactly when the unit says so;
//    every operand the op binds to CHORD that the unit calls live is accessed;
//  - the unit ends idle, without error.
// Built for each top config with CHORD (Vchord_cmd). CELLO_CMD_LOG=1 prints
// every event and command on stderr.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <vector>

#include "Vchord_cmd.h"
#include "gen/hw_config.hpp"
#include "gen/top/chord_cmd_gen.hpp"
#include "gen/top/top_config.hpp"
#include "sw/exec/executor.hpp"
#include "sw/exec/prepare.hpp"
#include "sw/exec/random_program.hpp"
#include "sw/stream/problem.hpp"
#include "tb/harness/checked.hpp"
#include "tb/harness/port_words.hpp"
#include "tb/harness/rng.hpp"
#include "tb/harness/sim.hpp"

using namespace cello;
using namespace cello::tb;
using chord::OpKind;

namespace {

struct Top {
  gen::HwConfig cfg = gen::load_hw_config(TOP_CONFIG);
  arch::Arch arch = gen::arch_of(cfg, TOP_CONFIG);
  gen::ChordCmdShape shape =
      gen::chord_cmd_shape(*gen::top_chord(cfg), gen::load_unit_shape(arch), cfg.top->tensor_table);
};
const Top& top() {
  static const Top t;
  return t;
}

// Ports a build has only with some CHORD options: `output` with flush, the
// rewrite's new id with inplace.
template <class V>
void set_output(V& d, bool v) {
  if constexpr (requires { d.ev_output; }) d.ev_output = v;
}
template <class V>
uint32_t new_id(const V& d) {
  if constexpr (requires { d.cmd_nid; }) return static_cast<uint32_t>(d.cmd_nid);
  return 0;
}

enum EvKind : uint8_t { kReg = 0, kUpd = 1, kRel = 2, kBegin = 3, kDone = 4, kEnd = 5 };

struct Event {
  EvKind kind;
  uint32_t tensor = 0;
  uint32_t dist = 0, remaining = 0;
  int op = -1;  // kBegin: the op
};

// The walk's commands as this build's CHORD takes them: flushes only with
// `flush`, metadata in the build's widths (a distance of "none" all ones).
std::vector<chord::TraceOp> expected_commands(const std::vector<chord::TraceOp>& trace, const gen::ChordCmdShape& s) {
  std::vector<chord::TraceOp> out;
  for (chord::TraceOp op : trace) {
    if (!op.is_command() || (op.kind == OpKind::Flush && !s.flush)) continue;
    op.meta = chord::in_widths(op.meta, static_cast<unsigned>(s.dist_bits), static_cast<unsigned>(s.uses_bits));
    out.push_back(op);
  }
  return out;
}

std::string describe(const chord::TraceOp& c) {
  static const char* names[] = {"register", "update", "release", "write", "read", "rewrite", "claim", "commit", "flush", "illegal"};
  return fmt::format("{} id {} base {} end {} dist {} uses {} new id {}", names[static_cast<size_t>(c.kind)], c.id, c.base,
                     c.end, c.meta.next_use, c.meta.uses, c.new_id);
}

struct Counts {
  uint64_t commands = 0, events = 0, routed = 0, accesses = 0, bypassed = 0;
  uint64_t kinds[static_cast<size_t>(OpKind::Illegal) + 1] = {};
};

class Run {
 public:
  Run(Sim<Vchord_cmd>& sim, Rng& rng, const stream::Stream& st, const std::vector<uint8_t>& image, Counts& n)
      : sim_(sim), d_(sim.dut()), rng_(rng), s_(top().shape), g_(top().arch.granule_bytes), n_(n) {
    traffic::ChordHooks observe;
    observe.trace = &trace_;
    observe.op_starts = &starts_;
    want_ = exec::execute(st, "<stream>", top().arch, image, "image", &observe);
    expected_ = expected_commands(trace_, s_);
    n_.bypassed += want_.chord.bypass_tensors;
    const exec::ExecProgram& p = want_.program;
    REQUIRE(starts_.size() == p.ops.size());
    auto riff = [&](size_t rec) {
      const stream::Record& r = st.records[rec];
      Event e{r.op() == stream::Opcode::ChordReg ? kReg : r.op() == stream::Opcode::ChordUpd ? kUpd : kRel,
              static_cast<uint32_t>(r.field("id"))};
      if (e.kind != kRel) {
        e.dist = static_cast<uint32_t>(r.field("distance"));
        e.remaining = static_cast<uint32_t>(r.field("remaining"));
      }
      events_.push_back(e);
    };
    for (size_t i = 0; i < p.ops.size(); ++i) {
      for (size_t rec : p.ops[i].pre) riff(rec);
      // A start event names the op's result (the sequencer's slot 0), which it claims.
      events_.push_back({kBegin, static_cast<uint32_t>(std::max(p.ops[i].out, 0)), 0, 0, static_cast<int>(i)});
      events_.push_back({kDone});
      for (size_t rec : p.ops[i].post) riff(rec);
    }
    events_.push_back({kEnd});
    ev_rate_ = 0.1 + 0.9 * static_cast<double>(rng.below(1000)) / 1000.0;
    cmd_rate_ = 0.1 + 0.9 * static_cast<double>(rng.below(1000)) / 1000.0;
  }

  void run() {
    d_.ev_valid = 0;
    d_.cmd_ready = 0;
    sim_.reset();
    size_t next = 0;
    bool offering = false;
    std::optional<int> query;  // an op whose routing to ask once the unit is idle
    while (next < events_.size() || offering || !d_.idle || query) {
      if (query && d_.idle && !offering) {
        check_routing(static_cast<size_t>(*query));
        query.reset();
      }
      if (!offering && !query && next < events_.size() && rng_.chance(ev_rate_)) {
        drive(events_[next]);
        offering = true;
      }
      d_.ev_valid = offering;
      d_.cmd_ready = rng_.chance(cmd_rate_);
      sim_.settle();
      REQUIRE(static_cast<bool>(d_.ev_ready) == static_cast<bool>(d_.idle));
      if (d_.cmd_valid && d_.cmd_ready) take_command();
      if (offering && d_.ev_ready && log_)
        std::fprintf(stderr, "event %zu: kind %d tensor %u\n", next, events_[next].kind, events_[next].tensor);
      if (offering && d_.ev_ready) {
        offering = false;
        sim_.note("ev", next);
        ++n_.events;
        if (events_[next].kind == kBegin) query = events_[next].op;
        ++next;
      }
      sim_.tick();
    }
    INFO(fmt::format("{} of {} commands sent", sent_, expected_.size()));
    CHECK(sent_ == expected_.size());
    CHECK(d_.err == 0);
  }

 private:
  void drive(const Event& e) {
    d_.ev_kind = e.kind;
    d_.ev_tensor = e.tensor;
    d_.ev_base = 0;
    d_.ev_col_at = 0;
    d_.ev_val_at = 0;
    d_.ev_end = 0;
    d_.ev_sparse = 0;
    d_.ev_input = 0;
    set_output(d_, false);
    if (s_.dist_bits) {
      d_.ev_dist = e.dist;
      d_.ev_remaining = e.remaining;
    }
    if (e.kind > kRel) return;
    // The tensor's region in granules, as its descriptor gives it.
    const exec::TensorDesc& t = want_.program.tensors[e.tensor];
    d_.ev_base = t.base / g_;
    d_.ev_end = ceil_div(t.bytes, g_);
    if (t.csr) {
      d_.ev_col_at = (t.col_at(g_) - t.base) / g_;
      d_.ev_val_at = (t.val_at(g_) - t.base) / g_;
    }
    d_.ev_sparse = t.csr;
    d_.ev_input = t.input();
    set_output(d_, t.output());
  }

  void take_command() {
    chord::TraceOp c;
    c.kind = static_cast<OpKind>(std::array<uint8_t, 7>{0, 1, 2, 5, 6, 7, 8}[std::min<unsigned>(d_.cmd_op, 6)]);
    c.id = static_cast<uint32_t>(d_.cmd_id);
    if (c.kind == OpKind::Register) {
      c.base = d_.cmd_base;
      c.end = d_.cmd_end;
    }
    if (c.kind == OpKind::Register || c.kind == OpKind::Update || c.kind == OpKind::Rewrite) {
      c.meta.next_use = static_cast<uint32_t>(d_.cmd_dist);
      c.meta.uses = static_cast<uint32_t>(d_.cmd_uses);
    }
    if (c.kind == OpKind::Rewrite) c.new_id = new_id(d_);
    sim_.note("cmd", c.id);
    if (log_) std::fprintf(stderr, "cmd %zu: %s\n", sent_, describe(c).c_str());
    INFO("command " << sent_ << " at cycle " << sim_.cycle() << ": the unit sends " << describe(c));
    REQUIRE(sent_ < expected_.size());
    chord::TraceOp w = expected_[sent_];
    if (w.kind != OpKind::Register) w.base = w.end = 0;
    if (w.kind != OpKind::Register && w.kind != OpKind::Update && w.kind != OpKind::Rewrite) w.meta = {};
    INFO("the walk's: " << describe(w));
    REQUIRE(c.kind == w.kind);
    REQUIRE(c.id == w.id);
    REQUIRE(c.base == w.base);
    REQUIRE(c.end == w.end);
    REQUIRE(c.meta.next_use == w.meta.next_use);
    REQUIRE(c.meta.uses == w.meta.uses);
    REQUIRE(c.new_id == w.new_id);
    ++n_.kinds[static_cast<size_t>(c.kind)];
    ++n_.commands;
    ++sent_;
  }

  // The unit's routing answers for op i's operands against the walk's accesses in op i.
  void check_routing(size_t i) {
    const exec::ExecOp& op = want_.program.ops[i];
    const int ids[4] = {op.out, op.a, op.b, op.c};
    const unsigned TB = static_cast<unsigned>(bits_for(s_.tensor_table - 1));
    std::vector<uint32_t> packed((4 * TB + 31) / 32, 0);
    for (int k = 0; k < 4; ++k) put_slice(packed, k * TB, TB, {static_cast<uint32_t>(std::max(ids[k], 0))});
    put_words(d_.q_tensor, packed);
    sim_.settle();
    const std::vector<uint32_t> qid = get_words(d_.q_id, (4 * static_cast<size_t>(s_.id_bits) + 31) / 32);
    struct Answer {
      bool live, fill;
      uint64_t id;
      bool used = false;
    };
    Answer ans[4];
    for (unsigned k = 0; k < 4; ++k)
      ans[k] = {ids[k] >= 0 && ((d_.q_live >> k) & 1u), ids[k] >= 0 && ((d_.q_fill >> k) & 1u),
                get_slice(qid, k * static_cast<size_t>(s_.id_bits), static_cast<size_t>(s_.id_bits))};
    size_t end = i + 1 < starts_.size() ? starts_[i + 1] : trace_.size();
    for (size_t x = starts_[i]; x < end; ++x) {
      const chord::TraceOp& a = trace_[x];
      if (a.is_command()) break;  // the op's commits and releases follow its accesses
      ++n_.accesses;
      // A write goes through the result (slot 0), a read or a fill through an operand.
      const bool fill = a.kind == OpKind::Write && a.fill;
      const bool write = a.kind == OpKind::Write && !fill;
      bool found = false;
      for (int k = 0; k < 4; ++k) {
        Answer& an = ans[k];
        if (an.live && (k == 0) == write && (a.id - 1) / 4 == (an.id - 1) / 4 && an.fill == fill) found = an.used = true;
      }
      INFO(fmt::format("{}: the walk's {} of id {} (granule {}{}) has no operand (the result, for a write) the unit routes "
                       "to CHORD under that id",
                       op.name(), a.kind == OpKind::Read ? "read" : "write", a.id, a.addr, fill ? ", a fill" : ""));
      REQUIRE(found);
    }
    for (int k = 0; k < 4; ++k) {
      if (!ans[k].live) continue;
      ++n_.routed;
      // An operand bound to CHORD that the unit calls live is accessed there (a
      // HOST op binds none; its result is written through CHORD).
      if (op.bind[k] == stream::Bind::Chord) {
        INFO(fmt::format("{}: operand {} (tensor {}) is live in CHORD, bound to it, and never accessed", op.name(), k, ids[k]));
        CHECK(ans[k].used);
      }
    }
  }

  Sim<Vchord_cmd>& sim_;
  Vchord_cmd& d_;
  Rng& rng_;
  const gen::ChordCmdShape& s_;
  unsigned g_;
  Counts& n_;
  exec::Result want_;
  std::vector<chord::TraceOp> trace_, expected_;
  std::vector<size_t> starts_;
  std::vector<Event> events_;
  size_t sent_ = 0;
  double ev_rate_ = 1, cmd_rate_ = 1;
  const bool log_ = std::getenv("CELLO_CMD_LOG") != nullptr;  // events and commands on stderr
};

exec::Prepared compiled(const char* workload, int grid, int n, int iters) {
  stream::ProblemSpec spec;
  spec.workload = workload;
  spec.grid = grid;
  spec.n = n;
  spec.iters = iters;
  return exec::prepare(stream::make_problem(spec), top().arch);
}

// Prints and records what a test case covered; every command kind this
// CHORD has was sent.
void report(const char* what, const Counts& n, bool rewrites) {
  const auto kind = [&](OpKind k) { return n.kinds[static_cast<size_t>(k)]; };
  const std::string summary = fmt::format(
      "{}: {} events, {} commands ({} register, {} update, {} release, {} rewrite, {} claim, {} commit, {} flush), {} "
      "tensors left in DRAM by a full table, {} routed operands, {} accesses checked",
      what, n.events, n.commands, kind(OpKind::Register), kind(OpKind::Update), kind(OpKind::Release),
      kind(OpKind::Rewrite), kind(OpKind::Claim), kind(OpKind::Commit), kind(OpKind::Flush), n.bypassed, n.routed,
      n.accesses);
  std::printf("%s: %s\n", TOP_CONFIG, summary.c_str());
  INFO(summary);
  CHECK(kind(OpKind::Register) > 0);
  CHECK(kind(OpKind::Update) > 0);
  CHECK(kind(OpKind::Release) > 0);
  CHECK(n.routed > 0);
  CHECK(n.accesses > 0);
  if (rewrites && top().shape.inplace) CHECK(kind(OpKind::Rewrite) > 0);
  if (top().shape.claim) CHECK(kind(OpKind::Commit) > 0);
  if (top().shape.flush) CHECK(kind(OpKind::Flush) > 0);
}

}  // namespace

TEST_CASE("chord_cmd: CHORD's commands and routing equal the executor's walk on compiled solvers", "[top]") {
  CELLO_SEEDED_RNG(rng, 23);
  Sim<Vchord_cmd> sim;
  Counts n;
  struct Job {
    const char* workload;
    int grid, n, iters;
  };
  const Job jobs[] = {{"cg", 4, 1, 3}, {"cg", 4, 2, 3}, {"cg", 6, 4, 2}, {"bicgstab", 4, 2, 2}, {"gcn", 4, 2, 1}};
  for (const Job& j : jobs) {
    INFO(fmt::format("{} grid {} N {} {} iterations", j.workload, j.grid, j.n, j.iters));
    exec::Prepared prep = compiled(j.workload, j.grid, j.n, j.iters);
    run_checked(sim, [&] { Run(sim, rng, prep.compiled.stream, prep.image, n).run(); });
    // The same stream without its CHORD_REL records: tensors stay live to
    // END (inputs and temporaries too), the table fills and later
    // registrations find it full.
    auto& recs = prep.compiled.stream.records;
    std::erase_if(recs, [](const stream::Record& r) { return r.op() == stream::Opcode::ChordRel; });
    INFO("without CHORD_REL records");
    run_checked(sim, [&] { Run(sim, rng, prep.compiled.stream, prep.image, n).run(); });
  }
  report("compiled solvers", n, true);
}

// Random legal programs with random RIFF records (exec::random_program's
// `chord` option): CSR matrices with few entries, GEMMs of several passes,
// tensors registered again while live or after their release, or never
// released.
TEST_CASE("chord_cmd: CHORD's commands and routing equal the executor's walk on random programs", "[top]") {
  CELLO_SEEDED_RNG(rng, 29);
  Sim<Vchord_cmd> sim;
  Counts n;
  exec::RandomProgramOptions o;
  o.launches = 12;
  o.chord = true;
  for (int k = 0; k < 40; ++k) {
    const uint64_t seed = rng.bits(32);
    INFO("random program " << seed);
    const exec::RandomProgram p = exec::random_program(seed, top().arch, o);
    run_checked(sim, [&] { Run(sim, rng, p.stream, p.image, n).run(); });
  }
  report("random programs", n, false);
}
