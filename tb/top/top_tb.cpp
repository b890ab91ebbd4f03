// The composed accelerator top (`<top>`) against the executor, for each top
// config (Vtop): compiled CG, BiCGStab and GCN streams, and random legal programs
// (exec::random_program), run from the command port
// against the testbench DRAM model (random latency, bandwidth and response
// order) and host loop, with random stalls on the command port. The top must
// reach END with no status bit, and every output tensor in the final DRAM image
// must equal the executor's value bit for bit. Streams with a semantic error
// (an undescribed id, a region outside the image, a CHORD command for a tensor
// not bound to CHORD) must stop the top with that status bit at that record,
// never hang it; so must a damaged CSR operand in the DRAM image.
#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <map>

#include "Vtop.h"
#include "sw/exec/executor.hpp"
#include "sw/exec/prepare.hpp"
#include "sw/exec/random_program.hpp"
#include "tb/harness/checked.hpp"
#include "tb/harness/top_runner.hpp"
#include "sw/exec/engine_reads.hpp"
#include "sw/stream/problem.hpp"
#include "gen/hw_config.hpp"
#include "gen/top/counters_gen.hpp"
#include "gen/top/stream_engine_gen.hpp"
#include "gen/top/top_config.hpp"

using namespace cello;
using namespace cello::tb;
using exec::ReuseWindow;

