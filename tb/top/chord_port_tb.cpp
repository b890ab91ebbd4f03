// Randomised test of the top's CHORD units port (`<top>_chord_port`) against a
// cycle-level reference of its documented behaviour (docs/top.md, "CHORD's
// units port"). The testbench plays every neighbour with random timing:
//  - the read clients (the load units): reads held until taken, each under a
//    tag from the client's own pool, read data taken with random back-pressure;
//    the fields of a client that offers nothing are random;
//  - the store unit (writes with random strobes, acknowledgements taken with
//    random back-pressure, in one segment in four almost never, so the
//    acknowledgement counter fills) and the fill path;
//  - CHORD: random read and write ready, read data in request order after a
//    random delay, and in half the segments, now and then, read data when no
//    read waits (a stray: taken, dropped, proto_err set).
// Checked every cycle against the reference: which client is granted (round
// robin after the last one), the read slot's request to CHORD (and that it
// waits while the routing FIFO is full), which client gets CHORD's data under
// which tag, the write port's choice between store and fill and its fields,
// the ready signals, the acknowledgements, idle and proto_err.
// Built for each top config with CHORD (Vchord_port).
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <deque>
#include <optional>
#include <vector>

#include "Vchord_port.h"
#include "gen/hw_config.hpp"
#include "gen/top/chord_port_gen.hpp"
#include "gen/top/top_gen.hpp"
#include "gen/top/top_config.hpp"
#include "tb/harness/checked.hpp"
#include "tb/harness/port_words.hpp"
#include "tb/harness/rng.hpp"
#include "tb/harness/sim.hpp"

using namespace cello;
using namespace cello::tb;

namespace {

constexpr uint64_t kAckMax = 255;  // the port's acknowledgement counter (8 bits)

std::vector<uint32_t> u64_words(uint64_t v) { return {static_cast<uint32_t>(v), static_cast<uint32_t>(v >> 32)}; }

uint64_t words_u64(const std::vector<uint32_t>& w) {
  return w.empty() ? 0 : (w.size() == 1 ? w[0] : w[0] | uint64_t{w[1]} << 32);
}

struct Read {
  uint64_t addr = 0, id = 0;
  uint32_t tag = 0;
};

struct Write {
  uint64_t addr = 0, id = 0;
  std::vector<uint32_t> data, strb;
};

// A read CHORD has taken: who asked, and the data CHORD will answer with.
struct Taken {
  unsigned client;
  uint32_t tag;
  std::vector<uint32_t> data;
  uint64_t ready_at;  // cycle from which CHORD offers the data
};

struct Totals {
  uint64_t reads = 0, stores = 0, fills = 0, acks = 0, route_full = 0, ack_full = 0, strays = 0;
};

class Segment {
 public:
  Segment(Sim<Vchord_port>& sim, Rng& rng, const gen::ChordPortShape& s, bool strays, bool ack_backlog, bool deep)
      : sim_(sim), d_(sim.dut()), rng_(rng), s_(s), N_(static_cast<unsigned>(s.clients)),
        GB_(static_cast<unsigned>(std::countr_zero(static_cast<unsigned>(s.granule_bytes)))),
        WA_(static_cast<unsigned>(s.addr_bits) - GB_), DW_(static_cast<unsigned>(s.granule_bytes) / 4),
        SW_((static_cast<unsigned>(s.granule_bytes) + 31) / 32), strays_(strays), ack_backlog_(ack_backlog),
        clients_(N_), last_(N_ - 1) {
    for (auto& c : clients_) {
      const uint64_t n = 20 + rng.below(120);
      for (uint64_t i = 0; i < n; ++i) c.todo.push_back({random_addr(), rng.bits(s.id_bits), 0});
      // A pool of distinct tags: at most that many reads outstanding (1 to 8,
      // or to twice a client's share of the routing FIFO when that is more).
      const uint64_t pool = 1 + rng.below(std::max<uint64_t>(8, 2 * static_cast<uint64_t>(s.reads) / N_ + 1));
      for (uint32_t t = 0; c.free.size() < pool && t < (1u << s.tag_bits); ++t)
        if (rng.chance(0.5) || (1u << s.tag_bits) - t <= pool) c.free.push_back(t);
      c.rate = random_rate(rng);
      c.rsp_rate = random_rate(rng);
    }
    stores_ = random_writes(ack_backlog ? 300 + rng.below(200) : rng.below(200), true);
    fills_ = random_writes(rng.below(200), false);
    store_rate_ = random_rate(rng);
    fill_rate_ = random_rate(rng);
    ack_rate_ = ack_backlog ? 0.002 : random_rate(rng);
    rd_rate_ = random_rate(rng);
    wr_rate_ = random_rate(rng);
    // Read data after up to 24 cycles, or, in `deep` segments and one other
    // in three, after up to twice the routing FIFO's depth, so that a deep
    // FIFO fills too.
    max_delay_ = 1 + rng.below(deep || rng.chance(1.0 / 3) ? 2 * static_cast<uint64_t>(s.reads) + 24 : 24);
    // A deep segment's reads all wait that long, and CHORD takes every read
    // offered: the routing FIFO fills whatever the other draws.
    if (deep) {
      min_delay_ = 2 * static_cast<uint64_t>(s.reads);
      max_delay_ = min_delay_ + 24;
      rd_rate_ = 1;
    }
  }

