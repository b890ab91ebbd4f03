#include "gen/pipeline_buffer/pipeline_buffer_gen.hpp"

#include <fmt/format.h>

#include "gen/buffet/buffet_gen.hpp"
#include "gen/sv_expr.hpp"
#include "gen/sv_module.hpp"

namespace cello::gen {

namespace {

struct Widths {
  int W, TILE, DT, DEPTH, TW, CNTW, OW;
  bool tile_pow2;
};

// Request side of one consumer ("imm" or "del"): tile counter, index, gating.
void consumer_logic(SvModule& m, const Widths& w, const std::string& x, bool buffered) {
  m.signal(x + "_cnt_q", w.CNTW, "tiles this consumer finished that are not shrunk yet (its tile's offset)");
  m.signal(x + "_index", w.OW, "buffet index of the request: cnt * TILE + idx");
  m.signal(x + "_bad", 1, "request index outside the tile: dropped and flagged");
  m.signal(x + "_can", 1, "request can be sent to the buffet now");
  m.signal(x + "_fire", 1, "request accepted by the buffet");
  std::string bad = w.tile_pow2 ? "1'b0" : fmt::format("{}_req_idx >= {}", x, sv_const(w.TW, w.TILE));
  std::string room = buffered ? fmt::format(" && ({}_owed_q != 2'd2)", x) : "";
  m.section("Consumer '" + x + "': requests are indices within its current tile", fmt::format(R"(
assign {x}_index = {cnt} * {tile} + {idx};
assign {x}_bad   = {x}_req_valid && ({bad});
assign {x}_can   = {x}_req_valid && !({bad}) && ({x}_cnt_q < {dt}) && ({x}_index < occ_q){room};)",
                                                                                          fmt::arg("x", x), fmt::arg("cnt", zext(x + "_cnt_q", w.CNTW, w.OW)),
                                                                                          fmt::arg("tile", sv_const(w.OW, w.TILE)),
                                                                                          fmt::arg("idx", zext(x + "_req_idx", w.TW, w.OW)), fmt::arg("bad", bad),
                                                                                          fmt::arg("dt", sv_const(w.CNTW, w.DT)), fmt::arg("room", room)));
}

SvModule buffer_module(const PipelineBufferConfig& c, bool del) {
  SvModule m(c.name,
             "Pipeline buffer: tiles of TILE elements flow from a producer op to a consumer op\n"
             "through a buffet (gen/buffet). The producer appends elements in order; each\n"
             "consumer reads elements of its current tile by index (any order, repeats allowed)\n"
             "and marks its last read of a tile with req_last, which moves it to the next tile.\n"
             "A tile is shrunk (its slots freed) only when every consumer has finished it; the\n"
             "buffet's credits for freed slots are taken here and gate the producer." +
                 std::string(del ? "\nDelayed hold: the delayed consumer (del_*) reads the same tiles later; the\n"
                                   "buffer holds up to HOLD tiles for it beyond the two the producer and the\n"
                                   "immediate consumer stream through, and back-pressures the producer after that."
                                 : ""));
  m.record_config(c.to_json());
  m.note(fmt::format("TILE = {}, {} tiles of storage ({} elements), {}.", c.tile, c.depth_tiles(), c.depth(),
                     del ? fmt::format("delayed-hold depth {} tiles", c.hold_tiles)
                         : "no delayed consumer (pipelineable edge; del_* ports removed)"));
  return m;
}

// Request and response ports of one consumer ("imm" or "del").
void consumer_ports(SvModule& m, const Widths& w, const std::string& x, const std::string& who) {
  m.sink({x + "_req", who, "read request offered", "read request accepted",
          {{"idx", w.TW, "element index within the current tile"},
           {"last", 1, "last read of the current tile (then the next tile)"}}});
  m.source({x + "_rsp", who, "read data offered (in request order)", "read data taken", {{"data", w.W, "read data"}}});
}

// Producer port, the consumers' ports and the status port.
void declare_ports(SvModule& m, const Widths& w, bool del) {
  m.clock_reset();
  m.sink({"prod", "producer", "element offered", "element accepted (a free slot exists)",
          {{"data", w.W, "element, appended in order"}}});
  consumer_ports(m, w, "imm", "immediate consumer");
  if (del) consumer_ports(m, w, "del", "delayed consumer");
  m.output("status_err", 5, "sticky: [4] request index >= TILE (dropped); [3:0] the buffet's status");
}

// Occupancy and credit mirrors, and the nets to and from the buffet.
void declare_buffet_nets(SvModule& m, const Widths& w, bool del) {
  m.signal("occ_q", w.OW, "elements in the buffet (mirrors its occupancy)");
  m.signal("free_q", w.OW, "slots credited by the buffet and not yet filled");
  m.signal("credit_valid", 1, "buffet returns credits");
  m.signal("credit_num", w.OW, "credits returned");
  m.signal("err_q", 1, "sticky: request index outside the tile");
  m.signal("fill_fire", 1, "producer handshake");
  m.signal("buf_fill_ready", 1, "buffet has a free slot");
  m.signal("fill_offer", 1, "element offered to the buffet");
  m.signal("shr_valid", 1, "shrink one tile");
  m.signal("shr_ready", 1, "buffet accepts the shrink");
  m.signal("shr_fire", 1, "tile shrunk");
  m.signal("rd_req_valid", 1, "buffet read request");
  m.signal("rd_req_ready", 1, "buffet read accepted");
  m.signal("rd_req_idx", w.OW, "buffet read index");
  m.signal("rd_fire", 1, "buffet read handshake");
  m.signal("rd_rsp_valid", 1, "buffet read data valid");
  m.signal("rd_rsp_ready", 1, "buffet read data taken");
  m.signal("rd_rsp_data", w.W, "buffet read data");
  m.signal("buf_err", 4, "buffet status");
  if (del) {
    m.signal("imm_owed_q", 2, "imm responses requested but not yet taken (<= 2)");
    m.signal("del_owed_q", 2, "del responses requested but not yet taken (<= 2)");
  }
}

// Producer: fills on the buffet's credits; occupancy and free-slot counters.
void producer(SvModule& m, const Widths& w) {
  m.section("Producer: fills the buffet on the credits it returns (DEPTH after reset, TILE per freed tile)", R"(
assign fill_offer = prod_valid && (free_q != '0);  // never waits for the buffet's fill_ready
assign prod_ready = buf_fill_ready && (free_q != '0);
assign fill_fire  = prod_valid && prod_ready;
always_ff @(posedge clk) begin
  if (!rst_n) begin
    occ_q  <= '0;
    free_q <= '0;
  end else begin
    occ_q  <= occ_q + {{(OCC_W-1){1'b0}}, fill_fire} - (shr_fire ? TILE_W : '0);
    free_q <= free_q + (credit_valid ? credit_num : '0) - {{(OCC_W-1){1'b0}}, fill_fire};
  end
end)");
  // The section above uses two helper parameters declared here.
  m.localparam("OCC_W", std::to_string(w.OW), "width of occupancy counts");
  m.localparam("TILE_W", sv_const(w.OW, w.TILE), "TILE at that width");
}

// Tile counter of consumer x: one up on its last read of a tile, one down per shrunk tile.
std::string tile_count_step(const Widths& w, const std::string& x) {
  return fmt::format("{0}_cnt_q <= {0}_cnt_q + {{{1}, {0}_fire && {0}_req_last}} - {{{1}, shr_fire}};", x,
                     sv_const(w.CNTW - 1, 0));
}

// One consumer: reads pass straight through; a tile is shrunk once the consumer finished it.
void single_consumer(SvModule& m, const Widths& w) {
  m.section("Reads: one consumer, straight through", R"(
assign rd_req_valid  = imm_can;
assign rd_req_idx    = imm_index;
assign rd_fire       = rd_req_valid && rd_req_ready;
assign imm_fire      = rd_fire;
assign imm_req_ready = imm_bad || imm_fire;
assign imm_rsp_valid = rd_rsp_valid;
assign imm_rsp_data  = rd_rsp_data;
assign rd_rsp_ready  = imm_rsp_ready;)");
  m.section("Shrink: a tile leaves once the consumer has finished it", fmt::format(R"(
assign shr_valid = imm_cnt_q != {zero};
assign shr_fire  = shr_valid && shr_ready;
always_ff @(posedge clk) begin
  if (!rst_n) imm_cnt_q <= {zero};
  else {imm_step}
end)",
                                                                                           fmt::arg("zero", sv_const(w.CNTW, 0)),
                                                                                           fmt::arg("imm_step", tile_count_step(w, "imm"))));
}

// Delayed hold: arbitration lock, response tag queue and the per-consumer response queues.
void declare_two_consumer_signals(SvModule& m, const Widths& w) {
  m.signal("lock_q", 1, "a request is offered to the buffet and not yet taken: keep it");
  m.signal("lock_del_q", 1, "which consumer the held request belongs to");
  m.signal("prefer_del_q", 1, "round-robin: del wins the next conflict");
  m.signal("sel_del", 1, "the buffet request is the delayed consumer's");
  m.signal("tag_q", 4, "consumer of each outstanding buffet read (1 = del), oldest at rd_ptr_q");
  m.signal("wr_ptr_q", 2, "tag queue write pointer");
  m.signal("rd_ptr_q", 2, "tag queue read pointer");
  m.signal("rsp_del", 1, "the buffet response belongs to del");
  m.array("imm_buf_q", w.W, 2, "imm response queue");
  m.array("del_buf_q", w.W, 2, "del response queue");
  m.signal("imm_n_q", 2, "entries in imm_buf_q");
  m.signal("del_n_q", 2, "entries in del_buf_q");
  m.signal("imm_push", 1, "response into imm_buf_q");
  m.signal("del_push", 1, "response into del_buf_q");
  m.signal("imm_pop", 1, "imm takes a response");
  m.signal("del_pop", 1, "del takes a response");
}

// Round-robin arbitration of the two consumers' requests for the buffet's read port.
void read_arbitration(SvModule& m) {
  m.section("Read arbitration: round robin; a request offered to the buffet stays until taken", R"(
always_comb begin
  if (lock_q) sel_del = lock_del_q;
  else if (imm_can && del_can) sel_del = prefer_del_q;
  else sel_del = del_can;
end
assign rd_req_valid  = sel_del ? del_can : imm_can;
assign rd_req_idx    = sel_del ? del_index : imm_index;
assign rd_fire       = rd_req_valid && rd_req_ready;
assign imm_fire      = rd_fire && !sel_del;
assign del_fire      = rd_fire && sel_del;
assign imm_req_ready = imm_bad || imm_fire;
assign del_req_ready = del_bad || del_fire;
always_ff @(posedge clk) begin
  if (!rst_n) begin
    lock_q       <= 1'b0;
    lock_del_q   <= 1'b0;
    prefer_del_q <= 1'b0;
  end else begin
    lock_q     <= rd_req_valid && !rd_req_ready;
    lock_del_q <= sel_del;
    if (rd_fire) prefer_del_q <= !sel_del;
  end
end)");
}

// Buffet responses, steered by the tag queue into one 2-entry queue per consumer.
void response_queues(SvModule& m) {
  m.section("Responses: in request order into per-consumer queues, so one consumer never blocks the other", R"(
assign rd_rsp_ready = 1'b1;  // a queue slot was reserved when the read was sent (owed <= 2)
assign rsp_del      = tag_q[rd_ptr_q];
assign imm_push     = rd_rsp_valid && !rsp_del;
assign del_push     = rd_rsp_valid && rsp_del;
assign imm_rsp_valid = imm_n_q != 2'd0;
assign del_rsp_valid = del_n_q != 2'd0;
assign imm_rsp_data  = imm_buf_q[0];
assign del_rsp_data  = del_buf_q[0];
assign imm_pop       = imm_rsp_valid && imm_rsp_ready;
assign del_pop       = del_rsp_valid && del_rsp_ready;
always_ff @(posedge clk) begin
  if (!rst_n) begin
    wr_ptr_q   <= 2'd0;
    rd_ptr_q   <= 2'd0;
    imm_n_q    <= 2'd0;
    del_n_q    <= 2'd0;
    imm_owed_q <= 2'd0;
    del_owed_q <= 2'd0;
  end else begin
    if (rd_fire) wr_ptr_q <= wr_ptr_q + 2'd1;
    if (rd_rsp_valid) rd_ptr_q <= rd_ptr_q + 2'd1;
    imm_n_q    <= imm_n_q + {1'b0, imm_push} - {1'b0, imm_pop};
    del_n_q    <= del_n_q + {1'b0, del_push} - {1'b0, del_pop};
    imm_owed_q <= imm_owed_q + {1'b0, imm_fire} - {1'b0, imm_pop};
    del_owed_q <= del_owed_q + {1'b0, del_fire} - {1'b0, del_pop};
  end
end
always_ff @(posedge clk) begin
  if (rd_fire) tag_q[wr_ptr_q] <= sel_del;
  // Queue of two: pop shifts entry 1 down; a push lands behind what remains.
  if (imm_pop) imm_buf_q[0] <= (imm_n_q == 2'd2) ? imm_buf_q[1] : rd_rsp_data;
  else if (imm_push && imm_n_q == 2'd0) imm_buf_q[0] <= rd_rsp_data;
  if (imm_push && ((imm_n_q == 2'd1 && !imm_pop) || (imm_n_q == 2'd2 && imm_pop))) imm_buf_q[1] <= rd_rsp_data;
  if (del_pop) del_buf_q[0] <= (del_n_q == 2'd2) ? del_buf_q[1] : rd_rsp_data;
  else if (del_push && del_n_q == 2'd0) del_buf_q[0] <= rd_rsp_data;
  if (del_push && ((del_n_q == 2'd1 && !del_pop) || (del_n_q == 2'd2 && del_pop))) del_buf_q[1] <= rd_rsp_data;
end)");
}

// Delayed hold: a tile is shrunk only once both consumers have finished it.
void two_consumer_shrink(SvModule& m, const Widths& w) {
  m.section("Shrink (delayed hold): a tile leaves only after both consumers have finished it",
            fmt::format(R"(
assign shr_valid = (imm_cnt_q != {zero}) && (del_cnt_q != {zero});
assign shr_fire  = shr_valid && shr_ready;
always_ff @(posedge clk) begin
  if (!rst_n) begin
    imm_cnt_q <= {zero};
    del_cnt_q <= {zero};
  end else begin
    {imm_step}
    {del_step}
  end
end)",
                        fmt::arg("zero", sv_const(w.CNTW, 0)), fmt::arg("imm_step", tile_count_step(w, "imm")),
                        fmt::arg("del_step", tile_count_step(w, "del"))));
}

// Sticky out-of-tile flag beside the buffet's own status.
void status(SvModule& m, bool del) {
  std::string bad = del ? "imm_bad || del_bad" : "imm_bad";
  m.section("Status", fmt::format(R"(
always_ff @(posedge clk) begin
  if (!rst_n) err_q <= 1'b0;
  else if ({}) err_q <= 1'b1;
end
assign status_err = {{err_q, buf_err}};)",
                                  bad));
}

// The buffet instance; shrinks are always one tile, credits are always taken.
void buffet_instance(SvModule& m, const BuffetConfig& bc) {
  m.instantiate(bc.name, "u_buffet")
      .connect("clk", "clk")
      .connect("rst_n", "rst_n")
      .connect("fill_valid", "fill_offer")
      .connect("fill_ready", "buf_fill_ready")
      .connect("fill_data", "prod_data")
      .connect("rd_req_valid", "rd_req_valid")
      .connect("rd_req_ready", "rd_req_ready")
      .connect("rd_req_idx", "rd_req_idx")
      .connect("rd_rsp_valid", "rd_rsp_valid")
      .connect("rd_rsp_ready", "rd_rsp_ready")
      .connect("rd_rsp_data", "rd_rsp_data")
      .connect("shr_valid", "shr_valid")
      .connect("shr_ready", "shr_ready")
      .connect("shr_num", "TILE_W")
      .connect("credit_valid", "credit_valid")
      .connect("credit_ready", "1'b1")
      .connect("credit_num", "credit_num")
      .connect("status_err", "buf_err");
}

// The block record for the design's manifest: modules, parameters and ports.
void record_block(Design& design, const SvModule& m, const PipelineBufferConfig& c, const BuffetConfig& bc) {
  nlohmann::json block = block_entry(m, "pipeline_buffer", c.to_json());
  block["buffet_module"] = bc.name;
  design.blocks.push_back(std::move(block));
}

}  // namespace

void add_pipeline_buffer(Design& design, const PipelineBufferConfig& c) {
  BuffetConfig bc = c.buffet();
  add_buffet(design, bc);  // the storage: gen/buffet's buffet, specialised
  Widths w{c.data_width, c.tile, c.depth_tiles(), c.depth(), bits_for(c.tile - 1), bits_for(c.depth_tiles()),
           bits_for(c.depth()), (1LL << bits_for(c.tile - 1)) == c.tile};
  const bool del = c.delayed();

  SvModule m = buffer_module(c, del);
  declare_ports(m, w, del);
  declare_buffet_nets(m, w, del);
  consumer_logic(m, w, "imm", del);
  if (del) consumer_logic(m, w, "del", true);
  producer(m, w);
  if (!del) {
    single_consumer(m, w);
  } else {
    declare_two_consumer_signals(m, w);
    read_arbitration(m);
    response_queues(m);
    two_consumer_shrink(m, w);
  }
  status(m, del);
  buffet_instance(m, bc);

  record_block(design, m, c, bc);
  design.modules.push_back(std::move(m));
}

}  // namespace cello::gen
