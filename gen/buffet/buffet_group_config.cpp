#include "gen/buffet/buffet_group_config.hpp"

#include <fmt/format.h>

#include "gen/sv_module.hpp"
#include "sw/common/limits.hpp"

namespace cello::gen {

namespace group_config_parts {
BuffetConfig level(const std::string& name, int depth, int width) {
  BuffetConfig b;
  b.name = name;
  b.depth = depth;
  b.data_width = width;
  b.index_width = bits_for(depth - 1);
  b.update = false;
  b.scoreboard = false;
  b.shared_write_port = false;
  b.shrink_sync = true;
  b.base_bound = false;
  b.ram = "flop";
  return b;
}
}  // namespace group_config_parts

BuffetConfig BuffetGroupConfig::l2() const { return group_config_parts::level(l2_name(), l2_depth, data_width); }
BuffetConfig BuffetGroupConfig::l1() const { return group_config_parts::level(l1_name(), l1_depth, data_width); }

BuffetGroupConfig BuffetGroupConfig::parse(ConfigReader& r) {
  BuffetGroupConfig c;
  c.name = r.identifier("name", c.name);
  c.targets = static_cast<int>(r.integer("targets", c.targets, 1, 16));
  c.data_width = static_cast<int>(r.integer("data_width", c.data_width, 1, 1024));
  c.l2_depth = static_cast<int>(r.integer("l2_depth", c.l2_depth, 2, 1 << 16));
  c.l1_depth = static_cast<int>(r.integer("l1_depth", c.l1_depth, 2, 1 << 16));
  // Simulating the group holds every level's storage in host memory.
  limits::check_memory((uint64_t(c.l2_depth) + uint64_t(c.targets) * uint64_t(c.l1_depth)) * uint64_t(c.data_width) / 8,
                       r.file(), r.where("l2_depth"),
                       fmt::format("a buffet group of {} + {} x {} elements of {} bits", c.l2_depth, c.targets,
                                   c.l1_depth, c.data_width));
  r.finish();
  return c;
}

}  // namespace cello::gen