  Totals totals;

  void run() {
    d_.r_req_valid = 0;
    d_.w_req_valid = 0;
    d_.f_req_valid = 0;
    d_.ch_rd_rsp_valid = 0;
    sim_.reset();
    // A segment with strays runs until it has offered one.
    while (!done() || (strays_ && totals.strays == 0)) {
      const bool stray = drive();
      sim_.settle();
      check_and_step(stray);
      sim_.tick();
    }
  }

 private:
  struct Client {
    std::deque<Read> todo;
    std::deque<uint32_t> free;  // tags not in use
    bool offering = false;
    double rate = 1, rsp_rate = 1;
  };

  uint64_t random_addr() { return rng_.bits(static_cast<int>(std::min(WA_, 64u))); }

  std::deque<Write> random_writes(uint64_t n, bool strobes) {
    std::deque<Write> out;
    for (uint64_t i = 0; i < n; ++i) {
      Write w{random_addr(), rng_.bits(s_.id_bits), std::vector<uint32_t>(DW_), std::vector<uint32_t>(SW_, 0)};
      for (auto& x : w.data) x = static_cast<uint32_t>(rng_.bits(32));
      for (unsigned b = 0; b < static_cast<unsigned>(s_.granule_bytes); ++b)
        if (!strobes || rng_.chance(0.7)) w.strb[b / 32] |= 1u << (b % 32);
      out.push_back(w);
    }
    return out;
  }

  bool done() const {
    for (const auto& c : clients_)
      if (!c.todo.empty()) return false;
    return !slot_ && taken_.empty() && stores_.empty() && fills_.empty() && acks_ == 0;
  }

  // Inputs for this cycle; returns whether CHORD offers a stray read answer.
  bool drive() {
    uint32_t valid = 0, rsp_ready = 0;
    std::vector<uint32_t> addr((N_ * WA_ + 31) / 32), id((N_ * s_.id_bits + 31) / 32), tag((N_ * s_.tag_bits + 31) / 32);
    for (unsigned c = 0; c < N_; ++c) {
      Client& k = clients_[c];
      if (!k.offering && !k.todo.empty() && !k.free.empty() && rng_.chance(k.rate)) {
        k.offering = true;
        k.todo.front().tag = k.free.front();
        k.free.pop_front();
      }
      // A client offering nothing shows random fields, which must not matter.
      const Read r = k.offering ? k.todo.front() : Read{random_addr(), rng_.bits(s_.id_bits),
                                                        static_cast<uint32_t>(rng_.bits(s_.tag_bits))};
      valid |= uint32_t{k.offering} << c;
      rsp_ready |= uint32_t{rng_.chance(k.rsp_rate)} << c;
      put_slice(addr, c * WA_, WA_, u64_words(r.addr));
      put_slice(id, c * static_cast<unsigned>(s_.id_bits), static_cast<unsigned>(s_.id_bits), u64_words(r.id));
      put_slice(tag, c * static_cast<unsigned>(s_.tag_bits), static_cast<unsigned>(s_.tag_bits), {r.tag});
    }
    d_.r_req_valid = valid;
    d_.r_rsp_ready = rsp_ready;
    put_words(d_.r_req_addr, addr);
    put_words(d_.r_req_id, id);
    put_words(d_.r_req_tag, tag);
    drive_writes();
    d_.w_rsp_ready = rng_.chance(stores_.empty() ? 0.5 : ack_rate_);
    d_.ch_rd_req_ready = rng_.chance(rd_rate_);
    d_.ch_wr_ready = rng_.chance(wr_rate_);
    d_.ch_rd_rsp_valid = 0;
    if (!taken_.empty() && sim_.cycle() >= taken_.front().ready_at) {
      d_.ch_rd_rsp_valid = 1;
      put_words(d_.ch_rd_rsp_data, taken_.front().data);
      return false;
    }
    if (strays_ && taken_.empty() && rng_.chance(0.02)) {
      d_.ch_rd_rsp_valid = 1;
      put_words(d_.ch_rd_rsp_data, std::vector<uint32_t>(DW_, 0xdeadbeef));
      return true;
    }
    return false;
  }

