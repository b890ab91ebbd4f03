// Drives a generated MAC array with a planned stream program (sw/mac/mac_stream.hpp):
// commands, operand beats and result beats each behind a seeded random-stall
// agent. Every result beat's row mask must equal the plan's, result data must
// hold while res_valid && !res_ready, and the array must end idle with no
// error flag. Returns the result beats for comparison with the replay.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <vector>

#include "tb/harness/rng.hpp"
#include "tb/harness/sim.hpp"
#include "tb/harness/stream.hpp"
#include "sw/mac/mac_stream.hpp"
#include "tb/harness/port_words.hpp"

namespace cello::tb {

struct MacRates {
  double cmd = 1, op = 1, res = 1;
};

struct MacRunStats {
  uint64_t cycles = 0;         // from the first operand beat accepted to the last result taken
  uint64_t op_beats = 0;
  uint64_t result_beats = 0;
  uint64_t useful_macs = 0;
};

struct MacResult {
  std::vector<uint64_t> mask;
  std::vector<uint32_t> data;
  bool operator==(const MacResult& o) const { return mask == o.mask && data == o.data; }
};

template <class V, bool kSpmm>
class MacArrayDriver {
 public:
  MacArrayDriver(Sim<V>& sim, Rng& rng, const mac::ArrayShape& shape) : sim_(sim), rng_(rng), shape_(shape) {}

  // Runs the program; throws Failure on any protocol or ordering error.
  MacRunStats run(const mac::StreamProgram& p, const MacRates& rates, std::vector<std::vector<uint32_t>>& beats,
                  uint64_t stall_limit = 5000) {
    auto& d = sim_.dut();
    Source<mac::Command> cmd(rng_, rates.cmd);
    Source<size_t> op(rng_, rates.op);
    Sink res(rng_, rates.res);
    HoldChecker<MacResult> hold("res");
    for (const auto& c : p.commands) cmd.push(c);
    for (size_t i = 0; i < p.ops.size(); ++i) op.push(i);
    const size_t nres = p.results.size();
    const size_t words = static_cast<size_t>(shape_.rows * shape_.cols);
    beats.clear();
    MacRunStats st;
    st.useful_macs = p.useful_macs;
    uint64_t first_op = 0, last_res = 0, idle = 0;
    bool started = false;
    while (beats.size() < nres || cmd.pending() > 0 || op.pending() > 0 || d.busy) {
      bool cv = cmd.drive();
      d.cmd_valid = cv;
      if (cv) put_command(cmd.item());
      bool ov = op.drive();
      d.op_valid = ov;
      if (ov) put_op(p.ops[op.item()]);
      d.res_ready = res.drive();
      sim_.settle();
      bool progress = false;
      MacResult now;
      if (d.res_valid) {
        now.mask.push_back(static_cast<uint64_t>(d.res_mask));
        now.data = get_words(d.res_data, words);
      }
      hold.sample(d.res_valid, d.res_ready, now);
      if (d.res_valid && d.res_ready) {
        if (beats.size() >= nres) throw Failure(fmt::format("unexpected result beat #{}", beats.size()));
        uint64_t want = p.results[beats.size()].mask;
        if (now.mask[0] != want)
          throw Failure(fmt::format("result beat #{}: row mask {:#x}, expected {:#x}", beats.size(), now.mask[0], want));
        beats.push_back(now.data);
        last_res = sim_.cycle();
        progress = true;
      }
      if (cv && d.cmd_ready) progress = true;
      cmd.complete(d.cmd_ready);
      if (ov && d.op_ready) {
        if (!started) first_op = sim_.cycle();
        started = true;
        ++st.op_beats;
        progress = true;
      }
      op.complete(d.op_ready);
      if (d.status_err) throw Failure(fmt::format("status_err = {:#x}", static_cast<unsigned>(d.status_err)));
      if (progress) sim_.note("result beats", beats.size());
      idle = progress ? 0 : idle + 1;
      if (idle > stall_limit)
        throw Failure(fmt::format("no progress for {} cycles ({} of {} results, {} ops left)", stall_limit,
                                  beats.size(), nres, op.pending()));
      sim_.tick();
    }
    st.result_beats = beats.size();
    st.cycles = started ? last_res - first_op + 1 : 0;
    return st;
  }

  // Offers one command, and with it the operand beat `beat` if one is given,
  // each until taken (at most 50 cycles), then returns status_err three
  // cycles later.
  unsigned probe_command(const mac::Command& c, const mac::OpBeat* beat = nullptr) {
    auto& d = sim_.dut();
    d.res_ready = 1;
    d.cmd_valid = 1;
    put_command(c);
    d.op_valid = beat != nullptr;
    if (beat) put_op(*beat);
    for (int i = 0; i < 50 && (d.cmd_valid || d.op_valid); ++i) {
      sim_.settle();
      const bool cmd_took = d.cmd_valid && d.cmd_ready, op_took = d.op_valid && d.op_ready;
      sim_.tick();
      if (cmd_took) d.cmd_valid = 0;
      if (op_took) d.op_valid = 0;
    }
    d.cmd_valid = 0;
    d.op_valid = 0;
    for (int i = 0; i < 3; ++i) {
      sim_.settle();
      sim_.tick();
    }
    sim_.settle();
    return d.status_err;
  }

 private:
  void put_command(const mac::Command& c) {
    auto& d = sim_.dut();
    d.cmd_mode = static_cast<uint8_t>(c.mode);
    d.cmd_count = c.count;
    d.cmd_k = c.k;
    d.cmd_with_c = c.with_c;
    d.cmd_alpha = c.alpha;
  }
  void put_op(const mac::OpBeat& o) {
    auto& d = sim_.dut();
    put_words(d.op_a, o.a);
    put_words(d.op_b, o.b);
    if constexpr (kSpmm) {
      d.op_last = o.last;
      d.op_pad = o.pad;
    }
  }

  Sim<V>& sim_;
  Rng& rng_;
  mac::ArrayShape shape_;
};

}  // namespace cello::tb
