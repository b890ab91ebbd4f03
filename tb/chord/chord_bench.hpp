// Differential testbench of a generated CHORD against the functional model
// (sw/chord/chord_model.hpp): the same operation trace goes into both, cycle by
// cycle, with random back-pressure on every port and a DRAM with random latency.
//
// Ordering: commands are barriers (a command is offered only when every earlier
// access was accepted, and accesses after it wait for it); between commands the
// read and write ports run independently, and the model is fed in the order the
// RTL accepted the operations (within a cycle: command, else read then write).
//
// Checked every cycle:
//  - every accepted access gets the model's decision: hit / miss / spill / evict /
//    error, the same table entry, SRAM slot, victim entry and evicted count
//    (from the mon_* outputs); every command the same status and entry;
//  - read responses arrive in order with the model's data, hit and error flags;
//  - the DRAM request stream equals the model's DRAM traffic word for word,
//    except that a request may pass a claim's write-back words (the RTL writes
//    them back in the background) if none of them is to its address;
//  - outputs hold while valid && !ready;  no hang (a progress watchdog).
// At the end of every run: the six counters and the sticky status equal the model's.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <deque>
#include <unordered_map>
#include <vector>

#include "sw/chord/chord_model.hpp"
#include "sw/chord/chord_trace.hpp"
#include "sw/common/counters.hpp"
#include "tb/harness/rng.hpp"
#include "tb/harness/scoreboard.hpp"
#include "tb/harness/sim.hpp"
#include "tb/harness/stream.hpp"
#include "tb/harness/port_words.hpp"

namespace cello::tb {

// A CHORD word as the 32-bit words of a Verilator port of `bits` bits.
inline std::vector<uint32_t> port_words(const chord::Word& w, unsigned bits) {
  std::vector<uint32_t> out((bits + 31) / 32);
  for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<uint32_t>(w.limb(i / 2) >> (32 * (i % 2)));
  return out;
}

// The word a Verilator port of `bits` bits holds.
template <class P>
chord::Word port_word(const P& port, unsigned bits) {
  chord::Word w;
  w.limbs.assign(chord::word_limbs(bits), 0);
  const std::vector<uint32_t> v = get_words(port, (bits + 31) / 32);
  for (size_t i = 0; i < v.size(); ++i) w.limbs[i / 2] |= uint64_t{v[i]} << (32 * (i % 2));
  return w;
}

// Probability per cycle that each agent offers (valid) or accepts (ready), and
// the DRAM read latency range in cycles.
struct ChordRates {
  double cmd = 1, wr = 1, rd = 1, rsp = 1, dram_req = 1, dram_rsp = 1;
  unsigned lat_min = 1, lat_max = 1;
};

// Every member is a uint64_t counter (operator+= sums them with add_counters).
struct ChordRunStats {
  uint64_t cycles = 0, commands = 0, reads = 0, writes = 0, responses = 0, dram_words = 0;
  uint64_t hits = 0, misses = 0, spills = 0, evicts = 0, errors = 0;
  ChordRunStats& operator+=(const ChordRunStats& o) { return add_counters(*this, o); }
};

struct ChordRsp {
  chord::Word data;
  bool hit, err;
  bool operator==(const ChordRsp& o) const { return data == o.data && hit == o.hit && err == o.err; }
};
struct ChordDramReq {
  bool write;
  uint64_t addr;
  chord::Word data;
  chord::ByteMask be;  // write, option byte_enables: every byte enable, set or not
  bool operator==(const ChordDramReq& o) const {
    return write == o.write && addr == o.addr && (!write || (data == o.data && be == o.be));
  }
};

}  // namespace cello::tb

template <>
struct fmt::formatter<cello::tb::ChordRsp> : fmt::formatter<std::string> {
  auto format(const cello::tb::ChordRsp& r, format_context& ctx) const {
    return fmt::format_to(ctx.out(), "{{data {}, hit {}, err {}}}", cello::chord::to_hex(r.data), r.hit, r.err);
  }
};
template <>
struct fmt::formatter<cello::tb::ChordDramReq> : fmt::formatter<std::string> {
  auto format(const cello::tb::ChordDramReq& r, format_context& ctx) const {
    return fmt::format_to(ctx.out(), "{{{} {:#x}{}}}", r.write ? "write" : "read", r.addr,
                          r.write ? fmt::format(" data {}{}", cello::chord::to_hex(r.data),
                                                r.be.limbs.empty() ? "" : " bytes " + cello::chord::to_hex(r.be))
                                  : std::string());
  }
};