namespace {

const arch::Arch& the_arch() {
  static const arch::Arch a = gen::load_arch(TOP_CONFIG);
  return a;
}

size_t register_count() { return 2 + gen::top_counters().size(); }

TopRunOptions random_options(Rng& rng) {
  TopRunOptions o;
  o.dram = random_dram_timing(rng, the_arch().granule_bytes);
  o.host_latency = 1 + rng.below(50);
  o.cmd_rate = random_rate(rng);
  return o;
}

exec::Prepared compiled(const char* workload, int n, int iters, int o = 0, int grid = 4) {
  stream::ProblemSpec spec;
  spec.workload = workload;
  spec.grid = grid;
  spec.n = n;
  spec.o = o;
  spec.iters = iters;
  return exec::prepare(stream::make_problem(spec), the_arch());
}

// The top has CHORD on its datapath: it shows CHORD's counters.
template <class V>
constexpr bool kChordOnDatapath = requires(V& v) { v.chord_cnt_rd_hit; };

// Whether a checked prediction covers a tensor whose rows (a column-major
// one's columns) do not fill whole granules: the engine reads again, and
// writes again, the granules its row groups share once they leave a window.
bool exact_on_ragged_rows(const exec::Result& want) {
  if (!want.top.exact) return false;
  for (const auto& d : want.program.tensors)
    if (d.described && !d.csr && (4 * uint64_t{d.col_major() ? d.rows : d.cols}) % the_arch().granule_bytes != 0)
      return true;
  return false;
}

// The product steps the split array's second lanes issue (counter gram_steps):
// one per row of Z, Gram row i and V Gram columns, for every launch that takes
// its Gram products row group by row group (flagged pipe_gram or pipe_gram_x;
// at most 8 columns; a GEMM flagged pipe_gram alone; an SPMM whose dense
// operand X is one gather-buffer block or too tall for the buffer, and as tall
// as Z when flagged pipe_gram_x), whether or not its GRAM follows. X^T Z
// (pipe_gram_x without pipe_gram) runs there only with X's rows in the gather
// buffer (arch::engine_xz_from_buffer). None on a top whose array is not split
// (arch::engine_split_gram).
uint64_t expected_product_steps(const stream::Stream& s, const exec::ExecProgram& p) {
  const arch::Arch& a = the_arch();
  const int v = arch::engine_lanes(a);
  if (!arch::engine_split_gram(a)) return 0;
  uint64_t steps = 0;
  for (const exec::ExecOp& op : p.ops) {
    if (op.kind != stream::Opcode::Gemm && op.kind != stream::Opcode::Spmm) continue;
    const exec::TensorDesc& z = p.tensors[static_cast<size_t>(op.out)];
    for (const exec::Pass& pass : op.passes) {
      const uint64_t flags = s.records[pass.record].field("flags");
      const bool z_flag = flags & stream::kLaunchPipeGram, x_flag = flags & stream::kLaunchPipeGramX;
      if (!(z_flag || x_flag) || z.cols == 0 || z.cols > 8) continue;
      if (op.kind == stream::Opcode::Gemm && x_flag) continue;
      if (op.kind == stream::Opcode::Spmm) {
        const exec::TensorDesc& x = p.tensors[static_cast<size_t>(exec::spmm_dense(p, op))];
        const int w = arch::spmm_block_cols(x.rows, a.gather_words);
        if ((w != 0 && static_cast<uint32_t>(w) < z.cols) || (x_flag && x.rows != z.rows)) continue;
        if (!z_flag && !arch::engine_xz_from_buffer(w, z.cols, v)) continue;  // X^T Z on the producer's lanes
      }
      steps += uint64_t{z.rows} * z.cols * ((z.cols + static_cast<uint32_t>(v) - 1) / static_cast<uint32_t>(v));
    }
  }
  return steps;
}

// The MAC steps of GEMM row pairs (counter pair_steps): one per walker row
// (two rows of the result) and t of every GEMM pass that runs on row pairs
// (exec::gemm_row_pairs, the spec the RTL's pr_ok implements).
uint64_t expected_pair_steps(const stream::Stream& s, const exec::ExecProgram& p) {
  uint64_t steps = 0;
  for (const exec::ExecOp& op : p.ops) {
    if (op.kind != stream::Opcode::Gemm) continue;
    for (const exec::Pass& pass : op.passes) {
      const auto& r = s.records[pass.record];
      if (exec::gemm_row_pairs(the_arch(), r, p, exec::gemm_streamed(op))) steps += uint64_t{p.tensors[static_cast<size_t>(r.field("out"))].rows} / 2 * r.field("k");
    }
  }
  return steps;
}

// The engines a stream starts (counter tile_starts): one per launch, and on a
// top of several tiles, for a launch that runs on the tiles
// (exec::launch_on_tiles), one per tile whose slice of rows is not empty
// (arch::tile_rows), tile 0 always.
uint64_t expected_tile_starts(const stream::Stream& s, const exec::ExecProgram& p) {
  const arch::Arch& a = the_arch();
  const int tiles = arch::engine_tiles(a);
  uint64_t starts = 0;
  for (const exec::ExecOp& op : p.ops)
    for (const exec::Pass& pass : op.passes) {
      const auto& r = s.records[pass.record];
      const exec::TensorDesc& z = p.tensors[static_cast<size_t>(r.field("out"))];
      uint64_t x_rows = 0;
      if (op.kind == stream::Opcode::Spmm)
        x_rows = p.tensors[static_cast<size_t>(exec::spmm_dense(p, op))].rows;
      uint64_t n = 1;
      if (tiles > 1 && exec::launch_on_tiles(op.kind, r.field("flags"), x_rows, z.cols, a.gather_words))
        for (int t = 1; t < tiles; ++t) {
          const arch::RowSlice sl = arch::tile_rows(z.rows, tiles, t, a.granule_bytes);
          n += sl.lo < sl.hi;
        }
      starts += n;
    }
  return starts;
}

// Runs one stream on the top under random timing and checks it: END with no
// status bit, every HOST served, every output tensor equal to the executor's
// bit for bit, the counters consistent with what the testbench saw. The
// executor's result goes to `want_out` when given.
TopRunResult run_and_compare(Sim<Vtop>& sim, Rng& rng, const stream::Stream& st, const std::vector<uint8_t>& image0,
                             const std::string& what, exec::Result* want_out = nullptr) {
  const exec::Result want = exec::execute(st, "<stream>", the_arch(), image0);
  if (want_out) *want_out = want;
  std::vector<uint8_t> image = image0;
  const TopRunOptions o = random_options(rng);
  TopRunResult got;
  INFO(what);
  run_checked(sim, [&] { got = run_top(sim, stream::encode(st), st, image, o, rng, register_count()); });
  INFO(what << ": status " << got.status << " at record " << got.err_record);
  REQUIRE(got.done);
  REQUIRE(got.status == 0);
  uint64_t hosts = 0, outputs = 0, checked = 0;
  for (const auto& op : want.program.ops) hosts += op.kind == stream::Opcode::Host;
  CHECK(got.hosts == hosts);
  for (size_t t = 0; t < want.program.tensors.size(); ++t) {
    const auto& d = want.program.tensors[t];
    if (!d.described || !d.output()) continue;
    ++outputs;
    const std::vector<float> v = exec::read_dense(image, d);
    REQUIRE(v.size() == want.values[t].size());
    for (size_t e = 0; e < v.size(); ++e, ++checked) {
      INFO(what << " output " << d.name << " (id " << t << ") element " << e);
      REQUIRE(std::bit_cast<uint32_t>(v[e]) == std::bit_cast<uint32_t>(want.values[t][e]));
    }
  }
  CHECK(outputs > 0);
  CHECK(checked > 0);
  // DRAM bytes (the port's and the host's) and CHORD's counters equal the
  // executor's prediction for this top where its walk has the engine's
  // access order (exec::Result::top::exact).
  if (want.top.exact) {
    std::string regions;  // the tensor regions whose bytes differ, for the failure's message
    for (const DramRegion& g : got.regions) {
      const size_t t = std::stoul(g.name.substr(1));  // "t<id>"
      if (g.read + g.host_read != want.top.tensor_read_bytes[t] || g.written + g.host_written != want.top.tensor_write_bytes[t])
        regions += fmt::format(" {} read {} written {} (executor {}, {});", g.name, g.read + g.host_read,
                               g.written + g.host_written, want.top.tensor_read_bytes[t], want.top.tensor_write_bytes[t]);
    }
    INFO("regions that differ:" << regions);
    CHECK(got.dram_read_bytes + got.host_read_bytes == want.top.read_bytes);
    CHECK(got.dram_write_bytes + got.host_write_bytes == want.top.write_bytes);
    if constexpr (kChordOnDatapath<Vtop>) {
      std::map<std::string, uint64_t> exec_counts = {{"error", 0}};
      for (const auto& [name, v] : exec::chord_counter_values(want.top.chord)) exec_counts[name] = v;
      for (const auto& [name, v] : got.chord) {
        INFO("CHORD counter " << name);
        CHECK(v == exec_counts.at(name));
      }
    }
  }
  // The counters agree with what the testbench saw.
  const auto& r = got.registers;
  CHECK(r[2] <= got.cycles);                           // cycles
  CHECK(r[3] == st.records.size());                    // records
  CHECK(r[8] * the_arch().granule_bytes == got.dram_read_bytes);
  CHECK(r[9] * the_arch().granule_bytes == got.dram_write_bytes);
  uint64_t macs = 0;
  for (const auto& op : want.ops) macs += op.macs;
  if (macs > 0) CHECK(r[5] > 0);                       // FMAs (an SPMM of empty rows has none)
  // The engine's cycle classes split its running cycles, one class a cycle, and
  // every FMA step was an issued step.
  uint64_t classes = 0;
  for (const auto& c : gen::engine_cycle_counters()) classes += r[gen::counter_register(c.name)];
  CHECK(classes == r[gen::counter_register("engine_cycles")]);
  // (On tiles, a cycle's issue class is the lowest running tile's; each tile issues at most one step.)
  CHECK(r[gen::counter_register("issue")] * static_cast<uint64_t>(arch::engine_tiles(the_arch())) >= r[gen::counter_register("fma")]);
  CHECK(r[gen::counter_register("gram_steps")] == expected_product_steps(st, want.program));
  CHECK(r[gen::counter_register("pair_steps")] == expected_pair_steps(st, want.program));
  CHECK(r[gen::counter_register("tile_starts")] == expected_tile_starts(st, want.program));
  // Per-record cycles (cello sim's table by kind) cover the run, and every
  // launch that does arithmetic was the running record for some cycles.
  uint64_t per_record = 0;
  for (uint64_t c : got.record_cycles) per_record += c;
  CHECK(per_record == got.cycles);
  // Each record's growth of the counters (cello sim's engine table by kind)
  // goes to the record that ran: its growth of `cycles` is the cycles the
  // harness counted for it, give or take the counter's edge of lag (not for
  // record 0, whose words arrive before the header starts the counter, nor
  // for END, which the harness counts until done); and the engine's counters
  // grow only on launches (running cycles give or take that edge).
  for (size_t i = 0; i < st.records.size() && i < got.record_registers.size(); ++i) {
    const std::vector<uint64_t>& grew = got.record_registers[i];
    INFO("record " << i << ": counters grew " << fmt::format("{}", fmt::join(grew, " ")));
    if (i > 0 && i + 1 < st.records.size()) {
      const auto ran = static_cast<int64_t>(i < got.record_cycles.size() ? got.record_cycles[i] : 0);
      CHECK(std::abs(static_cast<int64_t>(grew[gen::counter_register("cycles")]) - ran) <= 1);
    }
    const auto op = st.records[i].op();
    if (op != stream::Opcode::Gemm && op != stream::Opcode::Gram && op != stream::Opcode::Spmm && op != stream::Opcode::Eltw) {
      CHECK(grew[gen::counter_register("launches")] == 0);
      CHECK(grew[gen::counter_register("fma")] == 0);
      CHECK(grew[gen::counter_register("gram_steps")] == 0);
      CHECK(grew[gen::counter_register("pair_steps")] == 0);
      CHECK(grew[gen::counter_register("engine_cycles")] <= 1);
    }
  }
  for (size_t i = 0; i < st.records.size(); ++i) {
    const auto op = st.records[i].op();
    if (op == stream::Opcode::Gemm || op == stream::Opcode::Gram || op == stream::Opcode::Eltw) {
      INFO("record " << i);
      CHECK((i < got.record_cycles.size() && got.record_cycles[i] > 0));
    }
  }
  // A GRAM taken through the pipeline buffer reads nothing: no DRAM read and
  // no CHORD read while it runs (its operand's rows came from the launch
  // before, row group by row group).
  for (size_t g : exec::pipelined_grams(st, want.program, the_arch())) {
    const size_t rec = want.program.ops[g].record;
    INFO(what << ": pipelined GRAM at record " << rec);
    CHECK((rec >= got.record_dram_reads.size() || got.record_dram_reads[rec] == 0));
    CHECK((rec >= got.record_chord_reads.size() || got.record_chord_reads[rec] == 0));
  }
  return got;
}

// Runs a stream that must stop the top: halted, not done, exactly status bit
// `bit`, at record `record`; a hang fails through the watchdog.
void expect_halt(Sim<Vtop>& sim, Rng& rng, const stream::Stream& s, std::vector<uint8_t> image,
                 stream::StatusBit bit, size_t record) {
  TopRunResult got;
  run_checked(sim, [&] { got = run_top(sim, stream::encode(s), s, image, random_options(rng), rng, register_count()); });
  CHECK(got.halted);
  CHECK_FALSE(got.done);
  CHECK(got.status == (1u << static_cast<unsigned>(bit)));
  CHECK(got.err_record == record);
}

}  // namespace

