#include "gen/mac_array/mac_array_config.hpp"

namespace cello::gen {

MacArrayConfig MacArrayConfig::parse(ConfigReader& r) {
  MacArrayConfig c;
  c.name = r.identifier("name", c.name);
  c.rows = static_cast<int>(r.integer("rows", c.rows, 1, 64));
  c.cols = static_cast<int>(r.integer("cols", c.cols, 1, 16));
  c.fma_stages = static_cast<int>(r.integer("fma_stages", c.fma_stages, 1, 8));
  c.rf_rows = static_cast<int>(r.integer("rf_rows", c.rf_rows, 1, 16));
  c.gram = r.boolean("gram", c.gram);
  c.spmm = r.boolean("spmm", c.spmm);
  r.finish();
  return c;
}

}  // namespace cello::gen
