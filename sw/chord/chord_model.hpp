// C++ functional model of CHORD (CELLO Sec. VI): one SRAM, the RIFF index table
// and the PRELUDE controller. This model is the specification: the generated RTL
// must take exactly the same decision (hit / miss / spill / evict, table entry,
// SRAM slot, victim, evicted count) on every access of the same trace, and the
// traffic models drive it directly. docs/chord.md explains the policy and layout.
//
// Trace-driven API, one operation at a time:
//   register_tensor(id, base, end, meta)  SCORE announces a tensor [base, end)
//   update(id, meta)                       SCORE re-prioritises it
//   release(id)                            SCORE says it is dead; its space is free
//   rewrite(id, new_id, meta)              (option inplace) new_id is written in place of id
//   write(id, addr, data)                  producer writes, strictly in address order
//   read(id, addr)                         consumer reads anywhere in [base, end)
//
// Addresses are word addresses in the global (DRAM) address space. SRAM slots are
// word indices 0..sram_words-1.
//
// Layout ("owned runs"): every SRAM slot belongs to exactly one run of exactly one
// table entry, valid or not; after reset entry 0 owns the whole SRAM. An entry
// owns at most `extents` runs; its runs, concatenated in order, form the entry's
// capacity, whose first res_len words hold the tensor's resident prefix and whose
// remainder is spare (free) space. Space only ever moves from the tail of one
// entry's last run to a new (or merged) last run of the entry being written, so
// the SRAM never fragments into unowned holes and every free word can be reached.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "sw/chord/chord_word.hpp"

namespace cello::chord {

// Which resident tensor RIFF shrinks (docs/chord.md, "Priority function").
enum class Victim : uint8_t {
  Distance,  // key {live, nearer next use, more uses}: Belady at tensor granularity (the paper)
  Uses,      // key {live, more uses, nearer next use}: a word read more often is worth more
};
const char* to_string(Victim v);

// Design-time parameters shared with the RTL generator (gen/chord/chord_config).
struct Geometry {
  uint32_t sram_words = 1u << 20;  // SRAM depth in words
  uint32_t entries = 64;           // RIFF index table entries (tensors tracked at once)
  uint32_t extents = 4;            // runs (contiguous SRAM extents) per entry, 1..8
  unsigned addr_bits = 32;         // global word-address width
  unsigned word_bits = 32;         // data word width, 1..2048 (chord_word.hpp)
  unsigned id_bits = 16;           // tensor id width
  unsigned dist_bits = 16;         // next-use distance width
  unsigned uses_bits = 8;          // remaining-uses width
  bool riff = true;                // false = PRELUDE only: never evict, never bypass
  // Policy options (docs/chord.md, "Policy options"); the RTL implements the same.
  Victim victim = Victim::Distance;  // RIFF's priority key
  // A read miss at the resident end of a tensor still to be read after this
  // pass (uses >= 2) stores the word it fetches (clean), growing the prefix,
  // if its own spare space or free space elsewhere has room (it never evicts).
  bool refill = false;
  // Track each entry's dirty prefix: evicting words DRAM already holds (refilled
  // or filled) costs no write-back. Also in the RTL (gen/chord, chords[].clean:
  // the write port's wr_fill, a dirty length per entry with RIFF).
  bool clean = false;
  // Spare space of a tensor still being written with an intact prefix is kept
  // for its remaining writes: the free-space step hands out only the surplus,
  // and an entry holding such space is never a RIFF victim. Also in the RTL
  // (gen/chord, chords[].reserve). On by default: with RIFF it measures best
  // (docs/chord.md, `cello bench policy`); PRELUDE-only moves more bytes with
  // it, so a config's `reserve` defaults to its `riff`.
  bool reserve = true;
  // A tensor written over the storage of one it reads for the last time, in
  // the same order and at the same addresses (SCORE's in-place layout), takes
  // over that tensor's entry with rewrite(): its writes land in place in the
  // resident prefix, which it inherits, and grow it from there. Also in the
  // RTL (gen/chord, chords[].inplace, which needs riff). On by default: it
  // measures best (docs/chord.md, `cello bench policy`).
  bool inplace = true;
  // A tensor takes its on-chip space only with claim(), which its op issues
  // when it starts, before any of the op's accesses: every move (free space
  // first, then RIFF's evictions) happens then, and a write stores only into
  // the space claimed, never starting a move of its own. A claimed tensor's
  // writes (and fills) may come in any order: each lands at its own offset,
  // and commit(), when the op ends, makes them resident. Every decision of an
  // op is then fixed when it starts: a read's outcome depends on its address
  // alone and a write's on its offset alone, whatever the order of the op's
  // accesses (docs/chord.md, "Policy options"). Also in the RTL (gen/chord,
  // chords[].claim); the top's datapath is meant to take it (docs/top.md).
  bool claim = false;
  // The flush command: flush(id) writes the tensor's resident words that may
  // differ from DRAM back, in address order, and keeps them resident and
  // clean; the write-back of outputs still on chip when a program ends.
  // Also in the RTL (gen/chord, chords[].flush, which needs riff: it writes
  // back through RIFF's write-back engine).
  bool flush = false;
  // Byte enables on writes (word_bits a multiple of 8): a write names the
  // bytes it writes, and is decided as a whole-word write. A stored word keeps
  // its other bytes; a spill writes only its bytes to DRAM. The top's store
  // path writes a granule two columns of a column-major result share in two
  // parts. Not a policy: no decision changes. Also in the RTL (gen/chord,
  // chords[].byte_enables: wr_be, dram_req_be, byte-enabled SRAM writes).
  bool byte_enables = false;