TEST_CASE("top: compiled CG, BiCGStab and GCN equal the executor bit for bit", "[top][top_rtl]") {
  CELLO_SEEDED_RNG(rng, 5);
  Sim<Vtop> sim;
  struct Run {
    const char* wl;
    int n, iters, o, grid;
  };
  // N = 1 puts small block vectors next to the register file's size; N = 4
  // has GEMMs that update their streamed operand in place. The 27-row grid
  // leaves a partial row group; N = 6 gives the engine a partial 6 x 6 Gram
  // block, and GCN with 18 input features two 16-column SpMM blocks and a GEMM
  // of more passes than a 16-row register file holds. N = 8 fills SPMM's
  // gather buffer from a row-major X on both read ports (on a top whose
  // granule holds 4 words and V = 8) and has 8 x 8 Gram blocks of one operand.
  // N = 16 has Gram results of four blocks and N x N tensors that SCORE would
  // bind to CHORD, which the encoder keeps in DRAM for the host; BiCGStab on
  // 12^3 reads T through the pipeline buffer after its last read through
  // CHORD, so T's release waits for that read (docs/commands.md, "Ordering rules").
  // CG at N = 8 on 4^3 runs its GEMMs on row pairs on the default top (N = 4
  // on tb_top_g32's).
  size_t pipelined = 0, ragged = 0;
  for (const Run& run : {Run{"cg", 1, 3, 0, 4}, Run{"cg", 4, 3, 0, 4}, Run{"bicgstab", 2, 2, 0, 4},
                         Run{"gcn", 4, 2, 2, 4}, Run{"cg", 6, 2, 0, 3}, Run{"gcn", 18, 1, 3, 3},
                         Run{"cg", 8, 1, 0, 3}, Run{"cg", 16, 1, 0, 4}, Run{"bicgstab", 1, 1, 0, 12},
                         Run{"cg", 24, 1, 0, 4}, Run{"gcn", 32, 1, 4, 4}, Run{"cg", 8, 2, 0, 4}}) {
    const char* wl = run.wl;
    INFO(wl << " N=" << run.n << ", " << run.iters << " iterations, grid " << run.grid);
    const auto prep = compiled(wl, run.n, run.iters, run.o, run.grid);
    exec::Result want;
    const TopRunResult got = run_and_compare(sim, rng, prep.compiled.stream, prep.image, wl, &want);
    ragged += exact_on_ragged_rows(want);
    // Where SCORE pipelines CG's R into R^T R (R = B - A X0, R' = R - S Lambda)
    // or S into P^T S (S = A P; it depends on the tiles), the producer carries
    // pipe_gram or pipe_gram_x and, with N <= 8 and P's N columns in one
    // gather-buffer block, the top takes every such GRAM through the pipeline
    // buffer: run_and_compare checked that they read nothing.
    const auto& s = prep.compiled.stream;
    size_t piped = 0;
    for (const auto& r : s.records)
      piped += r.op() == stream::Opcode::Gram && ((r.field("binds") >> 8) & 0xf) == 0x3;  // b: pipe
    const size_t taken = exec::pipelined_grams(s, exec::check_stream(s, "<stream>", the_arch()), the_arch()).size();
    const uint64_t rows = static_cast<uint64_t>(run.grid) * run.grid * run.grid;
    if (std::string(wl) == "cg" && run.n <= 8 && arch::spmm_block_cols(rows, the_arch().gather_words) >= run.n)
      CHECK(taken == piped);
    pipelined += taken;
    // CG's GEMMs as wide as the engine's lanes run on row pairs on a top that
    // has them (even grids: an even number of rows); the count itself is
    // checked by run_and_compare.
    const uint64_t pair_steps = got.registers[gen::counter_register("pair_steps")];
    if (std::string(wl) == "cg" && run.n == arch::engine_lanes(the_arch()) && rows % 2 == 0)
      CHECK((pair_steps > 0) == exec::engine_row_pairs(the_arch()));
    fmt::print("top {} N={}: {} records, {} cycles, {} FMAs ({} on row pairs); DRAM {} B read, {} B written\n", wl,
               run.n, got.registers[3], got.cycles, got.registers[5], pair_steps, got.dram_read_bytes,
               got.dram_write_bytes);
  }
  // SCORE pipelines some of these CG runs' R^T R only when CHORD holds the rest.
  if (the_arch().has_chord()) CHECK(pipelined > 0);
  // The 27-row grid's column-major tensors leave granules to two row groups,
  // and their bytes and CHORD's counters are still checked.
  fmt::print("top: {} compiled runs with rows that do not fill granules checked against the prediction\n", ragged);
  CHECK(ragged > 0);
}

