// Unit tests of the datapath references (sw/fp, sw/mac) and of the datapath
// sections of the hardware config. The RTL itself is tested by tb/fma,
// tb/mac_array, tb/regfile and tb/pipeline_buffer.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>

#include "sw/common/error.hpp"
#include "sw/fp/fp32.hpp"
#include "gen/hw_config.hpp"
#include "sw/mac/mac_reference.hpp"
#include "sw/mac/mac_stream.hpp"
#include "sw/mac/pipeline_buffer_model.hpp"

using namespace cello;

namespace {
bool normal_or_zero(float x) { return x == 0.0f || std::isnormal(x); }
}  // namespace

TEST_CASE("fma32 equals std::fmaf whenever inputs and result are normal", "[fp]") {
  std::mt19937_64 g(7);
  int compared = 0;
  for (int i = 0; i < 200000; ++i) {
    float a = fp::float_of(static_cast<uint32_t>(g())), b = fp::float_of(static_cast<uint32_t>(g())),
          c = fp::float_of(static_cast<uint32_t>(g()));
    if (!std::isnormal(a) || !std::isnormal(b) || !std::isnormal(c)) continue;
    float r = std::fmaf(a, b, c);
    if (!normal_or_zero(r)) continue;
    REQUIRE(fp::bits_of(fp::fma32(a, b, c)) == fp::bits_of(r));
    ++compared;
  }
  CHECK(compared > 50000);
}

TEST_CASE("fma32 flush and NaN rules", "[fp]") {
  CHECK(fp::bits_of(fp::flush_subnormal(fp::float_of(0x80000001u))) == 0x80000000u);
  CHECK(fp::bits_of(fp::flush_subnormal(fp::float_of(0x00800000u))) == 0x00800000u);
  CHECK(fp::fma32_bits(0x7f800000u, 0u, 0u) == fp::kCanonicalNaN);
  CHECK(fp::fma32_bits(0xffc00001u, 0x3f800000u, 0u) == fp::kCanonicalNaN);
  // Flush after rounding: the tie at 2^-126 - 2^-150 rounds up to the smallest normal.
  CHECK(fp::fma32_bits(0x21118e00u, 0x1f612000u, 0x80800000u) == 0x00800000u);
  CHECK(fp::bits_of(fp::add32(1.0f, -1.0f)) == 0u);
  CHECK(fp::bits_of(fp::mul32(-0.0f, 3.0f)) == 0x80000000u);
}

TEST_CASE("replays equal exact sums on integer data, for any lane count", "[mac]") {
  std::mt19937 g(3);
  auto small = [&](int64_t r, int64_t c) {
    mac::Matrix m(r, c);
    for (auto& x : m.v) x = static_cast<float>(static_cast<int>(g() % 17) - 8);
    return m;
  };
  auto A = small(50, 6), B = small(6, 5), C = small(50, 5);
  auto Z = mac::gemm_replay(A, B, &C, 2.0f);
  for (int64_t m = 0; m < 50; ++m)
    for (int64_t n = 0; n < 5; ++n) {
      double s = 2.0 * C.at(m, n);
      for (int64_t j = 0; j < 6; ++j) s += static_cast<double>(A.at(m, j)) * B.at(j, n);
      REQUIRE(Z.at(m, n) == static_cast<float>(s));
    }
  auto G1 = small(300, 3), G2 = small(300, 4);
  auto ref = mac::gram_replay(G1, G2, 1);
  for (int lanes : {2, 3, 5, 8}) CHECK(mac::gram_replay(G1, G2, lanes).v == ref.v);
}

TEST_CASE("Gram lanes change the rounding order exactly as documented", "[mac]") {
  // 1 + 2^-24 + 2^-24 in both orders, with one and two lanes.
  mac::Matrix a(3, 1), b(3, 1);
  a.at(0, 0) = 1.0f;
  a.at(1, 0) = std::ldexp(1.0f, -24);
  a.at(2, 0) = std::ldexp(1.0f, -24);
  b.v = {1.0f, 1.0f, 1.0f};
  CHECK(mac::gram_replay(a, b, 1).at(0, 0) == 1.0f);
  // lanes 2: p0 = 1 + 2^-24 (m = 0, 2) = 1 (tie to even), p1 = 2^-24 -> 1.
  CHECK(mac::gram_replay(a, b, 2).at(0, 0) == 1.0f);
  // Small terms first: one lane sums them exactly (1 + 2^-23); two lanes put
  // each next to a 1 and both ties round away.
  a.v = {std::ldexp(1.0f, -24), std::ldexp(1.0f, -24), 1.0f};
  CHECK(mac::gram_replay(a, b, 1).at(0, 0) == 1.0f + std::ldexp(1.0f, -23));
  CHECK(mac::gram_replay(a, b, 2).at(0, 0) == 1.0f);
}

TEST_CASE("SpMM replay: empty rows are +0", "[mac]") {
  mtx::CsrF32 a;
  a.rows = 2;
  a.cols = 2;
  a.row_ptr = {0, 0, 1};
  a.col = {1};
  a.val = {-0.0f};
  mac::Matrix b(2, 1);
  b.v = {5.0f, 3.0f};
  auto z = mac::spmm_replay(a, b);
  CHECK(fp::bits_of(z.at(0, 0)) == 0u);
  CHECK(fp::bits_of(z.at(1, 0)) == 0u);  // -0 * 3 + (+0) = +0
}

