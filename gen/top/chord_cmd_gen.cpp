#include "gen/top/chord_cmd_gen.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <stdexcept>

#include "gen/sv_module.hpp"
#include "gen/top/top_gen_parts.hpp"
#include "sw/common/bits.hpp"

namespace cello::gen {

namespace {

// Widths shared by the parts of the unit.
struct ChordCmdDims {
  int TT;   // tensor table entries
  int TB;   // tensor index
  int SB;   // END's scan counter (0 .. TT)
  int WA;   // granule address
  int IW;   // CHORD id
  int DB;   // CHORD next-use distance (0: no metadata)
  int UB;   // CHORD remaining uses
  int R;    // mirror rows (CHORD's entries)
  int RB;   // row index
  int NB;   // counts 0 .. R
  int OPW;  // CHORD's command opcode
};

void chord_cmd_ports(SvModule& m, const ChordCmdDims& d, const ChordCmdShape& s) {
  m.clock_reset();
  std::vector<Field> ev = {{"kind", 3, "0 CHORD_REG, 1 CHORD_UPD, 2 CHORD_REL, 3 a launch starts, 4 it has drained, 5 END, 6 a continuation pass starts (claims the last list again)"},
                           {"tensor", d.TB, "REG / UPD / REL: the tensor id; a launch starts (3, 6): its result, which it claims"}};
  if (d.DB) {
    ev.push_back({"dist", 32, "REG / UPD: the record's distance"});
    ev.push_back({"remaining", 32, "REG / UPD: the record's remaining"});
  }
  ev.insert(ev.end(), {{"base", d.WA, "REG: the tensor's first granule"},
                       {"col_at", d.WA, "REG, CSR: granules of row pointers (the indices' offset)"},
                       {"val_at", d.WA, "REG, CSR: the values' offset in granules"},
                       {"end", d.WA, "REG: the tensor's granules"},
                       {"sparse", 1, "REG: a CSR tensor (three CHORD tensors)"},
                       {"input", 1, "REG: an application input (its first reads fill CHORD)"}});
  if (s.flush) ev.push_back({"output", 1, "REG: a final output (flushed before its release and at END)"});
  m.sink({"ev", "", "an event, in stream order", "taken (the unit was idle)", ev});
  std::vector<Field> cmd = {{"op", d.OPW, "CHORD: cmd_op"},
                            {"id", d.IW, "CHORD: cmd_id"},
                            {"base", d.WA, "CHORD: cmd_base (register)"},
                            {"end", d.WA, "CHORD: cmd_end (register)"}};
  if (d.DB) {
    cmd.push_back({"dist", d.DB, "CHORD: cmd_dist (register, update, rewrite)"});
    cmd.push_back({"uses", d.UB, "CHORD: cmd_uses (register, update, rewrite)"});
  }
  if (s.inplace) cmd.push_back({"nid", d.IW, "CHORD: cmd_nid (rewrite)"});
  m.source({"cmd", "", "a command for CHORD", "taken by CHORD", cmd});
  m.input("q_tensor", 4 * d.TB, "routing: four tensor ids (a launch's operands)");
  m.output("q_live", 4, "routing: tensor k is live in CHORD");
  m.output("q_fill", 4, "routing: tensor k is an input not yet read whole (its reads are fills)");
  m.output("q_id", 4 * d.IW, "routing: tensor k's CHORD id (its first array's; a CSR's others follow)");
  m.output("idle", 1, "no event in progress");
  m.output("err", 1, "sticky: more live registrations before a launch than CHORD has entries, or an unknown event");
}

void chord_cmd_signals(SvModule& m, const ChordCmdDims& d, const ChordCmdShape& s) {
  m.signal("state_q", 3, "the unit's state");
  m.signal("e_kind_q", 3, "the event: kind");
  m.signal("e_tensor_q", d.TB, "the event: tensor");
  if (d.DB) {
    m.signal("e_dist_q", d.DB, "the event: CHORD's distance (none when no reads remain, saturated)");
    m.signal("e_uses_q", d.UB, "the event: CHORD's uses (saturated)");
  }
  m.signal("e_base_q", d.WA, "the event: first granule");
  m.signal("e_b1_q", d.WA, "the event: end of its first array (granule offset)");
  m.signal("e_b2_q", d.WA, "the event: end of its second array");
  m.signal("e_b3_q", d.WA, "the event: end of its third array (the tensor's size)");
  if (s.inplace) m.signal("e_sparse_q", 1, "the event: CSR (never updated in place)");
  m.signal("e_input_q", 1, "the event: input");
  if (s.flush) m.signal("e_output_q", 1, "the event: output");
  m.signal("e_parts", 3, "the event's non-empty arrays");
  m.signal("p_op_q", d.OPW, "the commands being sent: opcode");
  m.signal("p_tensor_q", d.TB, "the commands being sent: the tensor whose ids they name");
  m.signal("p_mask_q", 3, "the commands being sent: arrays still to do");
  m.signal("p_done_q", 3, "a registration: arrays registered so far");
  if (s.flush) m.signal("p_flush_q", 1, "a release of an output: flush each array first");
  m.signal("p_row_q", d.RB, "the mirror row the commands are for");
  m.signal("act_low", 2, "the first two arrays still to do in this state (neither: the third)");
  m.signal("cur_q", 2, "the array the command names");
  m.signal("cur_bit", 3, "cur_q as a mask");
  m.signal("reg_blocked", 1, "a registration finds CHORD's table full");
  m.signal("cmd_fire", 1, "CHORD takes a command");
  m.signal("free_q", d.NB, "CHORD's free table entries");
  m.signal("key", d.TB, "the tensor looked up in the mirror");
  m.signal("hit", 1, "key is live in CHORD");
  m.signal("hit_row", d.RB, "key's row");
  m.signal("free_row", d.RB, "the first free row");
  if (s.inplace) {
    m.signal("rw_hit", 1, "a live dense tensor has the event tensor's region (an in-place update)");
    m.signal("rw_row", d.RB, "its row");
  }
  m.signal("row_valid_q", d.R, "mirror row r holds a live tensor");
  m.array("row_tensor_q", d.TB, d.R, "row r: the tensor");
  if (s.inplace) {
    m.signal("row_alias_valid_q", d.R, "row r: it took over another tensor's entry");
    m.array("row_alias_q", d.TB, d.R, "row r: that tensor, read through this row in its last op");
  }
  m.signal("row_input_q", d.R, "row r: an input");
  if (s.flush) m.signal("row_output_q", d.R, "row r: an output (flushed)");
  m.signal("row_filled_q", d.R, "row r: read whole (updated once)");
  m.array("row_parts_q", 3, d.R, "row r: its arrays registered in CHORD");
  if (s.inplace) {
    m.signal("row_dense_q", d.R, "row r: dense");
    m.array("row_base_q", d.WA, d.R, "row r: first granule");
    m.array("row_size_q", d.WA, d.R, "row r: granules");
  }
  if (s.claim) {
    m.array("list_q", d.RB, d.R, "rows the op registered, in order: they claim at its start and commit at its end");
    m.signal("list_n_q", d.NB, "rows in the list");
    m.signal("last_n_q", d.NB, "rows in the last launch's list (claimed again by a continuation pass)");
    m.signal("row_claim_q", d.R, "row r: claimed by the running launch (an input's reads fill CHORD only then)");
    m.signal("list_i_q", d.NB, "the next row to claim or commit");
    m.signal("list_keep", 1, "that row claims (the launch's result or an input) or commits (it claimed)");
  }
  if (s.flush) m.signal("scan_q", d.SB, "END: the tensor id being checked");
  m.signal("err_q", 1, "sticky error");
}

// The mirror's lookups: the event's tensor (or END's scan), an in-place
// candidate, a free row and the four routing questions.
void lookup_section(SvModule& m, const ChordCmdDims& d, const ChordCmdShape& s) {
  std::string rw;
  if (s.inplace)
    rw = fmt::format(R"(
// An in-place update: a live dense tensor with the new dense tensor's region.
always_comb begin
  rw_hit = 1'b0;
  rw_row = '0;
  for (int r = {R} - 1; r >= 0; r--)
    if (row_valid_q[r] && row_dense_q[r] && row_base_q[r] == e_base_q && row_size_q[r] == e_b3_q) begin
      rw_hit = !e_sparse_q;
      rw_row = {RB}'(r);
    end
end)",
                     fmt::arg("R", d.R), fmt::arg("RB", d.RB));
  const std::string alias =
      s.inplace ? fmt::format(R"(
    for (int r = 0; r < {R}; r++)
      if (row_valid_q[r] && row_alias_valid_q[r] && row_alias_q[r] == q_tensor[{TB}*k +: {TB}]) begin
        q_live[k] = 1'b1;
        q_fill[k] = 1'b0;
        q_id[{IW}*k +: {IW}] = {IW}'({{row_tensor_q[r], 2'b00}}) + {IW}'(1);
      end)",
                              fmt::arg("R", d.R), fmt::arg("TB", d.TB), fmt::arg("IW", d.IW))
                : "";
  m.section("Mirror lookups", fmt::format(R"(
assign key = {KEY};
always_comb begin
  hit = 1'b0;
  hit_row = '0;
  for (int r = {R} - 1; r >= 0; r--)
    if (row_valid_q[r] && row_tensor_q[r] == key) begin
      hit = 1'b1;
      hit_row = {RB}'(r);
    end
end
always_comb begin
  free_row = '0;
  for (int r = {R} - 1; r >= 0; r--)
    if (!row_valid_q[r]) free_row = {RB}'(r);
end{RW}
// Routing: a tensor read through the entry its in-place successor took over
// answers with the successor's id (an alias match wins over its own row).
always_comb begin
  q_live = '0;
  q_fill = '0;
  q_id = '0;
  for (int k = 0; k < 4; k++) begin
    for (int r = 0; r < {R}; r++)
      if (row_valid_q[r] && row_tensor_q[r] == q_tensor[{TB}*k +: {TB}]) begin
        q_live[k] = 1'b1;
        q_fill[k] = row_input_q[r] && !row_filled_q[r]{CLAIMED};
        q_id[{IW}*k +: {IW}] = {IW}'({{row_tensor_q[r], 2'b00}}) + {IW}'(1);
      end{ALIAS}
  end