TEST_CASE("top: random legal programs equal the executor bit for bit", "[top][top_rtl]") {
  CELLO_SEEDED_RNG(rng, 7);
  Sim<Vtop> sim;
  uint64_t records = 0, cycles = 0, pipelined = 0, ragged = 0, paired = 0;
  // On a top with CHORD every other program flags tensors for CHORD, binds
  // them to it and registers, updates and releases them around its launches
  // (on a top whose CHORD is on the datapath, those tensors live in CHORD).
  exec::RandomProgramOptions chord;
  chord.chord = the_arch().has_chord();
  // 25 programs, and more (up to 60) until one has a GRAM through the pipeline buffer.
  int programs = 0;
  for (int k = 0; k < 25 || (pipelined == 0 && k < 60); ++k, ++programs) {
    const uint64_t seed = rng.bits(64);
    INFO("program " << k << ", generator seed " << seed << (k % 2 && chord.chord ? ", with CHORD records" : ""));
    const exec::RandomProgram p = exec::random_program(seed, the_arch(), k % 2 ? chord : exec::RandomProgramOptions{});
    exec::Result want;
    const TopRunResult got = run_and_compare(sim, rng, p.stream, p.image, "random program", &want);
    ragged += exact_on_ragged_rows(want);
    paired += got.registers[gen::counter_register("pair_steps")] > 0;
    records += p.stream.records.size();
    cycles += got.cycles;
    const auto& s = p.stream;
    pipelined += exec::pipelined_grams(s, exec::check_stream(s, "<random program>", the_arch()), the_arch()).size();
  }
  // Then programs whose every GEMM and SPMM pipes its result into its GRAM:
  // on a split array many producer row groups are shorter than their
  // products, so the next group but one waits for the product unit.
  exec::RandomProgramOptions piped;
  piped.pipe_every = true;
  piped.max_rows = 96;  // tall enough for the gather fill to lag a sparse matrix's row groups
  for (int k = 0; k < 6; ++k, ++programs) {
    const uint64_t seed = rng.bits(64);
    INFO("program " << programs << " (every result piped), generator seed " << seed);
    const exec::RandomProgram p = exec::random_program(seed, the_arch(), piped);
    const TopRunResult got = run_and_compare(sim, rng, p.stream, p.image, "random program");
    records += p.stream.records.size();
    cycles += got.cycles;
    const auto& s = p.stream;
    pipelined += exec::pipelined_grams(s, exec::check_stream(s, "<random program>", the_arch()), the_arch()).size();
  }
  // The generator pipes some results into a GRAM of themselves (pipe_gram),
  // and draws shapes whose rows do not fill granules.
  CHECK(pipelined > 0);
  CHECK(ragged > 0);
  // (GEMMs as wide as the lanes are frequent, so some run on row pairs on a
  // top that has them; run_and_compare checks their count per program.)
  if (!exec::engine_row_pairs(the_arch())) CHECK(paired == 0);
  fmt::print("top: {} random programs, {} records, {} cycles, {} GRAMs through the pipeline buffer, {} with rows "
             "that do not fill granules checked against the prediction, {} with GEMMs on row pairs, every output "
             "equal to the executor\n",
             programs, records, cycles, pipelined, ragged, paired);
}

