// SPMM's CSR streams and entry fetcher, parts of the stream engine
// (docs/top.md, "Stream engine").
#include <fmt/format.h>

#include "gen/top/stream_engine_parts.hpp"

namespace cello::gen::engine {

namespace {

// SPMM's entry fetcher: reads the row pointers of a group of up to 4 rows, then
// requests the group's column indices and values with the rows interleaved
// round robin (each row's entries stay in CSR order, so every accumulation
// chain is the executor's), and queues a tag per entry for the walker: its row
// in the group and whether it is the group's last. An empty group queues one
// "empty" tag, a damaged row pointer an "error" tag. The column index and value
// responses come back in request order, so the walker's n-th tag names the n-th
// column index and the executor's n-th scaled value.
void entry_fetcher_signals(SvModule& m, int WA, int CW, int Q, int QB) {
  const std::string pin = "pin the granule: the row's first entry, whose granule the row before ends in";
  m.source({"col_req", "SPMM column index stream", "a word read", "taken", {{"word", WA, "word address"}, {"pin", 1, pin}}});
  m.sink({"col_rsp", "SPMM column index stream", "the oldest word", "taken", {{"data", 32, "data"}}});
  m.source({"val_req", "SPMM value stream", "a word read", "taken", {{"word", WA, "word address"}, {"pin", 1, pin}}});
  m.sink({"val_rsp", "SPMM value stream", "the oldest word", "taken", {{"data", 32, "data"}}});
  m.signal("sf_ph_q", 3, "entry fetcher: phase (SF_*)");
  m.signal("sf_i_q", CW, "entry fetcher: first row of the group");
  m.signal("sf_pass_q", CW, "entry fetcher: pass (column block)");
  m.signal("sf_k_q", 2, "entry fetcher: row whose end pointer is read next");
  m.signal("sf_g", 2, "entry fetcher: last row of the group");
  m.signal("sf_prev", CW, "entry fetcher: start of row k (the previous row's end)");
  m.signal("sf_rem_q", CW, "entry fetcher: entries of the group not yet requested");
  m.array("sf_cur_q", CW, 4, "entry fetcher: next entry of row r");
  m.array("sf_end_q", CW, 4, "entry fetcher: end of row r's entries");
  m.signal("sf_rr_q", 2, "entry fetcher: round-robin start (the row after the last one served)");
  m.signal("sf_first_q", 4, "entry fetcher: row r has not yet requested an entry in this group");
  m.signal("sf_sel", 2, "entry fetcher: the row served next");
  m.signal("sf_col_sent_q", 1, "entry fetcher: the entry's column index read was taken");
  m.signal("sf_val_sent_q", 1, "entry fetcher: the entry's value read was taken");
  m.signal("sf_col_done", 1, "entry fetcher: column index read taken (before or now)");
  m.signal("sf_val_done", 1, "entry fetcher: value read taken (before or now)");
  m.signal("sf_emit", 1, "entry fetcher: the entry's reads are out, its tag enters the queue");
  m.signal("sf_tag_push", 1, "entry fetcher: a tag enters the queue");
  m.signal("sf_tag_in", 5, "entry fetcher: the tag {err, empty, last, row}");
  m.signal("sf_next_group", 1, "entry fetcher: the group is finished");
  m.signal("rp_word", 64, "SPMM: the row pointer, zero-extended for range checks");
  m.array("tg_q", 5, Q, "entry tags {err, empty, last, row} in request order");
  m.signal("tg_wr_q", QB, "entry tags: write pointer");
  m.signal("tg_rd_q", QB, "entry tags: read pointer");
  m.signal("tg_cnt_q", QB + 1, "entry tags: entries");
  m.signal("tg_space", 1, "entry tags: room for one more");
  m.signal("tg_valid", 1, "entry tags: the walker's next tag is there");
  m.signal("tg_head", 5, "entry tags: the oldest");
  m.signal("tg_pop", 1, "entry tags: the walker takes the oldest");
  m.signal("tg_entry", 1, "entry tags: the oldest names an entry (not an error or an empty group)");
  m.localparam("SF_IDLE", "3'd0", "entry fetcher phases");
  m.localparam("SF_RP0", "3'd1", "read row_ptr[0] (first word of a pass)");
  m.localparam("SF_RP", "3'd2", "read the group's row ends");
  m.localparam("SF_EN", "3'd3", "request the group's entries, rows interleaved");
  m.localparam("SF_ERR", "3'd4", "queue the error tag, then stop");
}

}  // namespace

// A sequential read stream (SPMM's row pointers): once per column block the
// words base .. base+count-1, issued as fast as its load unit takes them.
void csr_stream(SvModule& m, const std::string& s, const std::string& what, const std::string& base,
                const std::string& count, int WA, int CW) {
  m.source({s + "_req", what + " stream", "a word read", "taken", {{"word", WA, "word address"}}});
  m.sink({s + "_rsp", what + " stream", "the oldest word", "taken", {{"data", 32, "data"}}});
  m.signal(s + "_on_q", 1, what + " stream: reads still to issue");
  m.signal(s + "_idx_q", CW, what + " stream: next word");
  m.signal(s + "_pass_q", CW, what + " stream: pass (column block)");
  m.signal(s + "_count", CW, what + " stream: words per pass");
  m.section(what + " stream", fmt::format(R"(
assign {s}_count     = {count};
assign {s}_req_valid = {s}_on_q;
assign {s}_req_word  = {base} + {WA}'({s}_idx_q);
always_ff @(posedge clk) begin
  if (!rst_n) {s}_on_q <= 1'b0;
  else if (start && ph_q == F_IDLE && kind == KIND_SPMM) begin
    {s}_on_q   <= ({s}_count != '0);
    {s}_idx_q  <= '0;
    {s}_pass_q <= '0;
  end else if ({s}_on_q && {s}_req_ready) begin
    if ({s}_idx_q + {CW}'d1 == {s}_count) begin
      {s}_idx_q  <= '0;
      {s}_pass_q <= {s}_pass_q + {CW}'d1;
      if ({s}_pass_q + {CW}'d1 == col_blocks) {s}_on_q <= 1'b0;
    end else {s}_idx_q <= {s}_idx_q + {CW}'d1;
  end
end)",
                                          fmt::arg("s", s), fmt::arg("count", count), fmt::arg("base", base),
                                          fmt::arg("WA", WA), fmt::arg("CW", CW)));
}

void entry_fetcher(SvModule& m, int WA, int CW, int Q, int QB) {
  entry_fetcher_signals(m, WA, CW, Q, QB);
  m.section("SPMM entry fetcher", fmt::format(R"(
assign rp_word  = {{32'd0, rp_rsp_data}};
assign sf_g     = (row_hi - sf_i_q >= {CW}'d4) ? 2'd3 : 2'(row_hi - sf_i_q - {CW}'d1);
assign sf_prev  = (sf_k_q == 2'd0) ? sf_cur_q[0] : sf_end_q[sf_k_q - 2'd1];
assign rp_rsp_ready = (sf_ph_q == SF_RP0) || (sf_ph_q == SF_RP);
// The next row with entries left, round robin from sf_rr_q.
always_comb begin
  sf_sel = sf_rr_q;
  for (int o = 3; o >= 0; o--)
    if ((sf_rr_q + 2'(o)) <= sf_g && sf_cur_q[sf_rr_q + 2'(o)] != sf_end_q[sf_rr_q + 2'(o)]) sf_sel = sf_rr_q + 2'(o);
end
assign tg_space      = (tg_cnt_q != {QB1}'d{Q});
assign col_req_valid = (sf_ph_q == SF_EN) && (sf_rem_q != '0) && tg_space && !sf_col_sent_q;
assign val_req_valid = (sf_ph_q == SF_EN) && (sf_rem_q != '0) && tg_space && !sf_val_sent_q;
assign col_req_word  = csr_col_base + {WA}'(sf_cur_q[sf_sel]);
assign val_req_word  = csr_val_base + {WA}'(sf_cur_q[sf_sel]);
// A row's first entry pins its granule in the load units: the row before ends
// in that granule, and with the rows interleaved its last entries come late in
// the group, after the reuse window has moved on.
assign col_req_pin   = sf_first_q[sf_sel];
assign val_req_pin   = sf_first_q[sf_sel];
assign sf_col_done   = sf_col_sent_q || (col_req_valid && col_req_ready);
assign sf_val_done   = sf_val_sent_q || (val_req_valid && val_req_ready);
assign sf_emit       = (sf_ph_q == SF_EN) && (sf_rem_q != '0) && tg_space && sf_col_done && sf_val_done;
assign sf_tag_push   = sf_emit || (tg_space && (sf_ph_q == SF_ERR || (sf_ph_q == SF_EN && sf_rem_q == '0)));
assign sf_tag_in     = (sf_ph_q == SF_ERR) ? 5'b10000 : (sf_rem_q == '0) ? 5'b01100
                                           : {{2'b00, sf_rem_q == {CW}'d1, sf_sel}};
assign sf_next_group = sf_tag_push && (sf_ph_q == SF_EN) && (sf_rem_q <= {CW}'d1);
assign tg_valid      = (tg_cnt_q != '0);
assign tg_head       = tg_q[tg_rd_q];
assign tg_entry      = tg_valid && (tg_head[4:3] == 2'b00);
always_ff @(posedge clk) begin
  if (!rst_n) begin
    sf_ph_q  <= SF_IDLE;
    tg_wr_q  <= '0;
    tg_rd_q  <= '0;
    tg_cnt_q <= '0;
  end else begin
    if (sf_tag_push) begin
      tg_q[tg_wr_q] <= sf_tag_in;
      tg_wr_q <= tg_wr_q + {QB}'d1;
    end
    if (tg_pop) tg_rd_q <= tg_rd_q + {QB}'d1;
    tg_cnt_q <= tg_cnt_q + {QB1}'(sf_tag_push) - {QB1}'(tg_pop);
    if (col_req_valid && col_req_ready) sf_col_sent_q <= 1'b1;
    if (val_req_valid && val_req_ready) sf_val_sent_q <= 1'b1;
    if (sf_emit) begin
      sf_col_sent_q <= 1'b0;
      sf_val_sent_q <= 1'b0;
      sf_cur_q[sf_sel] <= sf_cur_q[sf_sel] + {CW}'d1;
      sf_rem_q <= sf_rem_q - {CW}'d1;
      sf_rr_q  <= sf_sel + 2'd1;
      sf_first_q[sf_sel] <= 1'b0;
    end
    case (sf_ph_q)
      SF_IDLE: if (start && ph_q == F_IDLE && kind == KIND_SPMM) begin
        sf_ph_q <= SF_RP0; sf_i_q <= row_lo; sf_pass_q <= '0;
        sf_col_sent_q <= 1'b0; sf_val_sent_q <= 1'b0;
      end
      SF_RP0: if (rp_rsp_valid) begin
        if (rp_word > 64'(csr_nnz)) sf_ph_q <= SF_ERR;
        else begin sf_cur_q[0] <= {CW}'(rp_rsp_data); sf_k_q <= '0; sf_ph_q <= SF_RP; end
      end
      SF_RP: if (rp_rsp_valid) begin
        if (rp_word > 64'(csr_nnz) || rp_word < 64'(sf_prev)) sf_ph_q <= SF_ERR;
        else begin
          sf_end_q[sf_k_q] <= {CW}'(rp_rsp_data);
          if (sf_k_q != 2'd0) sf_cur_q[sf_k_q] <= sf_prev;
          sf_k_q <= sf_k_q + 2'd1;
          if (sf_k_q == sf_g) begin
            sf_rem_q <= {CW}'(rp_rsp_data) - sf_cur_q[0];
            sf_rr_q  <= '0;
            sf_first_q <= 4'b1111;
            sf_ph_q  <= SF_EN;
          end
        end
      end
      SF_EN: if (sf_next_group) begin
        sf_k_q <= '0;
        if (row_hi - sf_i_q <= {CW}'d4) begin
          sf_i_q    <= row_lo;
          sf_pass_q <= sf_pass_q + {CW}'d1;
          sf_ph_q   <= (sf_pass_q + {CW}'d1 == col_blocks) ? SF_IDLE : SF_RP0;
        end else begin
          sf_i_q      <= sf_i_q + {CW}'d4;
          sf_cur_q[0] <= sf_end_q[sf_g];
          sf_ph_q     <= SF_RP;
        end
      end
      SF_ERR: if (tg_space) sf_ph_q <= SF_IDLE;
      default: sf_ph_q <= SF_IDLE;
    endcase
  end
end)",
                                                 fmt::arg("CW", CW), fmt::arg("WA", WA), fmt::arg("Q", Q),
                                                 fmt::arg("QB", QB), fmt::arg("QB1", QB + 1)));
}

}  // namespace cello::gen::engine
