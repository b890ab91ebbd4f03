// The testbench DRAM model (tb/harness/dram_model.hpp) against its own contract:
// latency exactly as configured (fixed) or inside the range (random), bandwidth
// as a long-run rate, reads that see earlier writes, in-order responses unless
// disabled, per-region byte counts, and protocol errors thrown.
#include <catch2/catch.hpp>

#include <map>

#include "tb/harness/dram_model.hpp"

using namespace cello::tb;

namespace {

DramRequest read_req(uint64_t addr, uint64_t tag) { return {addr, false, {}, tag}; }
DramRequest write_req(uint64_t addr, uint64_t tag, uint8_t fill, unsigned g) { return {addr, true, std::vector<uint8_t>(g, fill), tag}; }

// Issues `n` requests as fast as the port takes them, takes every response at
// once; returns per tag the cycle it was accepted and the cycle it was offered.
struct Timing {
  std::map<uint64_t, uint64_t> accepted, answered;
  uint64_t cycles = 0;
};
Timing drive(DramModel& m, uint64_t n, unsigned g, bool writes) {
  Timing t;
  uint64_t next = 0;
  while (t.answered.size() < n) {
    if (next < n && m.req_ready()) {
      m.accept(writes ? write_req(next * g, next, static_cast<uint8_t>(next), g) : read_req(next * g, next));
      t.accepted[next] = m.cycle();
      ++next;
    }
    if (const DramResponse* r = m.response()) {
      t.answered[r->tag] = m.cycle();
      m.taken();
    }
    m.tick();
  }
  t.cycles = m.cycle();
  return t;
}

}  // namespace

TEST_CASE("dram model: fixed latency and bandwidth", "[top][dram]") {
  for (unsigned g : {16u, 32u})
    for (double bw : {4.0, 16.0, 64.0})
      for (uint64_t lat : {1u, 7u, 100u}) {
        std::vector<uint8_t> mem(g * 512);
        Rng rng(1);
        DramModel m(mem, {g, bw, lat, lat, true, 1024}, rng);
        const uint64_t n = 400;
        Timing t = drive(m, n, g, false);
        INFO("granule " << g << " bw " << bw << " latency " << lat);
        for (uint64_t i = 0; i < n; ++i) CHECK(t.answered[i] - t.accepted[i] == lat);
        // One request per cycle at most, else granule / bandwidth cycles each.
        const double per_req = std::max(1.0, g / bw);
        const double span = static_cast<double>(t.accepted[n - 1] - t.accepted[0]);
        CHECK(span >= (n - 1) * per_req - 1);
        CHECK(span <= (n - 1) * per_req + 1);
        CHECK(m.bytes_read() == n * g);
      }
}

TEST_CASE("dram model: random latency stays in range; out-of-order responses when allowed", "[top][dram]") {
  for (bool in_order : {true, false}) {
    std::vector<uint8_t> mem(16 * 256);
    Rng rng(7);
    DramModel m(mem, {16, 16, 5, 60, in_order, 64}, rng);
    Timing t = drive(m, 200, 16, false);
    bool reordered = false;
    uint64_t prev = 0;
    for (uint64_t i = 0; i < 200; ++i) {
      const uint64_t lat = t.answered[i] - t.accepted[i];
      CHECK(lat >= 5);
      if (!in_order) CHECK(lat <= 60);
      if (i && t.answered[i] < prev) reordered = true;
      prev = t.answered[i];
    }
    CHECK(reordered == !in_order);
  }
}

TEST_CASE("dram model: reads see earlier writes; bytes counted per region", "[top][dram]") {
  std::vector<uint8_t> mem(16 * 64, 0);
  Rng rng(3);
  DramModel m(mem, {16, 16, 10, 30, false, 64}, rng);
  m.add_region("A", 0, 16 * 8);
  m.add_region("B", 16 * 8, 16 * 8);
  m.add_region("A2", 0, 16 * 4);  // a later region over the first half of A wins there
  m.accept(write_req(16 * 2, 1, 0xab, 16));
  m.tick();
  m.accept(read_req(16 * 2, 2));
  m.tick();
  m.accept(read_req(16 * 9, 3));
  m.tick();
  m.accept(read_req(16 * 20, 4));
  std::map<uint64_t, std::vector<uint8_t>> got;
  while (got.size() < 4) {
    if (const DramResponse* r = m.response()) {
      got[r->tag] = r->data;
      m.taken();
    }
    m.tick();
  }
  CHECK(got[1].empty());  // a write acknowledgement
  CHECK(got[2] == std::vector<uint8_t>(16, 0xab));
  CHECK(got[3] == std::vector<uint8_t>(16, 0));
  CHECK(m.regions()[2].written == 16);
  CHECK(m.regions()[2].read == 16);
  CHECK(m.regions()[0].read == 0);
  CHECK(m.regions()[1].read == 16);
  CHECK(m.other_read() == 16);
  CHECK(m.bytes_read() == 48);
  CHECK(m.bytes_written() == 16);
  // The host's traffic is counted per region beside the port's, never in it.
  m.count_host(m.regions()[1].base, 32, false);
  m.count_host(m.regions()[2].base, 16, true);
  CHECK(m.regions()[1].host_read == 32);
  CHECK(m.regions()[2].host_written == 16);
  CHECK(m.regions()[1].read == 16);
  CHECK(m.host_bytes_read() == 32);
  CHECK(m.host_bytes_written() == 16);
  CHECK(m.bytes_read() == 48);
  CHECK(m.bytes_written() == 16);
}

TEST_CASE("dram model: protocol errors throw", "[top][dram]") {
  std::vector<uint8_t> mem(64);
  Rng rng(1);
  DramModel m(mem, {16, 16, 3, 3, true, 2}, rng);
  CHECK_THROWS_AS(m.accept(read_req(8, 0)), Failure);        // misaligned
  CHECK_THROWS_AS(m.accept(read_req(64, 0)), Failure);       // outside
  CHECK_THROWS_AS(m.accept({0, true, {1, 2}, 0}), Failure);  // short write
  CHECK_THROWS_AS(m.taken(), Failure);                       // nothing offered
  DramTiming bad;
  bad.latency_min = 0;
  CHECK_THROWS_AS(DramModel(mem, bad, rng), Failure);
}
