#include "sw/chord/chord_trace.hpp"

#include <algorithm>
#include <map>
#include <numeric>
#include <random>
#include <unordered_map>

#include "sw/common/bits.hpp"

namespace cello::chord {

namespace {

TraceOp reg(uint32_t id, uint64_t base, uint64_t end, ReuseMeta m) {
  return {.kind = OpKind::Register, .id = id, .base = base, .end = end, .meta = m};
}
TraceOp upd(uint32_t id, ReuseMeta m) { return {.kind = OpKind::Update, .id = id, .meta = m}; }
TraceOp rel(uint32_t id) { return {.kind = OpKind::Release, .id = id}; }
TraceOp wr(uint32_t id, uint64_t addr, uint64_t data) {
  return {.kind = OpKind::Write, .id = id, .addr = addr, .data = data};
}
TraceOp rd(uint32_t id, uint64_t addr) { return {.kind = OpKind::Read, .id = id, .addr = addr}; }
TraceOp rewrite(uint32_t id, uint32_t new_id, ReuseMeta m) {
  return {.kind = OpKind::Rewrite, .id = id, .meta = m, .new_id = new_id};
}
TraceOp claim(uint32_t id) { return {.kind = OpKind::Claim, .id = id}; }
TraceOp commit(uint32_t id) { return {.kind = OpKind::Commit, .id = id}; }
TraceOp flush(uint32_t id) { return {.kind = OpKind::Flush, .id = id}; }

// Hands out non-overlapping address ranges, wrapping around the address space.
class AddressPool {
 public:
  explicit AddressPool(unsigned addr_bits) : limit_(low_mask(addr_bits)) {}
  uint64_t take(uint64_t size) {
    if (next_ + size + 1 > limit_) next_ = 0;
    uint64_t b = next_;
    next_ += size + 16;
    return b;
  }

 private:
  uint64_t limit_, next_ = 0;
};

// ---- Structured programs: a list of tensor operations; the runner derives the
// reuse metadata (distance to the next consumer, number of consumers left) like
// SCORE would, registers outputs, updates metadata before every operation and
// releases tensors after their last consumer.
enum class Pattern { Elementwise, SpMV, Dot };

struct ProgOp {
  Pattern pattern;
  int output;               // tensor index
  std::vector<int> inputs;  // tensor indices
};

struct ProgTensor {
  uint64_t size;
  bool external = false;  // written outside CHORD (matrix A): registered, never written
};

class ProgramRunner {
 public:
  ProgramRunner(const Geometry& g, uint64_t seed) : g_(g), rng_(seed), pool_(g.addr_bits) {}

