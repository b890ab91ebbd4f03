// Cycle-by-cycle differential testbench of a generated buffet group (an L2
// buffet filling K L1 buffets, gen/buffet/buffet_group_gen) against the
// composed reference model (sw/buffet/multicast_model.hpp).
//
// The testbench plays every agent around the group: the DRAM producer filling
// the L2 on its credits, the L2 read generator (index + target mask) and its
// shrinks, and K L1 readers with their shrinks, each on its own program and
// with its own random back-pressure. Every cycle it checks, against the
// model's state at the start of the cycle:
//  - every ready and valid the group drives (fill_ready, credit_valid/num,
//    rd_req_ready, shr_ready, and per L1 rd_req_ready, rd_rsp_valid,
//    shr_ready; with one target l1_credit_valid/num) equals the model's;
//    in particular rd_req_ready is low only while the L2 read must wait or a
//    *masked* L1 lacks a credit, never for an unmasked one;
//  - every L1 response equals the model's data, in request order (the data
//    went DRAM -> L2 -> L1 through the multicast unit);
//  - outputs hold while valid && !ready;
//  - with K > 1, credits are conserved for every target, every cycle
//    (BuffetGroupModel::conservation_error), and a reserved fill always finds
//    room in its L1.
// The credit latency it models: an L1 shrink in cycle t is a credit in the
// multicast unit's counter from cycle t + 2 (one cycle in the L1's credit
// register, one in the counter); after reset, each counter holds the L1's
// depth from the second cycle.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <string>
#include <type_traits>
#include <vector>

#include "sw/buffet/multicast_model.hpp"
#include "tb/buffet_group/group_program.hpp"
#include "tb/harness/rng.hpp"
#include "tb/harness/scoreboard.hpp"
#include "tb/harness/sim.hpp"
#include "tb/harness/stream.hpp"

namespace cello::tb {

struct GroupFeatures {
  unsigned targets, width, l2_depth, l1_depth, l2_iw, l2_cw, l1_iw, l1_cw;
};

// The features of a generated group, from its namespace in the parameter header.
#define CELLO_GROUP_FEATURES(P)                                                                                  \
  ::cello::tb::GroupFeatures {                                                                                 \
    P::targets, P::data_width, P::l2_depth, P::l1_depth, P::l2_index_width, P::l2_count_width, P::l1_index_width, \
        P::l1_count_width                                                                                       \
  }

// Bits [lo, lo + w) of a verilated port (an integer or a VlWide).
template <class T>
uint64_t port_bits(const T& v, unsigned lo, unsigned w) {
  const uint64_t m = w >= 64 ? ~0ULL : (1ULL << w) - 1;
  if constexpr (std::is_integral_v<T>) {
    return (static_cast<uint64_t>(v) >> lo) & m;
  } else {
    uint64_t r = 0;
    for (unsigned b = 0; b < w; ++b) r |= static_cast<uint64_t>((v[(lo + b) / 32] >> ((lo + b) % 32)) & 1u) << b;
    return r;
  }
}
template <class T>
void set_port_bits(T& v, unsigned lo, unsigned w, uint64_t x) {
  if constexpr (std::is_integral_v<T>) {
    const uint64_t m = (w >= 64 ? ~0ULL : (1ULL << w) - 1) << lo;
    v = static_cast<T>((static_cast<uint64_t>(v) & ~m) | ((x << lo) & m));
  } else {
    for (unsigned b = 0; b < w; ++b) {
      unsigned i = lo + b;
      v[i / 32] = (v[i / 32] & ~(1u << (i % 32))) | (static_cast<uint32_t>(x >> b & 1) << (i % 32));
    }
  }
}

// Probability per cycle that each agent offers (valid) or accepts (ready).
struct GroupRates {
  double fill = 1, l2_read = 1, l2_shrink = 1, credit = 1;
  std::vector<double> l1_read, l1_shrink, l1_rsp;  // per target; empty = 1
};

struct GroupRunStats {
  uint64_t cycles = 0, dram_fills = 0, l2_reads = 0, l2_shrinks = 0, l1_fills = 0, l1_reads = 0, l1_shrinks = 0;
  uint64_t read_stall_cycles = 0;     // an L2 read offered and held back
  uint64_t credit_stall_cycles = 0;   // ... because a masked L1 had no credit
};

// A program's cursor: reads and shrinks on their own ports, in program order
// among themselves; a shrink may be offered with the read before it (the
// buffets order same-cycle reads first), a read after a shrink waits for it.
struct GroupCursor {
  std::vector<GroupOp> ops;
  std::vector<size_t> reads, shrinks;
  std::vector<size_t> before;  // per op: ops of the other kind ahead of it
  size_t rd_next = 0, shr_next = 0, rd_done = 0, shr_done = 0;
  bool rd_valid = false, shr_valid = false;
  size_t rd_pos = 0, shr_pos = 0;

