#include "sw/common/bits.hpp"
#include "sw/chord/chord_model.hpp"
#include "sw/common/counters.hpp"
#include "sw/common/enum_names.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace cello::chord {

namespace {
unsigned bits_for(uint64_t max_value) { return static_cast<unsigned>(cello::bits_for(static_cast<long long>(max_value))); }
}  // namespace

void Geometry::validate() const {
  auto need = [](bool ok, const char* what) {
    if (!ok) throw std::invalid_argument(std::string("CHORD geometry: ") + what);
  };
  need(sram_words >= 2 && sram_words <= (1u << 24), "sram_words must be in 2..2^24");
  need(entries >= 2 && entries <= 256, "entries must be in 2..256");
  need(extents >= 1 && extents <= 8, "extents must be in 1..8");
  need(addr_bits >= bits_for(sram_words) && addr_bits <= 48, "addr_bits must cover the SRAM depth and be <= 48");
  need(word_bits >= 1 && word_bits <= 2048, "word_bits must be in 1..2048");
  need(!byte_enables || word_bits % 8 == 0, "byte_enables needs word_bits a multiple of 8");
  need(id_bits >= 1 && id_bits <= 32, "id_bits must be in 1..32");
  need(dist_bits >= 1 && dist_bits <= 24, "dist_bits must be in 1..24");
  need(uses_bits >= 1 && uses_bits <= 24, "uses_bits must be in 1..24");
}

uint64_t priority_key(const ReuseMeta& m, const Geometry& g) {
  uint64_t live = m.uses != 0 ? 1 : 0;
  uint64_t nearness = low_mask(g.dist_bits) - m.next_use;  // larger = sooner
  if (g.victim == Victim::Uses) return (live << (g.dist_bits + g.uses_bits)) | (uint64_t(m.uses) << g.dist_bits) | nearness;
  return (live << (g.dist_bits + g.uses_bits)) | (nearness << g.uses_bits) | m.uses;
}

constexpr const char* kVictimNames[] = {"distance", "uses"};
static_assert(names_cover(kVictimNames, Victim::Uses));
const char* to_string(Victim v) { return name_of(v, kVictimNames); }

constexpr const char* kOutcomeNames[] = {"hit", "miss", "spill", "evict", "error"};
static_assert(names_cover(kOutcomeNames, Outcome::Error));
const char* to_string(Outcome o) { return name_of(o, kOutcomeNames); }

constexpr const char* kStatusNames[] = {"ok", "unregistered tensor", "address outside the tensor",
                                        "write out of order", "table full", "tensor id already registered",
                                        "empty address range", "illegal command opcode"};
static_assert(names_cover(kStatusNames, Status::IllegalOpcode));
const char* to_string(Status s) { return name_of(s, kStatusNames); }

TensorStats& TensorStats::operator+=(const TensorStats& o) { return add_counters(*this, o); }

ChordModel::ChordModel(const Geometry& g, bool track_data, DramBacking* dram)
    : g_(g), track_data_(track_data), dram_(dram) {
  g_.validate();
  table_.resize(g_.entries);
  for (auto& e : table_) e.runs.resize(g_.extents);
  // After reset entry 0 (not valid) owns the whole SRAM as spare space.
  table_[0].nruns = 1;
  table_[0].runs[0] = {0, g_.sram_words};
  if (track_data_) sram_.assign(size_t{g_.sram_words} * word_limbs(g_.word_bits), 0);
}

int ChordModel::find(uint32_t id) const {
  for (size_t i = 0; i < table_.size(); ++i)
    if (table_[i].valid && table_[i].id == id) return static_cast<int>(i);
  return -1;
}

TensorStats ChordModel::stats(uint32_t id) const {
  auto it = stats_.find(id);
  return it == stats_.end() ? TensorStats{} : it->second;
}

TensorStats ChordModel::totals() const {
  TensorStats t;
  for (const auto& [id, s] : stats_) t += s;
  return t;
}