  std::vector<TraceOp> run(const std::vector<ProgTensor>& tensors, const std::vector<ProgOp>& ops) {
    // Future consumers of every tensor, as operation indices.
    std::vector<std::vector<int>> consumers(tensors.size());
    for (size_t k = 0; k < ops.size(); ++k)
      for (int in : ops[k].inputs)
        if (consumers[in].empty() || consumers[in].back() != int(k)) consumers[in].push_back(int(k));
    std::vector<size_t> next(tensors.size(), 0);  // first consumer not yet past
    std::vector<uint32_t> id(tensors.size(), 0);
    std::vector<uint64_t> base(tensors.size(), 0);
    std::vector<bool> live(tensors.size(), false);
    // A live tensor is on chip when it holds a table entry. One that found the
    // table full lives in DRAM, as the traffic models treat it: the trace has
    // none of its commands or accesses (they would only be errors).
    onchip_.assign(tensors.size(), false);
    std::vector<ReuseMeta> sent(tensors.size());
    auto meta_at = [&](int t, size_t k) {
      ReuseMeta m;
      size_t i = next[t];
      while (i < consumers[t].size() && size_t(consumers[t][i]) < k) ++i;
      uint64_t left = consumers[t].size() - i;
      m.uses = static_cast<uint32_t>(std::min<uint64_t>(left, low_mask(g_.uses_bits)));
      m.next_use = left ? static_cast<uint32_t>(std::min<uint64_t>(consumers[t][i] - k, low_mask(g_.dist_bits))) : 0;
      return m;
    };
    // Registers tensor t, or (option inplace) has it take over the entry and
    // addresses of the dying input `over`, whose reads then go through t's id.
    auto bring_up = [&](int t, size_t k, int over = -1) {
      id[t] = fresh_id(live, id);
      base[t] = over < 0 ? pool_.take(tensors[t].size) : base[over];
      live[t] = true;
      sent[t] = meta_at(t, k);
      if (over < 0) {
        onchip_[t] = entries_used_ < g_.entries;
        if (!onchip_[t]) return;
        ++entries_used_;
        out_.push_back(reg(id[t], base[t], base[t] + tensors[t].size, sent[t]));
        return;
      }
      out_.push_back(rewrite(id[over], id[t], sent[t]));
      live[over] = false;  // its reads in this op go through t's id
      onchip_[t] = true;
      id[over] = id[t];
    };
    auto drop = [&](int t) {
      if (onchip_[t]) {
        out_.push_back(rel(id[t]));
        --entries_used_;
      }
      live[t] = false;
      onchip_[t] = false;
    };
    for (size_t t = 0; t < tensors.size(); ++t)
      if (tensors[t].external) bring_up(int(t), 0);

    for (size_t k = 0; k < ops.size(); ++k) {
      const ProgOp& op = ops[k];
      // Re-prioritise what is live, then register the output.
      for (size_t t = 0; t < tensors.size(); ++t) {
        if (!live[t] || !onchip_[t]) continue;
        ReuseMeta m = meta_at(int(t), k);
        if (m.next_use != sent[t].next_use || m.uses != sent[t].uses) {
          out_.push_back(upd(id[t], m));
          sent[t] = m;
        }
      }
      for (int in : op.inputs)
        if (!live[in]) bring_up(in, k);  // a program input never produced: written by the host
      if (live[op.output] && !tensors[op.output].external) drop(op.output);
      bring_up(op.output, k + 1, inplace_source(op, k, tensors, consumers, live));
      if (g_.claim && onchip_[op.output]) out_.push_back(claim(id[op.output]));
      emit(op, tensors, id, base);
      if (g_.claim && onchip_[op.output]) out_.push_back(commit(id[op.output]));
      for (int in : op.inputs) {
        auto& c = consumers[in];
        while (next[in] < c.size() && size_t(c[next[in]]) <= k) ++next[in];
        if (next[in] == c.size() && live[in] && !tensors[in].external) drop(in);
      }
    }
    // The program's results still on chip are written back (option flush), then dropped.
    for (size_t t = 0; t < tensors.size(); ++t) {
      if (g_.flush && live[t] && onchip_[t] && !tensors[t].external) out_.push_back(flush(id[t]));
      if (live[t]) drop(static_cast<int>(t));
    }
    return std::move(out_);
  }

 private:
  // Option inplace: an input of an element-wise op, as long as its output,
  // on chip, written through CHORD, and read for the last time here.
  int inplace_source(const ProgOp& op, size_t k, const std::vector<ProgTensor>& tensors,
                     const std::vector<std::vector<int>>& consumers, const std::vector<bool>& live) const {
    if (!g_.inplace || op.pattern != Pattern::Elementwise) return -1;
    for (int in : op.inputs)
      if (in != op.output && live[in] && onchip_[in] && !tensors[in].external && tensors[in].size == tensors[op.output].size &&
          consumers[in].back() == int(k))
        return in;
    return -1;
  }

  uint32_t fresh_id(const std::vector<bool>& live, const std::vector<uint32_t>& ids) {
    for (;;) {
      uint32_t c = static_cast<uint32_t>(next_id_++ & low_mask(g_.id_bits));
      bool used = false;
      for (size_t t = 0; t < live.size(); ++t) used |= live[t] && ids[t] == c;
      if (!used) return c;
    }
  }

