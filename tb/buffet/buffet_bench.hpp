// Cycle-by-cycle differential testbench of a generated buffet against the C++
// reference model (sw/buffet/buffet_model.hpp). Works for every configuration:
// the features are a template argument, so ports that an option removed are
// never touched.
//
// Every cycle it checks, against the model's state at the start of the cycle:
//  - fill_ready, rd_req_ready, upd_ready, shr_ready, rd_rsp_valid, credit_valid
//    and credit_num equal their expected values (not just "eventually");
//  - an accepted read is legal (index filled, not awaiting an update);
//  - every response equals the model's data, in request order;
//  - DUT outputs hold while valid && !ready;
// and at the end that credits offered == region size + sum of shrinks.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <vector>

#include "sw/buffet/buffet_model.hpp"
#include "tb/buffet/buffet_program.hpp"
#include "tb/harness/rng.hpp"
#include "tb/harness/scoreboard.hpp"
#include "tb/harness/sim.hpp"
#include "tb/harness/stream.hpp"

namespace cello::tb {

struct BuffetFeatures {
  unsigned depth, width, index_width;
  bool update, scoreboard, shared_write, shrink_sync, base_bound, sram;
  unsigned sb_entries = 0;  // scoreboard CAM entries (0: one bit per slot)
};

// The features of a generated buffet, from its namespace in the parameter header
// `cello gen` writes (<design>_params.hpp, docs/config.md "Generated files").
#define CELLO_BUFFET_FEATURES(P)                                                                  \
  ::cello::tb::BuffetFeatures {                                                                   \
    P::depth, P::data_width, P::index_width, P::update, P::scoreboard, P::write_port == "shared", \
        P::shrink_sync, P::base_bound, P::ram == "sram", P::scoreboard_entries                    \
  }

// Probability per cycle that each agent offers (valid) or accepts (ready).
struct BuffetRates {
  double fill = 1, read = 1, update = 1, shrink = 1, rsp = 1, credit = 1;
};

struct BuffetRunStats {
  uint64_t cycles = 0, fills = 0, reads = 0, updates = 0, shrinks = 0, responses = 0;
  uint64_t credits_received = 0, credits_expected = 0;
};

template <class V, BuffetFeatures F>
class BuffetBench {
  static_assert(F.width <= 64, "the buffet testbench drives data ports up to 64 bits");

 public:
  // base/bound: runtime region when F.base_bound (ignored otherwise).
  BuffetBench(uint64_t seed, unsigned base = 0, unsigned bound = F.depth)
      : rng_(seed), base_(F.base_bound ? base : 0), size_((F.base_bound ? bound : F.depth) - base_),
        // an empty region is only constructed to test status_err
        model_(std::max(size_, 1u), F.scoreboard, F.sb_entries), bound_(F.base_bound ? bound : F.depth) {
    credit_offer_ = size_;
    auto& d = sim_.dut();
    if constexpr (F.base_bound) {
      d.cfg_base = base_;
      d.cfg_bound = bound_;
    }
    idle_inputs();
    sim_.reset();
  }

  unsigned size() const { return size_; }
  Rng& rng() { return rng_; }
  uint64_t seed() const { return rng_.seed(); }
  Sim<V>& sim() { return sim_; }
  const buffet::BuffetModel& model() const { return model_; }

  // Runs the program to completion (all ops accepted, all responses checked).
  BuffetRunStats run(std::vector<BuffetOp> ops, const BuffetRates& rates, uint64_t stall_limit = 20000) {
    ops_ = std::move(ops);
    accepted_.assign(ops_.size(), false);
    for (int k = 0; k < 3; ++k) {
      order_[k].clear();
      port_next_[k] = 0;
    }
    for (size_t i = 0; i < ops_.size(); ++i) order_[ops_[i].kind].push_back(i);
    BuffetRunStats st;
    uint64_t start = sim_.cycle(), last_progress = sim_.cycle();
    while (!done()) {
      if (cycle(rates, st)) last_progress = sim_.cycle();
      if (sim_.cycle() - last_progress > stall_limit)
        fail(fmt::format("no progress for {} cycles (occupancy {}, {} responses outstanding)", stall_limit,
                         model_.occupancy(), responses_.outstanding()));
    }
    st.cycles = sim_.cycle() - start;
    return st;
  }