uint32_t ChordModel::slot_of(const Entry& e, uint32_t ofs) const {
  for (uint32_t j = 0; j < e.nruns; ++j)
    if (ofs < e.runs[j].ofs_end) return e.runs[j].start + (ofs - e.run_begin(j));
  throw std::logic_error("slot_of: offset beyond the entry's capacity");
}

void ChordModel::dram_write(uint32_t id, uint64_t addr, const Word& data, const ByteMask& be) {
  ++st(id).dram_writes;
  if (!dram_ && !sink_) return;
  // Untracked data (the traffic models) stays empty: no allocation per word.
  const Word d = data.limbs.empty() ? data : fit_word(data, g_.word_bits);
  if (dram_) dram_->write(addr, d, be);
  if (sink_) sink_({true, addr, d, id, be});
}

Word ChordModel::dram_read(uint32_t id, uint64_t addr) {
  ++st(id).dram_reads;
  if (sink_) sink_({false, addr, {}, id, {}});
  return dram_ ? fit_word(dram_->read(addr), g_.word_bits) : Word{};
}

Word ChordModel::sram_word(uint32_t slot) const {
  if (!track_data_) return {};
  const size_t n = word_limbs(g_.word_bits);
  Word w;
  w.limbs.assign(sram_.begin() + slot * n, sram_.begin() + (slot + 1) * n);
  return w;
}

void ChordModel::sram_put(uint32_t slot, const Word& data, const ByteMask& be) {
  if (!track_data_) return;
  const Word w = merge_bytes(sram_word(slot), data, be, g_.word_bits);
  std::copy(w.limbs.begin(), w.limbs.end(), sram_.begin() + slot * w.limbs.size());
}

CommandResult ChordModel::register_tensor(uint32_t id, uint64_t base, uint64_t end, const ReuseMeta& meta) {
  if (id > low_mask(g_.id_bits) || base > low_mask(g_.addr_bits) || end > low_mask(g_.addr_bits) ||
      meta.next_use > low_mask(g_.dist_bits) || meta.uses > low_mask(g_.uses_bits))
    throw std::invalid_argument("register_tensor: a field exceeds its configured width");
  CommandResult r;
  if (find(id) >= 0) {
    r.status = Status::Duplicate;
  } else if (end <= base) {
    r.status = Status::BadRange;
  } else {
    for (size_t i = 0; i < table_.size(); ++i)
      if (!table_[i].valid) {
        r.entry = static_cast<int>(i);
        break;
      }
    if (r.entry < 0) r.status = Status::TableFull;
  }
  if (r.status != Status::Ok) {
    ++st(id).errors;
    return r;
  }
  Entry& e = table_[r.entry];
  // The new tensor inherits whatever space the free entry owns, as spare.
  e.valid = true;
  e.id = id;
  e.base = base;
  e.end = end;
  e.wptr = base;
  e.res_len = 0;
  e.dirty = 0;
  e.written = 0;
  e.claimed = false;
  e.claim_dirty = false;
  e.meta = meta;
  st(id);  // the tensor appears in the statistics even if never accessed
  return r;
}

CommandResult ChordModel::update(uint32_t id, const ReuseMeta& meta) {
  if (meta.next_use > low_mask(g_.dist_bits) || meta.uses > low_mask(g_.uses_bits))
    throw std::invalid_argument("update: a field exceeds its configured width");
  CommandResult r;
  r.entry = find(id);
  if (r.entry < 0) return refuse(r, id, Status::Unregistered);
  table_[r.entry].meta = meta;
  return r;
}

CommandResult ChordModel::release(uint32_t id) {
  CommandResult r;
  r.entry = find(id);
  if (r.entry < 0) return refuse(r, id, Status::Unregistered);
  // The data is dead: no write-back. The entry keeps its runs as spare space.
  table_[r.entry].valid = false;
  table_[r.entry].res_len = 0;
  table_[r.entry].dirty = 0;
  return r;
}