  void load(std::vector<GroupOp> program) {
    *this = GroupCursor{};
    ops = std::move(program);
    for (size_t i = 0; i < ops.size(); ++i) {
      before.push_back(ops[i].kind == GroupOp::Read ? shrinks.size() : reads.size());
      (ops[i].kind == GroupOp::Read ? reads : shrinks).push_back(i);
    }
  }
  bool done() const { return rd_done == reads.size() && shr_done == shrinks.size(); }
  // Returns whether a read was newly offered. can_read: the read generator
  // holds what it needs to offer one (with one target, an L1 credit).
  bool offer(Rng& rng, double rd_rate, double shr_rate, bool can_read = true) {
    bool offered = false;
    if (!rd_valid && can_read && rd_next < reads.size() && shr_done >= before[reads[rd_next]] && rng.chance(rd_rate)) {
      rd_valid = true;
      rd_pos = reads[rd_next++];
      offered = true;
    }
    if (!shr_valid && shr_next < shrinks.size() && rng.chance(shr_rate)) {
      size_t need = before[shrinks[shr_next]];
      bool with_read = rd_valid && rd_done + 1 == need && reads[rd_done] == rd_pos;
      if (rd_done >= need || with_read) {
        shr_valid = true;
        shr_pos = shrinks[shr_next++];
      }
    }
    return offered;
  }
  const GroupOp& rd() const { return ops[rd_pos]; }
  const GroupOp& shr() const { return ops[shr_pos]; }
};

template <class V, GroupFeatures F>
class GroupBench {
  static constexpr unsigned K = F.targets;
  static constexpr bool kMulticast = K > 1;
  static_assert(F.width <= 64, "the group testbench drives data up to 64 bits");

 public:
  explicit GroupBench(uint64_t seed) : rng_(seed), model_(F.l2_depth, F.l1_depth, K) {
    l1_.resize(K);
    rsp_.reserve(K);
    for (unsigned k = 0; k < K; ++k) rsp_.emplace_back(fmt::format("L1 {} read response", k));
    for (unsigned k = 0; k < K; ++k) hold_.emplace_back(fmt::format("l1_rd_rsp[{}]", k));
    idle_inputs();
    sim_.reset();
    start_ = sim_.cycle();
    for (unsigned k = 0; k < K; ++k) arrivals_.push_back({{start_ + 1, F.l1_depth}});
  }

  Rng& rng() { return rng_; }
  uint64_t seed() const { return rng_.seed(); }
  Sim<V>& sim() { return sim_; }
  const buffet::BuffetGroupModel& model() const { return model_; }
  uint64_t status() { return static_cast<uint64_t>(sim_.dut().status_err); }
  // The DRAM producer stops after this many fills (default: never).
  void set_dram_budget(uint64_t fills) { dram_budget_ = fills; }