namespace cello::tb {

template <class V>
class ChordBench {
 public:
  ChordBench(const chord::Geometry& g, unsigned counter_width, uint64_t seed)
      : g_(g), counter_width_(counter_width), rng_(seed), model_dram_(g.word_bits), model_(g, true, &model_dram_),
        cmd_(rng_, 1), wr_(rng_, 1), rd_(rng_, 1), rsp_sink_(rng_, 1), req_sink_(rng_, 1), rsp_sb_("read response"),
        rsp_hold_("rd_rsp"), req_hold_("dram_req"), dut_dram_(g.word_bits) {
    model_.on_dram([this](const chord::DramOp& op) {
      dram_model_.push_back({op.write, op.addr, op.data, all_bytes(op.be)});
      dram_model_bg_.push_back(in_claim_ && op.write);
    });
    idle_inputs();
    sim_.reset();
  }

  Rng& rng() { return rng_; }
  uint64_t seed() const { return rng_.seed(); }
  const chord::ChordModel& model() const { return model_; }
  // In order: an access waits until every earlier access on the other port
  // was accepted, so the RTL and the model see the trace's order (the
  // traffic walk's, for its counters); otherwise the ports run independently
  // between commands.
  void set_in_order(bool v) { in_order_ = v; }
  Sim<V>& sim() { return sim_; }

  // Runs the trace to completion: every operation accepted, every response and
  // DRAM request checked, the DUT drained. Throws Failure on any mismatch.
  ChordRunStats run(const std::vector<chord::TraceOp>& trace, const ChordRates& r, uint64_t stall_limit = 100000) {
    cmd_.set_rate(r.cmd);
    wr_.set_rate(r.wr);
    rd_.set_rate(r.rd);
    rsp_sink_.set_rate(r.rsp);
    req_sink_.set_rate(r.dram_req);
    rates_ = r;
    ChordRunStats st;
    size_t next = 0;
    uint64_t start = sim_.cycle(), last_progress = sim_.cycle();
    auto& d = sim_.dut();
    for (;;) {
      // Dispatch trace operations to the three ports, commands as barriers.
      while (next < trace.size()) {
        const chord::TraceOp& op = trace[next];
        if (op.is_command()) {
          if (wr_.pending() || rd_.pending() || cmd_.pending()) break;
          cmd_.push(op);
        } else {
          if (cmd_.pending()) break;
          auto& port = op.kind == chord::OpKind::Write ? wr_ : rd_;
          auto& other = op.kind == chord::OpKind::Write ? rd_ : wr_;
          if (port.pending() >= 8 || (in_order_ && other.pending())) break;
          port.push(op);
        }
        ++next;
      }
      bool busy = next < trace.size() || cmd_.pending() || wr_.pending() || rd_.pending() ||
                  rsp_sb_.outstanding() || !dram_model_.empty() || !dram_rtl_.empty() ||
                  !dram_rsp_.empty();
      if (!busy) break;

      drive();
      sim_.settle();
      bool progress = sample(st);
      sim_.tick();
      if (progress) {
        last_progress = sim_.cycle();
        sim_.note("access", next);
      }
      if (sim_.cycle() - last_progress > stall_limit)
        fail(fmt::format("no progress for {} cycles (op {} of {}, {} responses, {} model / {} RTL DRAM requests "
                         "outstanding)",
                         stall_limit, next, trace.size(), rsp_sb_.outstanding(), dram_model_.size(), dram_rtl_.size()));
    }
    // A few idle cycles so that the counters settle, then compare them.
    idle_inputs();
    for (int i = 0; i < 4; ++i) {
      sim_.settle();
      sim_.tick();
    }
    sim_.settle();
    check_counters(d);
    model_.check_invariants();
    st.cycles = sim_.cycle() - start;
    return st;
  }