end)",
                                          fmt::arg("KEY", s.flush ? fmt::format("(state_q == S_END) ? scan_q[{}:0] : e_tensor_q", d.TB - 1)
                                                                  : std::string("e_tensor_q")),
                                          fmt::arg("R", d.R), fmt::arg("RB", d.RB), fmt::arg("TB", d.TB),
                                          fmt::arg("IW", d.IW), fmt::arg("RW", rw), fmt::arg("ALIAS", alias),
                                          fmt::arg("CLAIMED", s.claim ? " && row_claim_q[r]" : "")));
}

// The command CHORD sees: one per array of the tensor being worked on.
void command_section(SvModule& m, const ChordCmdDims& d, const ChordCmdShape& s) {
  std::string meta;
  if (d.DB) meta = "assign cmd_dist = e_dist_q;\nassign cmd_uses = e_uses_q;\n";
  if (s.inplace) meta += fmt::format("assign cmd_nid  = {IW}'({{e_tensor_q, 2'b00}}) + {IW}'(1);\n", fmt::arg("IW", d.IW));
  m.section("Commands: one per registered array, the lowest first", fmt::format(R"(
assign e_parts     = {{e_b2_q != e_b3_q, e_b1_q != e_b2_q, e_b1_q != '0}};
assign act_low     = (state_q == S_UNDO) ? p_done_q[1:0] : p_mask_q[1:0];
assign cur_q       = act_low[0] ? 2'd0 : act_low[1] ? 2'd1 : 2'd2;
assign cur_bit     = 3'b001 << cur_q;
assign reg_blocked = p_op_q == OP_REGISTER && free_q == '0;
assign cmd_valid   = (state_q == S_PARTS && p_mask_q != '0 && !reg_blocked) || (state_q == S_UNDO && p_done_q != '0);
assign cmd_op      = (state_q == S_UNDO) ? OP_RELEASE : p_op_q;
// CHORD id 4t + 1 + array: the tensor's arrays never share an id.
assign cmd_id      = {IW}'({{p_tensor_q, cur_q}}) + {IW}'(1);
assign cmd_base    = e_base_q + (cur_q == 2'd0 ? '0 : cur_q == 2'd1 ? e_b1_q : e_b2_q);
assign cmd_end     = e_base_q + (cur_q == 2'd0 ? e_b1_q : cur_q == 2'd1 ? e_b2_q : e_b3_q);
{META}assign cmd_fire    = cmd_valid && cmd_ready;
assign ev_ready    = state_q == S_IDLE;
assign idle        = state_q == S_IDLE;
assign err         = err_q;)",
                                                                                     fmt::arg("IW", d.IW), fmt::arg("META", meta)));
}

// S_IDLE takes an event; S_LOOK decides what it sends, from the mirror.
std::string take_and_look(const ChordCmdDims& d, const ChordCmdShape& s) {
  const std::string meta =
      d.DB ? fmt::format(R"(
        // The walk's metadata: no distance once no reads remain; both saturated.
        e_dist_q   <= (ev_remaining == '0) ? '1 : (ev_dist > 32'd{DCAP}) ? {DB}'({DCAP}) : {DB}'(ev_dist);
        e_uses_q   <= (ev_remaining > 32'd{UCAP}) ? {UB}'({UCAP}) : {UB}'(ev_remaining);)",
                         fmt::arg("DB", d.DB), fmt::arg("UB", d.UB),
                         fmt::arg("DCAP", std::min<long long>(0xfffe, (1LL << d.DB) - 2)),
                         fmt::arg("UCAP", std::min<long long>(0xffff, (1LL << d.UB) - 1)))
           : "";
  const std::string rewrite = s.inplace ? R"(
          end else if (rw_hit) begin
            p_op_q     <= OP_REWRITE;
            p_row_q    <= rw_row;
            p_tensor_q <= row_tensor_q[rw_row];
            p_mask_q   <= 3'b001;)"
                                        : "";
  const std::string release = s.flush ? R"(
            p_flush_q <= row_output_q[hit_row];
            p_op_q    <= row_output_q[hit_row] ? OP_FLUSH : OP_RELEASE;)"
                                      : R"(
            p_op_q    <= OP_RELEASE;)";
  std::string others;  // launches and END: a list to claim or commit, outputs to flush, or nothing
  others += s.claim ? "\n        EV_BEGIN, EV_DONE, EV_PASS: begin\n          state_q  <= S_LIST;\n          list_i_q <= '0;"
                      "\n          if (e_kind_q == EV_PASS) list_n_q <= last_n_q;  // a continuation pass: the last list again\n        end"
                    : "\n        EV_BEGIN, EV_DONE: ;";
  others += s.flush ? "\n        EV_END: begin\n          state_q <= S_END;\n          scan_q  <= '0;\n        end"
                    : "\n        EV_END: ;";
  return fmt::format(R"(
    S_IDLE:
      if (ev_valid) begin
        state_q    <= S_LOOK;
        e_kind_q   <= ev_kind;
        e_tensor_q <= ev_tensor;{META}
        e_base_q   <= ev_base;
        e_b1_q     <= ev_sparse ? ev_col_at : ev_end;
        e_b2_q     <= ev_sparse ? ev_val_at : ev_end;
        e_b3_q     <= ev_end;
{EVSPARSE}        e_input_q  <= ev_input;{EVOUT}
      end
    // Decide what the event sends, from the mirror as it stands.
    S_LOOK: begin
      state_q    <= S_IDLE;
      p_done_q   <= '0;{FLUSHRST}
      p_tensor_q <= e_tensor_q;
      p_row_q    <= hit_row;
      p_mask_q   <= row_parts_q[hit_row];
      case (e_kind_q)
        // A live tensor registered again is updated; a dense one over a live
        // one's region takes over its entry; else each array registers.
        EV_REG: begin
          state_q <= S_PARTS;
          if (hit) begin
            p_op_q <= OP_UPDATE;{RW}
          end else begin
            p_op_q   <= OP_REGISTER;
            p_mask_q <= e_parts;
          end
        end
        EV_UPD:
          if (hit) begin
            state_q <= S_PARTS;
            p_op_q  <= OP_UPDATE;
            if (row_input_q[hit_row]) row_filled_q[hit_row] <= 1'b1;
          end
        EV_REL:
          if (hit) begin
            state_q   <= S_PARTS;{REL}
          end{OTHERS}
        default: err_q <= 1'b1;
      endcase
    end)",
                     fmt::arg("META", meta), fmt::arg("RW", rewrite), fmt::arg("REL", release),
                     fmt::arg("OTHERS", others),
                     fmt::arg("EVSPARSE", s.inplace ? "        e_sparse_q <= ev_sparse;\n" : ""),
                     fmt::arg("EVOUT", s.flush ? "\n        e_output_q <= ev_output;" : ""),
                     fmt::arg("FLUSHRST", s.flush ? "\n      p_flush_q  <= 1'b0;" : ""));
}

// S_PARTS sends a command per array, S_UNDO releases a failed registration's
// arrays, S_FIN updates the mirror.
std::string send_and_finish(const ChordCmdDims& d, const ChordCmdShape& s) {
  const std::string rewrite = s.inplace ? fmt::format(R"(
          if (p_op_q == OP_REWRITE) begin
            row_alias_valid_q[p_row_q] <= 1'b1;
            row_alias_q[p_row_q]       <= row_tensor_q[p_row_q];
            row_tensor_q[p_row_q]      <= e_tensor_q;
            row_input_q[p_row_q]       <= e_input_q;{OUT}
            row_filled_q[p_row_q]      <= 1'b0;
          end)",
                                                      fmt::arg("OUT", s.flush ? "\n            row_output_q[p_row_q]      <= e_output_q;" : ""))
                                        : "";
  const std::string region = s.inplace ? R"(
            row_alias_valid_q[free_row] <= 1'b0;
            row_dense_q[free_row]       <= !e_sparse_q;
            row_base_q[free_row]        <= e_base_q;
            row_size_q[free_row]        <= e_b3_q;)"
                                       : "";
  const std::string push = s.claim ? fmt::format(R"(
          // Option claim: the row claims when the op starts.
          if (list_n_q == {NB}'({R})) err_q <= 1'b1;
          else begin
            list_q[list_n_q[{RB1}:0]] <= (p_op_q == OP_REGISTER) ? free_row : p_row_q;
            list_n_q <= list_n_q + {NB}'(1);
          end)",
                                                 fmt::arg("NB", d.NB), fmt::arg("R", d.R), fmt::arg("RB1", d.RB - 1))
                                   : "";
  const std::string flush_then_release = s.flush ? R"(
        if (p_op_q == OP_FLUSH && e_kind_q == EV_REL) p_op_q <= OP_RELEASE;
        else begin)"
                                                 : R"(
        begin)";
  return fmt::format(R"(
    // One command per array in p_mask_q; a release after its flush.
    S_PARTS:
      if (p_mask_q == '0) state_q <= (e_kind_q == EV_BEGIN || e_kind_q == EV_DONE || e_kind_q == EV_PASS) ? S_LIST : (e_kind_q == EV_END) ? S_END : S_FIN;
      else if (reg_blocked) state_q <= S_UNDO;
      else if (cmd_fire) begin{FLUSHREL}
          p_mask_q <= p_mask_q & ~cur_bit;
          if (p_op_q == OP_REGISTER) p_done_q <= p_done_q | cur_bit;{REFLUSH}
        end
      end
    // The table was full: the arrays already registered are released, and
    // the tensor stays in DRAM.
    S_UNDO:
      if (p_done_q == '0) state_q <= S_IDLE;
      else if (cmd_fire) p_done_q <= p_done_q & ~cur_bit;
    // The event's commands are sent: the mirror follows.
    S_FIN: begin
      state_q <= S_IDLE;
      case (e_kind_q)
        EV_REG: begin
          if (p_op_q == OP_REGISTER) begin
            row_valid_q[free_row]       <= 1'b1;
            row_tensor_q[free_row]      <= e_tensor_q;
            row_parts_q[free_row]       <= p_done_q;
            row_input_q[free_row]       <= e_input_q;
            row_filled_q[free_row]      <= 1'b0;{OUTREG}{REGION}
          end{RW}{PUSH}
        end
        EV_REL: row_valid_q[p_row_q] <= 1'b0;
        default: ;
      endcase
    end)",
                     fmt::arg("FLUSHREL", flush_then_release),
                     fmt::arg("REFLUSH", s.flush ? "\n          if (p_flush_q) p_op_q <= OP_FLUSH;" : ""),
                     fmt::arg("OUTREG", s.flush ? "\n            row_output_q[free_row]      <= e_output_q;" : ""),
                     fmt::arg("REGION", region), fmt::arg("RW", rewrite), fmt::arg("PUSH", push));
}