// SPMM stages its dense operand X in the gather buffer, one column block at a
// time, when a block fits: then DRAM sees X's words once per block, filled row
// by row (a granule still in the load unit's reuse window is not read again).
// Too tall an X is gathered from DRAM. The result's granules are written as
// the store unit's window of open granules predicts.
TEST_CASE("top: SPMM reads its dense operand once per column block through the gather buffer", "[top][top_rtl]") {
  CELLO_SEEDED_RNG(rng, 11);
  Sim<Vtop> sim;
  const auto hw = gen::parse_hw_config(gen::parse_json_file(TOP_CONFIG), TOP_CONFIG);
  const uint64_t gw = static_cast<uint64_t>(hw.top->gather_words);
  const int lanes = arch::engine_lanes(the_arch());
  const uint64_t g = the_arch().granule_bytes;
  int staged = 0, direct = 0, row_pairs = 0, csr_rereads = 0;
  // A row-major X fills two words per step when half of min(16, V) columns is
  // whole granules: then keep drawing programs (up to 200) until a few have.
  const bool row_pairs_possible = lanes > 1 && (std::min(16, lanes) / 2) % static_cast<int>(g / 4) == 0;
  exec::RandomProgramOptions opt;
  opt.launches = 1;
  opt.spmm_only = true;
  opt.max_rows = 48;
  for (int k = 0; k < 16 || (row_pairs_possible && row_pairs < 3 && k < 200); ++k) {
    const uint64_t seed = rng.bits(64);
    // Every other program banded (row r reads X's rows r .. r+2): the fill then
    // runs just ahead of the entries, which wait on it row by row.
    // Every fourth ragged (rows short or long): a group's last row may end
    // long before the others, and the granule it shares with the next group
    // is read again (exec::csr_entry_order).
    opt.band = k % 2 ? 3 : 0;
    opt.ragged = k % 4 == 2;
    INFO("program " << k << ", generator seed " << seed << ", band " << opt.band << ", ragged " << opt.ragged);
    const exec::RandomProgram p = exec::random_program(seed, the_arch(), opt);
    exec::Result want;
    const TopRunResult got = run_and_compare(sim, rng, p.stream, p.image, "SPMM program", &want);
    const std::vector<exec::TensorDesc> t = stream_tensors(p.stream);
    const stream::Record* op = nullptr;
    for (const auto& r : p.stream.records)
      if (r.op() == stream::Opcode::Spmm) op = &r;
    REQUIRE(op != nullptr);
    const size_t a = op->field("a"), b = op->field("b"), c = op->field("c");
    const size_t x = t[a].csr ? b : a, sp = t[a].csr ? a : b;
    // The CSR arrays' reads equal the executor's prediction (the units' windows
    // and pins in the entry fetcher's order); a one-block SPMM that reads more
    // than the matrix's bytes has re-read a granule.
    const auto region = [&](size_t id) {
      const auto reg = std::find_if(got.regions.begin(), got.regions.end(),
                                    [&](const DramRegion& r) { return r.name == fmt::format("t{}", id); });
      REQUIRE(reg != got.regions.end());
      return *reg;
    };
    // The widest block (a power of two, 1..16 columns) whose rows fit: the
    // reads below check the helper cello sim reports with against the RTL.
    const uint64_t width = static_cast<uint64_t>(arch::spmm_block_cols(t[x].rows, gw));
    if (width > 0) CHECK(region(sp).read == want.top.tensor_read_bytes[sp]);
    csr_rereads += width >= t[x].cols && region(sp).read > (t[sp].bytes + g - 1) / g * g;
    if (c == x) continue;  // C is X itself: its reads are not the gather's
    const exec::TensorDesc& d = t[x];
    const uint64_t rd = region(x).read;
    if (width == 0) {
      ++direct;
      continue;
    }
    ++staged;
    // The operand load units' reads of X, block by block: X's block row by
    // row (the fill's order in either storage order). With C, whose words
    // take port B (the C cursor), all of it on port A. Without C and with
    // V > 1 the fill takes X[k, j] on port A and X[k, j+h] on port B,
    // port A taking runs of h columns and skipping the next h: h = 1 for a
    // column-major X, min(width, V) / 2 for a row-major one when h words are
    // whole granules and rows start on one (else one word per step on A).
    // X's DRAM reads are the misses of each unit's reuse window on X's granules.
    const bool with_c = (op->field("flags") & stream::kLaunchWithC) != 0;
    const auto byte_of = [](const exec::TensorDesc& e, uint64_t row, uint64_t col) { return e.base + 4 * e.offset(row, col); };
    const uint64_t gwords = g / 4, h = d.col_major() ? 1 : std::min<uint64_t>(width, static_cast<uint64_t>(lanes)) / 2;
    const bool dual = !with_c && lanes > 1 && width >= 2 && (d.col_major() || (h % gwords == 0 && d.cols % gwords == 0));
    ReuseWindow window(the_arch().load_window), window_b(the_arch().load_window);
    uint64_t granules = 0;
    for (uint64_t j0 = 0; j0 < d.cols; j0 += width) {
      const uint64_t nb = std::min(width, d.cols - j0);
      for (uint64_t i = 0; i < nb * d.rows; ++i) {
        const uint64_t row = i / nb, j = i % nb;
        const bool on_b = dual && (j / h) % 2 == 1;
        granules += (on_b ? window_b : window).miss(byte_of(d, row, j0 + j) / g);
      }
    }
    row_pairs += dual && !d.col_major();
    // Z's writes, the launch's only ones: the write cursor walks each group of
    // 4 rows of each column block in Z's storage order, and the store unit
    // keeps the last store_window granules open (a DRAM write per granule
    // opened; the op's end closes them).
    const exec::TensorDesc& z = t[op->field("out")];
    ReuseWindow open(the_arch().store_window);
    uint64_t written = 0;
    for (uint64_t j0 = 0; j0 < z.cols; j0 += width) {
      const uint64_t nb = std::min(width, z.cols - j0);
      for (uint64_t i0 = 0; i0 < z.rows; i0 += 4) {
        const uint64_t rows = std::min<uint64_t>(4, z.rows - i0);
        for (uint64_t k = 0; k < rows * nb; ++k) {
          const uint64_t r = z.col_major() ? k % rows : k / nb, j = z.col_major() ? k / rows : k % nb;
          written += open.miss(byte_of(z, i0 + r, j0 + j) / g);
        }
      }
    }
    INFO("X " << d.rows << " x " << d.cols << (d.col_major() ? " column-major" : " row-major") << ", blocks of "
              << width << "; Z " << z.rows << " x " << z.cols << (z.col_major() ? " column-major" : " row-major"));
    CHECK(rd == granules * g);
    CHECK(got.dram_write_bytes == written * g);
  }
  fmt::print("top: SPMM gather buffer: {} programs staged X ({} row-major on both read ports), {} gathered it from DRAM; "
             "{} re-read a CSR granule\n", staged, row_pairs, direct, csr_rereads);
  CHECK(staged > 0);
  CHECK(csr_rereads > 0);
  if (row_pairs_possible) CHECK(row_pairs > 0);
}

