// The "chords" section of the hardware config: defaults, derived widths, the
// entry width, and one-line errors for impossible values.
#include <catch2/catch.hpp>

#include "gen/chord/chord_config.hpp"
#include "gen/chord/chord_gen.hpp"
#include "sw/common/error.hpp"
#include "tests/common/error_message.hpp"
#include "gen/hw_config.hpp"

using cello::gen::ChordConfig;
using cello::gen::parse_hw_config;

namespace {
std::string error_of(const nlohmann::json& j) {
  return cello::test::error_message([&] { parse_hw_config(j, "cfg.json"); });
}
nlohmann::json one(const nlohmann::json& chord) { return {{"name", "t"}, {"chords", {chord}}}; }
}  // namespace

TEST_CASE("chord config: defaults and entry width", "[chord][config]") {
  auto c = parse_hw_config(one({{"name", "ch"}}), "cfg.json");
  REQUIRE(c.chords.size() == 1);
  const ChordConfig& ch = c.chords[0];
  CHECK(ch.entries == 64);
  CHECK(ch.riff);
  // `reserve` follows `riff` unless given (docs/chord.md: it costs PRELUDE-only traffic).
  CHECK(ch.reserve);
  CHECK(ch.geometry().reserve);
  auto reserve_of = [](const nlohmann::json& j) { return parse_hw_config(one(j), "cfg.json").chords[0].reserve; };
  CHECK_FALSE(reserve_of({{"riff", false}}));
  CHECK(reserve_of({{"riff", false}, {"reserve", true}}));
  CHECK_FALSE(reserve_of({{"reserve", false}}));
  ChordConfig big;
  big.depth = 1 << 20;
  CHECK(big.slot_width() == 20);
  CHECK(big.len_width() == 21);
  CHECK(big.entry_bits() == 325);  // docs/chord.md: fits the paper's 512-bit budget
  big.extents = 1;
  CHECK(big.entry_bits() == 200);
  CHECK(c.to_json()["chords"][0]["depth"] == 1024);
}

TEST_CASE("chord config: impossible values are one-line errors naming the key", "[chord][config]") {
  CHECK_THAT(error_of(one({{"read_queue", 3}})), Catch::Contains("chords[0].read_queue") && Catch::Contains("power of two"));
  CHECK_THAT(error_of(one({{"depth", 4096}, {"addr_width", 8}})), Catch::Contains("addr_width"));
  CHECK_THAT(error_of(one({{"extents", 9}})), Catch::Contains("extents"));
  CHECK_THAT(error_of(one({{"ram", "dram"}})), Catch::Contains("ram"));
  CHECK_THAT(error_of(one({{"depht", 16}})), Catch::Contains("depht"));
  CHECK_THAT(error_of(one({{"depth", 1 << 20}, {"counter_width", 16}})), Catch::Contains("counter_width"));
  CHECK_THAT(error_of({{"chords", {{{"name", "a"}}, {{"name", "a"}}}}}), Catch::Contains("duplicate"));
  CHECK(error_of(one({{"name", "ok"}})).empty());
  CHECK_THAT(error_of(one({{"victim", "lru"}})), Catch::Contains("chords[0].victim"));
  CHECK_THAT(error_of(one({{"refill", true}})), Catch::Contains("refill") && Catch::Contains("model-only"));
  CHECK(error_of(one({{"clean", true}})).empty());
  CHECK(error_of(one({{"clean", true}, {"riff", false}})).empty());
  CHECK(error_of(one({{"reserve", true}})).empty());
  CHECK_THAT(error_of(one({{"reserve", 1}})), Catch::Contains("chords[0].reserve"));
  CHECK(error_of(one({{"victim", "uses"}, {"refill", false}, {"clean", false}, {"reserve", false}})).empty());
  CHECK_THAT(error_of(one({{"riff", false}, {"inplace", true}})),
             Catch::Contains("chords[0].inplace") && Catch::Contains("needs riff"));
  CHECK(error_of(one({{"riff", false}})).empty());  // inplace follows riff: off, no error
  CHECK_THAT(error_of(one({{"reserve", false}, {"claim", true}})),
             Catch::Contains("chords[0].claim") && Catch::Contains("needs riff and reserve"));
  CHECK_THAT(error_of(one({{"riff", false}, {"claim", true}})), Catch::Contains("chords[0].claim"));
  CHECK(error_of(one({{"claim", true}})).empty());
  // The old singular key names its replacement instead of a bare "unknown key".
  CHECK_THAT(error_of({{"name", "t"}, {"chord", {{{"name", "a"}}}}}),
             Catch::Contains("cfg.json: chord: renamed to \"chords\""));
}

TEST_CASE("chord generator: three modules, the configuration in every header", "[chord][config]") {
  auto c = parse_hw_config(one({{"name", "ch"}, {"depth", 16}, {"entries", 4}, {"riff", false}}), "cfg.json");
  auto d = cello::gen::generate_design(c);
  REQUIRE(d.modules.size() == 3);
  CHECK(d.modules[0].name() == "ch_riff_table");
  CHECK(d.modules[1].name() == "ch_prelude");
  CHECK(d.modules[2].name() == "ch");
  for (const auto& m : d.modules) CHECK_THAT(m.render(), Catch::Contains("\"riff\": false"));
  // PRELUDE only: the metadata ports and the write-back engine are gone.
  std::string top = d.modules[2].render();
  CHECK_THAT(top, !Catch::Contains("cmd_dist"));
  CHECK_THAT(top, !Catch::Contains("cmd_nid"));  // no rewrite command without inplace
  CHECK_THAT(d.modules[1].render(), !Catch::Contains("S_EVICT"));
  CHECK(d.blocks[0]["module"] == "ch");
  CHECK(d.blocks[0]["entry_bits"] == 1 + 16 + 96 + 5 + 3 + 4 * 9);
}