CommandResult ChordModel::rewrite(uint32_t id, uint32_t new_id, const ReuseMeta& meta) {
  if (new_id > low_mask(g_.id_bits) || meta.next_use > low_mask(g_.dist_bits) || meta.uses > low_mask(g_.uses_bits))
    throw std::invalid_argument("rewrite: a field exceeds its configured width");
  CommandResult r;
  r.entry = find(id);
  if (r.entry < 0 || !g_.inplace) return refuse(r, new_id, Status::Unregistered);
  if (new_id != id && find(new_id) >= 0) return refuse(r, new_id, Status::Duplicate);
  Entry& e = table_[r.entry];
  e.id = new_id;
  e.meta = meta;
  e.wptr = e.base;
  e.claimed = false;
  e.claim_dirty = false;
  st(new_id);
  return r;
}

CommandResult ChordModel::claim(uint32_t id) {
  CommandResult r;
  r.entry = find(id);
  if (r.entry < 0 || !g_.claim) return refuse(r, id, Status::Unregistered);
  Entry& W = table_[r.entry];
  W.claimed = true;
  // A prefix that has spilled never grows again (PRELUDE's rule); a rewrite
  // in place (res_len > wptr - base) grows from its inherited prefix.
  if (!claim_stores(W)) return r;
  uint64_t need = W.end - std::max(W.wptr, W.resident_end());
  need -= std::min<uint64_t>(need, W.spare());
  while (need > 0 && W.nruns < g_.extents) {
    Steal s = choose_source(r.entry, need, true);
    if (s.src < 0) break;
    take(r.entry, s);
    need -= s.count;
  }
  return r;
}

CommandResult ChordModel::illegal_command(uint32_t id) {
  CommandResult r;
  return refuse(r, id, Status::IllegalOpcode);
}

CommandResult ChordModel::commit(uint32_t id) {
  CommandResult r;
  r.entry = find(id);
  if (r.entry < 0 || !g_.claim) return refuse(r, id, Status::Unregistered);
  Entry& W = table_[r.entry];
  if (!W.claimed) return r;
  if (claim_stores(W))
    W.res_len = std::max<uint32_t>(W.res_len, static_cast<uint32_t>(std::min<uint64_t>(W.capacity(), W.end - W.base)));
  if (W.claim_dirty) W.dirty = W.res_len;
  W.wptr = W.end;
  W.claimed = false;
  W.claim_dirty = false;
  return r;
}

CommandResult ChordModel::flush(uint32_t id) {
  CommandResult r;
  r.entry = find(id);
  if (r.entry < 0 || !g_.flush) return refuse(r, id, Status::Unregistered);
  Entry& e = table_[r.entry];
  const uint32_t n = g_.clean ? e.dirty : e.res_len;
  for (uint32_t o = 0; o < n; ++o) dram_write(e.id, e.base + o, sram_word(slot_of(e, o)));
  e.dirty = 0;
  return r;
}

uint32_t ChordModel::giveable(const Entry& e) const {
  const uint32_t spare = e.spare();
  // A live tensor that has started writing with its prefix intact will store
  // its next writes in its own spare space. A tensor not yet written may never
  // be (an input read from DRAM), and a tensor RIFF bypasses (uses == 0) never
  // will store them.
  // A claimed tensor keeps its spare space for its unwritten words, whatever
  // `reserve` says: claim() took it for them. (Rewriting in place, it keeps
  // up to end - wptr, a little more than its writes past the prefix need,
  // when it owned more spare than it claimed: one subtraction in the RTL.)
  const bool bypassed = g_.riff && e.meta.uses == 0;
  const bool writing = e.valid && e.wptr != e.base && e.res_len == e.wptr - e.base && !bypassed;
  const bool claimed = e.valid && e.claimed && e.res_len >= e.wptr - e.base && !bypassed;
  // (A tensor rewriting in place, res_len > wptr - base, stores its next writes
  // in its resident prefix; its spare space comes after that.)
  if (!claimed && (!g_.reserve || !writing)) return spare;
  return spare - static_cast<uint32_t>(std::min<uint64_t>(spare, e.end - e.wptr));
}