TEST_CASE("top: port protocol errors (a stray DRAM response, a withdrawn command word, a stray host_ack) halt the top with the protocol bit", "[top][top_rtl]") {
  CELLO_SEEDED_RNG(rng, 7);
  Sim<Vtop> sim;
  const auto prep = compiled("cg", 1, 1);
  const std::vector<uint8_t> bytes = stream::encode(prep.compiled.stream);
  using Stray = TopRunOptions::Stray;
  // For each kind, a few random timings: the clean run's length, then one
  // protocol error in its first half (every kind has chances all through a
  // run: op boundaries leave DRAM idle, the decoder waits on long launches,
  // host_req is low outside HOST).
  for (Stray kind : {Stray::DramResponse, Stray::WithdrawnWord, Stray::HostAck})
    for (int k = 0; k < 3; ++k) {
      TopRunOptions o = random_options(rng);
      std::vector<uint8_t> clean_image = prep.image;
      const TopRunResult clean =
          run_top(sim, bytes, prep.compiled.stream, clean_image, o, rng, register_count());
      REQUIRE(clean.done);
      REQUIRE(clean.status == 0);
      o.stray = kind;
      o.stray_after = 1 + rng.below(clean.cycles / 2);
      INFO("protocol error " << static_cast<int>(kind) << " after cycle " << o.stray_after);
      std::vector<uint8_t> image = prep.image;
      TopRunResult got;
      try {
        got = run_top(sim, bytes, prep.compiled.stream, image, o, rng, register_count());
      } catch (const Failure& f) {
        FAIL(f.what() << " at cycle " << sim.cycle());
      }
      REQUIRE(got.stray_record != UINT64_MAX);
      CHECK(got.halted);
      CHECK(got.status == (1u << static_cast<unsigned>(stream::StatusBit::Protocol)));
      CHECK(got.err_record == got.stray_record);
    }
}