  void emit(const ProgOp& op, const std::vector<ProgTensor>& tensors, const std::vector<uint32_t>& id,
            const std::vector<uint64_t>& base) {
    uint64_t n = tensors[op.output].size;
    auto read_at = [&](int t, uint64_t i) {
      if (onchip_[t]) out_.push_back(rd(id[t], base[t] + i % tensors[t].size));
    };
    auto write_at = [&](uint64_t i, uint64_t d) {
      if (onchip_[op.output]) out_.push_back(wr(id[op.output], base[op.output] + i, d));
    };
    auto data = [&] { return rng_() & low_mask(g_.word_bits); };
    // The output's elements in address order, or with claim in a random one
    // (each element's reads still come before its write, as in place needs).
    std::vector<uint64_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    if (g_.claim) std::shuffle(order.begin(), order.end(), rng_);
    switch (op.pattern) {
      case Pattern::Elementwise:
        for (int in : op.inputs)
          if (tensors[in].size == 1) read_at(in, 0);  // scalars are read once into a register
        for (uint64_t i : order) {
          for (int in : op.inputs)
            if (tensors[in].size > 1) read_at(in, i);
          write_at(i, data());
        }
        break;
      case Pattern::SpMV: {
        // inputs[0] = matrix (2 words per row), inputs[1] = vector (own row + a neighbour).
        int A = op.inputs[0], P = op.inputs[1];
        for (uint64_t i : order) {
          read_at(A, 2 * i);
          read_at(A, 2 * i + 1);
          read_at(P, i);
          read_at(P, (i * 5 + 3 + rng_() % 3) % tensors[P].size);
          write_at(i, data());
        }
        break;
      }
      case Pattern::Dot: {
        uint64_t len = tensors[op.inputs[0]].size;
        for (uint64_t i = 0; i < len; ++i)
          for (int in : op.inputs) read_at(in, i);
        for (uint64_t i : order) write_at(i, data());
        break;
      }
    }
  }

  const Geometry& g_;
  std::mt19937_64 rng_;
  AddressPool pool_;
  uint64_t next_id_ = 1;
  std::vector<bool> onchip_;  // per tensor: holds a table entry
  uint32_t entries_used_ = 0;
  std::vector<TraceOp> out_;
};

}  // namespace

ReuseMeta in_widths(const ReuseMeta& m, unsigned dist_bits, unsigned uses_bits) {
  const uint64_t dist_max = (uint64_t{1} << dist_bits) - 1, uses_max = (uint64_t{1} << uses_bits) - 1;
  ReuseMeta r;
  r.next_use = static_cast<uint32_t>(m.next_use == 0xffff ? dist_max : std::min<uint64_t>(m.next_use, dist_max - 1));
  r.uses = static_cast<uint32_t>(std::min<uint64_t>(m.uses, uses_max));
  return r;
}

Access apply(ChordModel& m, const TraceOp& op) {
  Access a;
  CommandResult c;
  switch (op.kind) {
    case OpKind::Register: c = m.register_tensor(op.id, op.base, op.end, op.meta); break;
    case OpKind::Update: c = m.update(op.id, op.meta); break;
    case OpKind::Release: c = m.release(op.id); break;
    case OpKind::Rewrite: c = m.rewrite(op.id, op.new_id, op.meta); break;
    case OpKind::Claim: c = m.claim(op.id); break;
    case OpKind::Commit: c = m.commit(op.id); break;
    case OpKind::Flush: c = m.flush(op.id); break;
    case OpKind::Illegal: c = m.illegal_command(op.id); break;
    case OpKind::Write: {
      const Word data = expand_word(op.data, m.geometry().word_bits);
      return op.fill ? m.fill(op.id, op.addr, data, op.be) : m.write(op.id, op.addr, data, op.be);
    }
    case OpKind::Read: return m.read(op.id, op.addr);
  }
  a.status = c.status;
  a.entry = c.entry;
  a.outcome = c.status == Status::Ok ? Outcome::Hit : Outcome::Error;
  return a;
}

size_t access_count(const std::vector<TraceOp>& t) {
  size_t n = 0;
  for (const auto& o : t) n += !o.is_command();
  return n;
}

namespace {

// The random mix's state: the live tensors, and one method per kind of step.
class RandomMixer {
 public:
  RandomMixer(const Geometry& g, uint64_t seed, const RandomMix& mix)
      : g_(g), mix_(mix), illegal_(illegal_opcodes(g)), rng_(seed), pool_(g.addr_bits), D_(g.sram_words),
        // Keep the address space comfortably larger than the tensors.
        max_size_(std::min<uint64_t>(2 * D_, low_mask(g.addr_bits) / 8)) {}

  std::vector<TraceOp> run(size_t ops) {
    out_.reserve(ops);
    // Writers progress a few tensors at a time, like operations producing outputs.
    while (out_.size() < ops) {
      if (live_.empty() || chance(mix_.command_rate)) command();
      else if (chance(mix_.error_rate)) bad_access();
      else if (chance(mix_.read_share)) read();
      else write();
    }
    return std::move(out_);
  }