ChordModel::Steal ChordModel::choose_source(int w) const {
  return choose_source(w, table_[w].end - table_[w].wptr, true);
}

ChordModel::Steal ChordModel::choose_source(int w, uint64_t need, bool may_evict) const {
  const Entry& W = table_[w];
  Steal s;
  // 1. Free space: the lowest entry owning spare words it may give gives up its
  // last run's tail (reserved words, if any, lie before the tail it gives).
  for (size_t i = 0; i < table_.size(); ++i) {
    const Entry& e = table_[i];
    const uint32_t give = giveable(e);
    if (static_cast<int>(i) == w || give == 0) continue;
    s.src = static_cast<int>(i);
    s.count = static_cast<uint32_t>(std::min<uint64_t>(need, std::min(give, e.run_len(e.nruns - 1))));
    return s;
  }
  if (!g_.riff || !may_evict) return s;
  // 2. RIFF: the lowest-priority resident tensor (ties: lowest entry) loses the
  // tail of its last run if it ranks strictly below the writer. Only entries
  // without spare space are candidates, so that run is entirely resident;
  // without `reserve` no entry owns spare space here anyway.
  int victim = -1;
  uint64_t vkey = 0;
  for (size_t i = 0; i < table_.size(); ++i) {
    const Entry& e = table_[i];
    if (static_cast<int>(i) == w || !e.valid || e.res_len == 0 || e.spare() != 0) continue;
    uint64_t k = priority_key(e.meta, g_);
    if (victim < 0 || k < vkey) {
      victim = static_cast<int>(i);
      vkey = k;
    }
  }
  if (victim >= 0 && vkey < priority_key(W.meta, g_)) {
    const Entry& v = table_[victim];
    s.src = victim;
    s.evict = true;
    s.count = static_cast<uint32_t>(std::min<uint64_t>(need, v.run_len(v.nruns - 1)));
  }
  return s;
}

void ChordModel::take(Access& a, const Steal& s) {
  a.victim_entry = s.evict ? s.src : -1;
  a.victim_id = s.evict ? table_[s.src].id : 0;
  a.evicted = s.evict ? s.count : 0;
  take(a.entry, s);
}

void ChordModel::take(int w, const Steal& s) {
  Entry& src = table_[s.src];
  Entry& W = table_[w];
  uint32_t j = src.nruns - 1;
  uint32_t region = src.runs[j].start + src.run_len(j) - s.count;
  if (s.evict) {
    // Write the victim's tail back, lowest address first, then drop it. With
    // `clean`, only the words of its dirty prefix are written back.
    uint32_t first = src.res_len - s.count;
    uint32_t upto = g_.clean ? std::max(first, std::min(src.res_len, src.dirty)) : src.res_len;
    for (uint32_t i = 0; first + i < upto; ++i)
      dram_write(src.id, src.base + first + i, sram_word(region + i));
    src.res_len = first;
    src.dirty = std::min(src.dirty, first);
    st(src.id).evictions += s.count;
    st(W.id).evicts_caused += s.count;
  }
  src.runs[j].ofs_end -= s.count;
  if (src.runs[j].ofs_end == src.run_begin(j)) --src.nruns;
  uint32_t cap = W.capacity();
  if (W.nruns > 0 && W.runs[W.nruns - 1].start + W.run_len(W.nruns - 1) == region) {
    W.runs[W.nruns - 1].ofs_end += s.count;  // contiguous with the writer's last run
  } else {
    W.runs[W.nruns] = {region, cap + s.count};
    ++W.nruns;
  }
}

Access ChordModel::write(uint32_t id, uint64_t addr, const Word& data, const ByteMask& be) {
  return store(id, addr, {data, g_.byte_enables ? be : ByteMask{}, true});
}

