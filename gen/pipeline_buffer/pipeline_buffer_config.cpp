#include "gen/pipeline_buffer/pipeline_buffer_config.hpp"

#include <fmt/format.h>

#include "gen/sv_module.hpp"

namespace cello::gen {

BuffetConfig PipelineBufferConfig::buffet() const {
  BuffetConfig b;
  b.name = buffet_name();
  b.depth = depth();
  b.data_width = data_width;
  b.index_width = bits_for(depth());  // one bit more than the slots need: the index sum never truncates
  b.update = false;
  b.scoreboard = false;
  b.shared_write_port = false;
  b.shrink_sync = true;
  b.base_bound = false;
  b.ram = ram;
  return b;
}

PipelineBufferConfig PipelineBufferConfig::parse(ConfigReader& r) {
  PipelineBufferConfig c;
  c.name = r.identifier("name", c.name);
  c.data_width = static_cast<int>(r.integer("data_width", c.data_width, 1, 1024));
  c.tile = static_cast<int>(r.integer("tile", c.tile, 1, 65536));
  c.hold_tiles = static_cast<int>(r.integer("hold_tiles", c.hold_tiles, 0, 64));
  c.ram = r.choice("ram", c.ram, {"flop", "sram"});
  if (static_cast<int64_t>(c.tile) * c.depth_tiles() > (1 << 20))
    r.fail("tile", fmt::format("tile * (hold_tiles + 2) = {} elements exceeds the buffet limit of 2^20",
                               static_cast<int64_t>(c.tile) * c.depth_tiles()));
  r.finish();
  return c;
}

}  // namespace cello::gen
