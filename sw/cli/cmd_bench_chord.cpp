// `cello bench chord`: the cost and speed of CHORD's tensor-granular metadata.
//  1. Yosys cell and flop counts of the control logic and the RIFF index table
//     (RAM excluded: the two modules are synthesised on their own);
//  2. table storage bits next to the tag array of an 8-way, 16-byte-line cache
//     of the same capacity (CELLO Sec. VI-B reports about 0.01x);
//  3. sustained accesses per cycle on hits, measured on the verilated RTL with
//     every decision checked against the functional model.
#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>

#include "sw/common/bits.hpp"
#include "gen/chord/chord_gen.hpp"
#include "tb/chord/chord_sim.hpp"
#include "sw/cli/commands.hpp"
#include "sw/cli/options.hpp"
#include "sw/common/error.hpp"
#include "gen/design.hpp"
#include "sw/synth/yosys_stat.hpp"

namespace cello::cli {

namespace {

namespace fs = std::filesystem;

void add_bench_chord(CLI::App& bench) {
  auto* cmd = bench.add_subcommand("chord", "CHORD: control + table size, table bits vs cache tags, hit throughput");
  auto entries = std::make_shared<int>(64);
  auto sram_mb = std::make_shared<int>(4);
  auto word = std::make_shared<int>(32);
  auto extents = std::make_shared<int>(4);
  auto addr = std::make_shared<int>(32);
  auto yosys = std::make_shared<std::string>(std::getenv("CELLO_YOSYS") ? std::getenv("CELLO_YOSYS") : "yosys");
  auto out = std::make_shared<std::string>("bench_chord_out");
  auto words = std::make_shared<uint64_t>(65536);
  auto no_synth = std::make_shared<bool>(false);
  auto json = std::make_shared<std::string>();
  cmd->add_option("--entries", *entries, "RIFF index table entries")->capture_default_str()->check(CLI::Range(2, 256));
  cmd->add_option("--sram-mb", *sram_mb, "SRAM capacity in MiB")->capture_default_str()->check(CLI::Range(1, 64));
  cmd->add_option("--word-width", *word, "bits per word")->capture_default_str()->check(CLI::IsMember({8, 16, 32, 64}));
  cmd->add_option("--extents", *extents, "runs per entry")->capture_default_str()->check(CLI::Range(1, 8));
  cmd->add_option("--addr-width", *addr, "global word-address width")->capture_default_str()->check(CLI::Range(16, 48));
  cmd->add_option("--yosys", *yosys, "yosys executable (or CELLO_YOSYS)")->capture_default_str();
  cmd->add_option("--out", *out, "directory for the generated RTL and yosys logs")->capture_default_str();
  cmd->add_option("--words", *words, "tensor length of the throughput run")->capture_default_str()->check(CLI::Range(64, 1 << 19));
  cmd->add_flag("--no-synth", *no_synth, "skip the Yosys counts");
  add_json_option(cmd, *json);
  cmd->callback([=] {
    gen::ChordConfig c;
    c.name = "bench_chord";
    c.entries = *entries;
    c.word_width = *word;
    c.extents = *extents;
    c.addr_width = *addr;
    c.ram = "sram";
    const uint64_t bytes = uint64_t(*sram_mb) << 20;
    c.depth = static_cast<int>(bytes * 8 / uint64_t(*word));
    if (c.addr_width < c.len_width()) throw Error("", "--addr-width", "too narrow for the SRAM depth");
    nlohmann::json report = {{"command", "bench chord"}, {"config", c.to_json()}};

    // ---- 1. table bits against cache tags
    const uint64_t entry_bits = c.entry_bits(), table_bits = entry_bits * uint64_t(c.entries);
    const uint64_t line_bytes = 16, ways = 8, lines = bytes / line_bytes, sets = lines / ways;
    const int byte_addr_bits = c.addr_width + cello::ceil_log2(uint64_t(*word) / 8);
    const int tag_bits = byte_addr_bits - cello::ceil_log2(sets) - cello::ceil_log2(line_bytes);
    const uint64_t tag_array = lines * uint64_t(tag_bits);
    const uint64_t tag_state = lines * uint64_t(tag_bits + 2) + sets * (ways - 1);  // + valid, dirty, tree-PLRU
    const uint64_t paper_table = 512ull * uint64_t(c.entries);
    fmt::print("cello bench chord: {} entries x {} runs in front of a {} MiB SRAM ({} x {}-bit words)\n", c.entries,
               c.extents, *sram_mb, c.depth, c.word_width);
    fmt::print("  table: {} bits/entry x {} = {} bits (paper budget 512 bits/entry = {} bits)\n", entry_bits,
               c.entries, table_bits, paper_table);
    fmt::print("  8-way 16 B-line cache of {} MiB: {} lines, {} sets, {}-bit tags = {} tag bits "
               "({} with valid, dirty, PLRU)\n",
               *sram_mb, lines, sets, tag_bits, tag_array, tag_state);
    fmt::print("  table / tag array = {:.4f}x   (with state {:.4f}x; at 512 bits/entry {:.4f}x)\n",
               double(table_bits) / double(tag_array), double(table_bits) / double(tag_state),
               double(paper_table) / double(tag_array));
    report["table"] = {{"entry_bits", entry_bits},
                       {"table_bits", table_bits},
                       {"paper_table_bits", paper_table},
                       {"cache_lines", lines},
                       {"cache_sets", sets},
                       {"cache_tag_bits_per_line", tag_bits},
                       {"cache_tag_array_bits", tag_array},
                       {"cache_tag_and_state_bits", tag_state},
                       {"ratio_table_to_tags", double(table_bits) / double(tag_array)},
                       {"ratio_table_to_tags_and_state", double(table_bits) / double(tag_state)}};

    // ---- 2. Yosys counts of the table and the controller (no RAM)
    if (!*no_synth) {
      gen::Design d;
      gen::add_chord(d, c);
      nlohmann::json hw = {{"name", "bench_chord"}, {"chords", {c.to_json()}}};
      auto files = gen::write_design(d, hw, *out);
      fmt::print("  synthesising (Yosys generic synth, RAM excluded; this takes a while)...\n");
      std::fflush(stdout);
      auto tbl_run =
          synth::yosys_synth_stat(files, c.name + "_riff_table", fs::path(*out) / "riff_table.yosys.log", {}, *yosys);
      const synth::CellStat& tbl = tbl_run.total;
      fmt::print("  RIFF index table: {} cells, {} flops ({:.0f} s)\n", tbl.cells, tbl.flops, tbl_run.seconds);
      std::fflush(stdout);
      auto ctl_run =
          synth::yosys_synth_stat(files, c.name + "_prelude", fs::path(*out) / "prelude.yosys.log", {}, *yosys);
      const synth::CellStat& ctl = ctl_run.total;
      fmt::print("  PRELUDE controller: {} cells, {} flops ({:.0f} s)\n", ctl.cells, ctl.flops, ctl_run.seconds);
      fmt::print("  control + table: {} cells, {} flops (SRAM: {} bits, not counted)\n", tbl.cells + ctl.cells,
                 tbl.flops + ctl.flops, uint64_t(c.depth) * uint64_t(c.word_width));
      report["synthesis"] = {{"table_cells", tbl.cells},     {"table_flops", tbl.flops},
                             {"controller_cells", ctl.cells}, {"controller_flops", ctl.flops},
                             {"total_cells", tbl.cells + ctl.cells}, {"total_flops", tbl.flops + ctl.flops}};
    }

    // ---- 3. hit throughput on the verilated benchmark configuration
    if (c.to_json() == tb::chord_bench_config().to_json()) {
      auto t = tb::chord_hit_throughput(*words);
      fmt::print("  hits: {:.3f} accesses/cycle with one read and one write port busy "
                 "({} accesses in {} cycles), {:.3f} reads/cycle read-only ({} in {} cycles)\n",
                 t.mixed_per_cycle(), t.mixed_accesses, t.mixed_cycles, t.reads_per_cycle(), t.read_accesses,
                 t.read_cycles);
      report["throughput"] = {{"words", t.words},
                              {"mixed_accesses", t.mixed_accesses},
                              {"mixed_cycles", t.mixed_cycles},
                              {"accesses_per_cycle", t.mixed_per_cycle()},
                              {"read_accesses", t.read_accesses},
                              {"read_cycles", t.read_cycles},
                              {"reads_per_cycle", t.reads_per_cycle()}};
    } else {
      fmt::print("  hits: throughput is simulated only for configs/bench/bench_chord.json (verilated into cello)\n");
    }
    write_json_report(*json, report);
  });
}

}  // namespace

CELLO_BENCH("chord", add_bench_chord);

}  // namespace cello::cli
