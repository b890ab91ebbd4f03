// The testbench host loop (tb/harness/host_loop.hpp): on compiled CG and
// BiCGStab streams, every HOST command served from an image holding its
// operands gives the executor's result bit for bit, stored in the tensor's
// storage order, with the acknowledgement exactly `latency` cycles after the
// request (at least one cycle); protocol mistakes of the top are failures.
#include <catch2/catch.hpp>

#include <algorithm>
#include <bit>

#include "sw/exec/prepare.hpp"
#include "tb/harness/host_loop.hpp"
#include "sw/stream/problem.hpp"
#include "gen/top/top_config.hpp"

using namespace cello;
using namespace cello::tb;

namespace {

// Drives one request the way the top does; returns the cycles until host_ack.
uint64_t request(HostLoop& h, uint64_t record) {
  uint64_t cycles = 0;
  for (;; ++cycles) {
    const bool ack = h.drive();
    h.sample(true, record);
    if (ack) break;
    if (cycles > 1000000) throw Failure("no host_ack");
  }
  h.drive();
  h.sample(false, 0);  // the top drops host_req after the acknowledgement
  return cycles;
}

}  // namespace

// On the default design and on it without CHORD. The host's DRAM traffic is
// checked on the latter: a machine that keeps nothing on chip, whose executor
// counts each HOST op's operands read and its result written (with CHORD, the
// executor counts the small tensors a HOST op touches as on chip).
TEST_CASE("host loop: HOST results equal the executor's, bit for bit, and so does its DRAM traffic", "[top][host]") {
  arch::Arch flex = gen::load_arch("");
  flex.chord_bytes = 0;
  flex.chord_on_datapath = false;
  for (const arch::Arch& a : {gen::load_arch(""), flex})
    for (const char* wl : {"cg", "bicgstab"})
      for (uint64_t latency : {0u, 1u, 37u}) {
        stream::ProblemSpec spec;
        spec.workload = wl;
        spec.grid = 4;
        spec.n = 4;
        spec.iters = 3;
        const auto prep = exec::prepare(stream::make_problem(spec), a);
        const auto& st = prep.compiled.stream;
        const exec::Result want = exec::execute(st, "<stream>", a, prep.image);
        const auto& tensors = want.program.tensors;
        std::vector<uint8_t> image(prep.image.size(), 0);
        uint64_t read = 0, written = 0;  // the host's DRAM traffic, as the loop reports it
        HostLoop host(st, tensors, image, latency, [&](uint64_t, uint64_t n, bool write) { (write ? written : read) += n; });
        uint64_t hosts = 0;
        for (size_t i = 0; i < want.program.ops.size(); ++i) {
          const auto& op = want.program.ops[i];
          if (op.kind != stream::Opcode::Host) continue;
          ++hosts;
          read = written = 0;
          exec::write_dense(image, tensors[op.a], want.values[op.a]);
          exec::write_dense(image, tensors[op.b], want.values[op.b]);
          CHECK(request(host, op.record) == std::max<uint64_t>(latency, 1));
          CHECK(read > 0);
          if (!a.has_chord()) {
            CHECK(read == want.ops[i].read_bytes);
            CHECK(written == want.ops[i].write_bytes);
          }
          const auto got = exec::read_dense(image, tensors[op.out]);
          const auto& exp = want.values[op.out];
          REQUIRE(got.size() == exp.size());
          for (size_t e = 0; e < got.size(); ++e) {
            INFO(wl << " " << op.name() << " element " << e);
            CHECK(std::bit_cast<uint32_t>(got[e]) == std::bit_cast<uint32_t>(exp[e]));
          }
        }
        CHECK(hosts > 0);
        CHECK(host.served() == hosts);
      }
}

TEST_CASE("host loop: protocol mistakes of the top fail", "[top][host]") {
  const arch::Arch a = gen::load_arch("");
  stream::ProblemSpec spec;
  spec.workload = "cg";
  spec.grid = 4;
  spec.n = 2;
  const auto prep = exec::prepare(stream::make_problem(spec), a);
  const auto& st = prep.compiled.stream;
  const exec::Result want = exec::execute(st, "<stream>", a, prep.image);
  std::vector<uint8_t> image = want.image;
  size_t host_rec = 0;
  for (const auto& op : want.program.ops)
    if (op.kind == stream::Opcode::Host) host_rec = op.record;
  REQUIRE(host_rec > 0);
  {
    HostLoop h(st, want.program.tensors, image, 5);
    CHECK_THROWS_AS(h.sample(true, 0), Failure);  // record 0 is a TENSOR
  }
  {
    HostLoop h(st, want.program.tensors, image, 5);
    h.sample(true, host_rec);
    CHECK_THROWS_AS(h.sample(false, host_rec), Failure);  // dropped before the ack
  }
  {
    HostLoop h(st, want.program.tensors, image, 0);
    CHECK_FALSE(h.drive());
    h.sample(true, host_rec);
    CHECK(h.drive());
    h.sample(true, host_rec);
    CHECK_THROWS_AS(h.sample(true, host_rec), Failure);  // still high after the ack
  }
}