  // Runs the programs to completion (every op accepted, every response checked).
  GroupRunStats run(const GroupProgram& l2, const std::vector<GroupProgram>& l1, const GroupRates& rates,
                    uint64_t stall_limit = 20000) {
    l2_.load(l2.ops);
    for (unsigned k = 0; k < K; ++k) l1_[k].load(l1.at(k).ops);
    GroupRunStats st;
    uint64_t start = sim_.cycle(), last = start;
    while (!done()) {
      if (cycle(rates, st)) last = sim_.cycle();
      if (sim_.cycle() - last > stall_limit)
        fail(fmt::format("no progress for {} cycles (L2 occupancy {}, {} in flight)", stall_limit,
                         model_.l2().occupancy(), model_.in_flight().size()));
    }
    st.cycles = sim_.cycle() - start;
    return st;
  }

  // Offers one L2 read for `mask` (index 0) with nothing else active and
  // returns the cycles it waited (at most `cycles`): a read naming a target
  // without credit must wait for as long as the target does not shrink.
  uint64_t offer_blocked_read(uint64_t mask, uint64_t cycles) {
    GroupProgram p;
    p.read(0, mask);
    l2_.load(p.ops);
    for (auto& c : l1_) c.load({});
    GroupRates r;
    r.fill = 0;
    GroupRunStats st;
    uint64_t waited = 0;
    while (!l2_.done() && waited < cycles) {
      cycle(r, st);
      ++waited;
    }
    return waited;
  }

  [[noreturn]] void fail(const std::string& what) {
    throw Failure(fmt::format("cycle {}: {} (replay with CELLO_SEED={})", sim_.cycle(), what, rng_.seed()));
  }

 private:
  bool done() const {
    if (!l2_.done() || l2_.rd_valid || l2_.shr_valid || !model_.in_flight().empty()) return false;
    for (unsigned k = 0; k < K; ++k)
      if (!l1_[k].done() || rsp_[k].outstanding() != 0) return false;
    return true;
  }

  void idle_inputs() {
    auto& d = sim_.dut();
    d.fill_valid = 0;
    d.fill_data = 0;
    d.credit_ready = 0;
    d.rd_req_valid = 0;
    d.rd_req_idx = 0;
    if constexpr (kMulticast) d.rd_req_mask = 0;
    d.shr_valid = 0;
    d.shr_num = 0;
    d.l1_rd_req_valid = 0;
    d.l1_rd_rsp_ready = 0;
    d.l1_shr_valid = 0;
    for (unsigned k = 0; k < K; ++k) {
      set_port_bits(d.l1_rd_req_idx, k * F.l1_iw, F.l1_iw, 0);
      set_port_bits(d.l1_shr_num, k * F.l1_cw, F.l1_cw, 0);
    }
    if constexpr (!kMulticast) d.l1_credit_ready = 0;
  }

  static double rate(const std::vector<double>& v, unsigned k) { return k < v.size() ? v[k] : 1.0; }

  template <class A, class B>
  void expect_eq(const std::string& signal, A actual, B expected) {
    if (static_cast<uint64_t>(actual) != static_cast<uint64_t>(expected))
      fail(fmt::format("{} is {}, the model expects {}", signal, static_cast<uint64_t>(actual),
                       static_cast<uint64_t>(expected)));
  }

  // Credit port bookkeeping of one buffet whose credits leave the group (the
  // L2's, and with one target the L1's): `offer` is on the port, `acc` collects
  // shrinks while an offer waits.
  struct CreditPort {
    uint64_t offer, acc = 0, freed = 0, received = 0;
  };
  void check_credit_port(const char* name, const CreditPort& c, const buffet::BuffetModel& m, bool valid,
                         uint64_t num) {
    if (c.offer + c.acc != m.credits_pending())
      fail(fmt::format("{}: offered {} + collected {} != owed {}", name, c.offer, c.acc, m.credits_pending()));
    expect_eq(std::string(name) + "_valid", valid, c.offer > 0);
    if (valid) expect_eq(std::string(name) + "_num", num, c.offer);
  }
  static void step_credit_port(CreditPort& c, bool valid, bool ready) {
    if (!valid || ready) {
      c.offer = c.acc + c.freed;
      c.acc = 0;
    } else {
      c.acc += c.freed;
    }
    c.freed = 0;
  }