 private:
  struct Live {
    uint32_t id;
    uint64_t base, end, wptr;
    // Option claim: the words [cstart, end) are written in the scrambled
    // order cstart + (k * stride) mod (end - cstart), k = 0, 1, ...
    bool claimed = false;
    uint64_t cstart = 0, k = 0, stride = 1;
    bool input = false;  // option clean: its writes are fills
  };

  uint64_t uni(uint64_t lo, uint64_t hi) { return std::uniform_int_distribution<uint64_t>(lo, hi)(rng_); }
  double real() { return std::uniform_real_distribution<double>(0, 1)(rng_); }
  bool chance(double p) { return real() < p; }
  Live& any_live() { return live_[uni(0, live_.size() - 1)]; }
  uint64_t word() { return rng_() & low_mask(g_.word_bits); }

  // A random nonempty byte mask of a word (possibly all of it).
  ByteMask part_of_bytes() {
    const unsigned bytes = g_.word_bits / 8;
    ByteMask be;
    be.limbs.assign((bytes + 63) / 64, 0);
    for (unsigned b = 0; b < bytes; ++b)
      if (chance(0.5)) be.limbs[b / 64] |= uint64_t{1} << (b % 64);
    const unsigned one = static_cast<unsigned>(uni(0, bytes - 1));
    be.limbs[one / 64] |= uint64_t{1} << (one % 64);
    return be;
  }

  ReuseMeta meta() {
    ReuseMeta m;
    m.next_use = static_cast<uint32_t>(std::min<uint64_t>(uni(0, 12), low_mask(g_.dist_bits)));
    m.uses = chance(0.1) ? 0 : static_cast<uint32_t>(std::min<uint64_t>(uni(1, 4), low_mask(g_.uses_bits)));
    return m;
  }
  uint32_t fresh() {
    for (;;) {
      uint32_t c = static_cast<uint32_t>(next_id_++ & low_mask(g_.id_bits));
      bool used = false;
      for (auto& l : live_) used |= l.id == c;
      if (!used) return c;
    }
  }
  void start_claim(Live& l) {
    out_.push_back(claim(l.id));
    // Now and then a flush straight after: the RTL must hold it until the
    // claim's eviction has been written back (they share the write-back engine).
    if (g_.flush && chance(0.1)) out_.push_back(flush(any_live().id));
    if (l.claimed) return;  // claimed again: its writes go on as they were
    l.claimed = true;
    l.cstart = l.wptr;
    l.k = 0;
    const uint64_t len = l.end - l.cstart;
    do l.stride = uni(1, std::max<uint64_t>(1, len));
    while (len > 1 && std::gcd(l.stride, len) != 1);
  }
  void do_register() {
    uint64_t size;
    double r = real();
    if (r < 0.3) size = uni(1, std::max<uint64_t>(1, D_ / 4));
    else if (r < 0.8) size = uni(std::max<uint64_t>(1, D_ / 4), D_);
    else size = uni(D_, max_size_);
    size = std::clamp<uint64_t>(size, 1, max_size_);
    uint32_t id = fresh();
    uint64_t b = pool_.take(size);
    out_.push_back(reg(id, b, b + size, meta()));
    if (live_.size() < g_.entries) {
      live_.push_back({id, b, b + size, b});
      if (g_.clean) live_.back().input = chance(0.35);
      if (g_.claim && chance(0.8)) start_claim(live_.back());
    }
  }
  void release_one() {
    size_t i = uni(0, live_.size() - 1);
    out_.push_back(rel(live_[i].id));
    live_.erase(live_.begin() + static_cast<long>(i));
  }

