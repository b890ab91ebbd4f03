#include "gen/buffet/buffet_config.hpp"
#include "sw/common/limits.hpp"

#include <fmt/format.h>

#include "gen/sv_module.hpp"

namespace cello::gen {

int BuffetConfig::slot_width() const { return bits_for(depth - 1); }
int BuffetConfig::count_width() const { return bits_for(depth); }

nlohmann::json BuffetConfig::to_json() const {
  nlohmann::json j = *this;
  j["write_port"] = shared_write_port ? "shared" : "separate";
  return j;
}

BuffetConfig BuffetConfig::parse(ConfigReader& r) {
  BuffetConfig c;
  c.name = r.identifier("name", c.name);
  c.depth = static_cast<int>(r.integer("depth", c.depth, 2, 1 << 20));
  c.data_width = static_cast<int>(r.integer("data_width", c.data_width, 1, 4096));
  // Simulating the buffet holds its storage in host memory.
  limits::check_memory(uint64_t(c.depth) * uint64_t(c.data_width) / 8, r.file(), r.where("depth"),
                       fmt::format("a buffet of {} x {} bits", c.depth, c.data_width));
  int need = bits_for(c.depth - 1);
  c.index_width = static_cast<int>(r.integer("index_width", need, 1, 32));
  if (c.index_width < need)
    r.fail("index_width", fmt::format("{} bits cannot address depth {} (needs at least {})", c.index_width,
                                      c.depth, need));
  c.update = r.boolean("update", c.update);
  c.scoreboard = r.boolean("scoreboard", c.update);
  if (c.scoreboard && !c.update) r.fail("scoreboard", "the RAW scoreboard needs the update path (update: true)");
  c.scoreboard_entries = static_cast<int>(r.integer("scoreboard_entries", 0, 0, 256));
  if (c.scoreboard_entries > 0 && !c.scoreboard)
    r.fail("scoreboard_entries", "a scoreboard CAM needs the scoreboard (scoreboard: true)");
  if (c.scoreboard_entries == 1)
    r.fail("scoreboard_entries", "a scoreboard CAM has at least 2 entries (0 = one bit per slot)");
  if (c.scoreboard_entries >= c.depth)
    r.fail("scoreboard_entries", fmt::format("{} CAM entries for {} slots: use 0 (one bit per slot) instead",
                                             c.scoreboard_entries, c.depth));
  c.shared_write_port = r.choice("write_port", "separate", {"separate", "shared"}) == "shared";
  if (c.shared_write_port && !c.update)
    r.fail("write_port", "a shared write port needs the update path (update: true)");
  c.shrink_sync = r.boolean("shrink_sync", c.shrink_sync);
  c.base_bound = r.boolean("base_bound", c.base_bound);
  c.ram = r.choice("ram", c.ram, {"flop", "sram"});
  r.finish();
  return c;
}

}  // namespace cello::gen
