#include <catch2/catch.hpp>

#include "sw/area/sweep.hpp"
#include "sw/common/error.hpp"

using namespace cello::area;

TEST_CASE("sweep specs parse into typed values", "[area][sweep]") {
  auto a = parse_sweep("buffets.depth=64,256,1024");
  CHECK(a.section == "buffets");
  CHECK(a.key == "depth");
  REQUIRE(a.values.size() == 3);
  CHECK(a.values[1] == 256);
  auto b = parse_sweep("buffets.scoreboard=true,false");
  CHECK(b.values[0] == true);
  auto c = parse_sweep("chords.ram=flop,sram");
  CHECK(c.values[0] == "flop");
  auto d = parse_sweep("clock_period_ns=2.5,5");
  CHECK(d.section.empty());
  CHECK(d.values[0] == 2.5);
}

TEST_CASE("bad --sweep specs are one-line errors", "[area][sweep]") {
  CHECK_THROWS_AS(parse_sweep("buffets.depth"), cello::Error);
  CHECK_THROWS_AS(parse_sweep("=1,2"), cello::Error);
  CHECK_THROWS_AS(parse_sweep("bufets.depth=1"), cello::Error);
  CHECK_THROWS_AS(parse_sweep("buffets.depth=1,,2"), cello::Error);
  CHECK_THROWS_WITH(parse_sweep("bufets.depth=1"), Catch::Contains("--sweep: bufets.depth=1: unknown section"));
}

TEST_CASE("sweeps expand to the cartesian product, every block of the section set", "[area][sweep]") {
  nlohmann::json base = {{"name", "x"}, {"buffets", {{{"name", "a"}}, {{"name", "b"}}}}};
  auto pts = expand_sweeps(base, {parse_sweep("buffets.depth=16,32"), parse_sweep("buffets.update=true,false")});
  REQUIRE(pts.size() == 4);
  CHECK(pts[0].label == "buffets.depth=16 buffets.update=true");
  CHECK(pts[3].label == "buffets.depth=32 buffets.update=false");
  CHECK(pts[1].config["buffets"][1]["update"] == false);
  CHECK(pts[2].config["buffets"][0]["depth"] == 32);
  CHECK(expand_sweeps(base, {}).size() == 1);
  CHECK_THROWS_AS(expand_sweeps(base, {parse_sweep("chords.entries=4,8")}), cello::Error);
}

TEST_CASE("a top key sweeps the top section; manifests build axes from key paths", "[area][sweep]") {
  nlohmann::json base = {{"name", "x"}, {"top", {{"granule_bytes", 16}}}};
  auto pts = expand_sweeps(base, {parse_sweep("top.granule_bytes=32,64")});
  REQUIRE(pts.size() == 2);
  CHECK(pts[1].config["top"]["granule_bytes"] == 64);
  CHECK_THROWS_WITH(expand_sweeps({{"name", "x"}}, {parse_sweep("top.granule_bytes=32")}),
                    Catch::Contains("no \"top\" section"));
  auto a = make_axis("chords.depth", {4096, 8192}, "m.json", "vary.chords.depth");
  CHECK(a.section == "chords");
  CHECK(a.values.size() == 2);
  CHECK_THROWS_WITH(make_axis("chrds.depth", {1}, "m.json", "vary.chrds.depth"),
                    Catch::Contains("m.json: vary.chrds.depth: unknown section"));
  CHECK_THROWS_WITH(make_axis("chords.depth", {}, "m.json", "vary.chords.depth"), Catch::Contains("no values"));
}