TEST_CASE("top: illegal commands (every class but the RTL-only protocol bit) stop the top with their status bit", "[top][top_rtl]") {
  CELLO_SEEDED_RNG(rng, 6);
  Sim<Vtop> sim;
  const auto prep = compiled("cg", 1, 1);
  const stream::Stream& good = prep.compiled.stream;
  // The first launch, and the first CHORD command, of the compiled stream.
  size_t launch = 0, chord = SIZE_MAX;
  for (size_t i = 0; i < good.records.size(); ++i) {
    const auto op = good.records[i].op();
    if (!launch && (op == stream::Opcode::Gemm || op == stream::Opcode::Spmm || op == stream::Opcode::Gram)) launch = i;
    if (chord == SIZE_MAX && op == stream::Opcode::ChordReg) chord = i;
  }
  REQUIRE(launch > 0);
  struct Case {
    std::string what;
    stream::StatusBit bit;
    size_t record;
    stream::Stream s;
  };
  std::vector<Case> cases;
  {
    Case c{"launch names an undescribed id", stream::StatusBit::BadTensor, launch, good};
    c.s.records[launch].set_field("out", 60000);
    cases.push_back(c);
  }
  {
    Case c{"tensor region past the image", stream::StatusBit::BadAddress, 0, good};
    c.s.records[0].set_field("base", good.header.memory_bytes);
    cases.push_back(c);
  }
  {
    Case c{"tensor described twice", stream::StatusBit::BadTensor, 2, good};
    c.s.records[2] = good.records[0];
    cases.push_back(c);
  }
  if (chord != SIZE_MAX && the_arch().has_chord()) {
    Case c{"CHORD command for a tensor not bound to CHORD", stream::StatusBit::ChordError, chord, good};
    // Clear the chord flag of the tensor it names.
    const uint64_t id = good.records[chord].field("id");
    for (auto& r : c.s.records)
      if (r.op() == stream::Opcode::Tensor && r.field("id") == id)
        r.set_field("flags", r.field("flags") & ~uint64_t{stream::kTensorChord});
    cases.push_back(c);
  }
  if constexpr (kChordOnDatapath<Vtop>) {
    // CHORD on the datapath: the host reads and writes DRAM only, so a HOST
    // naming a tensor live in CHORD is one this top cannot run. The first
    // HOST's operand a gets the chord flag and a CHORD_REG just before it.
    size_t host = 0;
    while (host < good.records.size() && good.records[host].op() != stream::Opcode::Host) ++host;
    REQUIRE(host < good.records.size());
    const uint64_t a = good.records[host].field("a");
    Case c{"HOST names a tensor live in CHORD", stream::StatusBit::ChordError, host + 1, good};
    for (auto& r : c.s.records)
      if (r.op() == stream::Opcode::Tensor && r.field("id") == a) r.set_field("flags", r.field("flags") | stream::kTensorChord);
    stream::Record reg = stream::Record::make(stream::Opcode::ChordReg);
    reg.set_field("id", a);
    c.s.records.insert(c.s.records.begin() + static_cast<std::ptrdiff_t>(host), reg);
    cases.push_back(c);
  }
  {
    Case c{"launch shapes that do not fit", stream::StatusBit::BadTensor, launch, good};
    // Make the result tensor one row taller.
    const uint64_t id = good.records[launch].field("out");
    for (auto& r : c.s.records)
      if (r.op() == stream::Opcode::Tensor && r.field("id") == id) r.set_field("rows", r.field("rows") + 1);
    cases.push_back(c);
  }
  {
    Case c{"unknown opcode", stream::StatusBit::BadOpcode, launch, good};
    c.s.records[launch].bytes[0] = 0x7e;
    cases.push_back(c);
  }
  {
    Case c{"reserved byte of a TENSOR record set", stream::StatusBit::BadField, 0, good};
    c.s.records[0].bytes[5] = 1;
    cases.push_back(c);
  }
  {
    // The first RF_LOAD becomes a FENCE: its GEMM pass has no register-file load.
    size_t ld = 0;
    while (ld < good.records.size() && good.records[ld].op() != stream::Opcode::RfLoad) ++ld;
    REQUIRE(ld + 1 < good.records.size());
    Case c{"GEMM without its RF_LOAD", stream::StatusBit::BadOrder, ld + 1, good};
    c.s.records[ld] = stream::Record::make(stream::Opcode::Fence);
    cases.push_back(c);
  }
  {
    Case c{"a record after END", stream::StatusBit::BadOrder, good.records.size(), good};
    c.s.records.push_back(stream::Record::make(stream::Opcode::Fence));
    cases.push_back(c);
  }
  for (const Case& c : cases) {
    INFO(c.what);
    expect_halt(sim, rng, c.s, prep.image, c.bit, c.record);
  }
}

