#include "gen/top/top_config.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <bit>

#include "sw/common/bits.hpp"
#include "sw/common/error.hpp"
#include "gen/design.hpp"
#include "gen/hw_config.hpp"

namespace cello::gen {

std::string dram_bandwidth_excess(double bytes_per_cycle, int granule_bytes) {
  return fmt::format("{} bytes per cycle exceed the top's DRAM port, which moves one {}-byte granule per cycle "
                     "(raise top.granule_bytes to carry more)",
                     bytes_per_cycle, granule_bytes);
}

TopConfig TopConfig::parse(ConfigReader& r, const std::string& config_name) {
  TopConfig t;
  t.name = r.identifier("name", config_name + "_top");
  if (!r.has("mac_array")) r.fail("mac_array", "required: the name of a mac_arrays entry");
  t.mac_array = r.string("mac_array", "");
  t.chord = r.string("chord", "");
  if (!r.has("pipeline_buffer")) r.fail("pipeline_buffer", "required: the name of a pipeline_buffers entry");
  t.pipeline_buffer = r.string("pipeline_buffer", "");
  t.granule_bytes = static_cast<int>(r.integer("granule_bytes", t.granule_bytes, 4, 256));
  if (!std::has_single_bit(static_cast<unsigned>(t.granule_bytes)))
    r.fail("granule_bytes", fmt::format("{} is not a power of two", t.granule_bytes));
  // Default: 16, or one granule per cycle when the granule is smaller.
  t.dram_bytes_per_cycle = static_cast<int>(
      r.integer("dram_bytes_per_cycle", std::min(t.dram_bytes_per_cycle, t.granule_bytes), 1, 4096));
  if (t.dram_bytes_per_cycle > t.granule_bytes)
    r.fail("dram_bytes_per_cycle", dram_bandwidth_excess(t.dram_bytes_per_cycle, t.granule_bytes));
  t.dram_latency = static_cast<int>(r.integer("dram_latency", t.dram_latency, 1, 100000));
  t.clock_mhz = static_cast<int>(r.integer("clock_mhz", t.clock_mhz, 1, 10000));
  t.host_cycles = static_cast<int>(r.integer("host_cycles", t.host_cycles, 0, 100000000));
  t.memory_mb = static_cast<int>(r.integer("memory_mb", t.memory_mb, 1, 1 << 20));
  t.tensor_table = static_cast<int>(r.integer("tensor_table", t.tensor_table, 16, 65536));
  t.gather_words = static_cast<int>(r.integer("gather_words", t.gather_words, 64, 1 << 24));
  if (!std::has_single_bit(static_cast<unsigned>(t.gather_words)))
    r.fail("gather_words", fmt::format("{} is not a power of two", t.gather_words));
  t.load_window = static_cast<int>(r.integer("load_window", t.load_window, 1, 32));
  t.store_window = static_cast<int>(r.integer("store_window", t.store_window, 1, 32));
  r.finish();
  return t;
}

namespace {

template <class T>
const T* find_named(const std::vector<T>& v, const std::string& name) {
  for (const auto& x : v)
    if (x.name == name) return &x;
  return nullptr;
}

}  // namespace

const ChordConfig* top_chord(const HwConfig& cfg) {
  return !cfg.top || cfg.top->chord.empty() ? nullptr : find_named(cfg.chords, cfg.top->chord);
}

bool chord_on_datapath(const ChordConfig& c, int granule_bytes) {
  return c.word_width == 8 * granule_bytes && c.riff && c.claim && c.clean && c.flush && c.byte_enables;
}

void check_top(const HwConfig& cfg, const std::string& file) {
  if (!cfg.top) return;
  const TopConfig& t = *cfg.top;
  if (!find_named(cfg.mac_arrays, t.mac_array))
    throw Error(file, "top.mac_array", fmt::format("no mac_arrays entry is named \"{}\"", t.mac_array));
  if (!t.chord.empty()) {
    const ChordConfig* c = find_named(cfg.chords, t.chord);
    if (!c) throw Error(file, "top.chord", fmt::format("no chord entry is named \"{}\"", t.chord));
    const int64_t bits = int64_t{c->depth} * c->word_width;
    if (bits % (8 * t.granule_bytes) != 0)
      throw Error(file, "top.chord",
                  fmt::format("CHORD \"{}\" holds {} bits, not a whole number of {}-byte granules", t.chord, bits,
                              t.granule_bytes));
    // A tensor's CHORD ids are 4t + 1 .. 4t + 3 (a CSR tensor's three arrays).
    const int id_bits = bits_for(t.tensor_table - 1) + 2;
    if (c->id_width < id_bits)
      throw Error(file, "top.chord",
                  fmt::format("CHORD \"{}\" has {}-bit ids; {} tensors (top.tensor_table) need {} bits (ids 4t + 1 .. 4t + 3)",
                              t.chord, c->id_width, t.tensor_table, id_bits));
    // On the datapath CHORD's word addresses are the memory's granule addresses.
    const int granule_bits = bits_for((int64_t{t.memory_mb} << 20) - 1) - std::countr_zero(static_cast<unsigned>(t.granule_bytes));
    if (chord_on_datapath(*c, t.granule_bytes) && c->addr_width < granule_bits)
      throw Error(file, "top.chord",
                  fmt::format("CHORD \"{}\" has {}-bit addresses; the {} MB memory has {}-bit granule addresses",
                              t.chord, c->addr_width, t.memory_mb, granule_bits));
  }
  if (!find_named(cfg.pipeline_buffers, t.pipeline_buffer))
    throw Error(file, "top.pipeline_buffer",
                fmt::format("no pipeline_buffers entry is named \"{}\"", t.pipeline_buffer));
  if (int64_t{t.gather_words} * 4 > (int64_t{t.memory_mb} << 20))
    throw Error(file, "top.gather_words",
                fmt::format("{} words ({} bytes) exceed the {} MB memory", t.gather_words,
                            int64_t{t.gather_words} * 4, t.memory_mb));
}

arch::Arch arch_of(const HwConfig& cfg, const std::string& file) {
  if (!cfg.top) throw Error(file, "top", "this config has no top section (docs/config.md, \"top\")");
  check_top(cfg, file);
  const TopConfig& t = *cfg.top;
  arch::Arch a;
  a.name = cfg.name;
  a.config_hash = std::stoull(config_hash(cfg.to_json()), nullptr, 16);
  const MacArrayConfig& m = *find_named(cfg.mac_arrays, t.mac_array);
  a.pe_rows = m.rows;
  a.pe_cols = m.cols;
  a.fma_stages = m.fma_stages;
  a.rf_rows = m.rf_rows;
  a.gram = m.gram;
  a.spmm = m.spmm;
  if (const ChordConfig* c = top_chord(cfg)) {
    const chord::Geometry g = c->geometry();  // the config as the CHORD model sees it
    a.chord_bytes = uint64_t{g.sram_words} * g.word_bits / 8;
    arch::set_chord_policy(a, g);
    a.chord_on_datapath = chord_on_datapath(*c, t.granule_bytes);
  }
  const PipelineBufferConfig& p = *find_named(cfg.pipeline_buffers, t.pipeline_buffer);
  a.pipeline_buffer_words = p.depth();
  a.pipeline_hold_tiles = p.hold_tiles;
  a.granule_bytes = static_cast<unsigned>(t.granule_bytes);
  a.dram_bytes_per_cycle = t.dram_bytes_per_cycle;
  a.dram_latency = static_cast<unsigned>(t.dram_latency);
  a.clock_ghz = t.clock_mhz / 1000.0;
  a.host_cycles = static_cast<unsigned>(t.host_cycles);
  a.memory_bytes = static_cast<uint64_t>(t.memory_mb) << 20;
  a.load_window = static_cast<unsigned>(t.load_window);
  a.store_window = static_cast<unsigned>(t.store_window);
  a.gather_words = static_cast<uint64_t>(t.gather_words);
  a.tensor_table = static_cast<uint64_t>(t.tensor_table);
  return a;
}

arch::Arch load_arch(const std::string& config_path) {
  const std::string file = config_path.empty() ? "<default config>" : config_path;
  const nlohmann::json raw = config_path.empty() ? default_hw_config_json() : parse_json_file(config_path);
  return arch_of(parse_hw_config(raw, file), file);
}

}  // namespace cello::gen
