// Clock/reset driver around one Verilated model, with an FST trace switch:
// set CELLO_TRACE=path.fst to record every edge (needs TRACE_FST in verilate(): the
// testbenches have it when configured with -DCELLO_TB_TRACE=ON, tb/CMakeLists.txt).
//
// Cycle discipline used by every testbench:
//   1. drive inputs for this cycle;  2. settle()  (clk low, combinational outputs valid);
//   3. sample handshakes (valid && ready) and check them;  4. tick()  (rising edge).
//
// Cycle watchdog: every testbench records its transactions with note(); when
// more than watchdog() cycles pass without one, tick() throws Failure naming
// the cycle and the last transaction, so a hung design fails instead of
// hanging the test. Default 1,000,000 cycles; CELLO_TB_WATCHDOG=<cycles> sets it.
#pragma once

#include <verilated.h>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>

#include "tb/harness/stream.hpp"

#if VM_TRACE_FST
#include <verilated_fst_c.h>
#endif

namespace cello::tb {

template <class V>
class Sim {
 public:
  Sim() : ctx_(std::make_unique<VerilatedContext>()) {
    ctx_->randReset(0);
    const char* trace = std::getenv("CELLO_TRACE");
#if VM_TRACE_FST
    if (trace) ctx_->traceEverOn(true);
#endif
    dut_ = std::make_unique<V>(ctx_.get());
#if VM_TRACE_FST
    if (trace) {
      fst_ = std::make_unique<VerilatedFstC>();
      dut_->trace(fst_.get(), 99);
      fst_->open(trace);
    }
#else
    if (trace)
      throw std::runtime_error(std::string("CELLO_TRACE=") + trace +
                               ": this model was built without tracing (configure with -DCELLO_TB_TRACE=ON)");
#endif
    dut_->clk = 0;
    dut_->rst_n = 0;
    if (const char* w = std::getenv("CELLO_TB_WATCHDOG")) watchdog_ = std::strtoull(w, nullptr, 10);
  }
  ~Sim() {
#if VM_TRACE_FST
    if (fst_) fst_->close();
#endif
    dut_->final();
  }
  Sim(const Sim&) = delete;
  Sim& operator=(const Sim&) = delete;

  V& dut() { return *dut_; }
  // The model's context: a testbench that checks an assertion firing turns
  // fatalOnError off and reads errorCount().
  VerilatedContext& context() { return *ctx_; }
  uint64_t cycle() const { return cycle_; }

  // Records a transaction (a handshake on `port`, with a value for the message).
  void note(const char* port, uint64_t value = 0) {
    last_port_ = port;
    last_value_ = value;
    last_cycle_ = cycle_;
  }
  uint64_t watchdog() const { return watchdog_; }
  void set_watchdog(uint64_t cycles) { watchdog_ = cycles; }

  // Evaluates with the clock low so combinational outputs reflect this cycle's inputs.
  void settle() {
    dut_->clk = 0;
    dut_->eval();
    dump();
  }
  // Rising edge: registers take their next values.
  void tick() {
    dut_->clk = 1;
    dut_->eval();
    dump();
    ++cycle_;
    dut_->clk = 0;
    if (watchdog_ && cycle_ - last_cycle_ > watchdog_) {
      std::string last = last_port_ ? std::string(last_port_) + " " + std::to_string(last_value_) + " at cycle " +
                                           std::to_string(last_cycle_)
                                     : std::string("none since the start");
      last_cycle_ = cycle_;  // one report per hang
      throw Failure("watchdog: no transaction for " + std::to_string(watchdog_) + " cycles (cycle " +
                    std::to_string(cycle_) + "); last transaction: " + last);
    }
  }
  // Holds rst_n low for `cycles` rising edges (inputs as the caller left them).
  void reset(int cycles = 3) {
    dut_->rst_n = 0;
    for (int i = 0; i < cycles; ++i) {
      settle();
      tick();
    }
    dut_->rst_n = 1;
  }

 private:
  void dump() {
#if VM_TRACE_FST
    if (fst_) fst_->dump(ctx_->time());
#endif
    ctx_->timeInc(1);
  }
  std::unique_ptr<VerilatedContext> ctx_;
  std::unique_ptr<V> dut_;
#if VM_TRACE_FST
  std::unique_ptr<VerilatedFstC> fst_;
#endif
  uint64_t cycle_ = 0;
  uint64_t watchdog_ = 1000000;
  uint64_t last_cycle_ = 0, last_value_ = 0;
  const char* last_port_ = nullptr;
};

}  // namespace cello::tb
