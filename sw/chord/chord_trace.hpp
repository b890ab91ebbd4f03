// Operation traces for CHORD: random mixes and structured tensor programs
// (streaming producer/consumer chains, a CG-like solver loop). The same traces
// drive the model's unit tests, the RTL differential testbench (tb/chord) and
// `cello bench chord`, and a DRAM image with reproducible initial contents.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "sw/chord/chord_model.hpp"

namespace cello::chord {

enum class OpKind : uint8_t { Register, Update, Release, Write, Read, Rewrite, Claim, Commit, Flush, Illegal };

struct TraceOp {
  OpKind kind = OpKind::Read;
  uint32_t id = 0;
  uint64_t base = 0, end = 0;  // Register
  ReuseMeta meta{};            // Register, Update
  uint64_t addr = 0;           // Write, Read
  uint64_t data = 0;           // Write: the seed of its data (expand_word)
  ByteMask be{};               // Write, option byte_enables: the bytes written (empty = all)
  bool fill = false;           // Write: a fill (the first read of an input; DRAM holds the word),
                               // clean with option `clean` (ChordModel::fill)
  uint32_t new_id = 0;         // Rewrite: the tensor written in place of `id`
                               // (Claim, option claim: `id` takes the space its writes need;
                               //  Commit: its op has written it whole;
                               //  Flush, option flush: write its dirty resident words back)
  unsigned opcode = 0;         // Illegal: the opcode, one the build does not have
  bool is_command() const { return kind != OpKind::Write && kind != OpKind::Read; }
};

// The walk's 16-bit reuse metadata (a distance of 0xffff = none) in a build's
// narrower widths, as the top's CHORD command unit sends it: none stays all
// ones, other distances saturate one below, uses saturate.
ReuseMeta in_widths(const ReuseMeta& m, unsigned dist_bits, unsigned uses_bits);

// Applies one trace operation to the model; returns the access result
// (commands report their status in Access::status and entry).
Access apply(ChordModel& m, const TraceOp& op);

// Random mix: registrations (sometimes into a full table or with a used id),
// in-order writes, reads anywhere (biased to recent data), updates, releases,
// a sprinkle of illegal accesses, and now and then a command with an opcode
// the build does not have. Tensor sizes range from 1 word to about
// twice the SRAM, so tiny SRAMs evict constantly. With the `inplace` option a
// live tensor is sometimes rewritten in place under a new id (now and then a
// rewrite names an unregistered id or a new id already in use).
struct RandomMix {
  double error_rate = 0.01;      // illegal operations among accesses
  double command_rate = 0.03;    // commands among all operations
  double read_share = 0.55;      // reads among accesses
};
std::vector<TraceOp> random_trace(const Geometry& g, uint64_t seed, size_t ops, const RandomMix& mix = {});

// With the `flush` option the random mix now and then flushes a live tensor
// (or an unregistered id), and the structured programs flush their results
// still on chip before the end.
//
// With the `clean` option about a third of the tensors it registers are
// inputs, whose writes are fills (now and then a plain write among them, and a
// rewrite in place writes plainly over a filled prefix), so evictions and
// spills see clean, dirty and partly dirty prefixes.
//
// With the `claim` option the random mix claims most tensors it registers or
// rewrites, and now and then one already claimed or not registered; it writes
// a claimed tensor's remaining words in a scrambled order and commits it once
// they are all written (and now and then commits an unregistered id). The
// structured programs claim every output they write through CHORD, write it
// in a random order and commit it when the op ends.
//
// CG-like program: per iteration Q = A*P, alpha = <R,R>/<P,Q>, X += alpha*P,
// R -= alpha*Q, beta, P = R + beta*P, with n-word vectors (versions of X, R, P
// get fresh ids; dead versions are released) and the reuse metadata SCORE would
// attach (R reused soon and twice, X only next iteration, A streamed). With
// n > sram_words / 3 the writes overflow the SRAM. With the `inplace` option an
// element-wise op whose input of the same length dies there rewrites that
// input's entry in place instead of registering a fresh one (X0 over b, then
// per iteration X, R over Q, and P).
std::vector<TraceOp> cg_trace(const Geometry& g, uint64_t n, int iterations, uint64_t seed);

// Streaming chains: producer writes a tensor, one or more consumers read it at
// different distances (skip connections), then it is released.
std::vector<TraceOp> chain_trace(const Geometry& g, uint64_t seed, size_t ops);

// Number of reads + writes in a trace.
size_t access_count(const std::vector<TraceOp>& t);

// DRAM image of `word_bits`-bit words whose untouched words are made from a
// hash of the address (expand_word(initial(addr), word_bits)).
class MapDram : public DramBacking {
 public:
  explicit MapDram(unsigned word_bits = 64) : bits_(word_bits) {}
  static uint64_t initial(uint64_t addr) { return (addr * 0x9e3779b97f4a7c15ull) >> 32; }
  Word read(uint64_t addr) override {
    auto it = mem_.find(addr);
    return it == mem_.end() ? expand_word(initial(addr), bits_) : it->second;
  }
  void write(uint64_t addr, const Word& data, const ByteMask& be) override {
    mem_[addr] = merge_bytes(read(addr), data, be, bits_);
  }

 private:
  unsigned bits_;
  std::unordered_map<uint64_t, Word> mem_;
};

}  // namespace cello::chord