 private:
  void fail(const std::string& what) const {
    throw Failure(fmt::format("cycle {}: {} (seed {})", sim_.cycle(), what, rng_.seed()));
  }

  // Compares the RTL's decision on one access (from the mon_* outputs) with the
  // model's: the outcome, the entry (unless an error) and, for a word in the
  // SRAM, its slot.
  void check_decision(const char* what, const chord::TraceOp& op, const chord::Access& a, chord::Outcome rtl,
                      int rtl_entry, uint64_t rtl_slot) const {
    if (rtl != a.outcome)
      fail(fmt::format("{} id {} addr {:#x}: RTL {}, model {} ({})", what, op.id, op.addr, chord::to_string(rtl),
                       chord::to_string(a.outcome), chord::to_string(a.status)));
    if (a.outcome != chord::Outcome::Error && rtl_entry != a.entry)
      fail(fmt::format("{} id {}: RTL entry {}, model {}", what, op.id, rtl_entry, a.entry));
    const bool in_sram = a.outcome == chord::Outcome::Hit || a.outcome == chord::Outcome::Evict;
    if (in_sram && rtl_slot != a.slot)
      fail(fmt::format("{} id {} addr {:#x}: RTL slot {}, model {}", what, op.id, op.addr, rtl_slot, a.slot));
  }

  void idle_inputs() {
    auto& d = sim_.dut();
    d.cmd_valid = 0;
    d.wr_valid = 0;
    d.rd_req_valid = 0;
    d.rd_rsp_ready = 0;
    d.dram_req_ready = 0;
    d.dram_rsp_valid = 0;
  }

  void drive() {
    auto& d = sim_.dut();
    d.cmd_valid = cmd_.drive();
    if (cmd_.valid()) {
      const auto& op = cmd_.item();
      d.cmd_op = op.kind == chord::OpKind::Register ? 0
                 : op.kind == chord::OpKind::Update ? 1
                 : op.kind == chord::OpKind::Release ? 2
                 : op.kind == chord::OpKind::Claim   ? 4
                 : op.kind == chord::OpKind::Commit  ? 5
                 : op.kind == chord::OpKind::Flush   ? 6
                 : op.kind == chord::OpKind::Illegal ? op.opcode
                                                     : 3;
      if constexpr (requires { d.cmd_nid; }) d.cmd_nid = op.new_id;
      d.cmd_id = op.id;
      d.cmd_base = op.base;
      d.cmd_end = op.end;
      if constexpr (requires { d.cmd_dist; }) {
        d.cmd_dist = op.meta.next_use;
        d.cmd_uses = op.meta.uses;
      }
    }
    d.wr_valid = wr_.drive();
    if (wr_.valid()) {
      d.wr_id = wr_.item().id;
      d.wr_addr = wr_.item().addr;
      put_words(d.wr_data, port_words(chord::expand_word(wr_.item().data, g_.word_bits), g_.word_bits));
      // Option byte_enables: the bytes written (all of them unless the trace says).
      if constexpr (requires { d.wr_be; }) put_words(d.wr_be, port_words(all_bytes(wr_.item().be), g_.word_bits / 8));
      // Option clean: a fill is clean (without clean the model stores it as a write).
      if constexpr (requires { d.wr_fill; }) d.wr_fill = wr_.item().fill;
    }
    d.rd_req_valid = rd_.drive();
    if (rd_.valid()) {
      d.rd_req_id = rd_.item().id;
      d.rd_req_addr = rd_.item().addr;
    }
    d.rd_rsp_ready = rsp_sink_.drive();
    d.dram_req_ready = req_sink_.drive();
    // DRAM read responses: in order, each after its latency, held until taken.
    if (!dram_rsp_valid_ && !dram_rsp_.empty() && dram_rsp_.front().first <= sim_.cycle() &&
        rng_.chance(rates_.dram_rsp))
      dram_rsp_valid_ = true;
    d.dram_rsp_valid = dram_rsp_valid_;
    if (dram_rsp_valid_) put_words(d.dram_rsp_data, port_words(dram_rsp_.front().second, g_.word_bits));
  }