Access ChordModel::fill(uint32_t id, uint64_t addr, const Word& data, const ByteMask& be) {
  return store(id, addr, {data, g_.byte_enables ? be : ByteMask{}, !g_.clean});
}

Access ChordModel::store(uint32_t id, uint64_t addr, const Store& w) {
  Access a;
  const bool dirty = w.dirty;
  a.entry = find(id);
  if (a.entry < 0) return refuse(a, id, Status::Unregistered);
  Entry& W = table_[a.entry];
  if (W.claimed) return store_claimed(a, W, addr, w);
  if (addr != W.wptr || W.wptr >= W.end) return refuse(a, id, Status::OutOfOrder);
  uint64_t wofs = W.wptr - W.base;
  bool prefix_intact = W.res_len == wofs;  // everything written so far is resident
  bool store = false;
  if (wofs < W.res_len) {
    // Rewriting in place (option inplace): the slot holds the old tensor's
    // word at this address, read already; overwrite it, whatever the rank.
    a.outcome = Outcome::Hit;
    a.slot = slot_of(W, static_cast<uint32_t>(wofs));
    sram_put(a.slot, w.data, w.be);
    if (dirty) W.dirty = std::max(W.dirty, static_cast<uint32_t>(wofs + 1));
    ++st(id).write_hits;
    ++W.wptr;
    return a;
  }
  if (g_.riff && W.meta.uses == 0) {
    // Dead on arrival: bypass (RIFF on only).
  } else if (prefix_intact && W.res_len < W.capacity()) {
    store = true;
  } else if (prefix_intact && W.nruns < g_.extents && !g_.claim) {
    Steal s = choose_source(a.entry);
    if (s.src >= 0) {
      take(a, s);
      store = true;
    }
  }
  if (store) {
    a.outcome = a.victim_entry >= 0 ? Outcome::Evict : Outcome::Hit;
    a.slot = slot_of(W, W.res_len);
    sram_put(a.slot, w.data, w.be);
    ++W.res_len;
    if (dirty) W.dirty = W.res_len;
    ++st(id).write_hits;
  } else {
    a.outcome = Outcome::Spill;
    if (dirty) dram_write(id, addr, w.data, w.be);  // a clean word is in DRAM already
    ++st(id).spills;
  }
  ++W.wptr;
  W.written = std::max(W.written, W.wptr - W.base);
  return a;
}

// Whether a claimed tensor stores its writes past the resident prefix: not
// when RIFF bypasses it, nor when its prefix had spilled before the claim
// (the write pointer stays where the claim found it).
bool ChordModel::claim_stores(const Entry& W) const {
  return !(g_.riff && W.meta.uses == 0) && W.res_len >= W.wptr - W.base;
}

// A claimed tensor's write lands at its own offset, in any order: over the
// resident prefix (in place), in the claimed space past it, or (beyond the
// space, or bypassed) in DRAM. Neither the prefix nor the write pointer moves
// until commit(), so the order of the op's writes changes nothing.
Access ChordModel::store_claimed(Access& a, Entry& W, uint64_t addr, const Store& w) {
  const bool dirty = w.dirty;
  if (addr < W.base || addr >= W.end) return refuse(a, W.id, Status::OutOfOrder);
  const uint64_t wofs = addr - W.base;
  if (wofs < W.res_len || (claim_stores(W) && wofs < W.capacity())) {
    a.outcome = Outcome::Hit;
    a.slot = slot_of(W, static_cast<uint32_t>(wofs));
    sram_put(a.slot, w.data, w.be);
    if (dirty && wofs < W.res_len) W.dirty = std::max(W.dirty, static_cast<uint32_t>(wofs + 1));
    if (dirty && wofs >= W.res_len) W.claim_dirty = true;
    ++st(W.id).write_hits;
  } else {
    a.outcome = Outcome::Spill;
    if (dirty) dram_write(W.id, addr, w.data, w.be);
    ++st(W.id).spills;
  }
  W.written = std::max(W.written, wofs + 1);
  return a;
}