  void drive_writes() {
    if (!store_on_ && !stores_.empty() && rng_.chance(store_rate_)) store_on_ = true;
    if (!fill_on_ && !fills_.empty() && rng_.chance(fill_rate_)) fill_on_ = true;
    d_.w_req_valid = store_on_;
    d_.f_req_valid = fill_on_;
    const Write junk = random_writes(1, true).front();
    const Write& w = store_on_ ? stores_.front() : junk;
    const Write& f = fill_on_ ? fills_.front() : junk;
    put_words(d_.w_req_addr, u64_words(w.addr));
    put_words(d_.w_req_id, u64_words(w.id));
    put_words(d_.w_req_data, w.data);
    put_words(d_.w_req_strb, w.strb);
    put_words(d_.f_req_addr, u64_words(f.addr));
    put_words(d_.f_req_id, u64_words(f.id));
    put_words(d_.f_req_data, f.data);
  }

  template <class A, class B>
  static void expect(const char* what, const A& got, const B& want) {
    if (got != static_cast<A>(want)) throw Failure(fmt::format("{}: {} where the reference has {}", what, got, want));
  }

  void check_and_step(bool stray) {
    // Reads to CHORD: the slot's read, while the routing FIFO has room.
    const bool rd_valid = slot_.has_value() && taken_.size() < static_cast<size_t>(s_.reads);
    if (slot_ && !rd_valid) ++totals.route_full;
    expect("ch_rd_req_valid", static_cast<bool>(d_.ch_rd_req_valid), rd_valid);
    if (rd_valid) {
      expect("ch_rd_req_id", words_u64(get_words(d_.ch_rd_req_id, 2)), slot_->read.id);
      expect("ch_rd_req_addr", words_u64(get_words(d_.ch_rd_req_addr, 2)), slot_->read.addr);
    }
    const bool issue = rd_valid && d_.ch_rd_req_ready;
    // The grant: with the slot free, the first offering client after the last one granted.
    std::optional<unsigned> grant;
    if (!slot_ || issue)
      for (unsigned k = 1; k <= N_ && !grant; ++k)
        if (d_.r_req_valid >> ((last_ + k) % N_) & 1) grant = (last_ + k) % N_;
    expect("r_req_ready", static_cast<uint32_t>(d_.r_req_ready), grant ? 1u << *grant : 0u);
    expect("w_rsp_valid", static_cast<bool>(d_.w_rsp_valid), acks_ > 0);
    expect("idle", static_cast<bool>(d_.idle), !slot_ && taken_.empty() && acks_ == 0);
    expect("proto_err", static_cast<bool>(d_.proto_err), proto_err_);
    const bool deliver = check_read_data(stray);
    check_writes();
    // Advance the reference.
    if (deliver) {
      clients_[taken_.front().client].free.push_back(taken_.front().tag);
      taken_.pop_front();
      ++totals.reads;
      sim_.note("read data");
    }
    if (issue) {
      std::vector<uint32_t> data(DW_);
      for (auto& x : data) x = static_cast<uint32_t>(rng_.bits(32));
      taken_.push_back({slot_->client, slot_->read.tag, data, sim_.cycle() + 1 + min_delay_ + rng_.below(max_delay_ - min_delay_)});
      slot_.reset();
      sim_.note("CHORD read", taken_.back().tag);
    }
    if (grant) {
      Client& k = clients_[*grant];
      slot_ = Slot{*grant, k.todo.front()};
      k.todo.pop_front();
      k.offering = false;
      last_ = *grant;
    }
    if (stray) {
      proto_err_ = true;
      ++totals.strays;
    }
  }

  // CHORD's read data: to the client at the head of the routing FIFO.
  bool check_read_data(bool stray) {
    if (!d_.ch_rd_rsp_valid || stray) {
      expect("r_rsp_valid", static_cast<uint32_t>(d_.r_rsp_valid), 0u);
      if (stray) expect("ch_rd_rsp_ready (a stray answer)", static_cast<bool>(d_.ch_rd_rsp_ready), true);
      return false;
    }
    const Taken& h = taken_.front();
    expect("r_rsp_valid", static_cast<uint32_t>(d_.r_rsp_valid), 1u << h.client);
    expect("r_rsp_tag", static_cast<uint32_t>(d_.r_rsp_tag), h.tag);
    if (get_words(d_.r_rsp_rdata, DW_) != h.data) throw Failure("r_rsp_rdata is not CHORD's read data");
    const bool ready = d_.r_rsp_ready >> h.client & 1;
    expect("ch_rd_rsp_ready", static_cast<bool>(d_.ch_rd_rsp_ready), ready);
    return ready;
  }