  // A write's byte enables as the RTL sees them: with byte_enables every
  // byte's enable (an empty mask writes all); without, none.
  chord::ByteMask all_bytes(const chord::ByteMask& be) const {
    if (!g_.byte_enables || !be.limbs.empty()) return be;
    chord::ByteMask all;
    for (unsigned b = 0; b < g_.word_bits / 8; b += 64) all.limbs.push_back(low_mask(std::min(64u, g_.word_bits / 8 - b)));
    return all;
  }

  // The DRAM request the RTL offers.
  ChordDramReq dram_req(V& d) const {
    ChordDramReq q{bool(d.dram_req_write), uint64_t(d.dram_req_addr), port_word(d.dram_req_data, g_.word_bits), {}};
    if constexpr (requires { d.dram_req_be; }) q.be = port_word(d.dram_req_be, g_.word_bits / 8);
    return q;
  }

  static chord::Outcome rd_kind(unsigned k) {
    return k == 0 ? chord::Outcome::Hit : k == 1 ? chord::Outcome::Miss : chord::Outcome::Error;
  }
  static chord::Outcome wr_kind(unsigned k) {
    return k == 0 ? chord::Outcome::Hit : k == 1 ? chord::Outcome::Spill : k == 2 ? chord::Outcome::Evict
                                                                               : chord::Outcome::Error;
  }
  static unsigned cmd_code(chord::Status s) {
    switch (s) {
      case chord::Status::Ok: return 0;
      case chord::Status::Unregistered: return 1;
      case chord::Status::TableFull: return 2;
      case chord::Status::Duplicate: return 3;
      case chord::Status::BadRange: return 4;
      case chord::Status::IllegalOpcode: return 7;
      default: return 6;
    }
  }

  void note_status(chord::OpKind kind, chord::Status s) {
    using chord::Status;
    int bit = -1;
    if (kind == chord::OpKind::Read) bit = s == Status::Unregistered ? 0 : s == Status::OutOfRange ? 1 : -1;
    else if (kind == chord::OpKind::Write) bit = s == Status::Unregistered ? 2 : s == Status::OutOfOrder ? 3 : -1;
    else if (kind == chord::OpKind::Register || kind == chord::OpKind::Rewrite)
      bit = s == Status::TableFull ? 4 : s == Status::Duplicate ? 5 : s == Status::BadRange ? 6
          : s == Status::Unregistered ? 7 : -1;
    else if (kind == chord::OpKind::Illegal) bit = s == Status::IllegalOpcode ? 8 : -1;
    else bit = s == Status::Unregistered ? 7 : -1;
    if (bit >= 0) status_ |= 1u << bit;
  }

