// Clock/reset driver around one Verilated model, with an FST trace switch:
// set CELLO_TRACE=path.fst to record every edge (needs TRACE_FST in verilate()).
//
// Cycle discipline used by every testbench:
//   1. drive inputs for this cycle;  2. settle()  (clk low, combinational outputs valid);
//   3. sample handshakes (valid && ready) and check them;  4. tick()  (rising edge).
#pragma once

#include <verilated.h>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>

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
    (void)trace;
#endif
    dut_->clk = 0;
    dut_->rst_n = 0;
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
  uint64_t cycle() const { return cycle_; }

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
};

}  // namespace cello::tb
