// Randomised test of the top's CHORD DRAM adapter (`<top>_chord_dram`) with
// the testbench DRAM model. CHORD's side offers random reads and writes of
// granules (valid held until taken, random byte enables) and takes read data
// with random back-pressure; the DRAM model runs with random latency and
// bandwidth, answering in order or out of order. Checked every cycle:
//  - every request reaches DRAM once and unchanged, in CHORD's order, its word
//    address scaled to a byte address, tagged with a slot no unanswered
//    request holds;
//  - read data comes back in CHORD's order, each the value memory held when
//    its read reached DRAM (the DRAM model applies requests as it takes them);
//  - `idle` is never set while a request is unanswered, and is set once
//    everything is answered and taken;
//  - in half the segments a stray response (a slot with nothing waiting: free,
//    or in every other such segment one holding an answered read) is offered
//    now and then: it is taken, changes nothing, and sets proto_err, which
//    legal traffic never sets.
// Built for each top config with CHORD (Vchord_dram).
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <cstring>
#include <deque>
#include <iterator>
#include <memory>
#include <set>
#include <vector>

#include "Vchord_dram.h"
#include "gen/top/chord_dram_gen.hpp"
#include "gen/top/load_unit_gen.hpp"
#include "gen/top/top_config.hpp"
#include "tb/harness/checked.hpp"
#include "tb/harness/dram_model.hpp"
#include "tb/harness/rng.hpp"
#include "tb/harness/sim.hpp"
#include "tb/harness/port_words.hpp"

using namespace cello;
using namespace cello::tb;

namespace {

constexpr uint64_t kGranules = 1024;

struct Req {
  uint64_t word = 0;  // CHORD's word (granule) address
  bool write = false;
  std::vector<uint8_t> data, be;  // granule bytes; be: 1 = byte written
};

std::vector<uint32_t> words_of(const std::vector<uint8_t>& bytes) {
  std::vector<uint32_t> w((bytes.size() + 3) / 4, 0);
  std::memcpy(w.data(), bytes.data(), bytes.size());
  return w;
}

std::vector<uint32_t> bits_of(const std::vector<uint8_t>& flags) {
  std::vector<uint32_t> w((flags.size() + 31) / 32, 0);
  for (size_t i = 0; i < flags.size(); ++i) w[i / 32] |= uint32_t{flags[i]} << (i % 32);
  return w;
}

// The segment's traffic: n requests, about 40% writes, a third of those partial.
std::deque<Req> random_requests(Rng& rng, unsigned G, uint64_t n) {
  std::deque<Req> out;
  for (uint64_t i = 0; i < n; ++i) {
    Req r;
    r.word = rng.below(kGranules);
    r.write = rng.chance(0.4);
    r.data.resize(G);
    r.be.assign(G, 1);
    for (auto& b : r.data) b = static_cast<uint8_t>(rng.bits(8));
    if (r.write && rng.chance(0.3))
      for (auto& e : r.be) e = rng.chance(0.5) ? 1 : 0;
    out.push_back(r);
  }
  return out;
}

// One segment: a fresh image, DRAM timing and request list, run to the end.
class Segment {
 public:
  Segment(Sim<Vchord_dram>& sim, Rng& rng, const arch::Arch& a, bool strays, bool stray_held)
      : sim_(sim), d_(sim.dut()), rng_(rng), G_(a.granule_bytes), slots_(static_cast<uint64_t>(gen::chord_dram_shape(a).slots)),
        GB_(gen::log2_pow2(static_cast<int>(a.granule_bytes))), image_(kGranules * G_), strays_(strays), stray_held_(stray_held) {
    for (auto& b : image_) b = static_cast<uint8_t>(rng.bits(8));
    mem_ = image_;
    dram_ = std::make_unique<DramModel>(image_, random_dram_timing(rng, G_), rng);
    todo_ = random_requests(rng, G_, 100 + rng.below(400));
    planned = todo_.size();
    rate_ = random_rate(rng);
    rsp_rate_ = random_rate(rng);
  }

