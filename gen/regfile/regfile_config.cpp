#include "gen/regfile/regfile_config.hpp"

#include "gen/sv_module.hpp"

namespace cello::gen {

int RegfileConfig::row_width() const { return bits_for(rows - 1); }

RegfileConfig RegfileConfig::parse(ConfigReader& r) {
  RegfileConfig c;
  c.name = r.identifier("name", c.name);
  c.rows = static_cast<int>(r.integer("rows", c.rows, 1, 16));
  c.cols = static_cast<int>(r.integer("cols", c.cols, 1, 16));
  c.word_writes = r.boolean("word_writes", c.word_writes);
  r.finish();
  return c;
}

}  // namespace cello::gen