TEST_CASE("chord generator: the rewrite command exists exactly with inplace", "[chord][config]") {
  for (bool inplace : {false, true}) {
    INFO("inplace " << inplace);
    auto c = parse_hw_config(one({{"name", "ch"}, {"depth", 16}, {"entries", 4}, {"inplace", inplace}}), "cfg.json");
    CHECK(c.chords[0].geometry().inplace == inplace);
    auto d = cello::gen::generate_design(c);
    REQUIRE(d.modules.size() == 3);
    CHECK((d.modules[2].render().find("cmd_nid") != std::string::npos) == inplace);
    CHECK((d.modules[0].render().find("ua_rewind") != std::string::npos) == inplace);
  }
  // The default follows riff: on for a RIFF CHORD.
  CHECK(parse_hw_config(one({{"name", "ch"}}), "cfg.json").chords[0].inplace);
}

TEST_CASE("chord generator: the claim command exists exactly with claim", "[chord][config][claim]") {
  for (bool claim : {false, true}) {
    INFO("claim " << claim);
    auto c = parse_hw_config(one({{"name", "ch"}, {"depth", 16}, {"entries", 4}, {"claim", claim}}), "cfg.json");
    CHECK(c.chords[0].geometry().claim == claim);
    auto d = cello::gen::generate_design(c);
    REQUIRE(d.modules.size() == 3);
    CHECK((d.modules[2].render().find("logic [2:0]  cmd_op") != std::string::npos) == claim);
    CHECK((d.modules[1].render().find("S_CLAIM") != std::string::npos) == claim);
    CHECK((d.modules[0].render().find("claimed_q") != std::string::npos) == claim);
  }
  CHECK_FALSE(parse_hw_config(one({{"name", "ch"}}), "cfg.json").chords[0].claim);  // off by default
}

// Option clean: the write port's fill flag, and with RIFF (which evicts) the
// dirty prefix per entry; with claim too, the bit for a claimed write past it.
TEST_CASE("chord generator: the fill flag and the dirty prefix exist exactly with clean", "[chord][config][clean]") {
  for (bool riff : {false, true})
    for (bool claim : {false, true})
      for (bool clean : {false, true}) {
        if (claim && !riff) continue;
        INFO("riff " << riff << " claim " << claim << " clean " << clean);
        auto c = parse_hw_config(
            one({{"name", "ch"}, {"depth", 16}, {"entries", 4}, {"riff", riff}, {"claim", claim}, {"clean", clean}}),
            "cfg.json");
        CHECK(c.chords[0].geometry().clean == clean);
        auto d = cello::gen::generate_design(c);
        REQUIRE(d.modules.size() == 3);
        CHECK((d.modules[2].render().find("wr_fill") != std::string::npos) == clean);
        CHECK((d.modules[0].render().find("dirty_q") != std::string::npos) == (clean && riff));
        CHECK((d.modules[0].render().find("cdirty_q") != std::string::npos) == (clean && riff && claim));
        const int more = (claim ? 1 : 0) + (clean && riff ? c.chords[0].len_width() + (claim ? 1 : 0) : 0);
        auto base = c.chords[0];
        base.claim = base.clean = false;
        CHECK(c.chords[0].entry_bits() == base.entry_bits() + more);
      }
  CHECK_FALSE(parse_hw_config(one({{"name", "ch"}}), "cfg.json").chords[0].clean);  // off by default
}

// Option flush: cmd_op 6 and the S_FLUSH state, with a 3-bit opcode whether or
// not the claim commands exist; it needs riff.
TEST_CASE("chord generator: the flush command exists exactly with flush", "[chord][config][flush]") {
  for (bool claim : {false, true})
    for (bool flush : {false, true}) {
      INFO("claim " << claim << " flush " << flush);
      auto c = parse_hw_config(one({{"name", "ch"}, {"depth", 16}, {"entries", 4}, {"claim", claim}, {"flush", flush}}),
                               "cfg.json");
      CHECK(c.chords[0].geometry().flush == flush);
      auto d = cello::gen::generate_design(c);
      REQUIRE(d.modules.size() == 3);
      const std::string ctrl = d.modules[1].render();
      CHECK((d.modules[2].render().find("logic [2:0]  cmd_op") != std::string::npos) == (claim || flush));
      CHECK((ctrl.find("S_FLUSH") != std::string::npos) == flush);
      CHECK((ctrl.find("6 flush") != std::string::npos) == flush);
      CHECK((d.modules[0].render().find("ls_slot") != std::string::npos) == flush);
    }
  CHECK_THAT(error_of(one({{"riff", false}, {"flush", true}})), Catch::Contains("chords[0].flush") && Catch::Contains("needs riff"));
  CHECK_FALSE(parse_hw_config(one({{"name", "ch"}}), "cfg.json").chords[0].flush);  // off by default
}
