// Design-time options of one CHORD buffer (see docs/config.md, "chords", and
// docs/chord.md). The functional model (sw/chord) takes the same parameters.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "sw/chord/chord_model.hpp"
#include "gen/config_reader.hpp"

namespace cello::gen {

struct ChordConfig {
  std::string name = "chord";
  int depth = 1024;          // SRAM words
  int word_width = 32;       // bits per word
  int entries = 64;          // RIFF index table entries
  int extents = 4;           // SRAM runs per entry (1..8)
  int addr_width = 32;       // global word-address width
  int id_width = 16;         // tensor id width
  int dist_width = 16;       // next-use distance width
  int uses_width = 8;        // remaining-uses width
  bool riff = true;          // false: PRELUDE only (no eviction, no victim scan hardware)
  std::string victim = "distance";  // RIFF key: "distance" {live, ~dist, uses} or "uses" {live, uses, ~dist}
  bool reserve = true;       // a writer keeps its spare space for its own writes; JSON default: riff (docs/chord.md)
  bool inplace = true;       // rewrite command: a tensor written in place of another takes over its entry; JSON default: riff
  bool claim = false;        // claim command: a tensor takes its space when its op starts, writes never scan (needs riff, reserve)
  bool clean = false;        // fills (wr_fill) are clean: a spilled or evicted clean word is not written to DRAM
  bool flush = false;        // flush command (cmd_op 6): write a tensor's dirty resident words back (needs riff)
  bool byte_enables = false; // wr_be: a write names the bytes it writes (word_width a multiple of 8)
  std::string ram = "sram";  // "flop" (combinational read) or "sram" (1-cycle read)
  int read_queue = 4;        // reads in flight (power of two, >= 2)
  int dram_queue = 4;        // DRAM request queue entries (power of two, >= 2)
  int counter_width = 32;    // width of each performance counter

  // Derived widths.
  int slot_width() const;   // SRAM index bits
  int len_width() const;    // lengths / capacity offsets 0..depth
  int entry_width() const;  // table entry index bits
  int nruns_width() const;  // run count 0..extents
  int run_index_width() const;  // run index 0..extents-1
  int key_width() const { return 1 + dist_width + uses_width; }
  // Bits of one RIFF index table entry as stored (see docs/chord.md).
  int entry_bits() const;

  // The functional model's parameters (header-only: no link dependency on sw/).
  chord::Geometry geometry() const {
    chord::Geometry g;
    g.sram_words = static_cast<uint32_t>(depth);
    g.entries = static_cast<uint32_t>(entries);
    g.extents = static_cast<uint32_t>(extents);
    g.addr_bits = static_cast<unsigned>(addr_width);
    g.word_bits = static_cast<unsigned>(word_width);
    g.id_bits = static_cast<unsigned>(id_width);
    g.dist_bits = static_cast<unsigned>(dist_width);
    g.uses_bits = static_cast<unsigned>(uses_width);
    g.riff = riff;
    g.victim = victim == "uses" ? chord::Victim::Uses : chord::Victim::Distance;
    g.reserve = reserve;
    g.inplace = inplace;
    g.claim = claim;
    g.clean = clean;
    g.flush = flush;
    g.byte_enables = byte_enables;
    return g;
  }

  // The canonical config section: every field under its own name.
  NLOHMANN_DEFINE_TYPE_INTRUSIVE(ChordConfig, name, depth, word_width, entries, extents, addr_width, id_width,
                                 dist_width, uses_width, riff, victim, reserve, inplace, claim, clean, flush, byte_enables, ram,
                                 read_queue, dram_queue, counter_width)
  nlohmann::json to_json() const { return *this; }
  static ChordConfig parse(ConfigReader& r);
};

}  // namespace cello::gen