// A damaged CSR operand in the DRAM image (the executor refuses such an image
// before it runs) stops the engine at the SPMM that reads it: a row pointer
// past nnz, a row pointer below the one before it, or a column index past the
// dense operand's rows. The top halts with bad_address at that launch instead
// of reading outside the tensor or hanging. The damaged row or entry is
// random, so the error arrives with the row pointers of any row of a group.
TEST_CASE("top: a damaged CSR operand in the image stops the top at its SPMM with bad_address", "[top][top_rtl]") {
  CELLO_SEEDED_RNG(rng, 8);
  Sim<Vtop> sim;
  const auto prep = compiled("cg", 4, 1);
  const stream::Stream& s = prep.compiled.stream;
  size_t spmm = SIZE_MAX;
  for (size_t i = 0; i < s.records.size() && spmm == SIZE_MAX; ++i)
    if (s.records[i].op() == stream::Opcode::Spmm) spmm = i;
  REQUIRE(spmm != SIZE_MAX);
  const exec::TensorDesc a = stream_tensors(s).at(s.records[spmm].field("a"));
  REQUIRE(a.csr);
  REQUIRE(a.nnz > 2);
  auto get = [](const std::vector<uint8_t>& img, uint64_t at) {
    uint32_t w;
    std::memcpy(&w, &img[at], 4);
    return w;
  };
  auto put = [](std::vector<uint8_t>& img, uint64_t at, uint32_t w) { std::memcpy(&img[at], &w, 4); };
  for (int round = 0; round < 6; ++round) {
    std::vector<uint8_t> image = prep.image;
    const auto row = 1 + rng.below(a.rows);  // row pointer 1..rows
    std::string what;
    switch (round % 3) {
      case 0:
        put(image, a.base + 4 * row, a.nnz + 1 + static_cast<uint32_t>(rng.below(1000)));
        what = fmt::format("row pointer {} past nnz", row);
        break;
      case 1: {
        // Row pointer `row` falls below row pointer row-1 (which is at least 1 here).
        uint64_t r = row;
        while (get(image, a.base + 4 * (r - 1)) == 0) ++r;
        REQUIRE(r <= a.rows);
        put(image, a.base + 4 * r, get(image, a.base + 4 * (r - 1)) - 1);
        what = fmt::format("row pointer {} falls", r);
        break;
      }
      default: {
        const auto e = rng.below(a.nnz);
        put(image, a.col_at(the_arch().granule_bytes) + 4 * e, a.cols + static_cast<uint32_t>(rng.below(1000)));
        what = fmt::format("column index {} past the dense operand", e);
      }
    }
    INFO(what);
    expect_halt(sim, rng, s, image, stream::StatusBit::BadAddress, spmm);
  }
}
