#include "gen/top/cmd_decoder_gen.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstring>
#include <vector>

#include "sw/stream/format.hpp"
#include "gen/sv_module.hpp"
#include "gen/top/top_gen_parts.hpp"

namespace cello::gen {

namespace {

using stream::FieldKind;
using stream::FieldSpec;
using stream::OpcodeSpec;

// `rec_q` bits of a field, e.g. rec_q[8*14 +: 16].
std::string bits(unsigned offset, unsigned width) { return fmt::format("rec_q[{} +: {}]", 8 * offset, width); }

// Conditions (ANDed) a field must meet; mirrors field_problem() in sw/stream/format.cpp.
std::vector<std::string> field_checks(const FieldSpec& f) {
  std::vector<std::string> c;
  const unsigned W = 8u * f.bytes;
  const std::string v = bits(f.offset, W);
  const uint64_t full = W >= 64 ? ~uint64_t{0} : (uint64_t{1} << W) - 1;
  switch (f.kind) {
    case FieldKind::Uint:
    case FieldKind::Hex:
      if (f.min > 0) c.push_back(fmt::format("({} >= {}'d{})", v, W, f.min));
      if (f.max < full) c.push_back(fmt::format("({} <= {}'d{})", v, W, f.max));
      break;
    case FieldKind::F32:  // finite: the exponent is not all ones
      c.push_back(fmt::format("(rec_q[{} +: 8] != 8'hff)", 8 * f.offset + 23));
      break;
    case FieldKind::Enum: {
      const uint64_t hi = std::min<uint64_t>(f.max, f.names.size() - 1);
      if (f.min > 0) c.push_back(fmt::format("({} >= {}'d{})", v, W, f.min));
      c.push_back(fmt::format("({} <= {}'d{})", v, W, hi));
      break;
    }
    case FieldKind::Flags:
      c.push_back(fmt::format("(rec_q[{}:{}] == '0)", 8 * f.offset + W - 1, 8 * f.offset + f.names.size()));
      break;
    case FieldKind::Binds:  // four 4-bit bindings, each at most 4 (rf)
      for (unsigned k = 0; k < 4; ++k) c.push_back(fmt::format("(rec_q[{} +: 4] <= 4'd4)", 8 * f.offset + 4 * k));
      break;
    case FieldKind::Uses:  // four 2-bit uses, 3 is undefined
      for (unsigned k = 0; k < 4; ++k) c.push_back(fmt::format("(rec_q[{} +: 2] != 2'd3)", 8 * f.offset + 2 * k));
      break;
    case FieldKind::Text:  // printable characters, then NUL padding to the end
      c.push_back(fmt::format("text_ok_{}", f.offset));
      break;
  }
  return c;
}

// The terms joined by `sep`, or `empty` when there are none.
std::string join(const std::vector<std::string>& parts, const std::string& sep, const std::string& empty) {
  return parts.empty() ? empty : fmt::format("{}", fmt::join(parts, sep));
}

std::string lower(const char* s) {
  std::string r(s);
  for (auto& ch : r) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return r;
}

// Ports: the command port in, checked records out, and the decoder's status.
void decoder_ports(SvModule& m) {
  m.clock_reset();
  m.sink(top_parts::command_port());
  m.source(top_parts::record_port());
  m.output("memory_bytes", 64, "the header's DRAM image size (valid once running)");
  m.output("running", 1, "the header was accepted; records are being decoded");
  m.output("done", 1, "every record up to END was handed on and the stream ended there");
  m.output("halted", 1, "stopped at an illegal command (status and err_record say which)");
  m.output("status", stream::kStatusBits, "sticky status bits (docs/commands.md): bad_opcode, bad_field, bad_tensor, bad_address, bad_order, chord_error, protocol");
  m.output("err_record", 64, "index of the record that stopped the decoder (0 for the header)");
  m.output("err_in_header", 1, "the problem is in the header");
}

// Constants: what the header must hold for this top, status bits and states.
void decoder_localparams(SvModule& m, const arch::Arch& a) {
  m.localparam("CONFIG_HASH", fmt::format("64'h{}", stream::config_hash_hex(a.config_hash)), "hash of the hardware config of this top");
  m.localparam("GRANULE_BYTES", fmt::format("16'd{}", a.granule_bytes), "DRAM burst (top.granule_bytes)");
  m.localparam("MEMORY_BYTES", fmt::format("64'd{}", a.memory_bytes), "largest DRAM image (top.memory_mb)");
  uint64_t magic = 0;
  std::memcpy(&magic, stream::kMagic, 8);
  m.localparam("MAGIC", fmt::format("64'h{:016x}", magic), "\"CELLOCMD\" read as a little-endian 64-bit number");
  // The bits this part can raise; the later parts of the top raise the others.
  for (auto b : {stream::StatusBit::BadOpcode, stream::StatusBit::BadField, stream::StatusBit::BadAddress,
                 stream::StatusBit::BadOrder})
    m.localparam(fmt::format("ST_{}", stream::to_string(b)), std::to_string(static_cast<int>(b)), "status bit");
  m.localparam("S_HDR", "3'd0", "state: collecting the 12 header words");
  m.localparam("S_HCHK", "3'd1", "state: checking the header");
  m.localparam("S_REC", "3'd2", "state: collecting the 8 words of a record");
  m.localparam("S_CHK", "3'd3", "state: checking the record; offering it when legal");
  m.localparam("S_DONE", "3'd4", "state: the stream ended after its END");
  m.localparam("S_HALT", "3'd5", "state: stopped at an illegal command");
}

// Registers and combinational signals (the per-opcode ones come with the record check).
void decoder_signals(SvModule& m) {
  m.signal("state_q", 3, "decoder state");
  m.signal("word_q", 4, "word index inside the header or the record");
  m.signal("hdr_q", 384, "header bytes");
  m.signal("rec_q", 256, "record bytes");
  m.signal("last_q", 1, "cmd_last came with the final word of the header or record");
  m.signal("index_q", 64, "index of the record being collected or checked");
  m.signal("ended_q", 1, "an END has been handed on");
  m.signal("status_q", stream::kStatusBits, "sticky status");
  m.signal("err_record_q", 64, "record index of the stop");
  m.signal("err_hdr_q", 1, "the stop was in the header");
  m.signal("take", 1, "a command word is taken this cycle");
  m.signal("final_word", 1, "the word taken completes the header or the record");
  m.signal("hdr_records", 64, "header: record count");
  m.signal("hdr_field_ok", 1, "header: every field except the memory size is legal for this top");
  m.signal("rec_op", 8, "the record's opcode");
  m.signal("op_known", 1, "the opcode is defined");
  m.signal("fields_ok", 1, "every field of the known opcode is legal and its reserved bytes are 0");
  m.signal("is_final", 1, "the record is the last one the header announces");
  m.signal("rec_err", 1, "the record stops the decoder");
  m.signal("rec_err_bit", 3, "status bit the record raises");
}

// The command port and the state machine: collect the header, check it, then
// collect and check one record at a time.
void command_port_section(SvModule& m) {
  m.section("Command port and state", R"(
assign take       = cmd_valid && cmd_ready;
assign cmd_ready  = (state_q == S_HDR) || (state_q == S_REC);
assign final_word = (state_q == S_HDR) ? (word_q == 4'd11) : (word_q == 4'd7);
always_ff @(posedge clk) begin
  if (!rst_n) begin
    state_q      <= S_HDR;
    word_q       <= 4'd0;
    hdr_q        <= '0;
    rec_q        <= '0;
    last_q       <= 1'b0;
    index_q      <= 64'd0;
    ended_q      <= 1'b0;
    status_q     <= '0;
    err_record_q <= 64'd0;
    err_hdr_q    <= 1'b0;
  end else begin
    case (state_q)
      S_HDR, S_REC: if (take) begin
        if (state_q == S_HDR) hdr_q[32*word_q +: 32] <= cmd_data;
        else                  rec_q[32*word_q[2:0] +: 32] <= cmd_data;
        word_q <= final_word ? 4'd0 : word_q + 4'd1;
        last_q <= cmd_last;
        if (cmd_last && !final_word) begin
          // The stream ended inside the header or a record.
          state_q             <= S_HALT;
          status_q[ST_bad_field] <= 1'b1;
          err_record_q        <= index_q;
          err_hdr_q           <= (state_q == S_HDR);
        end else if (final_word) begin
          state_q <= (state_q == S_HDR) ? S_HCHK : S_CHK;
        end
      end
      S_HCHK: begin
        if (!hdr_field_ok || hdr_q[256 +: 64] > MEMORY_BYTES) begin
          state_q   <= S_HALT;
          err_hdr_q <= 1'b1;
          if (!hdr_field_ok) status_q[ST_bad_field]   <= 1'b1;
          else               status_q[ST_bad_address] <= 1'b1;
        end else if (hdr_records == 64'd0) begin
          state_q                <= S_HALT;   // no END at all
          status_q[ST_bad_order] <= 1'b1;
        end else if (last_q) begin
          state_q                <= S_HALT;   // the file ends after its header
          status_q[ST_bad_field] <= 1'b1;
        end else begin
          state_q <= S_REC;
        end
      end
      S_CHK: begin
        if (rec_err) begin
          state_q              <= S_HALT;
          status_q[rec_err_bit] <= 1'b1;
          err_record_q         <= index_q;
        end else if (rec_ready) begin
          ended_q <= ended_q || is_end;
          index_q <= index_q + 64'd1;
          state_q <= last_q ? S_DONE : S_REC;
        end
      end
      default: ;  // S_DONE, S_HALT: stay
    endcase
  end
end)");
}

// The header's fields against this top.
void header_check_section(SvModule& m) {
  m.section("Header check", R"(
assign hdr_records  = hdr_q[192 +: 64];
assign hdr_field_ok = (hdr_q[0 +: 64] == MAGIC)
                   && (hdr_q[64 +: 16] == 16'd1)          // version
                   && (hdr_q[80 +: 16] == 16'd32)         // record size
                   && (hdr_q[96 +: 16] == GRANULE_BYTES)
                   && (hdr_q[112 +: 16] == 16'd4)         // word size
                   && (hdr_q[128 +: 64] == CONFIG_HASH)
                   && (hdr_q[320 +: 64] == 64'd0);        // reserved)");
}

// A text field: declares its `text_ok_<offset>` signal and returns its assignment.
std::string text_field_check(SvModule& m, const OpcodeSpec& spec, const FieldSpec& f) {
  const std::string sig = fmt::format("text_ok_{}", f.offset);
  m.signal(sig, 1, fmt::format("{} {}: printable characters (no space, quote or backslash), then NUL padding", spec.name, f.name));
  std::vector<std::string> chars;
  for (unsigned i = 0; i < f.bytes; ++i) {
    const std::string c = fmt::format("rec_q[{} +: 8]", 8 * (f.offset + i));
    std::string t = fmt::format("(({0} == 8'd0) || (({0} > 8'h20) && ({0} < 8'h7f) && ({0} != 8'h22) && ({0} != 8'h5c)))", c);
    if (i > 0) t += fmt::format(" && ((rec_q[{} +: 8] != 8'd0) || ({} == 8'd0))", 8 * (f.offset + i - 1), c);
    chars.push_back(t);
  }
  return fmt::format("assign {} = {};\n", sig, join(chars, "\n    && ", "1'b1"));
}

// One legality term per opcode, from the field table: is_<op>, ok_<op>,
// op_known and fields_ok.
void record_check_section(SvModule& m) {
  std::string per_op, text_checks;
  std::vector<std::string> known, legal;
  for (const OpcodeSpec& spec : stream::opcode_table()) {
    const auto covered = stream::covered_bytes(spec);
    std::vector<std::string> checks;
    for (const FieldSpec& f : spec.fields) {
      if (f.kind == FieldKind::Text) text_checks += text_field_check(m, spec, f);
      for (auto& c : field_checks(f)) checks.push_back(c);
    }
    for (unsigned k = 1; k < stream::kRecordBytes; ++k)
      if (!covered[k]) checks.push_back(fmt::format("(rec_q[{} +: 8] == 8'd0)", 8 * k));
    const std::string op = lower(spec.name);
    m.signal("is_" + op, 1, fmt::format("opcode {} (0x{:02x})", spec.name, static_cast<unsigned>(spec.op)));
    m.signal("ok_" + op, 1, fmt::format("{}: fields in range, reserved bytes 0", spec.name));
    per_op += fmt::format("assign is_{0} = (rec_op == 8'h{1:02x});\nassign ok_{0} = {2};\n", op,
                          static_cast<unsigned>(spec.op), join(checks, "\n    && ", "1'b1"));
    known.push_back("is_" + op);
    legal.push_back(fmt::format("(is_{0} && ok_{0})", op));
  }
  m.section("Record check (generated from the command-stream field table)",
            "assign rec_op = rec_q[7:0];\n" + text_checks + per_op +
                fmt::format("assign op_known  = {};\nassign fields_ok = {};\n", join(known, " || ", "1'b0"),
                            join(legal, "\n                || ", "1'b0")));
}

// Stream order, the record's stop decision and the outputs.
void stream_order_section(SvModule& m) {
  m.section("Stream order and stop", R"(
assign is_final = (index_q == hdr_records - 64'd1);
// First problem wins, in this order (exec::front_end_scan is the same):
// opcode, fields, a record after END, the last record is not END, the file's
// length disagrees with the header's record count.
always_comb begin
  rec_err     = 1'b1;
  rec_err_bit = 3'(ST_bad_field);
  if (!op_known)                        rec_err_bit = 3'(ST_bad_opcode);
  else if (!fields_ok)                  rec_err_bit = 3'(ST_bad_field);
  else if (ended_q)                     rec_err_bit = 3'(ST_bad_order);
  else if (is_final && !is_end)         rec_err_bit = 3'(ST_bad_order);
  else if (last_q != is_final)          rec_err_bit = 3'(ST_bad_field);
  else                                  rec_err     = 1'b0;
end
assign rec_valid     = (state_q == S_CHK) && !rec_err;
assign rec_data      = rec_q;
assign rec_index     = index_q;
assign memory_bytes  = hdr_q[256 +: 64];
assign running       = (state_q == S_REC) || (state_q == S_CHK);
assign done          = (state_q == S_DONE);
assign halted        = (state_q == S_HALT);
assign status        = status_q;
assign err_record    = err_record_q;
assign err_in_header = err_hdr_q;)");
}

}  // namespace

void add_cmd_decoder(Design& design, const std::string& module, const arch::Arch& a) {
  SvModule m(module,
             "Command decoder of the top: reads commands.bin one 32-bit little-endian word per\n"
             "handshake (cmd_last on the file's final word), checks the 48-byte header against\n"
             "this top and each 32-byte record against the command-stream field table\n"
             "(docs/commands.md), and hands legal records on in order (rec_*). At the first\n"
             "problem it stops: one sticky status bit, the record index in err_record, halted\n"
             "high, and both ports idle. It never waits for words after cmd_last.");
  const nlohmann::json params = {{"config_hash", stream::config_hash_hex(a.config_hash)},
                                 {"granule_bytes", a.granule_bytes},
                                 {"memory_bytes", a.memory_bytes}};
  m.record_config(params);
  m.note("The record checks below are generated from the field table of sw/stream/format.cpp;");
  m.note("exec::front_end_scan() (sw/exec/front_end.cpp) is the reference model.");
  decoder_ports(m);
  decoder_localparams(m, a);
  decoder_signals(m);
  command_port_section(m);
  header_check_section(m);
  record_check_section(m);
  stream_order_section(m);
  top_parts::finish_part(design, m, "cmd_decoder", params);
}

}  // namespace cello::gen
