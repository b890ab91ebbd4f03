#include "gen/top/sequencer_gen.hpp"

#include <fmt/format.h>

#include "sw/stream/format.hpp"
#include "gen/sv_module.hpp"
#include "gen/top/load_unit_gen.hpp"
#include "gen/top/stream_engine_gen.hpp"
#include "gen/top/top_gen_parts.hpp"

namespace cello::gen {

namespace {

using stream::Opcode;

// `rec_q` bits of a field of the command-stream table, e.g. rec_q[64 +: 32]
// (`bits` bits from bit `skip` of the field when bits > 0).
std::string field(stream::Opcode op, const char* name, int bits = 0, int skip = 0) {
  const stream::FieldSpec& f = stream::field_spec(op, name);
  return fmt::format("rec_q[{} +: {}]", 8 * f.offset + skip, bits > 0 ? bits : 8 * f.bytes);
}

std::string opcode(stream::Opcode op) { return fmt::format("8'h{:02x}", static_cast<int>(op)); }

// Widths shared by the parts of the sequencer.
struct SeqDims {
  int AW;  // byte address
  int WA;  // word address
  int CW;  // engine counts and indices (WA + 1)
  int G;   // granule bytes
  int GW;  // words per granule
  int TT;  // tensor table entries
  int TB;  // tensor table address
  int EW;  // tensor table entry
  bool CJ; // CHORD on the datapath (docs/top.md, "CHORD on the datapath")
  int GA;  // granule address
  int GWB; // log2 of the words per granule
};

SeqDims seq_dims(const SequencerShape& s) {
  SeqDims d{};
  d.AW = s.addr_bits;
  d.WA = d.AW - 2;
  d.CW = d.WA + 1;
  d.G = s.granule_bytes;
  d.GW = d.G / 4;
  d.TT = s.tensor_table;
  d.TB = log2_pow2(d.TT);
  d.CJ = s.chord_datapath;
  d.GWB = ceil_log2(static_cast<uint64_t>(d.GW));  // 0 for a one-word granule
  d.GA = d.WA - d.GWB;
  // With CHORD on the datapath an entry also keeps its region's granules (top bits).
  d.EW = d.WA + 96 + 5 + (d.CJ ? d.GA : 0);
  return d;
}

// With CHORD on the datapath: the stream's events for CHORD's command unit, the
// launch's ids for its routing answers, and the read operands' regions.
void chord_ports(SvModule& m, const SeqDims& d) {
  const int GA = d.GA;
  m.source({"ev", "", "an event for CHORD's command unit, in stream order", "taken",
            {{"kind", 3, "0 CHORD_REG, 1 CHORD_UPD, 2 CHORD_REL, 3 a launch or HOST starts, 4 it has drained, 5 END, 6 a continuation pass starts"},
             {"tensor", bits_for(d.TT - 1), "REG / UPD / REL: the tensor id"},
             {"dist", 32, "REG / UPD: the record's distance"},
             {"remaining", 32, "REG / UPD: the record's remaining"},
             {"base", GA, "REG: the tensor's first granule"},
             {"col_at", GA, "REG, CSR: granules of row pointers"},
             {"val_at", GA, "REG, CSR: the values' offset in granules"},
             {"end", GA, "REG: the tensor's granules"},
             {"sparse", 1, "REG: a CSR tensor"},
             {"input", 1, "REG: an application input"},
             {"output", 1, "REG: a final output"}}});
  m.input("ch_idle", 1, "CHORD: the command unit idle, CHORD idle with no DRAM request queued or unanswered");
  m.input("ch_sent", 1, "CHORD: the command unit idle (a start event's claims all accepted)");
  m.input("ch_drained", 1, "CHORD: the launch's reads, writes and fills are done");
  m.output("q_tensor", 4 * bits_for(d.TT - 1), "the record's four ids (the command unit's routing questions)");
  m.output("rt_base", 3 * GA, "read operand k (a, b, c): first granule");
  m.output("rt_col", 3 * GA, "read operand k, CSR: first granule of the column indices");
  m.output("rt_val", 3 * GA, "read operand k, CSR: first granule of the values");
  m.output("rt_end", 3 * GA, "read operand k: granule past its region");
  m.output("rt_csr", 3, "read operand k: CSR");
  m.output("rt_present", 3, "read operand k: named by the launch");
}

// Ports: records in, status out, the host handshake, the engine's descriptor
// and the store/load unit controls.
void sequencer_ports(SvModule& m, const SeqDims& d) {
  const int WA = d.WA, CW = d.CW;
  m.clock_reset();
  m.sink(top_parts::record_port());
  m.input("memory_bytes", 64, "the stream's DRAM image size (header)");
  m.output("status", 7, "sticky status bits raised here (bad_tensor, bad_address, bad_order, chord_error)");
  m.output("halted", 1, "stopped at an illegal record");
  m.output("err_record", 64, "index of that record");
  m.output("done", 1, "END ran: every launch finished and its writes landed");
  m.output("retire", 1, "pulse: a record finished");
  m.output("launch", 1, "pulse: a launch started");
  m.output("cur_record", 64, "index of the record being run (for watchdogs and traces)");
  top_parts::host_ports(m);
  m.port_group(Dir::Out, "eng_", "engine", engine_descriptor(WA, CW));
  m.input("eng_done", 1, "engine: launch ended");
  m.input("eng_err", 1, "engine: a damaged CSR operand stopped it");
  m.input("eng_fused", 1, "engine: with eng_done, the launch computed its result's GRAM products");
  m.output("st_flush", 1, "store unit: send what is assembled");
  m.input("st_idle", 1, "store unit: every write landed");
  m.output("ld_inval", 1, "load units: empty the reuse window");
  if (d.CJ) chord_ports(m, d);
}

// Constants: opcodes, bindings, the status bits raised here and the states.
void sequencer_localparams(SvModule& m, const SequencerShape& s, const SeqDims& d) {
  const int GW = d.GW;
  m.localparam("HAS_CHORD", s.chord ? "1'b1" : "1'b0", "the top has a CHORD");
  m.localparam("RF_ROWS", fmt::format("32'd{}", s.rf_rows), "register-file rows");
  m.localparam("GRAN_WORDS", fmt::format("68'd{}", GW), "words per DRAM granule");
  for (auto [name, op] : {std::pair{"OP_TENSOR", Opcode::Tensor}, {"OP_NAME", Opcode::Name},
                          {"OP_CHORD_REG", Opcode::ChordReg}, {"OP_CHORD_UPD", Opcode::ChordUpd},
                          {"OP_CHORD_REL", Opcode::ChordRel}, {"OP_RF_LOAD", Opcode::RfLoad}, {"OP_GEMM", Opcode::Gemm},
                          {"OP_GRAM", Opcode::Gram}, {"OP_SPMM", Opcode::Spmm}, {"OP_ELTW", Opcode::Eltw},
                          {"OP_FENCE", Opcode::Fence}, {"OP_HOST", Opcode::Host}, {"OP_END", Opcode::End}})
    m.localparam(name, opcode(op), "opcode");
  m.localparam("BIND_NONE", "4'd0", "bindings");
  m.localparam("BIND_CHORD", "4'd2", "");
  m.localparam("BIND_PIPE", "4'd3", "");
  m.localparam("BIND_RF", "4'd4", "");
  m.localparam("ST_BAD_TENSOR", "3'd2", "status bits raised here");
  m.localparam("ST_BAD_ADDRESS", "3'd3", "");
  m.localparam("ST_BAD_ORDER", "3'd4", "");
  m.localparam("ST_CHORD_ERROR", "3'd5", "");
  m.localparam("ST_BAD_FIELD", "3'd1", "");
  m.localparam("SQ_TAKE", "4'd0", "waiting for a record");
  m.localparam("SQ_FETCH", "4'd1", "reading slot fetch_q's descriptor");
  m.localparam("SQ_CATCH", "4'd2", "its descriptor arrives");
  m.localparam("SQ_CHECK", "4'd3", "check the record and run it");
  m.localparam("SQ_RUN", "4'd4", "the engine runs a launch");
  m.localparam("SQ_DRAIN", "4'd5", "the store unit drains");
  m.localparam("SQ_INVAL", "4'd6", "empty the load units' reuse windows");
  m.localparam("SQ_HOST", "4'd7", "host_req until host_ack");
  m.localparam("SQ_DONE", "4'd8", "END ran");
  m.localparam("SQ_HALT", "4'd9", "stopped at an illegal record");
  if (!d.CJ) return;
  m.localparam("SQ_CEV", "4'd10", "CHORD_REG / UPD / REL: the event to the command unit");
  m.localparam("SQ_BEGIN", "4'd11", "a launch or HOST: its start event");
  m.localparam("SQ_BWAIT", "4'd12", "the command unit and CHORD go idle (claims made, write-backs landed)");
  m.localparam("SQ_DEV", "4'd13", "the launch's CHORD accesses done: its drained event");
  m.localparam("SQ_EEV", "4'd14", "END: its event (flushes)");
  m.localparam("SQ_EWAIT", "4'd15", "the flushes landed");
  m.localparam("EV_BEGIN", "3'd3", "command-unit events");
  m.localparam("EV_DONE", "3'd4", "");
  m.localparam("EV_END", "3'd5", "");
  m.localparam("EV_PASS", "3'd6", "a GEMM's continuation pass: its result claims again (it was committed after the last pass)");
}

// Registers and combinational signals of the record being run.
void sequencer_signals(SvModule& m, const SeqDims& d) {
  const int WA = d.WA, TT = d.TT, TB = d.TB, EW = d.EW;
  m.signal("sq_q", 4, "state");
  m.signal("rec_q", 256, "the record being run");
  m.signal("idx_q", 64, "its index");
  m.signal("op", 8, "its opcode");
  m.signal("is_launch", 1, "GEMM, GRAM, SPMM or ELTW");
  m.signal("slots", 3, "ids the record names");
  m.signal("fetch_q", 2, "slot being fetched");
  m.signal("status_q", 7, "sticky status");
  m.signal("err_record_q", 64, "record that stopped the sequencer");
  m.signal("described_q", TT, "table entry k holds a descriptor");
  m.signal("tab_we", 1, "table write (TENSOR)");
  m.signal("tab_wdata", EW, "table write data");
  m.signal("tab_re", 1, "table read");
  m.signal("tab_raddr", TB, "table read address");
  m.signal("tab_rdata", EW, "table read data (one cycle later)");
  m.array("d_q", EW, 4, "descriptors of the record's slots");
  m.array("slot_id", 16, 4, "id named by slot k");
  m.signal("slot_in", 4, "slot k names an id inside the table");
  m.signal("slot_desc", 4, "slot k names a described id");
  m.signal("present", 4, "slot k is used by the record");
  m.array("slot_bind", 4, 4, "launch binding of slot k");
  m.array("d_base", WA, 4, "slot k: word base");
  m.array("d_rows", 32, 4, "slot k: rows");
  m.array("d_cols", 32, 4, "slot k: columns");
  m.array("d_nnz", 32, 4, "slot k: nnz");
  m.signal("d_csr", 4, "slot k: CSR");
  m.signal("out_input", 1, "slot 0: an application input (cannot be written)");
  m.signal("d_chord", 4, "slot k: bound to CHORD");
  m.signal("d_cm", 4, "slot k: column-major");
  m.signal("t_words", 68, "TENSOR: words of the region");
  m.signal("t_end", 68, "TENSOR: end byte of the region");
  m.signal("t_flags", 4, "TENSOR: flags (input, output, chord, col_major)");
  m.signal("t_base", 64, "TENSOR: base byte address");
  m.signal("bad", 1, "the record is illegal");
  m.signal("bad_bit", 3, "status bit it raises");
  m.signal("rf_pending_q", 1, "an RF_LOAD waits for its GEMM");
  m.signal("rf_row0_q", 16, "RF_LOAD row0");
  m.signal("rf_rows_q", 16, "RF_LOAD rows");
  m.signal("rf_scale_q", 32, "RF_LOAD scale");
  m.signal("l_flags", 5, "launch flags: relu, cont, with_c, pipe_gram, pipe_gram_x (the decoder refused the others)");
  m.signal("fz_q", 1, "the last launch computed the products of its result's GRAM (eng_fused), and no RF_LOAD or HOST followed it");
  m.signal("fz_id_q", 16, "that launch's result");
  m.signal("fz_x_q", 1, "... products of X^T Z, X its dense operand (pipe_gram_x), else of Z^T Z");
  m.signal("fz_xid_q", 16, "X's id");
  m.signal("l_k", 32, "launch k");
  m.signal("l_k0", 32, "launch k0");
  m.signal("rf_a", 1, "GEMM: slot a is the register-file operand");
  m.signal("s_slot", 2, "GEMM: streamed slot; SPMM: CSR slot");
  m.signal("r_slot", 2, "GEMM: register-file slot; SPMM: dense slot");
  m.signal("shape_ok", 1, "the launch's operand shapes fit");
  m.signal("c_ok", 1, "C (when present) has the result's shape");
  m.signal("start_q", 1, "engine start pulse");
  m.signal("retire_q", 1, "retire pulse");
  m.signal("host_q", 1, "host_req");
  m.signal("csr_col_w", WA, "SPMM: column-index array word base");
  if (d.CJ) {
    m.array("d_gbase", d.GA, 4, "slot k: first granule");
    m.array("d_gran", d.GA, 4, "slot k: granules of the region");
    m.array("d_colat", d.GA, 4, "slot k, CSR: granules of the row pointers");
    m.array("d_valat", d.GA, 4, "slot k, CSR: granules of the row pointers and column indices");
  }
}

// The tensor table: descriptors by id, written by TENSOR at slot 0's id.
void tensor_table(SvModule& m, const SeqDims& d) {
  top_parts::ram_instance(m, "u_table", d.TT, d.EW, d.TB,
                          {"tab_we", fmt::format("slot_id[0][{}:0]", d.TB - 1), "tab_wdata", "tab_re", "tab_raddr",
                           "tab_rdata"});
}

// Slot decode: ids, bindings and descriptor fields, then the record's kind,
// slots in use and launch fields.
void record_slots_section(SvModule& m, const SeqDims& d) {
  const int WA = d.WA, TT = d.TT, TB = d.TB;
  std::string slots_body;
  for (int k = 0; k < 4; ++k)
    slots_body += fmt::format(
        "assign slot_id[{k}]   = rec_q[{lo} +: 16];\n"
        "assign slot_in[{k}]   = (slot_id[{k}] < 16'd{TT});\n"
        "assign slot_desc[{k}] = slot_in[{k}] && described_q[slot_id[{k}][{TB1}:0]];\n"
        "assign slot_bind[{k}] = {binds};\n"
        "assign d_base[{k}]    = d_q[{k}][{WA1}:0];\n"
        "assign d_rows[{k}]    = d_q[{k}][{WA} +: 32];\n"
        "assign d_cols[{k}]    = d_q[{k}][{WA32} +: 32];\n"
        "assign d_nnz[{k}]     = d_q[{k}][{WA64} +: 32];\n"
        "assign d_chord[{k}]   = d_q[{k}][{WA98}];\n"
        "assign d_cm[{k}]      = d_q[{k}][{WA99}];\n"
        "assign d_csr[{k}]     = d_q[{k}][{WA100}];\n",
        fmt::arg("k", k), fmt::arg("lo", 16 + 16 * k), fmt::arg("TT", TT), fmt::arg("TB1", TB - 1),
        fmt::arg("binds", field(Opcode::Gemm, "binds", 4, 4 * k)), fmt::arg("WA1", WA - 1),
        fmt::arg("WA", WA), fmt::arg("WA32", WA + 32), fmt::arg("WA64", WA + 64),
        fmt::arg("WA98", WA + 98), fmt::arg("WA99", WA + 99), fmt::arg("WA100", WA + 100));
  m.section("Record slots", slots_body + fmt::format(R"(assign op        = rec_q[7:0];
assign out_input = d_q[0][{WA96}];
assign is_launch = (op == OP_GEMM) || (op == OP_GRAM) || (op == OP_SPMM) || (op == OP_ELTW);
// Ids each record kind names: TENSOR's own id is checked against described_q only.
always_comb begin
  case (op)
    OP_NAME, OP_CHORD_REG, OP_CHORD_UPD, OP_CHORD_REL, OP_RF_LOAD: slots = 3'd1;
    OP_HOST: slots = 3'd3;
    OP_GEMM, OP_GRAM, OP_SPMM, OP_ELTW: slots = 3'd4;
    default: slots = 3'd0;
  endcase
end
assign present  = is_launch ? {{slot_bind[3] != BIND_NONE, slot_bind[2] != BIND_NONE, slot_bind[1] != BIND_NONE, slot_bind[0] != BIND_NONE}}
                            : (op == OP_HOST ? 4'b0111 : (slots == 3'd1 ? 4'b0001 : 4'b0000));
assign l_flags  = {LFLAGS};
assign l_k      = 32'({LK});
assign l_k0     = {LK0};
assign rf_a     = (slot_bind[1] == BIND_RF);
assign s_slot   = (op == OP_SPMM) ? (d_csr[1] ? 2'd1 : 2'd2) : (rf_a ? 2'd2 : 2'd1);
assign r_slot   = (s_slot == 2'd1) ? 2'd2 : 2'd1;)",
                                                     fmt::arg("LFLAGS", field(Opcode::Gemm, "flags", 5)),
                                                     fmt::arg("LK", field(Opcode::Gemm, "k")),
                                                     fmt::arg("LK0", field(Opcode::Gemm, "k0")), fmt::arg("WA96", WA + 96)));
}

// TENSOR: the region's size and end, and the table entry it writes.
void tensor_region_section(SvModule& m, const SeqDims& d) {
  const int AW = d.AW;
  m.section("TENSOR region", fmt::format(R"(
// Region words: dense rows*cols; CSR row pointers, column indices and values,
// each rounded up to whole granules. 68 bits hold any u32 shape.
always_comb begin
  if ({TFMT} == 8'd1)
    t_words = ((68'({TROWS}) + 68'd1 + GRAN_WORDS - 68'd1) & ~(GRAN_WORDS - 68'd1))
            + 68'd2 * ((68'({TNNZ}) + GRAN_WORDS - 68'd1) & ~(GRAN_WORDS - 68'd1));
  else
    t_words = (68'({TROWS}) * 68'({TCOLS}) + GRAN_WORDS - 68'd1) & ~(GRAN_WORDS - 68'd1);
end
assign t_flags   = {TFLAGS4};
assign t_base    = {TBASE};
assign t_end     = 68'(t_base) + 68'd4 * t_words;
assign tab_wdata = {{{GRAN}({TFMT} == 8'd1), t_flags[3:0], {TNNZ}, {TCOLS}, {TROWS}, t_base[{AW1}:2]}};)",
                                           fmt::arg("GRAN", d.CJ ? fmt::format("{}'(t_words >> {}), ", d.GA, d.GWB) : std::string()),
                                           fmt::arg("TFMT", field(Opcode::Tensor, "format")),
                                           fmt::arg("TROWS", field(Opcode::Tensor, "rows")),
                                           fmt::arg("TCOLS", field(Opcode::Tensor, "cols")),
                                           fmt::arg("TNNZ", field(Opcode::Tensor, "nnz")),
                                           fmt::arg("TBASE", field(Opcode::Tensor, "base")),
                                           fmt::arg("TFLAGS4", field(Opcode::Tensor, "flags", 4)), fmt::arg("AW1", AW - 1)));
}

// Launch shapes and the first problem of the record (bad, bad_bit).
void checks_section(SvModule& m, const SeqDims& d) {
  const int TB = d.TB, G = d.G;
  m.section("Checks", fmt::format(R"(
// Shapes of a launch (slot 0 out, 1 a, 2 b, 3 c; s_slot/r_slot as above).
assign c_ok = !present[3] || (d_rows[3] == d_rows[0] && d_cols[3] == d_cols[0]);
always_comb begin
  case (op)
    OP_GEMM: shape_ok = d_rows[0] == d_rows[s_slot] && d_cols[0] == d_cols[r_slot] && d_cols[s_slot] == d_rows[r_slot]
                     && 33'(l_k0) + 33'(l_k) <= 33'(d_cols[s_slot]) && c_ok;
    OP_GRAM: shape_ok = d_rows[1] == d_rows[2] && d_rows[0] == d_cols[1] && d_cols[0] == d_cols[2];
    OP_SPMM: shape_ok = d_csr[1] != d_csr[2] && d_rows[0] == d_rows[s_slot] && d_cols[s_slot] == d_rows[r_slot]
                     && d_cols[0] == d_cols[r_slot] && c_ok;
    default: shape_ok = d_rows[1] == d_rows[0] && d_cols[1] == d_cols[0]
                     && (!present[2] || (d_rows[2] == d_rows[0] && d_cols[2] == d_cols[0]));
  endcase
end
// The first problem of the record, in the order the executor's check names them.
always_comb begin
  bad = 1'b1;
  bad_bit = ST_BAD_TENSOR;
  if (rf_pending_q && op != OP_GEMM) bad_bit = ST_BAD_ORDER;
  else if (op == OP_TENSOR) begin
    if (!slot_in[0] || described_q[slot_id[0][{TB1}:0]]) bad_bit = ST_BAD_TENSOR;
    else if ({TFMT} == 8'd1 && !t_flags[0]) bad_bit = ST_BAD_TENSOR;
    else if ({TFMT} == 8'd1 && (t_flags[3] || 64'({TNNZ}) > 64'({TROWS}) * 64'({TCOLS}))) bad_bit = ST_BAD_FIELD;
    else if ({TFMT} == 8'd0 && {TNNZ} != 32'd0) bad_bit = ST_BAD_FIELD;
    else if (t_flags[2] && !HAS_CHORD) bad_bit = ST_CHORD_ERROR;
    else if (t_base[{GB0}:0] != '0 || t_end > 68'(memory_bytes)) bad_bit = ST_BAD_ADDRESS;
    else bad = 1'b0;
  end else if ((present & ~slot_desc) != 4'b0000) bad_bit = ST_BAD_TENSOR;
  else if ((op == OP_CHORD_REG || op == OP_CHORD_UPD || op == OP_CHORD_REL) && (!HAS_CHORD || !d_chord[0]))
    bad_bit = ST_CHORD_ERROR;
  else if (op == OP_RF_LOAD) begin
    if (d_csr[0] || 32'({RROWS}) > RF_ROWS || 33'({RROW0}) + 33'({RROWS}) > 33'(d_rows[0])) bad_bit = ST_BAD_TENSOR;
    else if ({RFROM} == 8'd2 && !d_chord[0]) bad_bit = ST_CHORD_ERROR;
    else bad = 1'b0;
  end else if (is_launch) begin
    if ((present[0] && slot_bind[0] == BIND_CHORD && !d_chord[0]) || (present[1] && slot_bind[1] == BIND_CHORD && !d_chord[1])
        || (present[2] && slot_bind[2] == BIND_CHORD && !d_chord[2]) || (present[3] && slot_bind[3] == BIND_CHORD && !d_chord[3]))
      bad_bit = ST_CHORD_ERROR;
    else if (!present[0] || !present[1] || present[3] != l_flags[2] || (op != OP_ELTW && !present[2]))
      bad_bit = ST_BAD_FIELD;
    else if (d_csr[0] || out_input) bad_bit = ST_BAD_TENSOR;
    else if (op == OP_GEMM && ((slot_bind[1] == BIND_RF) == (slot_bind[2] == BIND_RF))) bad_bit = ST_BAD_FIELD;
    else if (op == OP_GEMM && (!rf_pending_q || rf_row0_q != 16'(l_k0) || 32'(rf_rows_q) != l_k)) bad_bit = ST_BAD_ORDER;
    else if (op == OP_GEMM && rf_scale_q != {BETA}) bad_bit = ST_BAD_FIELD;
    else if (op == OP_GEMM && l_flags[1] && slot_id[3] != slot_id[0]) bad_bit = ST_BAD_ORDER;
    else if ((op == OP_GRAM || op == OP_ELTW) && l_flags[2]) bad_bit = ST_BAD_FIELD;
    else if (op != OP_SPMM && (d_csr[1] || (present[2] && d_csr[2]))) bad_bit = ST_BAD_TENSOR;
    else if ((present[3] && d_csr[3]) || !shape_ok) bad_bit = ST_BAD_TENSOR;
    else bad = 1'b0;
  end else if (op == OP_HOST) begin
    if (d_csr[0] || d_csr[1] || d_csr[2] || out_input) bad_bit = ST_BAD_TENSOR;
    else bad = 1'b0;
  end else bad = 1'b0;
end)",
                                    fmt::arg("TB1", TB - 1), fmt::arg("TFMT", field(Opcode::Tensor, "format")),
                                    fmt::arg("TROWS", field(Opcode::Tensor, "rows")),
                                    fmt::arg("TCOLS", field(Opcode::Tensor, "cols")),
                                    fmt::arg("TNNZ", field(Opcode::Tensor, "nnz")),
                                    fmt::arg("TBASE", field(Opcode::Tensor, "base")),
                                    fmt::arg("TFLAGS", field(Opcode::Tensor, "flags")),
                                    fmt::arg("GB0", log2_pow2(G) - 1), fmt::arg("RROWS", field(Opcode::RfLoad, "rows")),
                                    fmt::arg("RROW0", field(Opcode::RfLoad, "row0")),
                                    fmt::arg("RFROM", field(Opcode::RfLoad, "from")),
                                    fmt::arg("BETA", field(Opcode::Gemm, "beta"))));
}

// The engine's descriptor: launch fields, the four operand slots, the CSR arrays.
void engine_descriptor_section(SvModule& m, const SeqDims& d) {
  const int CW = d.CW, WA = d.WA;
  std::string operands;
  for (auto [slot, k] : {std::pair{"z", "0"}, {"a", "s_slot"}, {"b", "r_slot"}, {"c", "3"}})
    operands += fmt::format(
        "assign eng_{0}_base = d_base[{1}];\n"
        "assign eng_{0}_rows = {2}'(d_rows[{1}]);\n"
        "assign eng_{0}_cols = {2}'(d_cols[{1}]);\n"
        "assign eng_{0}_cm   = d_cm[{1}];\n",
        slot, k, CW);
  m.section("Engine descriptor", fmt::format(R"(
assign eng_start  = start_q;
assign eng_kind   = 2'(op - OP_GEMM);
assign eng_relu   = l_flags[0];
assign eng_cont   = l_flags[1];
assign eng_with_c = l_flags[2];
assign eng_pipe_gram = l_flags[3];
assign eng_pipe_gram_x = l_flags[4];
// The GRAM right after a fused launch, of that launch's result Z through the
// pipeline buffer with itself (or, pipe_gram_x, with the SPMM's dense operand
// X), takes the products the engine holds. Records that change no tensor may
// come between (TENSOR declares a new one); an RF_LOAD (a GEMM is next) or a
// HOST (it writes a tensor) drops them.
assign eng_tail   = fz_q && (op == OP_GRAM) && (slot_id[2] == fz_id_q) && (slot_bind[2] == BIND_PIPE) &&
                    (fz_x_q ? (slot_id[1] == fz_xid_q) : ((slot_id[1] == fz_id_q) && (slot_bind[1] == BIND_PIPE)));
assign eng_has_b  = present[2];
assign eng_alpha  = {ALPHA};
assign eng_beta   = {BETA};
assign eng_scale  = rf_scale_q;
assign eng_k0     = {CW}'(l_k0);
assign eng_k      = {CW}'(l_k);
{OPERANDS}// CSR arrays: row pointers at the base, then column indices and values, each on a granule.
assign csr_col_w        = d_base[s_slot] + {WA}'((68'(d_rows[s_slot]) + 68'd1 + GRAN_WORDS - 68'd1) & ~(GRAN_WORDS - 68'd1));
assign eng_csr_col_base = csr_col_w;
assign eng_csr_val_base = csr_col_w + {WA}'((68'(d_nnz[s_slot]) + GRAN_WORDS - 68'd1) & ~(GRAN_WORDS - 68'd1));
assign eng_csr_nnz      = {CW}'(d_nnz[s_slot]);)",
                                               fmt::arg("ALPHA", field(Opcode::Gemm, "alpha")),
                                               fmt::arg("BETA", field(Opcode::Gemm, "beta")), fmt::arg("CW", CW),
                                               fmt::arg("WA", WA), fmt::arg("OPERANDS", operands)));
}

// CHORD on the datapath: the events for the command unit (a RIFF record's
// tensor and region, a launch's start and drain, END), the launch's ids for
// its routing answers and its read operands' regions, all in granules.
void chord_section(SvModule& m, const SeqDims& d) {
  const int GA = d.GA, WA = d.WA, TBB = bits_for(d.TT - 1);
  std::string slots, ids, regions;
  for (int k = 0; k < 4; ++k) {
    slots += fmt::format(
        "assign d_gbase[{k}] = d_base[{k}][{WA1}:{GWB}];\n"
        "assign d_gran[{k}]  = d_q[{k}][{EW1} -: {GA}];\n"
        "assign d_colat[{k}] = {GA}'((34'(d_rows[{k}]) + 34'd{GW}) >> {GWB});\n"
        "assign d_valat[{k}] = d_colat[{k}] + {GA}'((33'(d_nnz[{k}]) + 33'd{GW1}) >> {GWB});\n",
        fmt::arg("k", k), fmt::arg("WA1", WA - 1), fmt::arg("GWB", d.GWB), fmt::arg("EW1", d.EW - 1),
        fmt::arg("GA", GA), fmt::arg("GW", d.GW), fmt::arg("GW1", d.GW - 1));
    ids = fmt::format("slot_id[{}][{}:0]", k, TBB - 1) + (k ? ", " : "") + ids;
  }
  for (int k = 1; k < 4; ++k)
    regions += fmt::format(
        "assign rt_base[{0} +: {1}] = d_gbase[{2}];\n"
        "assign rt_col[{0} +: {1}]  = d_gbase[{2}] + d_colat[{2}];\n"
        "assign rt_val[{0} +: {1}]  = d_gbase[{2}] + d_valat[{2}];\n"
        "assign rt_end[{0} +: {1}]  = d_gbase[{2}] + d_gran[{2}];\n",
        (k - 1) * GA, GA, k);
  m.section("CHORD on the datapath: events and routing fields", fmt::format(R"(
// Slot k's region in granules: the table keeps its size; a CSR tensor's row
// pointers, column indices and values each start on a granule.
{SLOTS}assign ev_valid     = (sq_q == SQ_CEV) || (sq_q == SQ_BEGIN && ch_idle) || (sq_q == SQ_DEV && ch_drained) || (sq_q == SQ_EEV);
assign ev_kind      = (sq_q == SQ_CEV) ? 3'(op - OP_CHORD_REG) : (sq_q == SQ_BEGIN) ? ((op == OP_GEMM && l_flags[1]) ? EV_PASS : EV_BEGIN) : (sq_q == SQ_DEV) ? EV_DONE : EV_END;
assign ev_tensor    = slot_id[0][{TBB1}:0];
assign ev_dist      = {DIST};
assign ev_remaining = {REM};
assign ev_base      = d_gbase[0];
assign ev_col_at    = d_colat[0];
assign ev_val_at    = d_valat[0];
assign ev_end       = d_gran[0];
assign ev_sparse    = d_csr[0];
assign ev_input     = d_q[0][{WA96}];
assign ev_output    = d_q[0][{WA97}];
assign q_tensor     = {{{IDS}}};
{REGIONS}assign rt_csr       = d_csr[3:1];
assign rt_present   = present[3:1];)",
                                                                               fmt::arg("SLOTS", slots), fmt::arg("TBB1", TBB - 1),
                                                                               fmt::arg("DIST", field(Opcode::ChordReg, "distance")),
                                                                               fmt::arg("REM", field(Opcode::ChordReg, "remaining")),
                                                                               fmt::arg("WA96", WA + 96), fmt::arg("WA97", WA + 97),
                                                                               fmt::arg("IDS", ids), fmt::arg("REGIONS", regions)));
}

// Outputs driven by the state: handshakes, table access, status, pulses.
std::string run_outputs(const SeqDims& d) {
  return fmt::format(R"(
assign rec_ready   = (sq_q == SQ_TAKE);
assign tab_re      = (sq_q == SQ_FETCH);
assign tab_raddr   = slot_id[fetch_q][{TB1}:0];
assign tab_we      = (sq_q == SQ_CHECK) && !bad && (op == OP_TENSOR);
assign st_flush    = (sq_q == SQ_DRAIN);
assign ld_inval    = (sq_q == SQ_INVAL);
assign status      = status_q;
assign halted      = (sq_q == SQ_HALT);
assign done        = (sq_q == SQ_DONE);
assign err_record  = err_record_q;
assign retire      = retire_q;
assign launch      = start_q;
assign cur_record  = idx_q;
assign host_req    = host_q;
assign host_record = idx_q;
)",
                     fmt::arg("TB1", d.TB - 1));
}

// How a record starts once checked: a launch starts the engine; FENCE, HOST
// and END drain first. With CHORD on the datapath, RIFF records become events
// for the command unit, and a launch or HOST first sends its start event and
// waits for the command unit and CHORD to go idle.
constexpr const char* kLaunchCases = R"(            OP_GEMM, OP_GRAM, OP_SPMM, OP_ELTW: begin
              rf_pending_q <= 1'b0;
              start_q      <= 1'b1;
              retire_q     <= 1'b0;
              sq_q         <= SQ_RUN;
            end
            OP_FENCE, OP_HOST, OP_END: begin
              retire_q <= 1'b0;
              sq_q     <= SQ_DRAIN;
            end)";