  // Checks ranges; throws std::invalid_argument naming the bad field.
  void validate() const;
};

// SCORE's reuse metadata for one tensor.
struct ReuseMeta {
  uint32_t next_use = 0;  // operations until the next read (smaller = sooner)
  uint32_t uses = 1;      // reads still to come (0 = dead: never worth keeping)
};

// The priority RIFF compares (larger = keep). Live tensors (uses > 0) beat dead
// ones; among live tensors a nearer next use wins; equal distance -> more uses win.
uint64_t priority_key(const ReuseMeta& m, const Geometry& g);

enum class Outcome : uint8_t {
  Hit,    // read: served by the SRAM; write: stored in the SRAM
  Miss,   // read: served by DRAM
  Spill,  // write: sent to DRAM (no space, lost prefix, or dead tensor)
  Evict,  // write: stored after evicting the tail of a lower-priority tensor
  Error,  // illegal access: dropped (a read still answers, with 0)
};
const char* to_string(Outcome o);

enum class Status : uint8_t {
  Ok,
  Unregistered,  // read/write/update/release of an id not in the table
  OutOfRange,    // read outside [base, end)
  OutOfOrder,    // write address is not the tensor's next write address (claimed: outside [base, end))
  TableFull,     // register with no free entry
  Duplicate,     // register of an id already in the table
  BadRange,      // register with end <= base
  IllegalOpcode,  // a command the hardware does not have (RTL only; the model counts it)
};
const char* to_string(Status s);

// The result of one read or write.
struct Access {
  Outcome outcome = Outcome::Error;
  Status status = Status::Ok;
  int entry = -1;          // table entry of the tensor (-1 if unregistered)
  uint32_t slot = 0;       // SRAM slot (Hit / Evict)
  int victim_entry = -1;   // Evict: entry whose tail was evicted
  uint32_t victim_id = 0;  // Evict: that tensor's id
  uint32_t evicted = 0;    // Evict: words evicted (written back to DRAM if dirty)
  bool refilled = false;   // read Miss (refill on): the fetched word was stored at `slot`
  Word data;               // read: the word returned (data tracking on; zero without)
};

// The result of one command.
struct CommandResult {
  Status status = Status::Ok;
  int entry = -1;  // the entry registered / updated / released
};

// Per-tensor statistics (accumulated per tensor id across registrations).
// Every member is a uint64_t counter (operator+= sums them with add_counters).
struct TensorStats {
  uint64_t read_hits = 0, read_misses = 0;
  uint64_t write_hits = 0;   // stored in the SRAM (including writes that evicted)
  uint64_t spills = 0;       // writes sent to DRAM
  uint64_t evictions = 0;    // words of this tensor evicted to make room for another
  uint64_t evicts_caused = 0;  // words of other tensors this tensor's writes evicted
  uint64_t refills = 0;        // read misses whose word was stored (refill on)
  uint64_t errors = 0;
  uint64_t dram_reads = 0, dram_writes = 0;  // words moved to / from DRAM for it
  TensorStats& operator+=(const TensorStats& o);
};

// One word of DRAM traffic, in the order the controller issues it.
struct DramOp {
  bool write = false;
  uint64_t addr = 0;
  Word data;
  uint32_t id = 0;  // the tensor the word belongs to
  ByteMask be;      // write: the bytes written (option byte_enables; empty = the whole word)
};

// Where read misses get their data and spills / write-backs put it. Optional:
// without one the model still decides and counts, but reads return data 0.
class DramBacking {
 public:
  virtual ~DramBacking() = default;
  virtual Word read(uint64_t addr) = 0;
  // be: the bytes to write (empty = the whole word).
  virtual void write(uint64_t addr, const Word& data, const ByteMask& be) = 0;
};

// One SRAM extent of an entry: slots [start, start + len) hold the entry's
// capacity offsets [ofs_end - len, ofs_end); len is derived from the previous run.
struct Run {
  uint32_t start = 0;    // first SRAM slot
  uint32_t ofs_end = 0;  // cumulative capacity offset at the end of this run
};

// One RIFF index table entry, field for field what the RTL stores.
struct Entry {
  bool valid = false;
  uint32_t id = 0;
  uint64_t base = 0, end = 0;  // the tensor is [base, end) in the global address space
  uint64_t wptr = 0;           // next address the producer must write
  uint32_t res_len = 0;        // resident prefix [base, base + res_len) ("resident end")
  uint32_t dirty = 0;          // the first `dirty` resident words may differ from DRAM (dirty <= res_len)
  uint64_t written = 0;        // model only: words ever written at [base, base + written), for the invariants
  bool claimed = false;        // option claim: claim() ran since register / rewrite / commit()
  bool claim_dirty = false;    // a claimed tensor stored a write (not a fill) past its prefix since claim() (RTL: cdirty_q)
  uint32_t nruns = 0;
  std::vector<Run> runs;       // `extents` elements, first nruns in use
  ReuseMeta meta;