// S_LIST claims or commits the op's rows; S_END flushes the live outputs.
std::string list_and_end(const ChordCmdDims& d, const ChordCmdShape& s) {
  std::string out;
  if (s.claim)
    out += fmt::format(R"(
    // Claims (a launch starts) or commits (it has drained), row by row.
    S_LIST:
      if (list_i_q == list_n_q) begin
        state_q <= S_IDLE;
        if (e_kind_q == EV_DONE) begin
          last_n_q    <= list_n_q;
          list_n_q    <= '0;
          row_claim_q <= '0;
        end
      end else begin
        list_i_q <= list_i_q + {NB}'(1);
        // Only what the launch writes (its result) or fills (an input) claims:
        // a tensor registered and only read stays empty, and its reads miss.
        if (list_keep) begin
          state_q    <= S_PARTS;
          p_row_q    <= list_q[list_i_q[{RB1}:0]];
          p_tensor_q <= row_tensor_q[list_q[list_i_q[{RB1}:0]]];
          p_mask_q   <= row_parts_q[list_q[list_i_q[{RB1}:0]]];
          p_op_q     <= (e_kind_q == EV_DONE) ? OP_COMMIT : OP_CLAIM;
          if (e_kind_q != EV_DONE) row_claim_q[list_q[list_i_q[{RB1}:0]]] <= 1'b1;
        end
      end)",
                       fmt::arg("RB1", d.RB - 1), fmt::arg("NB", d.NB));
  if (s.flush)
    out += fmt::format(R"(
    // END: every output still live flushes its arrays, in tensor id order.
    S_END:
      if (scan_q == {SB}'({TT})) state_q <= S_IDLE;
      else begin
        scan_q <= scan_q + {SB}'(1);
        if (hit && row_output_q[hit_row]) begin
          state_q    <= S_PARTS;
          p_op_q     <= OP_FLUSH;
          p_tensor_q <= key;
          p_mask_q   <= row_parts_q[hit_row];
        end
      end)",
                       fmt::arg("SB", d.SB), fmt::arg("TT", d.TT));
  return out;
}

