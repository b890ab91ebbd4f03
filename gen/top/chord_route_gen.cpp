#include "gen/top/chord_route_gen.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "gen/sv_module.hpp"
#include "gen/top/top_gen_parts.hpp"

namespace cello::gen {

namespace {

constexpr int kOperands = 3;  // a launch's read operands: a, b, c

void chord_route_ports(SvModule& m, const ChordRouteShape& s) {
  const int N = s.clients, GA = s.addr_bits, IW = s.id_bits, K = kOperands;
  m.clock_reset();
  m.input("load", 1, "a launch starts: latch its operands (below)");
  m.input("op_base", K * GA, "operand k (a, b, c): first granule");
  m.input("op_col", K * GA, "operand k, CSR: first granule of the column indices");
  m.input("op_val", K * GA, "operand k, CSR: first granule of the values");
  m.input("op_end", K * GA, "operand k: granule past its region");
  m.input("op_csr", K, "operand k: CSR (three CHORD ids)");
  m.input("op_live", K, "operand k: present and live in CHORD");
  m.input("op_fill", K, "operand k: its reads are fills");
  m.input("op_id", K * IW, "operand k: its (first array's) CHORD id");
  m.input("res_live", 1, "the result is live in CHORD");
  m.input("res_id", IW, "the result's CHORD id");
  m.input("r_addr", N * GA, "client c's DRAM granule address");
  m.output("r_chord", N, "client c's read goes to CHORD");
  m.output("r_id", N * IW, "client c's read: CHORD id");
  m.output("r_fill", N, "client c's read goes to DRAM and fills CHORD");
  m.input("f_addr", GA, "a granule a load unit read from DRAM");
  m.output("f_fill", 1, "it is a fill: write it into CHORD");
  m.output("f_id", IW, "the fill's CHORD id");
  m.output("w_chord", 1, "the launch's writes go to CHORD");
  m.output("w_id", IW, "their CHORD id");
}

void chord_route_signals(SvModule& m, const ChordRouteShape& s) {
  const int GA = s.addr_bits, IW = s.id_bits, K = kOperands;
  m.array("base_q", GA, K, "operand k: first granule");
  m.array("col_q", GA, K, "operand k: first granule of the column indices");
  m.array("val_q", GA, K, "operand k: first granule of the values");
  m.array("end_q", GA, K, "operand k: granule past its region");
  m.array("id_q", IW, K, "operand k: CHORD id");
  m.signal("csr_q", K, "operand k: CSR");
  m.signal("live_q", K, "operand k: live in CHORD");
  m.signal("fill_q", K, "operand k: its reads are fills");
  m.signal("res_live_q", 1, "the result is live in CHORD");
  m.signal("res_id_q", IW, "the result's CHORD id");
}

// One lookup `p` of granule address `addr`: the operands whose region holds it
// (p_in), and the CHORD id of the first such operand's array there (p_id).
std::string lookup(SvModule& m, const ChordRouteShape& s, const std::string& p, const std::string& addr) {
  const int IW = s.id_bits, K = kOperands;
  m.signal(p + "_in", K, "lookup " + p + ": the operands whose region holds the granule");
  m.signal(p + "_id", IW, "lookup " + p + ": the CHORD id of the first such operand's array");
  std::string in, id;
  for (int k = 0; k < K; ++k) {
    in += fmt::format("assign {0}_in[{1}] = ({2} >= base_q[{1}]) && ({2} < end_q[{1}]);\n", p, k, addr);
    id += fmt::format("  {}if ({}_in[{}]) {}_id = id_q[{k}] + (!csr_q[{k}] ? {IW}'d0 : ({a} >= val_q[{k}]) ? {IW}'d2 : ({a} >= col_q[{k}]) ? {IW}'d1 : {IW}'d0);\n",
                      k ? "else " : "", p, k, p, fmt::arg("k", k), fmt::arg("IW", IW), fmt::arg("a", addr));
  }
  return in + fmt::format("always_comb begin\n  {}_id = '0;\n{}end\n", p, id);
}

void chord_route_logic(SvModule& m, const ChordRouteShape& s) {
  const int N = s.clients, GA = s.addr_bits, IW = s.id_bits, K = kOperands;
  std::string latch;
  for (int k = 0; k < K; ++k)
    latch += fmt::format(
        "    base_q[{0}] <= op_base[{0}*{1} +: {1}];\n"
        "    col_q[{0}]  <= op_col[{0}*{1} +: {1}];\n"
        "    val_q[{0}]  <= op_val[{0}*{1} +: {1}];\n"
        "    end_q[{0}]  <= op_end[{0}*{1} +: {1}];\n"
        "    id_q[{0}]   <= op_id[{0}*{2} +: {2}];\n",
        k, GA, IW);
  std::string lookups;
  for (int c = 0; c < N; ++c) {
    const std::string p = fmt::format("rd{}", c);
    lookups += lookup(m, s, p, fmt::format("r_addr[{} +: {}]", c * GA, GA));
    lookups += fmt::format("assign r_chord[{0}] = ({1}_in & live_q & ~fill_q) != '0;\nassign r_fill[{0}]  = ({1}_in & live_q & fill_q) != '0;\n"
                           "assign r_id[{0}*{2} +: {2}] = {1}_id;\n",
                           c, p, IW);
  }
  lookups += lookup(m, s, "fl", "f_addr");
  lookups += "assign f_fill = (fl_in & live_q & fill_q) != '0;\nassign f_id   = fl_id;\n";
  m.section("The launch's operands and result", fmt::format(R"(
always_ff @(posedge clk) begin
  if (!rst_n) begin
    live_q     <= '0;
    res_live_q <= 1'b0;
  end else if (load) begin
{LATCH}    csr_q      <= op_csr;
    live_q     <= op_live;
    fill_q     <= op_fill;
    res_live_q <= res_live;
    res_id_q   <= res_id;
  end
end
assign w_chord = res_live_q;
assign w_id    = res_id_q;)",
                                                                    fmt::arg("LATCH", latch)));
  m.section("Lookups: the read clients' granules and the fill path's", lookups);
}

}  // namespace

void add_chord_route(Design& design, const std::string& module, const ChordRouteShape& s) {
  if (s.clients < 1 || s.addr_bits < 1 || s.id_bits < 2)
    throw std::logic_error(fmt::format("{}: {} clients, {} address bits, {} id bits", module, s.clients, s.addr_bits,
                                       s.id_bits));
  SvModule m(module,
             "Routes a launch's granule accesses between CHORD and DRAM. At the launch's start it\n"
             "latches its read operands' regions with the command unit's answers (live, id,\n"
             "fill) and its result's; a read client's granule in a live operand's region goes to\n"
             "CHORD under that operand's id (a CSR operand's arrays: id, id + 1, id + 2) unless its\n"
             "reads are fills; a granule read from DRAM for a filling operand is written into\n"
             "CHORD; the result's writes go to CHORD when it is live.");
  const nlohmann::json params = {{"clients", s.clients}, {"addr_bits", s.addr_bits}, {"id_bits", s.id_bits}};
  m.record_config(params);
  m.note("Operand k's fields are the slices [k*W +: W] of the op_* ports (k = 0 a, 1 b, 2 c), client c's of r_*.");
  chord_route_ports(m, s);
  chord_route_signals(m, s);
  chord_route_logic(m, s);
  top_parts::finish_part(design, m, "chord_route", params);
}

}  // namespace cello::gen