constexpr const char* kChordLaunchCases = R"(            OP_CHORD_REG, OP_CHORD_UPD, OP_CHORD_REL: begin
              retire_q <= 1'b0;
              sq_q     <= SQ_CEV;
            end
            OP_GEMM, OP_GRAM, OP_SPMM, OP_ELTW, OP_HOST: begin
              rf_pending_q <= 1'b0;
              retire_q     <= 1'b0;
              sq_q         <= SQ_BEGIN;
            end
            OP_FENCE, OP_END: begin
              retire_q <= 1'b0;
              sq_q     <= SQ_DRAIN;
            end)";
// After the drain: the next record, or END's finish. With CHORD on the
// datapath a launch or HOST then sends its drained event (the commits), and END
// its own (the flushes), waiting for them to land.
constexpr const char* kInval = R"(      SQ_INVAL: begin
        retire_q <= 1'b1;
        sq_q     <= (op == OP_END) ? SQ_DONE : SQ_TAKE;
      end
)";
constexpr const char* kChordInvalAndStates = R"(      SQ_INVAL: begin
        retire_q <= (op == OP_FENCE);
        sq_q     <= (op == OP_END) ? SQ_EEV : (op == OP_FENCE) ? SQ_TAKE : SQ_DEV;
      end
      SQ_CEV: if (ev_ready) begin
        retire_q <= 1'b1;
        sq_q     <= SQ_TAKE;
      end
      // The start event goes once the write-backs of earlier records have
      // landed (a unit may read a released tensor from DRAM); the launch then
      // starts once its claims are accepted: CHORD serves its reads and writes
      // while a claim's eviction is written back, and holds back those that
      // touch the victim. A HOST waits for everything to land.
      SQ_BEGIN: if (ev_valid && ev_ready) sq_q <= SQ_BWAIT;
      SQ_BWAIT: if ((op == OP_HOST) ? ch_idle : ch_sent) begin
        if (op == OP_HOST) sq_q <= SQ_DRAIN;
        else begin
          start_q <= 1'b1;
          sq_q    <= SQ_RUN;
        end
      end
      SQ_DEV: if (ev_valid && ev_ready) begin
        retire_q <= 1'b1;
        sq_q     <= SQ_TAKE;
      end
      SQ_EEV: if (ev_ready) sq_q <= SQ_EWAIT;
      SQ_EWAIT: if (ch_idle) begin
        retire_q <= 1'b1;
        sq_q     <= SQ_DONE;
      end
)";