  uint64_t resident_end() const { return base + res_len; }
  uint32_t capacity() const { return nruns ? runs[nruns - 1].ofs_end : 0; }
  uint32_t run_begin(uint32_t j) const { return j ? runs[j - 1].ofs_end : 0; }
  uint32_t run_len(uint32_t j) const { return runs[j].ofs_end - run_begin(j); }
  uint32_t spare() const { return capacity() - res_len; }
};

// The RTL's command opcodes (cmd_op): 0 register, 1 update, 2 release,
// 3 rewrite (option inplace), 4 claim and 5 commit (option claim), 6 flush
// (option flush). The opcode is 3 bits wide with claim or flush, else 2.
inline unsigned command_opcode_bits(const Geometry& g) { return g.claim || g.flush ? 3 : 2; }

// The opcodes of that width the RTL built for `g` does not have (its
// illegal-opcode status): 3 without `inplace`; with 3 bits, 4 and 5 without
// `claim`, 6 without `flush`, and 7. The generator and the traces share it.
inline std::vector<unsigned> illegal_opcodes(const Geometry& g) {
  std::vector<unsigned> ops;
  if (!g.inplace) ops.push_back(3);
  if (command_opcode_bits(g) == 2) return ops;
  if (!g.claim) ops.insert(ops.end(), {4, 5});
  if (!g.flush) ops.push_back(6);
  ops.push_back(7);
  return ops;
}

class ChordModel {
 public:
  // track_data: keep SRAM contents so reads return data (tests); the traffic
  // models leave it off. dram may be null.
  explicit ChordModel(const Geometry& g, bool track_data = false, DramBacking* dram = nullptr);

  const Geometry& geometry() const { return g_; }