TEST_CASE("stream planner: beat and result counts", "[mac]") {
  mac::ArrayShape s{4, 4, 3, 16};
  mac::Matrix A(100, 8), B(8, 6), C(100, 6);
  auto p = mac::plan_gemm(s, A, B, &C, 1.0f);
  const int64_t tiles = (100 + 11) / 12, blocks = 2;
  CHECK(p.commands.size() == static_cast<size_t>(2 * blocks));
  CHECK(p.ops.size() == static_cast<size_t>(blocks * (8 + tiles * 9 * 3)));
  CHECK(p.results.size() == static_cast<size_t>(blocks * tiles * 3));
  CHECK(p.useful_macs == 100u * 6u * 9u);
  mtx::CsrF32 e;
  e.rows = 5;
  e.cols = 3;
  e.row_ptr = {0, 0, 0, 0, 0, 0};
  auto q = mac::plan_spmm(s, e, mac::Matrix(3, 2));
  // Five empty rows: each is one pad+last element; rows go to (row, lane) slots in order.
  size_t lasts = 0;
  for (const auto& o : q.ops) lasts += static_cast<size_t>(__builtin_popcountll(o.last));
  CHECK(lasts == 5);
  CHECK_THROWS_AS(mac::plan_gemm(s, mac::Matrix(4, 17), mac::Matrix(17, 2), nullptr, 1.0f), Error);
}

TEST_CASE("pipeline buffer model: delayed-hold bounds", "[pipeline_buffer]") {
  mac::PipelineBufferModel m(4, 1);  // 3 tiles of storage
  for (int i = 0; i < 40; ++i) m.produce(static_cast<uint64_t>(i));
  for (int t = 0; t < 3; ++t)
    for (int i = 0; i < 4; ++i) CHECK(m.read(0, i, i == 3) == static_cast<uint64_t>(4 * t + i));
  CHECK_FALSE(m.serviceable(0, 0));  // three tiles ahead of the delayed consumer
  CHECK(m.credit_bound() == 12);
  CHECK(m.read(1, 2, true) == 2u);
  CHECK(m.serviceable(0, 0));
  CHECK(m.credit_bound() == 16);
}

TEST_CASE("datapath config sections are validated", "[config]") {
  auto parse = [](const nlohmann::json& j) { return gen::parse_hw_config(j, "cfg.json"); };
  auto c = parse({{"mac_arrays", {{{"name", "m"}, {"rows", 8}, {"cols", 16}}}},
                  {"regfiles", {{{"name", "r"}}}},
                  {"pipeline_buffers", {{{"name", "p"}, {"tile", 32}, {"hold_tiles", 3}}}}});
  CHECK(c.mac_arrays.at(0).fma_stages == 3);
  CHECK(c.pipeline_buffers.at(0).depth() == 32 * 5);
  CHECK(parse(c.to_json()).to_json() == c.to_json());
  auto fails = [&](const nlohmann::json& j, const std::string& what) {
    try {
      parse(j);
    } catch (const Error& e) {
      INFO(e.what());
      CHECK(std::string(e.what()).find(what) != std::string::npos);
      return;
    }
    FAIL("accepted: " << j.dump());
  };
  fails({{"mac_arrays", {{{"cols", 17}}}}}, "mac_arrays[0].cols");
  fails({{"mac_arrays", {{{"rows", 0}}}}}, "mac_arrays[0].rows");
  fails({{"mac_arrays", {{{"fma_stages", 9}}}}}, "fma_stages");
  fails({{"mac_arrays", {{{"colums", 4}}}}}, "colums");
  fails({{"regfiles", {{{"rows", 17}}}}}, "regfiles[0].rows");
  fails({{"pipeline_buffers", {{{"tile", 65536}, {"hold_tiles", 64}}}}}, "exceeds");
  fails({{"mac_arrays", {{{"name", "x"}}}}, {"regfiles", {{{"name", "x_rf"}}}}}, "duplicate module name");
  fails({{"pipeline_buffers", {{{"name", "9p"}}}}}, "must start with a letter");
  // A module's own name used inside it (a port, a signal, a loop variable)
  // would hide the module (Verilator's VARHIDDEN): refused at the block's name.
  fails({{"mac_arrays", {{{"name", "busy"}}}}}, "mac_arrays[0].name: module name \"busy\" is also a name inside");
  fails({{"regfiles", {{{"name", "w"}, {"word_writes", true}}}}}, "regfiles[0].name: module name \"w\"");
  fails({{"regfiles", {{{"name", "b"}}, {{"name", "ram_rdata"}}}}}, "regfiles[1].name");
  // A block may not take the name of a module the top generates.
  nlohmann::json with_top = gen::default_hw_config_json();
  with_top["regfiles"] = {{{"name", "cello_default_top_engine_rf"}}};
  fails(with_top, "regfiles[0].name: duplicate module name \"cello_default_top_engine_rf\": the top generates");
  // The same letter is free where the module does not use it (row loads have no loop).
  CHECK(parse({{"regfiles", {{{"name", "w"}}}}}).regfiles.at(0).name == "w");
}