// The state machine: take, fetch the slots' descriptors, check and run the record.
std::string run_state_machine(const SeqDims& d) {
  return fmt::format(R"(always_ff @(posedge clk) begin
  if (!rst_n) begin
    sq_q         <= SQ_TAKE;
    status_q     <= '0;
    err_record_q <= '0;
    described_q  <= '0;
    rf_pending_q <= 1'b0;
    start_q      <= 1'b0;
    retire_q     <= 1'b0;
    host_q       <= 1'b0;
    idx_q        <= '0;
    fz_q         <= 1'b0;
  end else begin
    start_q  <= 1'b0;
    retire_q <= 1'b0;
    case (sq_q)
      SQ_TAKE: if (rec_valid) begin
        rec_q   <= rec_data;
        idx_q   <= rec_index;
        fetch_q <= '0;
        sq_q    <= (rec_data[7:0] == OP_TENSOR || rec_data[7:0] == OP_FENCE || rec_data[7:0] == OP_END) ? SQ_CHECK : SQ_FETCH;
      end
      // Descriptors of the slots, one RAM read each (an id outside the table reads
      // entry 0; the check refuses it before its descriptor is used).
      SQ_FETCH: sq_q <= SQ_CATCH;
      SQ_CATCH: begin
        d_q[fetch_q] <= tab_rdata;
        fetch_q      <= fetch_q + 2'd1;
        sq_q         <= (3'(fetch_q) + 3'd1 == slots) ? SQ_CHECK : SQ_FETCH;
      end
      SQ_CHECK: begin
        if (bad) begin
          status_q[bad_bit] <= 1'b1;
          err_record_q      <= idx_q;
          sq_q              <= SQ_HALT;
        end else begin
          sq_q <= SQ_TAKE;
          retire_q <= 1'b1;
          if (op == OP_RF_LOAD || op == OP_HOST) fz_q <= 1'b0;
          case (op)
            OP_TENSOR: described_q[slot_id[0][{TB1}:0]] <= 1'b1;
            OP_RF_LOAD: begin
              rf_pending_q <= 1'b1;
              rf_row0_q    <= {RROW0};
              rf_rows_q    <= {RROWS};
              rf_scale_q   <= {RSCALE};
            end
{LAUNCH_CASES}
            default: ;
          endcase
        end
      end
      SQ_RUN: if (eng_done) begin
        if (eng_err) begin
          status_q[ST_BAD_ADDRESS] <= 1'b1;
          err_record_q             <= idx_q;
          sq_q                     <= SQ_HALT;
        end else sq_q <= SQ_DRAIN;
        fz_q     <= eng_fused;
        fz_id_q  <= slot_id[0];
        fz_x_q   <= !l_flags[3];
        fz_xid_q <= slot_id[r_slot];
      end
      SQ_DRAIN: if (st_idle) begin
        if (op == OP_HOST) begin
          host_q <= 1'b1;
          sq_q   <= SQ_HOST;
        end else sq_q <= SQ_INVAL;
      end
      SQ_HOST: if (host_ack) begin
        host_q <= 1'b0;
        sq_q   <= SQ_INVAL;
      end
{INVAL_AND_CHORD}      default: ;  // SQ_DONE, SQ_HALT: stay
    endcase
  end
end)",
                     fmt::arg("TB1", d.TB - 1), fmt::arg("RROW0", field(Opcode::RfLoad, "row0")),
                     fmt::arg("RROWS", field(Opcode::RfLoad, "rows")),
                     fmt::arg("RSCALE", field(Opcode::RfLoad, "scale")),
                     fmt::arg("LAUNCH_CASES", d.CJ ? kChordLaunchCases : kLaunchCases),
                     fmt::arg("INVAL_AND_CHORD", d.CJ ? kChordInvalAndStates : kInval));
}

}  // namespace