  void command() {
    double r = real();
    if (live_.empty() || (r < 0.4 && live_.size() < g_.entries) || r < 0.42) {
      do_register();
    } else if (r < 0.45) {
      // Duplicate registration (error).
      const auto& l = any_live();
      out_.push_back(reg(l.id, l.base, l.end, meta()));
    } else if (r < 0.47 && !illegal_.empty()) {
      // An opcode the build does not have (error), naming a live tensor or not.
      TraceOp op = reg(chance(0.5) ? any_live().id : fresh(), 0, 1, meta());
      op.kind = OpKind::Illegal;
      op.opcode = illegal_[uni(0, illegal_.size() - 1)];
      out_.push_back(op);
    } else if (g_.inplace && r < 0.6) {
      rewrite_one();
    } else if (g_.claim && r < 0.63) {
      // A claim of a live tensor (again, or late), or of an unregistered id (an error).
      if (chance(0.8)) start_claim(any_live());
      else out_.push_back(claim(fresh()));
    } else if (g_.claim && r < 0.65) {
      // A commit of an unregistered id (an error) or of an unclaimed tensor (nothing happens).
      std::vector<uint32_t> unclaimed;
      for (const auto& l : live_)
        if (!l.claimed) unclaimed.push_back(l.id);
      out_.push_back(commit(unclaimed.empty() || chance(0.5) ? fresh() : unclaimed[uni(0, unclaimed.size() - 1)]));
    } else if (g_.flush && r < 0.67) {
      // A flush of a live tensor (its dirty words back to DRAM), or of an unregistered id (an error).
      out_.push_back(flush(chance(0.9) ? any_live().id : fresh()));
    } else if (r < 0.7) {
      out_.push_back(upd(any_live().id, meta()));
    } else {
      release_one();
    }
  }

  // Rewrite in place under a fresh id; now and then an illegal one.
  void rewrite_one() {
    auto& l = any_live();
    const double e = real();
    if (e < 0.1) {
      out_.push_back(rewrite(fresh(), fresh(), meta()));  // unregistered
    } else if (e < 0.2) {
      // The new id is in use (an error), or is the tensor's own (legal: it rewinds).
      const uint32_t n = any_live().id;
      out_.push_back(rewrite(l.id, n, meta()));
      if (n == l.id) l.wptr = l.base, l.claimed = false;
    } else {
      const uint32_t n = fresh();
      out_.push_back(rewrite(l.id, n, meta()));
      l.id = n;
      l.wptr = l.base;
      l.claimed = false;
      l.input = false;
      if (g_.claim && chance(0.8)) start_claim(l);
    }
  }

  void bad_access() {
    switch (uni(0, 3)) {
      case 0: out_.push_back(rd(fresh(), uni(0, low_mask(g_.addr_bits)))); break;  // unregistered
      case 1: out_.push_back(wr(fresh(), 0, word())); break;                      // unregistered
      case 2: {
        const auto& l = any_live();
        out_.push_back(rd(l.id, l.end + uni(0, 3)));  // out of range
        break;
      }
      default: {
        // Out of order (a claimed tensor: outside its range).
        const auto& l = any_live();
        out_.push_back(wr(l.id, l.claimed ? l.end + uni(0, 3) : l.wptr + uni(1, 3), word()));
        break;
      }
    }
  }

  void read() {
    auto& l = any_live();
    uint64_t a;
    if (l.wptr > l.base && chance(0.7)) a = uni(l.wptr > l.base + 64 ? l.wptr - 64 : l.base, l.wptr - 1);
    else a = uni(l.base, l.end - 1);
    out_.push_back(rd(l.id, a));
  }

  // A write of l's word at addr: a fill if l is an input (one in twenty is
  // written plainly, which makes its prefix dirty up to there). A fill
  // carries what memory holds: the last value the trace wrote there, else
  // the DRAM image's initial word.
  //
  // With byte_enables a quarter of the plain writes write a random nonempty
  // part of the word's bytes (the trace's memory then takes the whole word,
  // so a later fill may carry a word DRAM does not hold: the model and the
  // RTL still see the same data).
  TraceOp store(const Live& l, uint64_t addr) {
    TraceOp op = wr(l.id, addr, word());
    op.fill = l.input && !chance(0.05);
    if (g_.byte_enables && !op.fill && chance(0.25)) op.be = part_of_bytes();
    if (!g_.clean) return op;
    auto it = memory_.try_emplace(addr, MapDram::initial(addr) & low_mask(g_.word_bits)).first;
    if (op.fill) op.data = it->second;
    else it->second = op.data;
    return op;
  }