// What the unit does in each state (docs/top.md, "CHORD's command unit").
void fsm_section(SvModule& m, const ChordCmdDims& d, const ChordCmdShape& s) {
  m.section("Events", fmt::format(R"(
always_ff @(posedge clk) begin
  if (!rst_n) begin
    state_q     <= S_IDLE;
    free_q      <= {NB}'({R});
    row_valid_q <= '0;
    err_q       <= 1'b0;{LISTRST}
  end else begin
    if (cmd_fire && cmd_op == OP_REGISTER) free_q <= free_q - {NB}'(1);
    if (cmd_fire && cmd_op == OP_RELEASE) free_q <= free_q + {NB}'(1);
    case (state_q){TAKE}{SEND}{LISTEND}
    default: state_q <= S_IDLE;
    endcase
  end
end)",
                                  fmt::arg("NB", d.NB), fmt::arg("R", d.R),
                                  fmt::arg("LISTRST", s.claim ? "\n    list_n_q    <= '0;\n    last_n_q    <= '0;\n    row_claim_q <= '0;" : ""),
                                  fmt::arg("TAKE", take_and_look(d, s)), fmt::arg("SEND", send_and_finish(d, s)),
                                  fmt::arg("LISTEND", list_and_end(d, s))));
}

}  // namespace

