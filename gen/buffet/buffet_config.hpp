// Design-time options of one buffet (see docs/config.md, "buffets").
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "gen/config_reader.hpp"

namespace cello::gen {

struct BuffetConfig {
  std::string name = "buffet";
  int depth = 64;          // physical slots, any value >= 2
  int data_width = 32;     // bits per element
  int index_width = 0;     // width of rd_req_idx/upd_idx; 0 = just enough for depth
  bool update = true;      // UPDATE path (upd_* ports)
  bool scoreboard = true;  // RAW scoreboard (rd_req_will_update port); needs update
  // 0: one pending bit per slot; N >= 2: a CAM of N outstanding will_update slots
  // (a will_update read waits while all N are in use).
  int scoreboard_entries = 0;
  bool shared_write_port = false;  // fill and update arbitrate for one RAM write port
  bool shrink_sync = true;         // shrink waits until num <= occupancy
  bool base_bound = false;         // runtime region [cfg_base, cfg_bound) of the RAM
  std::string ram = "flop";        // "flop" (combinational read) or "sram" (1-cycle read)

  // Derived widths.
  int slot_width() const;   // RAM address bits
  int count_width() const;  // occupancy / shrink / credit bits (0..depth)

  // The canonical config section: every field under its own name, and
  // shared_write_port as "write_port" (added by to_json).
  NLOHMANN_DEFINE_TYPE_INTRUSIVE(BuffetConfig, name, depth, data_width, index_width, update, scoreboard,
                                 scoreboard_entries, shrink_sync, base_bound, ram)
  nlohmann::json to_json() const;
  static BuffetConfig parse(ConfigReader& r);
};

}  // namespace cello::gen
