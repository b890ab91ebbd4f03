// Randomised test of the top's DRAM arbiter (`<top>_dram_arb`) with the
// testbench DRAM model: every client offers random reads and writes (valid
// held until taken) with its own tags; the DRAM model runs with random latency
// and out-of-order responses. Every request must reach DRAM exactly once and
// unchanged, in each client's own order; every response must reach the client
// that sent the request, with its tag and the data of its address; while
// several clients wait, none is passed over more than N-1 times (round
// robin). In some segments a response that no request asked for (a client
// with nothing in DRAM) is offered now and then: the arbiter must take it, pass
// it to no client, and raise proto_err, which stays set until reset and is
// never raised by legal traffic. Built once per top config (Varb).
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <cstring>
#include <deque>
#include <map>
#include <vector>

#include "Varb.h"
#include "tb/harness/dram_model.hpp"
#include "tb/harness/checked.hpp"
#include "tb/harness/rng.hpp"
#include "tb/harness/sim.hpp"
#include "tb/harness/stream.hpp"
#include "tb/harness/port_words.hpp"
#include "gen/top/load_unit_gen.hpp"
#include "gen/top/top_config.hpp"
#include "gen/top/top_gen.hpp"

using namespace cello;
using namespace cello::tb;

namespace {

constexpr int kClients = 2;

constexpr uint64_t kGranules = 1024;

struct Req {
  uint64_t addr = 0;
  bool write = false;
  std::vector<uint32_t> data;
  uint64_t tag = 0;
};

void run(uint64_t seed, int segments) {
  const arch::Arch a = gen::load_arch(TOP_CONFIG);
  const gen::LoadUnitShape shape = gen::load_unit_shape(a);
  const unsigned G = a.granule_bytes, GW = G / 4;
  const int AW = shape.addr_bits, TW = gen::arbiter_tag_bits(gen::load_hw_config(TOP_CONFIG), a);
  CELLO_SEEDED_RNG(rng, seed);
  Sim<Varb> sim;
  auto& d = sim.dut();
  uint64_t served = 0;
  run_checked(sim, [&] {
    for (int seg = 0; seg < segments; ++seg) {
      std::vector<uint8_t> image(kGranules * G);
      for (auto& b : image) b = static_cast<uint8_t>(rng.bits(8));
      DramTiming t;
      t.granule_bytes = G;
      t.bytes_per_cycle = std::vector<double>{4, 16, 64}[rng.below(3)];
      t.latency_min = 1 + rng.below(20);
      t.latency_max = t.latency_min + rng.below(60);
      t.in_order = rng.chance(0.5);
      DramModel dram(image, t, rng);
      std::vector<std::deque<Req>> todo(kClients);
      std::vector<std::deque<Req>> sent(kClients);     // in DRAM, response not yet back
      std::vector<std::map<uint64_t, std::vector<uint32_t>>> expect(kClients);  // tag -> read data
      std::vector<double> rate(kClients), rsp_rate(kClients);
      std::vector<uint64_t> passed_over(kClients, 0);
      // Tags are unique among a client's outstanding requests (as the units' are).
      std::vector<std::deque<uint64_t>> free_tags(kClients);
      for (auto& f : free_tags)
        for (uint64_t tg = 0; tg < (1u << TW); ++tg) f.push_back(tg);
      uint64_t total = 0;
      for (int c = 0; c < kClients; ++c) {
        rate[static_cast<size_t>(c)] = random_rate(rng);
        rsp_rate[static_cast<size_t>(c)] = random_rate(rng);
        const uint64_t n = 50 + rng.below(300);
        for (uint64_t i = 0; i < n; ++i) {
          Req r;
          r.addr = rng.below(kGranules) * G;
          r.write = rng.chance(0.4);
          for (unsigned w = 0; w < GW; ++w) r.data.push_back(static_cast<uint32_t>(rng.bits(32)));
          todo[static_cast<size_t>(c)].push_back(r);
          ++total;
        }
      }
      d.c_req_valid = 0;
      d.dram_rsp_valid = 0;
      sim.reset();
      const bool strays = seg % 2 == 1;
      bool stray_taken = false;
      std::vector<uint64_t> in_dram(kClients, 0);  // requests in DRAM, per client
      std::vector<bool> offering(kClients, false);
      uint64_t done = 0;
      // The model of memory as the clients see it, for read data: DRAM applies
      // requests in the order it accepts them.
      std::vector<uint8_t> mem = image;
      while (done < total) {
        uint32_t valid = 0, rsp_ready = 0;
        std::vector<uint32_t> addr_w((static_cast<size_t>(kClients) * AW + 31) / 32, 0);
        for (int c = 0; c < kClients; ++c) {
          const size_t cc = static_cast<size_t>(c);
          if (!offering[cc] && !todo[cc].empty() && !free_tags[cc].empty() && rng.chance(rate[cc])) {
            offering[cc] = true;
            todo[cc].front().tag = free_tags[cc].front();
            free_tags[cc].pop_front();
          }
          if (offering[cc]) valid |= 1u << c;
          if (rng.chance(rsp_rate[cc])) rsp_ready |= 1u << c;
        }
        d.c_req_valid = valid;
        d.c_rsp_ready = rsp_ready;
        // Pack the client fields (each client's slice at [c*W +: W]).
        auto pack = [&](int width, auto field) {
          std::vector<uint32_t> w((static_cast<size_t>(kClients) * width + 31) / 32, 0);
          for (int c = 0; c < kClients; ++c) {
            const size_t cc = static_cast<size_t>(c);
            const std::vector<uint32_t> v = todo[cc].empty() ? std::vector<uint32_t>((width + 31) / 32, 0) : field(todo[cc].front());
            for (int b = 0; b < width; ++b)
              if (v[static_cast<size_t>(b / 32)] >> (b % 32) & 1) w[static_cast<size_t>((c * width + b) / 32)] |= 1u << ((c * width + b) % 32);
          }
          return w;
        };
        put_words(d.c_req_addr, pack(AW, [](const Req& r) { return std::vector<uint32_t>{static_cast<uint32_t>(r.addr), static_cast<uint32_t>(r.addr >> 32)}; }));
        put_words(d.c_req_write, pack(1, [](const Req& r) { return std::vector<uint32_t>{r.write ? 1u : 0u}; }));
        put_words(d.c_req_wdata, pack(static_cast<int>(8 * G), [](const Req& r) { return r.data; }));
        put_words(d.c_req_strb, pack(static_cast<int>(G), [&](const Req&) { return std::vector<uint32_t>((G + 31) / 32, ~0u); }));
        put_words(d.c_req_tag, pack(TW, [](const Req& r) { return std::vector<uint32_t>{static_cast<uint32_t>(r.tag)}; }));
        d.dram_req_ready = dram.req_ready();
        const DramResponse* rsp = dram.response();
        d.dram_rsp_valid = rsp != nullptr;
        if (rsp) {
          std::vector<uint32_t> w(GW);
          if (!rsp->write) std::memcpy(w.data(), rsp->data.data(), G);
          put_words(d.dram_rsp_rdata, w);
          d.dram_rsp_tag = static_cast<uint32_t>(rsp->tag);
        }
        // A stray response: for a client with nothing in DRAM, when DRAM offers none.
        int stray = -1;
        if (strays && !rsp && rng.chance(0.01)) {
          const int c = static_cast<int>(rng.below(kClients));
          if (in_dram[static_cast<size_t>(c)] == 0) stray = c;
        }
        if (stray >= 0) {
          d.dram_rsp_valid = 1;
          d.dram_rsp_tag = static_cast<uint32_t>((static_cast<uint64_t>(stray) << TW) | rng.below(1u << TW));
        }
        sim.settle();
        if (static_cast<bool>(d.proto_err) != stray_taken)
          throw Failure(fmt::format("proto_err is {} after {} stray response", d.proto_err, stray_taken ? "a" : "no"));
        if (stray >= 0) {
          if (!d.dram_rsp_ready || d.c_rsp_valid) throw Failure("a stray response was not dropped");
          stray_taken = true;
          sim.note("stray response", static_cast<uint64_t>(stray));
        }
        // DRAM side: the request leaving the slot.
        if (d.dram_req_valid && d.dram_req_ready) {
          const uint64_t tag = d.dram_req_tag, client = tag >> TW;
          if (client >= kClients) throw Failure(fmt::format("DRAM tag {:#x} names client {}", tag, client));
          auto& q = sent[client];
          if (q.empty()) throw Failure(fmt::format("client {} has nothing granted but a request left", client));
          const Req r = q.front();
          // Requests of one client leave in its order, unchanged.
          if (d.dram_req_addr != r.addr || static_cast<bool>(d.dram_req_write) != r.write || (tag & ((1u << TW) - 1)) != r.tag)
            throw Failure(fmt::format("client {}: request {:#x}/{} left as {:#x}/{}", client, r.addr, r.tag, d.dram_req_addr, tag));
          DramRequest dr{r.addr, r.write, {}, tag, {}};
          if (r.write) {
            const auto got = get_words(d.dram_req_wdata, GW);
            if (got != r.data) throw Failure(fmt::format("client {}: write data changed", client));
            dr.data.resize(G);
            std::memcpy(dr.data.data(), got.data(), G);
            std::memcpy(&mem[r.addr], got.data(), G);
          } else {
            std::vector<uint32_t> w(GW);
            std::memcpy(w.data(), &mem[r.addr], G);
            expect[client][tag & ((1u << TW) - 1)] = w;
          }
          dram.accept(dr);
          ++in_dram[client];
          q.pop_front();
        }
        // Grants.
        for (int c = 0; c < kClients; ++c) {
          const size_t cc = static_cast<size_t>(c);
          if (offering[cc] && (d.c_req_ready >> c & 1)) {
            sent[cc].push_back(todo[cc].front());
            todo[cc].pop_front();
            offering[cc] = false;
            passed_over[cc] = 0;
            sim.note("grant", static_cast<uint64_t>(c));
            for (int o = 0; o < kClients; ++o)
              if (o != c && offering[static_cast<size_t>(o)] && ++passed_over[static_cast<size_t>(o)] >= kClients)
                throw Failure(fmt::format("client {} passed over {} times", o, passed_over[static_cast<size_t>(o)]));
          } else if (!offering[cc] && (d.c_req_ready >> c & 1)) {
            throw Failure(fmt::format("client {} granted without a request", c));
          }
        }
        // Responses back to the clients.
        if (rsp && d.dram_rsp_ready) {
          const uint64_t client = rsp->tag >> TW, ctag = rsp->tag & ((1u << TW) - 1);
          if (!(d.c_rsp_valid >> client & 1) || d.c_rsp_tag != ctag)
            throw Failure(fmt::format("response for client {} tag {} not routed", client, ctag));
          if (!rsp->write) {
            const auto got = get_words(d.c_rsp_rdata, GW);
            if (got != expect[client].at(ctag))
              throw Failure(fmt::format("client {} tag {}: read data {:08x}, expected {:08x}", client, ctag, got[0],
                                        expect[client].at(ctag)[0]));
          }
          free_tags[client].push_back(ctag);
          dram.taken();
          --in_dram[client];
          ++done;
          ++served;
          sim.note("response", client);
        }
        sim.tick();
        dram.tick();
      }
    }
  });
  fmt::print("dram arbiter: {} requests served\n", served);
  CHECK(served > 0);
}

}  // namespace

TEST_CASE("dram arbiter: two clients, random traffic, routing and fairness", "[top][dram_arb]") { run(31, 40); }