  uint64_t planned = 0, sent = 0, read_data = 0;
  bool stray_taken = false;

  void run() {
    d_.c_req_valid = 0;
    d_.d_rsp_valid = 0;
    sim_.reset();
    uint64_t quiet = 0;
    while (!todo_.empty() || !reads_.empty() || !waiting_.empty() || !d_.idle) {
      // Retiring answered writes takes a cycle per slot.
      if (todo_.empty() && reads_.empty() && waiting_.empty() && ++quiet > slots_ + 4)
        throw Failure("everything answered and taken, but idle stays low");
      const DramResponse* rsp = drive();
      const bool stray = offer_stray(rsp);
      sim_.settle();
      if (static_cast<bool>(d_.proto_err) != stray_taken)
        throw Failure(fmt::format("proto_err is {} after {} stray response", d_.proto_err, stray_taken ? "a" : "no"));
      if (!waiting_.empty() && d_.idle) throw Failure(fmt::format("idle with {} requests unanswered", waiting_.size()));
      if (!d_.d_rsp_ready) throw Failure("a DRAM response was not taken");
      check_request();
      if (stray) {
        stray_taken = true;
        sim_.note("stray response", d_.d_rsp_tag);
      }
      if (rsp) {
        waiting_.erase(rsp->tag);
        if (!rsp->write) held_.insert(rsp->tag);
        dram_->taken();
      }
      check_read_data();
      sim_.tick();
      dram_->tick();
    }
  }

 private:
  struct Read {
    uint64_t tag;
    std::vector<uint32_t> data;  // expected
  };

  // CHORD's request and read-data ready, and DRAM's ready and response.
  const DramResponse* drive() {
    if (!offering_ && !todo_.empty() && rng_.chance(rate_)) offering_ = true;
    d_.c_req_valid = offering_;
    if (!todo_.empty()) {
      const Req& r = todo_.front();
      put_words(d_.c_req_addr, {static_cast<uint32_t>(r.word), static_cast<uint32_t>(r.word >> 32)});
      d_.c_req_write = r.write;
      put_words(d_.c_req_data, words_of(r.data));
      put_words(d_.c_req_be, bits_of(r.be));
    }
    d_.c_rsp_ready = rng_.chance(rsp_rate_);
    d_.d_req_ready = dram_->req_ready();
    const DramResponse* rsp = dram_->response();
    d_.d_rsp_valid = rsp != nullptr;
    if (rsp) {
      std::vector<uint32_t> w(G_ / 4, 0);
      if (!rsp->write) std::memcpy(w.data(), rsp->data.data(), G_);
      put_words(d_.d_rsp_rdata, w);
      d_.d_rsp_tag = static_cast<uint32_t>(rsp->tag);
    }
    return rsp;
  }

  // A stray response, when DRAM offers none: a slot with nothing waiting; with
  // stray_held only slots holding an answered read.
  bool offer_stray(const DramResponse* rsp) {
    if (!strays_ || rsp || !rng_.chance(0.02) || (stray_held_ && held_.empty())) return false;
    uint64_t tag = rng_.below(slots_);
    if (stray_held_) tag = *std::next(held_.begin(), static_cast<std::ptrdiff_t>(rng_.below(held_.size())));
    if (waiting_.count(tag)) return false;
    d_.d_rsp_valid = 1;
    d_.d_rsp_tag = static_cast<uint32_t>(tag);
    put_words(d_.d_rsp_rdata, std::vector<uint32_t>(G_ / 4, 0xdeadbeef));
    return true;
  }