  // Takes every credit still owed, then checks conservation.
  void drain_credits(BuffetRunStats& st) {
    BuffetRates r;
    r.fill = r.read = r.update = r.shrink = 0;
    for (int i = 0; i < 8; ++i) cycle(r, st);
    st.credits_received = credits_received_;
    st.credits_expected = model_.credits_offered();
    if (model_.credits_pending() != 0 || credits_received_ != model_.credits_offered())
      fail(fmt::format("credits: received {}, offered by the model {} (size {} + shrinks)", credits_received_,
                       model_.credits_offered(), size_));
  }

  uint8_t status() { return static_cast<uint8_t>(sim_.dut().status_err); }

  // Clock cycles with every input idle.
  void idle(int cycles) {
    idle_inputs();
    for (int i = 0; i < cycles; ++i) {
      sim_.settle();
      sim_.tick();
    }
  }

  // Drives one operation for a single cycle with every other port idle and
  // returns whether the buffet accepted it. The model is not told: this is for
  // illegal operations, which must have no effect.
  bool issue_unchecked(const BuffetOp& op) {
    auto& d = sim_.dut();
    idle_inputs();
    switch (op.kind) {
      case BuffetOp::Read:
        d.rd_req_valid = 1;
        d.rd_req_idx = op.idx;
        break;
      case BuffetOp::Update:
        if constexpr (F.update) {
          d.upd_valid = 1;
          d.upd_idx = op.idx;
          d.upd_data = op.data;
        }
        break;
      case BuffetOp::Shrink:
        d.shr_valid = 1;
        d.shr_num = op.num;
        break;
    }
    sim_.settle();
    sim_.note("unchecked op", static_cast<uint64_t>(op.kind));
    bool ready = op.kind == BuffetOp::Read ? d.rd_req_ready : op.kind == BuffetOp::Shrink ? d.shr_ready : 0;
    if constexpr (F.update) {
      if (op.kind == BuffetOp::Update) {
        ready = d.upd_ready;
        prefer_fill_ = prefer_fill_ || ready;  // the arbiter saw an update handshake
      }
    }
    sim_.tick();
    idle_inputs();
    return ready;
  }

  [[noreturn]] void fail(const std::string& what) {
    throw Failure(fmt::format("cycle {}: {} (replay with CELLO_SEED={})", sim_.cycle(), what, rng_.seed()));
  }

 private:
  bool done() const {
    return port_next_[0] == count(BuffetOp::Read) && port_next_[1] == count(BuffetOp::Update) &&
           port_next_[2] == count(BuffetOp::Shrink) && !rd_.valid && !upd_.valid && !shr_.valid &&
           responses_.outstanding() == 0;
  }
  size_t count(BuffetOp::Kind k) const { return order_[k].size(); }
  // A shrink may be offered together with the read/update it follows (the buffet
  // orders same-cycle reads and updates first); everything else waits for its
  // dependencies to be accepted in an earlier cycle.
  bool deps_met(const BuffetOp& op, bool same_cycle_ok) const {
    for (int64_t d : op.dep) {
      if (d < 0 || accepted_[static_cast<size_t>(d)]) continue;
      auto pos = static_cast<size_t>(d);
      bool offered = (rd_.valid && rd_.op == pos) || (upd_.valid && upd_.op == pos);
      if (!(same_cycle_ok && offered)) return false;
    }
    return true;
  }

  struct PortState {
    bool valid = false;
    size_t op = 0;  // program position offered
  };

  void offer(PortState& port, BuffetOp::Kind kind, double rate) {
    if (port.valid) return;  // hold until the handshake
    size_t n = count(kind);
    if (port_next_[kind] >= n) return;
    size_t pos = order_[kind][port_next_[kind]];
    if (!deps_met(ops_[pos], kind == BuffetOp::Shrink) || !rng_.chance(rate)) return;
    port.valid = true;
    port.op = pos;
    ++port_next_[kind];
  }