Access ChordModel::read(uint32_t id, uint64_t addr) {
  Access a;
  a.entry = find(id);
  if (a.entry < 0) return refuse(a, id, Status::Unregistered);
  Entry& e = table_[a.entry];
  if (addr < e.base || addr >= e.end) return refuse(a, id, Status::OutOfRange);
  // No tag search: the tensor's own entry says whether addr is in its prefix.
  if (addr < e.resident_end()) {
    a.outcome = Outcome::Hit;
    a.slot = slot_of(e, static_cast<uint32_t>(addr - e.base));
    a.data = sram_word(a.slot);
    ++st(id).read_hits;
  } else {
    a.outcome = Outcome::Miss;
    a.data = dram_read(id, addr);
    ++st(id).read_misses;
    // Refill: the word just fetched continues the resident prefix if the
    // tensor is read again after this pass and there is room: its own spare
    // space, or free space taken as a writer would take it. A refill never
    // evicts: while its tensor is being read it has the nearest next use, a
    // rank that says nothing about when the refilled word is read again.
    if (g_.refill && addr == e.resident_end() && addr < e.wptr && e.meta.uses >= 2) {
      bool ok = e.res_len < e.capacity();
      if (!ok && e.nruns < g_.extents) {
        Steal s = choose_source(a.entry, e.wptr - addr, false);
        if (s.src >= 0) {
          take(a, s);
          ok = true;
        }
      }
      if (ok) {
        a.refilled = true;
        a.slot = slot_of(e, e.res_len);
        sram_put(a.slot, a.data);
        ++e.res_len;
        ++st(id).refills;
      }
    }
  }
  return a;
}

void ChordModel::check_invariants() const {
  auto fail = [](const std::string& what) { throw std::logic_error("CHORD invariant: " + what); };
  std::vector<int> owner(g_.sram_words, -1);
  uint64_t total = 0;
  for (size_t i = 0; i < table_.size(); ++i) {
    const Entry& e = table_[i];
    if (e.nruns > g_.extents) fail(fmt::format("entry {} has {} runs > {}", i, e.nruns, g_.extents));
    uint32_t prev = 0;
    for (uint32_t j = 0; j < e.nruns; ++j) {
      const Run& r = e.runs[j];
      if (r.ofs_end <= prev) fail(fmt::format("entry {} run {} is empty or out of order", i, j));
      uint32_t len = r.ofs_end - prev;
      if (uint64_t(r.start) + len > g_.sram_words) fail(fmt::format("entry {} run {} passes the SRAM end", i, j));
      for (uint32_t s = r.start; s < r.start + len; ++s) {
        if (owner[s] >= 0) fail(fmt::format("slot {} owned by entries {} and {}", s, owner[s], i));
        owner[s] = static_cast<int>(i);
      }
      total += len;
      prev = r.ofs_end;
    }
    if (e.dirty > e.res_len) fail(fmt::format("entry {} dirty {} > resident {}", i, e.dirty, e.res_len));
    if (e.res_len > e.capacity()) fail(fmt::format("entry {} resident {} > capacity {}", i, e.res_len, e.capacity()));
    if (!e.valid && e.res_len != 0) fail(fmt::format("free entry {} has resident words", i));
    if (e.valid) {
      if (e.wptr < e.base || e.wptr > e.end) fail(fmt::format("entry {} write pointer outside its tensor", i));
      if (e.res_len > e.written) fail(fmt::format("entry {} resident beyond what was written", i));
      for (size_t k = 0; k < i; ++k)
        if (table_[k].valid && table_[k].id == e.id) fail(fmt::format("id {} in entries {} and {}", e.id, k, i));
    }
  }
  if (total != g_.sram_words) fail(fmt::format("runs cover {} of {} slots", total, g_.sram_words));
}

}  // namespace cello::chord