  // The write port: a store or a fill, alternating when both wait; acknowledgements.
  void check_writes() {
    const bool store_ok = store_on_ && acks_ < kAckMax;
    if (store_on_ && !store_ok) ++totals.ack_full;
    const bool pick_fill = fill_on_ && (!store_ok || !last_fill_);
    expect("ch_wr_valid", static_cast<bool>(d_.ch_wr_valid), store_ok || fill_on_);
    if (d_.ch_wr_valid) {
      const Write& w = pick_fill ? fills_.front() : stores_.front();
      expect("ch_wr_fill", static_cast<bool>(d_.ch_wr_fill), pick_fill);
      expect("ch_wr_id", words_u64(get_words(d_.ch_wr_id, 2)), w.id);
      expect("ch_wr_addr", words_u64(get_words(d_.ch_wr_addr, 2)), w.addr);
      if (get_words(d_.ch_wr_data, DW_) != w.data) throw Failure(fmt::format("ch_wr_data is not the {}'s", pick_fill ? "fill" : "store"));
      if (get_words(d_.ch_wr_be, SW_) != w.strb) throw Failure(fmt::format("ch_wr_be is not the {}'s", pick_fill ? "fill (all bytes)" : "store's strobes"));
    }
    const bool fire = d_.ch_wr_valid && d_.ch_wr_ready;
    expect("w_req_ready", static_cast<bool>(d_.w_req_ready), d_.ch_wr_ready && store_ok && !pick_fill);
    expect("f_req_ready", static_cast<bool>(d_.f_req_ready), d_.ch_wr_ready && pick_fill);
    if (d_.w_rsp_valid && d_.w_rsp_ready) {
      --acks_;
      ++totals.acks;
      sim_.note("acknowledgement");
    }
    if (!fire) return;
    last_fill_ = pick_fill;
    if (pick_fill) {
      fills_.pop_front();
      fill_on_ = false;
      ++totals.fills;
      sim_.note("fill");
    } else {
      stores_.pop_front();
      store_on_ = false;
      ++acks_;
      ++totals.stores;
      sim_.note("store");
    }
  }

  struct Slot {
    unsigned client;
    Read read;
  };

  Sim<Vchord_port>& sim_;
  Vchord_port& d_;
  Rng& rng_;
  gen::ChordPortShape s_;
  unsigned N_, GB_, WA_, DW_, SW_;
  bool strays_, ack_backlog_;
  std::vector<Client> clients_;
  std::deque<Write> stores_, fills_;
  bool store_on_ = false, fill_on_ = false;
  double store_rate_ = 1, fill_rate_ = 1, ack_rate_ = 1, rd_rate_ = 1, wr_rate_ = 1;
  uint64_t min_delay_ = 0, max_delay_ = 1;
  // The reference: the read slot, the reads CHORD has taken (in order, the
  // routing FIFO's contents), the last client granted, the last write a fill,
  // acknowledgements pending, proto_err.
  std::optional<Slot> slot_;
  std::deque<Taken> taken_;
  unsigned last_;
  bool last_fill_ = false;
  uint64_t acks_ = 0;
  bool proto_err_ = false;
};

void run(uint64_t seed, int segments) {
  const gen::HwConfig cfg = gen::load_hw_config(TOP_CONFIG);
  const arch::Arch a = gen::arch_of(cfg, TOP_CONFIG);
  const gen::ChordPortShape s = gen::chord_port_shape(*gen::top_chord(cfg), gen::load_unit_shape(a), gen::tile_tag_bits_of(a));
  CELLO_SEEDED_RNG(rng, seed);
  Sim<Vchord_port> sim;
  Totals all;
  run_checked(sim, [&] {
    for (int seg = 0; seg < segments; ++seg) {
      Segment g(sim, rng, s, seg % 2 == 1, seg % 4 == 2, seg % 4 == 3);
      g.run();
      all.reads += g.totals.reads;
      all.stores += g.totals.stores;
      all.fills += g.totals.fills;
      all.acks += g.totals.acks;
      all.route_full += g.totals.route_full;
      all.ack_full += g.totals.ack_full;
      all.strays += g.totals.strays;
    }
  });
  INFO(fmt::format("{} reads, {} stores, {} fills, {} acknowledgements, {} strays", all.reads, all.stores, all.fills,
                   all.acks, all.strays));
  // Every store was acknowledged, and the corners were reached: a full routing
  // FIFO, a full acknowledgement counter, stray answers.
  CHECK(all.acks == all.stores);
  CHECK(all.reads > 0);
  CHECK(all.fills > 0);
  CHECK(all.route_full > 0);
  CHECK(all.ack_full > 0);
  CHECK(all.strays > 0);
}

}  // namespace

TEST_CASE("chord_port: reads granted round robin and answered to their client, stores and fills share the write port", "[top]") {
  run(1, 8);
}