  // The request: straight through to DRAM, in CHORD's order, unchanged.
  void check_request() {
    if (d_.d_req_valid && !d_.c_req_valid) throw Failure("a DRAM request without one from CHORD");
    if ((d_.c_req_valid && d_.c_req_ready) != (d_.d_req_valid && d_.d_req_ready))
      throw Failure("CHORD's request and the DRAM request were not taken together");
    if (!(d_.c_req_valid && d_.c_req_ready)) return;
    const Req r = todo_.front();
    todo_.pop_front();
    offering_ = false;
    const uint64_t tag = d_.d_req_tag;
    if (d_.d_req_addr != (r.word << GB_) || static_cast<bool>(d_.d_req_write) != r.write)
      throw Failure(fmt::format("CHORD's request {:#x}/{} left as {:#x}/{}", r.word, r.write,
                                static_cast<uint64_t>(d_.d_req_addr), d_.d_req_write));
    if (waiting_.count(tag) || tag >= slots_) throw Failure(fmt::format("tag {} is a slot in use", tag));
    DramRequest dr{r.word << GB_, r.write, {}, tag, {}};
    if (r.write) {
      if (get_words(d_.d_req_wdata, G_ / 4) != words_of(r.data) || get_words(d_.d_req_strb, (G_ + 31) / 32) != bits_of(r.be))
        throw Failure("write data or byte enables changed on the way to DRAM");
      dr.data = r.data;
      dr.strb.assign(r.be.begin(), r.be.end());
      for (unsigned k = 0; k < G_; ++k)
        if (r.be[k]) mem_[r.word * G_ + k] = r.data[k];
    } else {
      const auto at = mem_.begin() + static_cast<std::ptrdiff_t>(r.word * G_);
      reads_.push_back({tag, words_of(std::vector<uint8_t>(at, at + G_))});
    }
    dram_->accept(dr);
    waiting_.insert(tag);
    ++sent;
    sim_.note("request", r.word);
  }

  // Read data back to CHORD, in its order.
  void check_read_data() {
    if (!(d_.c_rsp_valid && d_.c_rsp_ready)) return;
    if (reads_.empty()) throw Failure("read data for CHORD that it never asked for");
    const auto got = get_words(d_.c_rsp_data, G_ / 4);
    if (got != reads_.front().data)
      throw Failure(fmt::format("read data {:08x}.., expected {:08x}..", got[0], reads_.front().data[0]));
    held_.erase(reads_.front().tag);
    reads_.pop_front();
    ++read_data;
    sim_.note("read data");
  }

  Sim<Vchord_dram>& sim_;
  Vchord_dram& d_;
  Rng& rng_;
  unsigned G_;
  uint64_t slots_;
  int GB_;
  std::vector<uint8_t> image_, mem_;  // DRAM's image; memory as requests reach DRAM (expected read data)
  std::unique_ptr<DramModel> dram_;
  std::deque<Req> todo_;
  double rate_ = 1, rsp_rate_ = 1;
  bool strays_, stray_held_, offering_ = false;
  std::deque<Read> reads_;      // reads in CHORD's order, until CHORD takes their data
  std::set<uint64_t> waiting_;  // tags sent to DRAM and not yet answered
  std::set<uint64_t> held_;     // reads answered whose data CHORD has not taken (their slots are busy)
};

void run(uint64_t seed, int segments) {
  const arch::Arch a = gen::load_arch(TOP_CONFIG);
  CELLO_SEEDED_RNG(rng, seed);
  Sim<Vchord_dram> sim;
  uint64_t planned = 0, sent = 0, read_data = 0, stray_segments = 0;
  run_checked(sim, [&] {
    for (int seg = 0; seg < segments; ++seg) {
      Segment s(sim, rng, a, seg % 2 == 1, seg % 4 == 1);
      s.run();
      planned += s.planned;
      sent += s.sent;
      read_data += s.read_data;
      stray_segments += s.stray_taken;
    }
  });
  // Every request went through, reads came back, and strays were tried.
  CHECK(sent == planned);
  CHECK(read_data > planned / 2);
  CHECK(stray_segments > 0);
}

}  // namespace

TEST_CASE("chord_dram: CHORD's requests leave in order and its read data comes back in order", "[top]") {
  run(1, 6);
}