  void write() {
    // Prefer the two oldest unfinished tensors (producers run in order).
    std::vector<size_t> open;
    for (size_t i = 0; i < live_.size() && open.size() < 2; ++i)
      if (live_[i].claimed ? live_[i].k < live_[i].end - live_[i].cstart : live_[i].wptr < live_[i].end) open.push_back(i);
    if (open.empty()) {
      if (live_.size() < g_.entries) do_register();
      else release_one();
      return;
    }
    auto& l = live_[open[uni(0, open.size() - 1)]];
    if (!l.claimed) {
      uint64_t burst = std::min<uint64_t>(uni(1, 8), l.end - l.wptr);
      for (uint64_t k = 0; k < burst; ++k) out_.push_back(store(l, l.wptr++));
      return;
    }
    const uint64_t len = l.end - l.cstart;
    uint64_t burst = std::min<uint64_t>(uni(1, 8), len - l.k);
    for (uint64_t k = 0; k < burst; ++k, ++l.k) out_.push_back(store(l, l.cstart + (l.k * l.stride) % len));
    if (l.k == len) {  // written whole: the op commits it
      out_.push_back(commit(l.id));
      l.claimed = false;
      l.wptr = l.end;
    }
  }

  const Geometry& g_;
  const RandomMix& mix_;
  const std::vector<unsigned> illegal_;
  std::mt19937_64 rng_;
  AddressPool pool_;
  const uint64_t D_, max_size_;
  uint64_t next_id_ = 1;
  std::vector<Live> live_;
  std::vector<TraceOp> out_;
  std::unordered_map<uint64_t, uint64_t> memory_;  // option clean: what the trace's writes left in memory
};

}  // namespace

std::vector<TraceOp> random_trace(const Geometry& g, uint64_t seed, size_t ops, const RandomMix& mix) {
  return RandomMixer(g, seed, mix).run(ops);
}

std::vector<TraceOp> cg_trace(const Geometry& g, uint64_t n, int iterations, uint64_t seed) {
  // Tensors: 0 A (2n words, external), then per iteration fresh versions.
  std::vector<ProgTensor> t;
  std::vector<ProgOp> ops;
  t.push_back({2 * n, true});  // A
  auto vec = [&] {
    t.push_back({n, false});
    return int(t.size() - 1);
  };
  auto scalar = [&] {
    t.push_back({1, false});
    return int(t.size() - 1);
  };
  int A = 0;
  int X = vec(), R = vec(), P = vec();
  int B = vec();
  ops.push_back({Pattern::Elementwise, R, {B}});  // R0 = b (- A*0)
  ops.push_back({Pattern::Elementwise, P, {R}});  // P0 = R0
  ops.push_back({Pattern::Elementwise, X, {B}});  // X0 (initial guess)
  for (int k = 0; k < iterations; ++k) {
    int Q = vec(), alpha = scalar(), Xn = vec(), Rn = vec(), beta = scalar(), Pn = vec();
    ops.push_back({Pattern::SpMV, Q, {A, P}});
    ops.push_back({Pattern::Dot, alpha, {R, P, Q}});
    ops.push_back({Pattern::Elementwise, Xn, {X, alpha, P}});
    ops.push_back({Pattern::Elementwise, Rn, {R, alpha, Q}});
    ops.push_back({Pattern::Dot, beta, {Rn, R}});
    ops.push_back({Pattern::Elementwise, Pn, {Rn, beta, P}});
    X = Xn;
    R = Rn;
    P = Pn;
  }
  ops.push_back({Pattern::Dot, scalar(), {X}});  // the host reads the solution
  ProgramRunner runner(g, seed);
  return runner.run(t, ops);
}

std::vector<TraceOp> chain_trace(const Geometry& g, uint64_t seed, size_t ops) {
  std::mt19937_64 rng(seed);
  std::vector<ProgTensor> t;
  std::vector<ProgOp> prog;
  const uint64_t D = g.sram_words;
  auto size = [&] { return std::max<uint64_t>(1, D / 4 + rng() % (D + D / 2)); };
  t.push_back({size(), false});
  size_t estimate = 0;
  while (estimate < ops) {
    int out = int(t.size());
    uint64_t n = t.back().size;  // element-wise chain keeps the length
    if (rng() % 4 == 0) n = size();
    t.push_back({n, false});
    std::vector<int> in = {out - 1};
    if (out >= 3 && rng() % 3 == 0) in.push_back(out - 2 - int(rng() % std::min(out - 2, 3)));  // skip edge
    prog.push_back({Pattern::Elementwise, out, in});
    estimate += n * (1 + in.size()) + 4;
  }
  ProgramRunner runner(g, seed);
  return runner.run(t, prog);
}

}  // namespace cello::chord
