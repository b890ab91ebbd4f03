#include "gen/top/counters_gen.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "gen/sv_module.hpp"
#include "gen/top/top_gen_parts.hpp"

namespace cello::gen {

const std::vector<CounterSpec>& top_counters() {
  static const std::vector<CounterSpec> c = {
      {"cycles", "cycles from the accepted header until done or halted"},
      {"records", "records run to completion"},
      {"launches", "GEMM/GRAM/SPMM/ELTW launches started"},
      {"fma", "engine FMA steps issued (a step drives up to its FMA lanes)"},
      {"load_words", "words read through the operand load unit of port A"},
      {"store_words", "words written through the store unit"},
      {"dram_reads", "granule reads accepted by DRAM"},
      {"dram_writes", "granule writes accepted by DRAM"},
      {"host_cycles", "cycles with host_req high"},
      {"engine_cycles", "cycles with a launch running"},
      {"load_words_b", "words read through the operand load unit of port B (GEMM's C, Gram's B, SPMM's fill)"},
  };
  static const std::vector<CounterSpec> all = [] {
    std::vector<CounterSpec> v = c;
    v.insert(v.end(), engine_cycle_counters().begin(), engine_cycle_counters().end());
    v.push_back({"gram_steps", "Gram product steps issued on the split array's second lanes (a fused Z^T Z)"});
    v.push_back({"pair_steps", "GEMM MAC steps on row pairs (two result rows each, the second on the split array's second lanes)"});
    v.push_back({"tile_starts", "engines started: one per launch, or one per tile whose rows are not empty for a launch on the tiles"});
    return v;
  }();
  return all;
}

// Each engine cycle is in exactly one of these (they sum to engine_cycles), in
// the bit order of the engine's cycle_class output.
const std::vector<CounterSpec>& engine_cycle_counters() {
  static const std::vector<CounterSpec> c = {
      {"issue", "engine cycles that issued a step"},
      {"wait_walker", "engine cycles with no step queued (the walker behind; a launch's start and drain)"},
      {"wait_port_a", "engine cycles whose oldest step waits for its port A word"},
      {"wait_port_b", "engine cycles whose oldest step has its port A word (or needs none) and waits for port B's"},
      {"wait_operand", "engine cycles whose oldest step waits for an accumulator in the FMA pipe, the register file or a scaled value"},
      {"wait_store", "engine cycles whose oldest step waits for the store unit"},
  };
  return c;
}

size_t counter_register(const std::string& name) {
  const auto& cs = top_counters();
  for (size_t k = 0; k < cs.size(); ++k)
    if (cs[k].name == name) return k + 2;
  throw std::logic_error("no top counter named " + name);
}

void add_counters(Design& design, const std::string& module, int count_bits) {
  const auto& cs = top_counters();
  const int N = static_cast<int>(cs.size()), RB = bits_for(N + 1);
  SvModule m(module,
             "Perf counters and register read port of the top. Register 0 is the status word\n"
             "({err_in_header, halted, done, running, status[6:0]} at bits 10, 9, 8, 7, 6:0), register 1 the\n"
             "index of the record that stopped the top, registers 2.. one 64-bit counter each.");
  const int EW = count_bits;
  nlohmann::json params = {{"counters", N}};
  if (EW > 1) params["count_bits"] = EW;
  m.record_config(params);
  for (int k = 0; k < N; ++k) m.note(fmt::format("register {:2}: {} ({})", k + 2, cs[k].name, cs[k].meaning));
  m.clock_reset();
  m.input("event_pulse", N * EW, fmt::format("per counter k, at [{0} k +: {0}]: how many to count this cycle (up to one per tile)", EW));
  m.input("status_word", 11, "{err_in_header, halted, done, running, status[6:0]}");
  m.input("err_record", 64, "record that stopped the top");
  m.input("reg_addr", RB, "register read: index");
  m.output("reg_rdata", 64, "register read: value (0 past the last register)");
  m.array("count_q", 64, N, "the counters");
  std::string reads;
  for (int k = 0; k < N; ++k) reads += fmt::format("    {}'d{}: reg_rdata = count_q[{}];\n", RB, k + 2, k);
  m.section("Counters and reads", fmt::format(R"(
always_ff @(posedge clk) begin
  if (!rst_n) begin
    for (int k = 0; k < {N}; k++) count_q[k] <= 64'd0;
  end else begin
    for (int k = 0; k < {N}; k++)
{COUNT}
  end
end
always_comb begin
  case (reg_addr)
    {RB}'d0: reg_rdata = {{53'd0, status_word}};
    {RB}'d1: reg_rdata = err_record;
{READS}    default: reg_rdata = 64'd0;
  endcase
end)",
                                                fmt::arg("N", N), fmt::arg("RB", RB), fmt::arg("READS", reads),
                                                fmt::arg("COUNT", fmt::format("      count_q[k] <= count_q[k] + 64'(event_pulse[{0} * k +: {0}]);", EW))));
  top_parts::finish_part(design, m, "counters", params);
}

}  // namespace cello::gen