  // Samples this cycle's handshakes; returns true if anything moved.
  bool sample(ChordRunStats& st) {
    auto& d = sim_.dut();
    bool moved = false;
    const ChordRsp rsp{port_word(d.rd_rsp_data, g_.word_bits), bool(d.rd_rsp_hit), bool(d.rd_rsp_err)};
    rsp_hold_.sample(d.rd_rsp_valid, d.rd_rsp_ready, rsp);
    req_hold_.sample(d.dram_req_valid, d.dram_req_ready, dram_req(d));

    bool cmd_fire = d.cmd_valid && d.cmd_ready;
    bool rd_fire = d.rd_req_valid && d.rd_req_ready;
    bool wr_fire = d.wr_valid && d.wr_ready;
    if (bool(d.mon_cmd_valid) != cmd_fire || bool(d.mon_rd_valid) != rd_fire || bool(d.mon_wr_valid) != wr_fire)
      fail("monitor valid differs from the handshakes");
    if (cmd_fire && (rd_fire || wr_fire)) fail("a command was accepted together with an access");

    if (cmd_fire) {
      const auto& op = cmd_.item();
      in_claim_ = op.kind == chord::OpKind::Claim;
      chord::Access a = chord::apply(model_, op);
      in_claim_ = false;
      note_status(op.kind, a.status);
      if (d.mon_cmd_status != cmd_code(a.status))
        fail(fmt::format("command {} id {}: RTL status {}, model {}", int(op.kind), op.id, int(d.mon_cmd_status),
                         chord::to_string(a.status)));
      if (a.status == chord::Status::Ok && int(d.mon_cmd_entry) != a.entry)
        fail(fmt::format("command id {}: RTL entry {}, model {}", op.id, int(d.mon_cmd_entry), a.entry));
      cmd_.complete(true);
      ++st.commands;
      moved = true;
    }
    if (rd_fire) {
      const auto& op = rd_.item();
      chord::Access a = model_.read(op.id, op.addr);
      note_status(op.kind, a.status);
      check_decision("read", op, a, rd_kind(d.mon_rd_kind), int(d.mon_rd_entry), uint64_t(d.mon_rd_slot));
      rsp_sb_.expect({a.outcome == chord::Outcome::Error ? chord::Word{} : a.data, a.outcome == chord::Outcome::Hit,
                      a.outcome == chord::Outcome::Error});
      count(st, a.outcome);
      rd_.complete(true);
      ++st.reads;
      moved = true;
    }
    if (wr_fire) {
      const auto& op = wr_.item();
      chord::Access a = chord::apply(model_, op);  // a write, or a fill
      note_status(op.kind, a.status);
      check_decision("write", op, a, wr_kind(d.mon_wr_kind), int(d.mon_wr_entry), uint64_t(d.mon_wr_slot));
      if (a.outcome == chord::Outcome::Evict &&
          (int(d.mon_wr_victim) != a.victim_entry || d.mon_wr_evicted != a.evicted))
        fail(fmt::format("write id {}: RTL evicted {} words of entry {}, model {} of entry {}", op.id,
                         uint64_t(d.mon_wr_evicted), int(d.mon_wr_victim), a.evicted, a.victim_entry));
      count(st, a.outcome);
      wr_.complete(true);
      ++st.writes;
      moved = true;
    }
    if (++ops_since_check_ >= 256) {
      ops_since_check_ = 0;
      model_.check_invariants();
    }
    if (d.rd_rsp_valid && d.rd_rsp_ready) {
      rsp_sb_.check(rsp);
      ++st.responses;
      moved = true;
    }
    if (d.dram_req_valid && d.dram_req_ready) {
      ChordDramReq q = dram_req(d);
      dram_rtl_.push_back(q);
      if (q.write) {
        dut_dram_.write(q.addr, q.data, q.be);
      } else {
        uint64_t lat = rates_.lat_min + rng_.below(rates_.lat_max - rates_.lat_min + 1);
        uint64_t when = std::max(last_rsp_time_, sim_.cycle() + lat);
        last_rsp_time_ = when;
        dram_rsp_.push_back({when, dut_dram_.read(q.addr)});
      }
      ++st.dram_words;
      moved = true;
    }
    // The RTL writes a victim back before the write that evicted it is accepted,
    // the model when it applies that write: match the two streams in order. A
    // claim's write-back runs in the background, so a later request may pass
    // its words, but never one to the same address.
    while (!dram_rtl_.empty() && !dram_model_.empty()) {
      const ChordDramReq& q = dram_rtl_.front();
      size_t j = 0;
      while (j < dram_model_.size() && !(dram_model_[j] == q) && dram_model_bg_[j] && dram_model_[j].addr != q.addr) ++j;
      if (j == dram_model_.size() || !(dram_model_[j] == q) || (j > 0 && dram_model_bg_[j]))
        fail(fmt::format("DRAM request #{}: RTL {}, model {}", dram_matched_, q, dram_model_.front()));
      dram_model_.erase(dram_model_.begin() + static_cast<std::ptrdiff_t>(j));
      dram_model_bg_.erase(dram_model_bg_.begin() + static_cast<std::ptrdiff_t>(j));
      dram_rtl_.pop_front();
      ++dram_matched_;
    }
    if (dram_rtl_.size() > 4096) fail("the RTL issued DRAM requests the model never made");
    if (dram_rsp_valid_ && d.dram_rsp_ready) {
      dram_rsp_.pop_front();
      dram_rsp_valid_ = false;
      moved = true;
    }
    return moved;
  }

  static void count(ChordRunStats& st, chord::Outcome o) {
    switch (o) {
      case chord::Outcome::Hit: ++st.hits; break;
      case chord::Outcome::Miss: ++st.misses; break;
      case chord::Outcome::Spill: ++st.spills; break;
      case chord::Outcome::Evict: ++st.evicts; break;
      case chord::Outcome::Error: ++st.errors; break;
    }
  }