ChordCmdShape chord_cmd_shape(const ChordConfig& c, const LoadUnitShape& mem, int tensor_table) {
  ChordCmdShape s;
  s.tensor_table = tensor_table;
  s.addr_bits = mem.addr_bits - std::countr_zero(static_cast<unsigned>(mem.granule_bytes));
  s.id_bits = c.id_width;
  s.dist_bits = c.riff ? c.dist_width : 0;
  s.uses_bits = c.riff ? c.uses_width : 0;
  s.entries = c.entries;
  s.inplace = c.riff && c.inplace;
  s.claim = c.claim;
  s.flush = c.flush;
  return s;
}

void add_chord_cmd(Design& design, const std::string& module, const ChordCmdShape& s) {
  if (s.tensor_table < 1 || s.entries < 1)
    throw std::logic_error(fmt::format("{}: {} tensors, {} entries", module, s.tensor_table, s.entries));
  const int TB = bits_for(s.tensor_table - 1);
  if (s.id_bits < TB + 2)
    throw std::logic_error(fmt::format("{}: CHORD ids of {} bits cannot name tensor {} (4t + 3 needs {} bits)", module,
                                       s.id_bits, s.tensor_table - 1, TB + 2));
  if (s.dist_bits > 32 || s.uses_bits > 32 || (s.dist_bits == 0) != (s.uses_bits == 0))
    throw std::logic_error(fmt::format("{}: metadata of {} and {} bits", module, s.dist_bits, s.uses_bits));
  const ChordCmdDims d{s.tensor_table, TB, bits_for(s.tensor_table), s.addr_bits, s.id_bits, s.dist_bits, s.uses_bits,
                       s.entries, bits_for(s.entries - 1), bits_for(s.entries), (s.claim || s.flush) ? 3 : 2};
  SvModule m(module,
             "CHORD's commands from the stream's RIFF records and the launches' start and end, decided as\n"
             "the executor's traffic walk decides: a CSR tensor is three CHORD tensors (id 4t + 1 + array),\n"
             "a registration that finds the table full leaves the tensor in DRAM (the arrays it did\n"
             "register are released), a dense tensor registered over a live one's region of the same\n"
             "size takes over its entry (rewrite), the tensors an op registers claim their space when it\n"
             "starts and commit it when it has drained, an output flushes before its release and at END.\n"
             "A mirror of CHORD's live tensors answers the launch's routing: live, id, fill.");
  const nlohmann::json params = {{"tensor_table", s.tensor_table}, {"addr_bits", s.addr_bits}, {"id_bits", s.id_bits},
                                 {"dist_bits", s.dist_bits}, {"uses_bits", s.uses_bits}, {"entries", s.entries},
                                 {"inplace", s.inplace}, {"claim", s.claim}, {"flush", s.flush}};
  m.record_config(params);
  m.note("Routing question k uses the slices [k*W +: W] of q_tensor and q_id.");
  const std::vector<std::pair<const char*, int>> states = {{"S_IDLE", 0}, {"S_LOOK", 1}, {"S_PARTS", 2}, {"S_UNDO", 3},
                                                           {"S_FIN", 4},  {"S_LIST", 5}, {"S_END", 6}};
  for (const auto& [n, v] : states) m.localparam(n, sv_const(3, v), "");
  const std::vector<std::pair<const char*, int>> ops = {{"OP_REGISTER", 0}, {"OP_UPDATE", 1}, {"OP_RELEASE", 2},
                                                        {"OP_REWRITE", 3},  {"OP_CLAIM", 4},  {"OP_COMMIT", 5},
                                                        {"OP_FLUSH", 6}};
  const bool has_op[] = {true, true, true, s.inplace, s.claim, s.claim, s.flush};
  for (const auto& [n, v] : ops)
    if (has_op[v]) m.localparam(n, sv_const(d.OPW, v), "CHORD's cmd_op");
  const std::vector<std::pair<const char*, int>> evs = {{"EV_REG", 0},   {"EV_UPD", 1},  {"EV_REL", 2},
                                                        {"EV_BEGIN", 3}, {"EV_DONE", 4}, {"EV_END", 5},
                                                        {"EV_PASS", 6}};
  for (const auto& [n, v] : evs) m.localparam(n, sv_const(3, v), "event kind");
  chord_cmd_ports(m, d, s);
  chord_cmd_signals(m, d, s);
  lookup_section(m, d, s);
  command_section(m, d, s);
  if (s.claim)
    m.section("Claims",
              fmt::format("\n// A launch claims what it writes (its result, the start event's tensor) or\n"
                          "// fills (an input), and commits what it claimed; the executor's walk does the same.\n"
                          "assign list_keep = (e_kind_q == EV_DONE) ? row_claim_q[list_q[list_i_q[{0}:0]]]\n"
                          "                 : (row_input_q[list_q[list_i_q[{0}:0]]] || (row_tensor_q[list_q[list_i_q[{0}:0]]] == e_tensor_q));",
                          d.RB - 1));
  fsm_section(m, d, s);
  top_parts::finish_part(design, m, "chord_cmd", params);
}

}  // namespace cello::gen