  bool l2_read_bad(const GroupOp& op) const { return op.idx >= F.l2_depth; }

  // One clock cycle; returns true if any handshake happened.
  bool cycle(const GroupRates& rates, GroupRunStats& st) {
    auto& d = sim_.dut();
    const uint64_t now = sim_.cycle();
    // ---- 0. credits that reach the multicast unit's counters this cycle
    if constexpr (kMulticast) {
      for (unsigned k = 0; k < K; ++k)
        while (!arrivals_[k].empty() && arrivals_[k].front().first <= now) {
          model_.return_credits(k, arrivals_[k].front().second);
          arrivals_[k].pop_front();
        }
    }
    // ---- 1. drive
    if (!fill_valid_ && dram_credits_ > 0 && dram_sent_ < dram_budget_ && rng_.chance(rates.fill)) {
      ++dram_sent_;
      fill_valid_ = true;
      fill_data_ = rng_.bits(static_cast<int>(F.width));
      --dram_credits_;
    }
    // With one target the L2 read generator is the L1's fill producer: it
    // spends one of the L1's credits per read (the buffet's credit contract).
    if (l2_.offer(rng_, rates.l2_read, rates.l2_shrink, kMulticast || l1_credits_ > 0) && !kMulticast &&
        !l2_read_bad(l2_.rd()))
      --l1_credits_;
    for (unsigned k = 0; k < K; ++k) l1_[k].offer(rng_, rate(rates.l1_read, k), rate(rates.l1_shrink, k));
    const bool credit_ready = rng_.chance(rates.credit);
    const bool l1_credit_ready = rng_.chance(rates.credit);
    std::vector<bool> rsp_ready(K);
    for (unsigned k = 0; k < K; ++k) rsp_ready[k] = rng_.chance(rate(rates.l1_rsp, k));

    idle_inputs();
    d.fill_valid = fill_valid_;
    d.fill_data = fill_data_;
    d.credit_ready = credit_ready;
    d.rd_req_valid = l2_.rd_valid;
    d.rd_req_idx = l2_.rd_valid ? l2_.rd().idx : 0;
    if constexpr (kMulticast) d.rd_req_mask = l2_.rd_valid ? l2_.rd().mask : 0;
    d.shr_valid = l2_.shr_valid;
    d.shr_num = l2_.shr_valid ? l2_.shr().num : 0;
    uint64_t v = 0, sv = 0, rr = 0;
    for (unsigned k = 0; k < K; ++k) {
      v |= uint64_t(l1_[k].rd_valid) << k;
      sv |= uint64_t(l1_[k].shr_valid) << k;
      rr |= uint64_t(rsp_ready[k]) << k;
      set_port_bits(d.l1_rd_req_idx, k * F.l1_iw, F.l1_iw, l1_[k].rd_valid ? l1_[k].rd().idx : 0);
      set_port_bits(d.l1_shr_num, k * F.l1_cw, F.l1_cw, l1_[k].shr_valid ? l1_[k].shr().num : 0);
    }
    d.l1_rd_req_valid = v;
    d.l1_shr_valid = sv;
    d.l1_rd_rsp_ready = rr;
    if constexpr (!kMulticast) d.l1_credit_ready = l1_credit_ready;
    sim_.settle();

    // ---- 2. expected handshakes from the model's start-of-cycle state
    expect_eq("fill_ready", d.fill_ready, model_.l2().check_fill() == buffet::Wait::Ready);
    check_credit_port("credit", l2_credit_, model_.l2(), d.credit_valid, d.credit_num);
    if constexpr (!kMulticast) check_credit_port("l1_credit", l1_credit_, model_.l1(0), d.l1_credit_valid, d.l1_credit_num);
    // One target: the L2's response register drains into the L1 when it has room.
    const bool l1_room0 = model_.l1(0).check_fill() == buffet::Wait::Ready;
    const bool deliver_k1 = !kMulticast && !model_.in_flight().empty() && flight_time_.front() <= now && l1_room0;
    bool rd_ready = false;
    if (l2_.rd_valid) {
      const auto& op = l2_.rd();
      auto w = model_.check_read(op.idx, op.mask);
      bool room = kMulticast || model_.in_flight().empty() || deliver_k1;
      rd_ready = l2_read_bad(op) || (w == buffet::Wait::Ready && room);
      expect_eq(fmt::format("rd_req_ready (idx {}, mask {:#x}, {})", op.idx, op.mask, to_string(w)), d.rd_req_ready,
                rd_ready);
      if (!rd_ready) {
        ++st.read_stall_cycles;
        if (w == buffet::Wait::NoCredit) ++st.credit_stall_cycles;
      }
    }
    if (l2_.shr_valid) {
      auto w = model_.l2().check_shrink(l2_.shr().num);
      expect_eq("shr_ready", d.shr_ready, w != buffet::Wait::Occupancy && (!l2_.rd_valid || rd_ready));
    }
    std::vector<bool> l1_rd_ready(K), pop(K);
    for (unsigned k = 0; k < K; ++k) {
      const bool rsp_valid = port_bits(d.l1_rd_rsp_valid, k, 1);
      expect_eq(fmt::format("l1_rd_rsp_valid[{}]", k), rsp_valid, rsp_[k].outstanding() > 0);
      pop[k] = rsp_valid && rsp_ready[k];
      const bool room = rsp_[k].outstanding() - (pop[k] ? 1 : 0) == 0;
      if (l1_[k].rd_valid) {
        auto w = model_.l1(k).check_read(l1_[k].rd().idx);
        l1_rd_ready[k] = w == buffet::Wait::Never || (w == buffet::Wait::Ready && room);
        expect_eq(fmt::format("l1_rd_req_ready[{}] (idx {}, {})", k, l1_[k].rd().idx, to_string(w)),
                  port_bits(d.l1_rd_req_ready, k, 1), l1_rd_ready[k]);
      }
      if (l1_[k].shr_valid) {
        auto w = model_.l1(k).check_shrink(l1_[k].shr().num);
        expect_eq(fmt::format("l1_shr_ready[{}]", k), port_bits(d.l1_shr_ready, k, 1),
                  w != buffet::Wait::Occupancy && (!l1_[k].rd_valid || l1_rd_ready[k]));
      }
      hold_[k].sample(rsp_valid, rsp_ready[k], port_bits(d.l1_rd_rsp_data, k * F.width, F.width));
    }
    l2_hold_.sample(d.credit_valid, credit_ready, static_cast<uint64_t>(d.credit_num));

    // ---- 3. apply in the order credits, reads, shrinks, fills
    bool progress = false;
    if (d.credit_valid && credit_ready) {
      unsigned n = static_cast<unsigned>(d.credit_num);
      model_.l2().take_credits(n);
      l2_credit_.received += n;
      dram_credits_ += n;
      progress = true;
    }
    if constexpr (!kMulticast) {
      if (d.l1_credit_valid && l1_credit_ready) {
        unsigned n = static_cast<unsigned>(d.l1_credit_num);
        model_.l1(0).take_credits(n);
        l1_credit_.received += n;
        l1_credits_ += n;
        progress = true;
      }
    }
    if (l2_.rd_valid && rd_ready) {
      const auto& op = l2_.rd();
      if (!l2_read_bad(op)) {
        model_.read(op.idx, op.mask);
        flight_time_.push_back(now + 1);
        ++st.l2_reads;
      }
      l2_.rd_valid = false;
      ++l2_.rd_done;
      progress = true;
      sim_.note("l2 read", st.l2_reads);
    }
    for (unsigned k = 0; k < K; ++k)
      if (l1_[k].rd_valid && l1_rd_ready[k]) {
        const auto& op = l1_[k].rd();
        if (model_.l1(k).check_read(op.idx) != buffet::Wait::Never) rsp_[k].expect(model_.l1(k).read(op.idx, false));
        l1_[k].rd_valid = false;
        ++l1_[k].rd_done;
        ++st.l1_reads;
        progress = true;
      }
    if (l2_.shr_valid && d.shr_ready) {
      const auto num = l2_.shr().num;
      if (model_.l2().check_shrink(num) != buffet::Wait::Ready) fail("L2 shrink accepted while illegal");
      model_.l2().shrink(num);
      l2_credit_.freed = num;
      l2_.shr_valid = false;
      ++l2_.shr_done;
      ++st.l2_shrinks;
      progress = true;
    }
    for (unsigned k = 0; k < K; ++k)
      if (l1_[k].shr_valid && port_bits(d.l1_shr_ready, k, 1)) {
        const auto num = l1_[k].shr().num;
        if (model_.l1(k).check_shrink(num) != buffet::Wait::Ready) fail(fmt::format("L1 {} shrink accepted while illegal", k));
        model_.l1(k).shrink(num);
        if constexpr (kMulticast) arrivals_[k].push_back({now + 2, static_cast<unsigned>(num)});
        else l1_credit_.freed = num;
        l1_[k].shr_valid = false;
        ++l1_[k].shr_done;
        ++st.l1_shrinks;
        progress = true;
      }
    step_credit_port(l2_credit_, d.credit_valid, credit_ready);
    if constexpr (!kMulticast) step_credit_port(l1_credit_, d.l1_credit_valid, l1_credit_ready);
    if (fill_valid_ && d.fill_ready) {
      model_.l2().fill(fill_data_);
      fill_valid_ = false;
      ++st.dram_fills;
      progress = true;
    }
    bool deliver = kMulticast ? !flight_time_.empty() && flight_time_.front() <= now : deliver_k1;
    if (deliver) {
      if (kMulticast && flight_time_.front() != now) fail("a read of the L2 was not delivered the next cycle");
      if (model_.check_deliver() != buffet::Wait::Ready) fail("a reserved fill found its L1 full");
      st.l1_fills += static_cast<uint64_t>(__builtin_popcountll(model_.in_flight().front().mask));
      model_.deliver();
      flight_time_.pop_front();
      progress = true;
    }
    for (unsigned k = 0; k < K; ++k)
      if (pop[k]) {
        rsp_[k].check(port_bits(d.l1_rd_rsp_data, k * F.width, F.width));
        progress = true;
        sim_.note("l1 response", k);
      }
    if constexpr (kMulticast) {
      if (auto e = model_.conservation_error(); !e.empty()) fail("credits not conserved: " + e);
    }
    sim_.tick();
    return progress;
  }

  Sim<V> sim_;
  Rng rng_;
  buffet::BuffetGroupModel model_;
  uint64_t start_ = 0;
  GroupCursor l2_;
  std::vector<GroupCursor> l1_;
  std::vector<Scoreboard<uint64_t>> rsp_;
  std::vector<HoldChecker<uint64_t>> hold_;
  HoldChecker<uint64_t> l2_hold_{"credit"};
  std::vector<std::deque<std::pair<uint64_t, unsigned>>> arrivals_;  // (cycle, credits) per target
  std::deque<uint64_t> flight_time_;  // cycle from which each element in flight may be delivered
  CreditPort l2_credit_{F.l2_depth}, l1_credit_{F.l1_depth};
  bool fill_valid_ = false;
  uint64_t fill_data_ = 0, dram_credits_ = 0, l1_credits_ = 0, dram_sent_ = 0, dram_budget_ = ~0ULL;
};

}  // namespace cello::tb