  void check_counters(V& d) {
    chord::TensorStats t = model_.totals();
    const unsigned cw = counter_width_;
    auto m = [&](uint64_t v) { return cw >= 64 ? v : v & ((1ull << cw) - 1); };
    auto cmp = [&](const char* name, uint64_t rtl, uint64_t want) {
      if (rtl != m(want)) fail(fmt::format("counter {}: RTL {}, model {}", name, rtl, want));
    };
    cmp("rd_hit", uint64_t(d.cnt_rd_hit), t.read_hits);
    cmp("rd_miss", uint64_t(d.cnt_rd_miss), t.read_misses);
    cmp("wr_hit", uint64_t(d.cnt_wr_hit), t.write_hits);
    cmp("wr_spill", uint64_t(d.cnt_wr_spill), t.spills);
    cmp("evict", uint64_t(d.cnt_evict), t.evictions);
    cmp("error", uint64_t(d.cnt_error), t.errors);
    if (uint32_t(d.status_err) != status_)
      fail(fmt::format("status_err: RTL {:#x}, model {:#x}", uint32_t(d.status_err), status_));
  }

  chord::Geometry g_;
  unsigned counter_width_;
  bool in_order_ = false;
  Rng rng_;
  Sim<V> sim_;
  chord::MapDram model_dram_;
  chord::ChordModel model_;
  Source<chord::TraceOp> cmd_, wr_, rd_;
  Sink rsp_sink_, req_sink_;
  Scoreboard<ChordRsp> rsp_sb_;
  std::deque<ChordDramReq> dram_model_, dram_rtl_;
  std::deque<bool> dram_model_bg_;  // the model's request is a claim's write-back word
  bool in_claim_ = false;           // the model is applying a claim
  uint64_t dram_matched_ = 0;
  HoldChecker<ChordRsp> rsp_hold_;
  HoldChecker<ChordDramReq> req_hold_;
  chord::MapDram dut_dram_;  // the DUT's DRAM (the model keeps its own, updated at decision time)
  std::deque<std::pair<uint64_t, chord::Word>> dram_rsp_;  // (ready cycle, data)
  bool dram_rsp_valid_ = false;
  uint64_t last_rsp_time_ = 0;
  ChordRates rates_;
  uint32_t status_ = 0;
  unsigned ops_since_check_ = 0;
};

// The traces of the hit-throughput measurement (tb/chord/chord_tb.cpp, `cello
// bench chord`). `setup` registers tensor 1 at [0, words) and tensor 2 at
// [b_base, b_base + words), each with three reads to come, and writes tensor 1;
// `mixed` then reads tensor 1 and writes tensor 2, one word of each per step.
struct HitThroughputTraces {
  std::vector<chord::TraceOp> setup, mixed;
};

// A read or write of `addr` in tensor `id`; a write stores a value made from the address.
inline chord::TraceOp access_op(chord::OpKind kind, uint32_t id, uint64_t addr) {
  chord::TraceOp o;
  o.kind = kind;
  o.id = id;
  o.addr = addr;
  o.data = addr * 7 + 1;
  return o;
}

inline HitThroughputTraces hit_throughput_traces(uint64_t words, uint64_t b_base) {
  chord::TraceOp ra, rb;
  ra.kind = rb.kind = chord::OpKind::Register;
  ra.id = 1, ra.base = 0, ra.end = words, ra.meta = {1, 3};
  rb.id = 2, rb.base = b_base, rb.end = b_base + words, rb.meta = {1, 3};
  HitThroughputTraces t;
  t.setup = {ra, rb};
  for (uint64_t i = 0; i < words; ++i) t.setup.push_back(access_op(chord::OpKind::Write, 1, i));
  for (uint64_t i = 0; i < words; ++i) {
    t.mixed.push_back(access_op(chord::OpKind::Read, 1, i));
    t.mixed.push_back(access_op(chord::OpKind::Write, 2, b_base + i));
  }
  return t;
}

}  // namespace cello::tb
