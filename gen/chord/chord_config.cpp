#include "gen/chord/chord_config.hpp"

#include <fmt/format.h>

#include "gen/sv_module.hpp"

namespace cello::gen {

int ChordConfig::slot_width() const { return bits_for(depth - 1); }
int ChordConfig::len_width() const { return bits_for(depth); }
int ChordConfig::entry_width() const { return bits_for(entries - 1); }
int ChordConfig::nruns_width() const { return bits_for(extents); }
int ChordConfig::run_index_width() const { return bits_for(extents - 1); }

int ChordConfig::entry_bits() const {
  // valid, id, base, end, write pointer, resident length, run count,
  // per run (SRAM start, cumulative end offset), next-use distance, uses;
  // with claim the claimed bit; with clean and RIFF (which evicts) the dirty
  // prefix length, and with claim too a bit for a claimed write past it.
  return 1 + id_width + 3 * addr_width + len_width() + nruns_width() + extents * (slot_width() + len_width()) +
         (riff ? dist_width + uses_width : 0) + (claim ? 1 : 0) + (riff && clean ? len_width() + (claim ? 1 : 0) : 0);
}

ChordConfig ChordConfig::parse(ConfigReader& r) {
  ChordConfig c;
  c.name = r.identifier("name", c.name);
  c.depth = static_cast<int>(r.integer("depth", c.depth, 2, 1 << 24));
  c.word_width = static_cast<int>(r.integer("word_width", c.word_width, 1, 2048));
  c.entries = static_cast<int>(r.integer("entries", c.entries, 2, 256));
  c.extents = static_cast<int>(r.integer("extents", c.extents, 1, 8));
  c.addr_width = static_cast<int>(r.integer("addr_width", c.addr_width, 2, 48));
  if (c.addr_width < c.len_width())
    r.fail("addr_width", fmt::format("{} bits cannot address a tensor as long as the SRAM (depth {} needs {})",
                                     c.addr_width, c.depth, c.len_width()));
  c.id_width = static_cast<int>(r.integer("id_width", c.id_width, 1, 32));
  c.dist_width = static_cast<int>(r.integer("dist_width", c.dist_width, 1, 24));
  c.uses_width = static_cast<int>(r.integer("uses_width", c.uses_width, 1, 24));
  c.riff = r.boolean("riff", c.riff);
  c.victim = r.choice("victim", c.victim, {"distance", "uses"});
  // `reserve` defaults to `riff`: it helps RIFF and costs PRELUDE-only traffic
  // (docs/chord.md, "Policy options").
  c.reserve = r.boolean("reserve", c.riff);
  c.inplace = r.boolean("inplace", c.riff);
  if (c.inplace && !c.riff) r.fail("inplace", "the rewrite command carries reuse metadata, which needs riff");
  c.claim = r.boolean("claim", false);
  if (c.claim && !(c.riff && c.reserve))
    r.fail("claim", "the claim command keeps claimed space with the reserve rule and evicts with RIFF: it needs riff and reserve");
  // Model-only policy options (sw/chord): not in the RTL (docs/chord.md).
  if (r.boolean("refill", false)) r.fail("refill", "refill on read miss is a model-only option (docs/chord.md); the RTL does not implement it");
  c.clean = r.boolean("clean", false);
  c.flush = r.boolean("flush", false);
  if (c.flush && !c.riff) r.fail("flush", "the flush command writes back through RIFF's write-back engine: it needs riff");
  c.byte_enables = r.boolean("byte_enables", false);
  if (c.byte_enables && c.word_width % 8 != 0)
    r.fail("byte_enables", fmt::format("a word of {} bits is not a whole number of bytes", c.word_width));
  c.ram = r.choice("ram", c.ram, {"flop", "sram"});
  auto pow2 = [&](const char* key, int fallback, int most) {
    int v = static_cast<int>(r.integer(key, fallback, 2, most));
    if (v & (v - 1)) r.fail(key, fmt::format("{} is not a power of two", v));
    return v;
  };
  c.read_queue = pow2("read_queue", c.read_queue, 256);
  c.dram_queue = pow2("dram_queue", c.dram_queue, 64);
  if (c.claim && c.ram == "sram" && c.dram_queue < 4)
    r.fail("dram_queue", "a claim's background write-back shares the DRAM queue with the reads: claim with an SRAM needs at least 4 entries");
  c.counter_width = static_cast<int>(r.integer("counter_width", c.counter_width, 8, 64));
  if (c.counter_width < c.len_width())
    r.fail("counter_width", fmt::format("must be at least {} bits for depth {}", c.len_width(), c.depth));
  r.finish();
  return c;
}

}  // namespace cello::gen