  void idle_inputs() {
    auto& d = sim_.dut();
    d.fill_valid = 0;
    d.fill_data = 0;
    d.rd_req_valid = 0;
    d.rd_req_idx = 0;
    d.rd_rsp_ready = 0;
    d.shr_valid = 0;
    d.shr_num = 0;
    d.credit_ready = 0;
    if constexpr (F.scoreboard) d.rd_req_will_update = 0;
    if constexpr (F.update) {
      d.upd_valid = 0;
      d.upd_idx = 0;
      d.upd_data = 0;
    }
  }

  // One clock cycle; returns true if any handshake happened.
  bool cycle(const BuffetRates& rates, BuffetRunStats& st) {
    auto& d = sim_.dut();
    // ---- 1. drive this cycle's inputs
    if (!fill_valid_ && fill_credits_ > 0 && rng_.chance(rates.fill)) {
      fill_valid_ = true;
      fill_data_ = rng_.bits(static_cast<int>(F.width));
      --fill_credits_;  // a fill spends one credit
    }
    offer(rd_, BuffetOp::Read, rates.read);
    if constexpr (F.update) offer(upd_, BuffetOp::Update, rates.update);
    offer(shr_, BuffetOp::Shrink, rates.shrink);
    bool rsp_ready = rng_.chance(rates.rsp);
    bool credit_ready = rng_.chance(rates.credit);

    d.fill_valid = fill_valid_;
    d.fill_data = fill_data_;
    d.rd_req_valid = rd_.valid;
    d.rd_req_idx = rd_.valid ? ops_[rd_.op].idx : 0;
    if constexpr (F.scoreboard) d.rd_req_will_update = rd_.valid && ops_[rd_.op].will_update;
    if constexpr (F.update) {
      d.upd_valid = upd_.valid;
      d.upd_idx = upd_.valid ? ops_[upd_.op].idx : 0;
      d.upd_data = upd_.valid ? ops_[upd_.op].data : 0;
    }
    d.shr_valid = shr_.valid;
    d.shr_num = shr_.valid ? ops_[shr_.op].num : 0;
    d.rd_rsp_ready = rsp_ready;
    d.credit_ready = credit_ready;
    sim_.settle();

    // ---- 2. expected handshake signals from the model's start-of-cycle state
    bool rsp_valid = d.rd_rsp_valid;
    bool pop = rsp_valid && rsp_ready;
    uint64_t outstanding = responses_.outstanding();
    uint64_t inflight = F.sram ? read_last_cycle_ : 0;
    expect_eq("rd_rsp_valid", rsp_valid, outstanding - inflight > 0);
    bool room = outstanding - (pop ? 1 : 0) <= (F.sram ? 1u : 0u);
    bool fill_space = model_.check_fill() == buffet::Wait::Ready;
    bool upd_valid = false;
    if constexpr (F.update) upd_valid = upd_.valid;
    bool exp_fill_ready = fill_space && !(F.shared_write && upd_valid && !prefer_fill_);
    expect_eq("fill_ready", d.fill_ready, exp_fill_ready);
    if (rd_.valid) {
      auto w = model_.check_read(ops_[rd_.op].idx, ops_[rd_.op].will_update);
      expect_eq("rd_req_ready", d.rd_req_ready, w == buffet::Wait::Never || (w == buffet::Wait::Ready && room));
    }
    if constexpr (F.update) {
      bool exp = !(F.shared_write && fill_valid_ && fill_space && prefer_fill_);
      expect_eq("upd_ready", d.upd_ready, exp);
    }
    if (shr_.valid) {
      auto w = model_.check_shrink(ops_[shr_.op].num);
      bool others_go = (!rd_.valid || d.rd_req_ready);
      if constexpr (F.update) others_go = others_go && (!upd_.valid || d.upd_ready);
      expect_eq("shr_ready", d.shr_ready, (!F.shrink_sync || w != buffet::Wait::Occupancy) && others_go);
    }
    // Credits: the model owes credits_pending(); the buffet offers them in batches
    // (credit_offer_) and collects new ones while a batch waits (credit_acc_).
    if (credit_offer_ + credit_acc_ != model_.credits_pending())
      fail(fmt::format("credit bookkeeping: offered {} + collected {} != owed {}", credit_offer_, credit_acc_,
                       model_.credits_pending()));
    expect_eq("credit_valid", d.credit_valid, credit_offer_ > 0);
    if (d.credit_valid) expect_eq("credit_num", d.credit_num, credit_offer_);
    rsp_hold_.sample(rsp_valid, rsp_ready, static_cast<uint64_t>(d.rd_rsp_data));
    credit_hold_.sample(d.credit_valid, credit_ready, static_cast<uint64_t>(d.credit_num));

    // ---- 3. apply this cycle's transactions in the order credit, read, update, shrink, fill
    bool progress = false;
    if (d.credit_valid && credit_ready) {
      unsigned n = static_cast<unsigned>(d.credit_num);
      model_.take_credits(n);
      credits_received_ += n;
      fill_credits_ += n;
      progress = true;
    }
    read_last_cycle_ = 0;
    if (rd_.valid && d.rd_req_ready) {
      const auto& op = ops_[rd_.op];
      auto w = model_.check_read(op.idx, op.will_update);
      if (w != buffet::Wait::Ready) fail(fmt::format("read of index {} accepted while {}", op.idx, to_string(w)));
      responses_.expect(model_.read(op.idx, op.will_update));
      accepted_[rd_.op] = true;
      rd_.valid = false;
      read_last_cycle_ = 1;
      ++st.reads;
      progress = true;
    }
    if constexpr (F.update) {
      if (upd_.valid && d.upd_ready) {
        const auto& op = ops_[upd_.op];
        if (model_.check_update(op.idx) != buffet::Wait::Ready)
          fail(fmt::format("program update of index {} illegal: {}", op.idx, to_string(model_.check_update(op.idx))));
        model_.update(op.idx, op.data);
        accepted_[upd_.op] = true;
        upd_.valid = false;
        prefer_fill_ = true;
        ++st.updates;
        progress = true;
      }
    }
    if (shr_.valid && d.shr_ready) {
      const auto& op = ops_[shr_.op];
      for (int64_t dep : op.dep)
        if (dep >= 0 && !accepted_[static_cast<size_t>(dep)]) fail("shrink accepted before the read/update it follows");
      if (model_.check_shrink(op.num) != buffet::Wait::Ready)
        fail(fmt::format("shrink of {} accepted while {}", op.num, to_string(model_.check_shrink(op.num))));
      model_.shrink(op.num);
      shr_amount_ = op.num;
      accepted_[shr_.op] = true;
      shr_.valid = false;
      ++st.shrinks;
      progress = true;
    }
    uint64_t freed = shr_amount_;
    shr_amount_ = 0;
    if (!d.credit_valid || credit_ready) {
      credit_offer_ = credit_acc_ + freed;
      credit_acc_ = 0;
    } else {
      credit_acc_ += freed;
    }
    if (fill_valid_ && d.fill_ready) {
      model_.fill(fill_data_);
      fill_valid_ = false;
      prefer_fill_ = false;
      ++st.fills;
      progress = true;
      sim_.note("fill", st.fills);
    }
    if (pop) {
      responses_.check(static_cast<uint64_t>(d.rd_rsp_data));
      ++st.responses;
      progress = true;
      sim_.note("rd_rsp", st.responses);
    }
    sim_.tick();
    return progress;
  }

  template <class A, class B>
  void expect_eq(const char* signal, A actual, B expected) {
    if (static_cast<uint64_t>(actual) != static_cast<uint64_t>(expected))
      fail(fmt::format("{} is {}, the model expects {}", signal, static_cast<uint64_t>(actual),
                       static_cast<uint64_t>(expected)));
  }

  Sim<V> sim_;
  Rng rng_;
  unsigned base_, size_;
  buffet::BuffetModel model_;
  unsigned bound_;
  std::vector<BuffetOp> ops_;
  std::vector<bool> accepted_;
  std::vector<size_t> order_[3];  // program positions per port, in order
  size_t port_next_[3] = {0, 0, 0};
  PortState rd_, upd_, shr_;
  bool fill_valid_ = false, prefer_fill_ = false;
  uint64_t fill_data_ = 0, fill_credits_ = 0, credits_received_ = 0, read_last_cycle_ = 0;
  uint64_t credit_offer_ = F.base_bound ? 0 : F.depth, credit_acc_ = 0, shr_amount_ = 0;
  Scoreboard<uint64_t> responses_{"read response"};
  HoldChecker<uint64_t> rsp_hold_{"rd_rsp"}, credit_hold_{"credit"};
};

}  // namespace cello::tb