  CommandResult register_tensor(uint32_t id, uint64_t base, uint64_t end, const ReuseMeta& meta);
  CommandResult update(uint32_t id, const ReuseMeta& meta);
  CommandResult release(uint32_t id);
  // Option `inplace`: tensor new_id, with the same range, is written in place of
  // id from now on. The entry keeps its runs and resident prefix, and changes
  // id, metadata and write pointer (back to base). Reads of the old tensor's
  // words not yet rewritten go to new_id and still return the old data.
  // Errors: id unregistered, new_id already registered, option off (Unregistered).
  CommandResult rewrite(uint32_t id, uint32_t new_id, const ReuseMeta& meta);
  // Option `claim`: tensor `id`, about to be written (or filled) by the op now
  // starting, takes the space its unwritten words need, as far as free space,
  // RIFF's victims and `extents` allow, and keeps it for those writes. Nothing
  // happens for a tensor RIFF bypasses, one fully written, or one whose
  // prefix has spilled. Errors: unregistered, option off (Unregistered).
  CommandResult claim(uint32_t id);
  // Option `claim`: the op that claimed `id` has written (or filled) it whole.
  // Its words past the resident prefix that landed in the claimed space become
  // resident: the prefix grows to min(capacity, end - base), unless RIFF
  // bypasses the tensor (uses == 0) or its prefix had spilled before the
  // claim, whose writes past the prefix all spilled. The write
  // pointer moves to `end` and the claim ends: later writes are out of order.
  // On a registered tensor that is not claimed it does nothing. Errors:
  // unregistered, option off (Unregistered).
  CommandResult commit(uint32_t id);
  // Option `flush`: writes words [base, base + n) of `id` back to DRAM, lowest
  // address first, where n is the dirty prefix's length with `clean` and the
  // resident length without it; they stay resident, now clean (dirty = 0).
  // Errors: unregistered, option off (Unregistered).
  CommandResult flush(uint32_t id);
  // A command whose opcode the build does not have (the RTL's illegal
  // opcodes): refused with IllegalOpcode, counted as an error of `id`, and
  // nothing else changes.
  CommandResult illegal_command(uint32_t id);
  // With option `byte_enables`, `be` names the bytes written (empty = all):
  // the decision is a whole-word write's, the SRAM word keeps its other
  // bytes, and a spill writes only those bytes to DRAM.
  Access write(uint32_t id, uint64_t addr, const Word& data = {}, const ByteMask& be = {});
  // A write of a word DRAM already holds (an input streamed in on its first
  // read): as write(), but with `clean` on the word is clean and a spill costs
  // no DRAM write. With `clean` off it is exactly write().
  Access fill(uint32_t id, uint64_t addr, const Word& data = {}, const ByteMask& be = {});
  Access read(uint32_t id, uint64_t addr);

  // Called for every DRAM word the controller moves, in issue order.
  void on_dram(std::function<void(const DramOp&)> sink) { sink_ = std::move(sink); }

  const std::vector<Entry>& table() const { return table_; }
  int find(uint32_t id) const;  // entry of a registered id, -1 if none
  const std::map<uint32_t, TensorStats>& stats() const { return stats_; }
  TensorStats stats(uint32_t id) const;
  TensorStats totals() const;

  // SRAM slot of capacity offset `ofs` of entry e (ofs < capacity).
  uint32_t slot_of(const Entry& e, uint32_t ofs) const;
  // Throws std::logic_error describing the first broken layout invariant:
  // every slot owned by exactly one run, runs non-empty and ordered, at most
  // `extents` runs, res_len <= capacity, resident prefix written, unique ids.
  void check_invariants() const;

 private:
  struct Steal {
    int src = -1;
    bool evict = false;
    uint32_t count = 0;
  };
  // Spare words of entry e another entry may take: all of them, or with
  // `reserve` those beyond what e's own remaining writes will fill.
  uint32_t giveable(const Entry& e) const;
  Steal choose_source(int w) const;  // the writer's need: end - wptr
  Steal choose_source(int w, uint64_t need, bool may_evict) const;
  // A write or fill: its data, byte enables and whether it makes the word dirty.
  struct Store {
    const Word& data;
    const ByteMask& be;
    bool dirty;
  };
  Access store(uint32_t id, uint64_t addr, const Store& w);
  Access store_claimed(Access& a, Entry& W, uint64_t addr, const Store& w);
  void sram_put(uint32_t slot, const Word& data, const ByteMask& be = {});
  Word sram_word(uint32_t slot) const;
  bool claim_stores(const Entry& W) const;
  void take(int w, const Steal& s);
  // The same for access `a` (its entry is the taker), recording the victim in `a`.
  void take(Access& a, const Steal& s);
  void dram_write(uint32_t id, uint64_t addr, const Word& data, const ByteMask& be = {});
  Word dram_read(uint32_t id, uint64_t addr);
  TensorStats& st(uint32_t id) { return stats_[id]; }
  // Fails an access or command on tensor `id` with status `s`, counted as one of its errors.
  template <class Result>
  Result& refuse(Result& r, uint32_t id, Status s) {
    r.status = s;
    ++st(id).errors;
    return r;
  }

  Geometry g_;
  bool track_data_;
  DramBacking* dram_;
  std::vector<Entry> table_;
  std::vector<uint64_t> sram_;  // data tracking: word_limbs(word_bits) limbs per slot
  std::map<uint32_t, TensorStats> stats_;
  std::function<void(const DramOp&)> sink_;
};

}  // namespace cello::chord
