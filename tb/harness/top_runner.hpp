// Runs a command stream on a verilated accelerator top (`<top>`, docs/top.md):
// the words of commands.bin go in on the command port (with random stalls when
// cmd_rate < 1), the DRAM port is served by the DramModel on the image, HOST
// requests by the HostLoop, and the run ends when the top is done or halted.
// A run past max_cycles, or the watchdog (no retired record, DRAM response or
// command word, or a new record, for its span), is a Failure naming the last record.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>

#include "sw/exec/check.hpp"
#include "tb/harness/dram_model.hpp"
#include "tb/harness/host_loop.hpp"
#include "tb/harness/rng.hpp"
#include "tb/harness/sim.hpp"
#include "tb/harness/port_words.hpp"
#include "sw/stream/format.hpp"

namespace cello::tb {

struct TopRunOptions {
  DramTiming dram;
  uint64_t host_latency = 1;   // cycles from host_req to host_ack (>= 1)
  double cmd_rate = 1.0;       // chance per cycle that a command word is offered
  uint64_t max_cycles = 100000000;
  // Called every progress_every cycles with the cycle count and the running record.
  std::function<void(uint64_t cycles, uint64_t record)> progress;
  uint64_t progress_every = 1u << 20;
  // Every sample_every cycles (0: never), the register port read whole into
  // TopRunResult::samples: a time series of the counters.
  uint64_t sample_every = 0;
  // Testing the protocol checks: at the first cycle at least stray_after
  // cycles into the run where it can happen, break a port's protocol once. The
  // top must halt with the protocol bit.
  //   DramResponse:  with no DRAM request in flight, one response that no
  //                  request asked for (tag 0); the top must take it.
  //   WithdrawnWord: a command word offered and not taken is withdrawn (valid
  //                  drops for one cycle).
  //   HostAck:       host_ack while host_req is low.
  enum class Stray { None, DramResponse, WithdrawnWord, HostAck };
  Stray stray = Stray::None;
  uint64_t stray_after = 0;
};

struct TopRunResult {
  bool done = false, halted = false;
  unsigned status = 0;        // the sticky status bits
  uint64_t err_record = 0;    // the record that stopped the top (halted)
  uint64_t cycles = 0;
  std::vector<uint64_t> registers;  // the register port after the run (docs/top.md, "Registers")
  uint64_t dram_read_bytes = 0, dram_write_bytes = 0;  // through the DRAM port
  uint64_t host_read_bytes = 0, host_write_bytes = 0;  // the host loop's own (HOST commands)
  uint64_t hosts = 0;
  uint64_t stray_record = UINT64_MAX;  // the record running when the protocol was broken (TopRunOptions::stray)
  std::vector<uint64_t> record_cycles;  // per record index: cycles it was the running record (cur_record)
  // Per record index: how much each register of the register port grew while
  // it ran (read at every change of cur_record; the counters count an event
  // an edge after it, so a record's last cycle may go to the next one). Over
  // all records they add up to `registers` for every counter.
  std::vector<std::vector<uint64_t>> record_registers;
  // TopRunOptions::sample_every: {cycle, running record, register 0, 1, ...}
  // at each sample, the registers as read then.
  std::vector<std::vector<uint64_t>> samples;
  // Per record index: DRAM read requests the port took, and CHORD reads (hits
  // and misses, on a top whose CHORD is on the datapath), while it ran.
  std::vector<uint64_t> record_dram_reads, record_chord_reads;
  std::vector<DramRegion> regions;  // bytes per tensor region ("t<id>"), in tensor-id order
  // CHORD's counters, on a top whose CHORD is on the datapath (empty otherwise).
  std::vector<std::pair<std::string, uint64_t>> chord;
};

// Tensor descriptors of the TENSOR records of a stream (for the host loop; a
// stream that breaks ordering rules still has them).
inline std::vector<exec::TensorDesc> stream_tensors(const stream::Stream& s) {
  std::vector<exec::TensorDesc> t;
  for (const auto& r : s.records) {
    if (r.op() != stream::Opcode::Tensor) continue;
    const size_t id = r.field("id");
    if (t.size() <= id) t.resize(id + 1);
    t[id] = exec::tensor_desc(r, s.header.granule_bytes);
  }
  return t;
}

// Drives the top `V` (ports as `cello gen` writes them) through one stream.
// CELLO_DRAM_LOG=file: every DRAM request the top's port accepts, a line
// each (running record, R or W, byte address, tag; docs/top.md, "DRAM port
// and the testbench DRAM model").
inline FILE* dram_log() {
  static FILE* const log = [] {
    const char* path = std::getenv("CELLO_DRAM_LOG");
    if (path == nullptr) return static_cast<FILE*>(nullptr);
    FILE* f = std::fopen(path, "w");
    if (f == nullptr) throw Failure(fmt::format("CELLO_DRAM_LOG: cannot write {}", path));
    return f;
  }();
  return log;
}

// `bytes` is commands.bin; `s` its decoded records (the host loop reads HOST's operands).
template <class V>
TopRunResult run_top(Sim<V>& sim, const std::vector<uint8_t>& bytes, const stream::Stream& s,
                     std::vector<uint8_t>& image, const TopRunOptions& o, Rng& rng, size_t registers) {
  auto& d = sim.dut();
  std::vector<uint32_t> words((bytes.size() + 3) / 4, 0);
  std::memcpy(words.data(), bytes.data(), bytes.size());
  if (words.empty()) throw Failure("an empty command stream cannot be sent (no word carries cmd_last)");
  const std::vector<exec::TensorDesc> tensors = stream_tensors(s);
  const unsigned G = o.dram.granule_bytes, GW = G / 4;
  DramModel dram(image, o.dram, rng);
  for (size_t id = 0; id < tensors.size(); ++id)
    if (tensors[id].described) dram.add_region(fmt::format("t{}", id), tensors[id].base, tensors[id].bytes);
  HostLoop host(s, tensors, image, o.host_latency,
                [&dram](uint64_t addr, uint64_t n, bool write) { dram.count_host(addr, n, write); });
  d.cmd_valid = 0;
  d.dram_rsp_valid = 0;
  d.host_ack = 0;
  d.reg_addr = 0;
  sim.reset();
  const uint64_t start = sim.cycle();
  size_t next = 0;
  bool offer = false;
  uint64_t running = 0, chord_reads = 0;
  TopRunResult res;
  // The register port read whole, and what it grew by since the last read,
  // charged to the record that was running.
  auto read_registers = [&] {
    std::vector<uint64_t> v(registers);
    for (size_t k = 0; k < registers; ++k) {
      d.reg_addr = static_cast<uint32_t>(k);
      d.eval();
      v[k] = d.reg_rdata;
    }
    return v;
  };
  std::vector<uint64_t> last_registers(registers, 0);
  auto charge_registers = [&](uint64_t record) {
    const std::vector<uint64_t> now = read_registers();
    if (record >= res.record_registers.size()) res.record_registers.resize(record + 1, std::vector<uint64_t>(registers, 0));
    for (size_t k = 0; k < registers; ++k) res.record_registers[record][k] += now[k] - last_registers[k];
    last_registers = now;
    return now;
  };
  // The per-record entry of v, growing it as records start.
  auto at = [](std::vector<uint64_t>& v, uint64_t record) -> uint64_t& {
    if (record >= v.size()) v.resize(record + 1);
    return v[record];
  };
  for (;;) {
    if (sim.cycle() - start > o.max_cycles)
      throw Failure(fmt::format("no END after {} cycles (--max-cycles); record {} was running", o.max_cycles,
                                static_cast<uint64_t>(d.cur_record)));
    using Stray = TopRunOptions::Stray;
    const bool stray_due = o.stray != Stray::None && res.stray_record == UINT64_MAX && sim.cycle() - start >= o.stray_after;
    // A word stays offered until taken (valid must not drop), unless withdrawn on purpose.
    const bool withdraw = stray_due && o.stray == Stray::WithdrawnWord && offer;
    if (!offer && next < words.size()) offer = rng.chance(o.cmd_rate);
    d.cmd_valid = offer && !withdraw;
    d.cmd_data = offer ? words[next] : 0;
    d.cmd_last = offer && next + 1 == words.size();
    d.dram_req_ready = dram.req_ready();
    const DramResponse* r = dram.response();
    d.dram_rsp_valid = r != nullptr;
    if (r) {
      if (!r->write) {
        std::vector<uint32_t> w(GW);
        std::memcpy(w.data(), r->data.data(), G);
        put_words(d.dram_rsp_rdata, w);
      }
      d.dram_rsp_tag = r->tag;
    }
    const bool stray_rsp = stray_due && o.stray == Stray::DramResponse && !r && dram.in_flight() == 0;
    if (stray_rsp) {
      d.dram_rsp_valid = 1;
      d.dram_rsp_tag = 0;
    }
    const bool stray_ack = stray_due && o.stray == Stray::HostAck && !d.host_req && !host.drive();
    d.host_ack = host.drive() || stray_ack;
    sim.settle();
    host.sample(d.host_req, d.host_record);
    if (d.dram_req_valid && d.dram_req_ready) {
      DramRequest q;
      q.addr = d.dram_req_addr;
      q.write = d.dram_req_write;
      q.tag = d.dram_req_tag;
      if (q.write) {
        q.data.resize(G);
        const std::vector<uint32_t> w = get_words(d.dram_req_wdata, GW);
        std::memcpy(q.data.data(), w.data(), G);
        q.strb.resize(G);
        for (unsigned b = 0; b < G; ++b) q.strb[b] = (get_word(d.dram_req_strb, b / 32) >> (b % 32)) & 1;
      }
      dram.accept(q);
      if (FILE* log = dram_log())
        fmt::print(log, "{} {} {:x} {:x}\n", static_cast<uint64_t>(d.cur_record), q.write ? 'W' : 'R', q.addr, q.tag);
      if (!q.write) ++at(res.record_dram_reads, d.cur_record);
    }
    if (r && d.dram_rsp_ready) {
      dram.taken();
      sim.note("DRAM response; running record", d.cur_record);
    }
    if (stray_rsp && !d.dram_rsp_ready) throw Failure("the top did not take a DRAM response no request asked for");
    if (stray_rsp || stray_ack || withdraw) {
      res.stray_record = d.cur_record;
      sim.note("protocol broken on purpose; running record", d.cur_record);
    }
    if (offer && !withdraw && d.cmd_ready) {
      offer = false;
      ++next;
      sim.note("command word", next);
    }
    if (d.halted || d.done) break;
    if (o.progress && (sim.cycle() - start) % o.progress_every == 0) o.progress(sim.cycle() - start, d.cur_record);
    ++at(res.record_cycles, d.cur_record);
    if constexpr (requires { d.chord_cnt_rd_hit; }) {
      const uint64_t reads = uint64_t{d.chord_cnt_rd_hit} + d.chord_cnt_rd_miss;
      at(res.record_chord_reads, d.cur_record) += reads - chord_reads;
      chord_reads = reads;
    }
    sim.tick();
    dram.tick();
    if (d.cur_record != running) {
      charge_registers(running);
      running = d.cur_record;
      sim.note("next record", running);
    }
    if (o.sample_every != 0 && (sim.cycle() - start) % o.sample_every == 0) {
      std::vector<uint64_t> row = {sim.cycle() - start, d.cur_record};
      const std::vector<uint64_t> now = read_registers();
      row.insert(row.end(), now.begin(), now.end());
      res.samples.push_back(std::move(row));
    }
    if (d.host_req) sim.note("HOST; record", d.host_record);
  }
  res.done = d.done;
  res.halted = d.halted;
  res.status = d.status;
  res.cycles = sim.cycle() - start;
  // The counters take one more edge to count the last record.
  for (int k = 0; k < 2; ++k) {
    sim.tick();
    dram.tick();
    sim.settle();
  }
  res.registers = charge_registers(running);
  res.err_record = res.registers.size() > 1 ? res.registers[1] : 0;
  res.dram_read_bytes = dram.bytes_read();
  res.dram_write_bytes = dram.bytes_written();
  res.host_read_bytes = dram.host_bytes_read();
  res.host_write_bytes = dram.host_bytes_written();
  res.hosts = host.served();
  res.regions = dram.regions();
  if constexpr (requires { d.chord_cnt_rd_hit; })
    res.chord = {{"rd_hit", d.chord_cnt_rd_hit},     {"rd_miss", d.chord_cnt_rd_miss}, {"wr_hit", d.chord_cnt_wr_hit},
                 {"wr_spill", d.chord_cnt_wr_spill}, {"evict", d.chord_cnt_evict},     {"error", d.chord_cnt_error}};
  return res;
}

}  // namespace cello::tb