void add_sequencer(Design& design, const std::string& module, const SequencerShape& s) {
  const SeqDims d = seq_dims(s);
  const int AW = d.AW, G = d.G, TT = d.TT;
  SvModule m(module,
             "Sequencer of the top: runs the decoder's checked records one at a time. TENSOR\n"
             "records fill the tensor table (a RAM of descriptors by id); every other record\n"
             "reads the descriptors of the ids it names, is checked against them, and runs:\n"
             "a launch starts the engine and, when it ends, the store unit is drained and the\n"
             "load units' reuse windows emptied; HOST raises host_req until host_ack; END finishes.\n"
             "The first illegal record stops it with one sticky status bit.");
  const nlohmann::json params = {{"addr_bits", AW},       {"granule_bytes", G}, {"tensor_table", TT},
                                 {"rf_rows", s.rf_rows}, {"chord", s.chord}, {"chord_datapath", s.chord_datapath}};
  m.record_config(params);
  m.note(fmt::format("Tensor table entry: {{{}csr, flags[3:0], nnz[31:0], cols[31:0], rows[31:0], base_word}}.",
                     d.CJ ? "granules, " : ""));
  m.note("Slot k of a record names the id in bytes 2+2k..3+2k (launch: out, a, b, c; HOST: out, a, b).");
  sequencer_ports(m, d);
  sequencer_localparams(m, s, d);
  sequencer_signals(m, d);
  tensor_table(m, d);
  record_slots_section(m, d);
  tensor_region_section(m, d);
  checks_section(m, d);
  engine_descriptor_section(m, d);
  if (d.CJ) chord_section(m, d);
  m.section("Run", run_outputs(d) + run_state_machine(d));
  top_parts::finish_part(design, m, "sequencer", params);
}

}  // namespace cello::gen
