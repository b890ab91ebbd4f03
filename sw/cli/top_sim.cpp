#include "sw/cli/top_sim.hpp"

#include <fmt/core.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <thread>

#include "sw/cli/options.hpp"
#include "sw/cli/output_files.hpp"
#include "sw/common/bits.hpp"
#include "sw/common/error.hpp"
#include "sw/common/read_file.hpp"
#include "sw/common/run_process.hpp"
#include "sw/exec/prepare.hpp"
#include "gen/design.hpp"
#include "gen/gen_command.hpp"
#include "sw/golden/solvers.hpp"
#include "sw/mtx/matrix_market.hpp"
#include "sw/traffic/report.hpp"
#include "gen/top/counters_gen.hpp"
#include "gen/top/stream_engine_gen.hpp"
#include "gen/top/top_config.hpp"

namespace cello::cli {

namespace fs = std::filesystem;

namespace {

// ---- The simulator: prebuilt, cached, or built now ---------------------------

// File name -> contents of the RTL a cello gen output folder lists in files.f.
std::map<std::string, std::string> rtl_of(const fs::path& dir) {
  std::map<std::string, std::string> rtl;
  std::ifstream list(dir / "files.f");
  for (std::string line; std::getline(list, line);)
    if (!line.empty()) rtl[fs::path(line).filename().string()] = read_file_capped(line, uint64_t{1} << 30, "generated RTL");
  if (rtl.empty()) throw Error((dir / "files.f").string(), "", "lists no RTL");
  return rtl;
}

// Serialises builds of one simulator between concurrent `cello sim` runs.
// This process's name in a cache folder that several machines share (the nodes
// of a cluster, docs/sweep.md): host name and pid.
std::string process_tag() {
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0 || !host[0]) return std::to_string(::getpid());
  std::string h;
  for (const char* c = host; *c; ++c) h += std::isalnum(static_cast<unsigned char>(*c)) || *c == '-' || *c == '.' ? *c : '_';
  return fmt::format("{}-{}", h, ::getpid());
}

class DirLock {
 public:
  explicit DirLock(const fs::path& file) : fd_(::open(file.c_str(), O_CREAT | O_RDWR, 0644)) {
    if (fd_ < 0 || ::flock(fd_, LOCK_EX) != 0) throw Error(file.string(), "", "cannot lock the simulator cache");
  }
  ~DirLock() { ::close(fd_); }
  DirLock(const DirLock&) = delete;
  DirLock& operator=(const DirLock&) = delete;

 private:
  int fd_;
};

struct Simulator {
  std::string top;  // its module
  fs::path program;
  std::string how;  // "prebuilt", "cached", "built"
};

// The simulator of the top that `config` generates. The RTL is generated first;
// the build's prebuilt simulator is used when that RTL is the one it was built
// from, else the cache entry keyed by the RTL and this cello program, building
// it when missing (docs/sim.md).
Simulator simulator_for(const std::string& config, const fs::path& cache) {
  std::error_code ec;
  fs::create_directories(cache, ec);
  if (ec) throw Error(cache.string(), "--cache", "cannot create: " + ec.message());
  const fs::path scratch = cache / fmt::format("rtl-{}", process_tag());
  const std::string top = gen::run_gen(config, scratch.string()).config.top->name;
  const auto rtl = rtl_of(scratch);
  fs::remove_all(scratch, ec);
  if (fs::exists(CELLO_PREBUILT_SIM) && rtl == rtl_of(CELLO_PREBUILT_SIM_RTL)) return {top, CELLO_PREBUILT_SIM, "prebuilt"};

  uint64_t h = gen::fnv1a("");
  for (const auto& [name, text] : rtl) h = gen::fnv1a(text, gen::fnv1a(name, h));
  h = gen::fnv1a(read_file_capped("/proc/self/exe", uint64_t{1} << 32, "program"), h);
  const fs::path entry = cache / fmt::format("{:016x}", h);
  const fs::path program = entry / "build" / "cello-sim-top";
  fs::create_directories(entry, ec);
  if (ec) throw Error(entry.string(), "--cache", "cannot create: " + ec.message());
  DirLock lock(entry / "lock");
  if (fs::exists(program)) return {top, program, "cached"};

  gen::run_gen(config, (entry / "rtl").string());
  const fs::path log = entry / "build.log";
  fmt::print("  building the simulator of {} into {} (once per RTL; log {})\n", top, entry.string(), log.string());
  std::fflush(stdout);
  std::vector<std::string> configure = {CELLO_CMAKE, "-S", CELLO_SIM_PROJECT, "-B", (entry / "build").string(),
                                        "-G", CELLO_CMAKE_GENERATOR, "-DCMAKE_BUILD_TYPE=Release",
                                        std::string("-DCMAKE_CXX_COMPILER=") + CELLO_CXX,
                                        std::string("-DCELLO_BUILD_DIR=") + CELLO_BUILD_DIR,
                                        "-DCELLO_RTL_DIR=" + (entry / "rtl").string(), "-DCELLO_TOP=" + top};
  if (std::string(CELLO_CXX_LAUNCHER).size()) configure.push_back(std::string("-DCMAKE_CXX_COMPILER_LAUNCHER=") + CELLO_CXX_LAUNCHER);
  const unsigned jobs = std::max(1u, std::thread::hardware_concurrency());
  for (const auto& argv : {configure, std::vector<std::string>{CELLO_CMAKE, "--build", (entry / "build").string(), "-j",
                                                              std::to_string(jobs)}}) {
    const ProcessResult r = run_process(argv, log, "apt-get install cmake");
    if (r.exit_code != 0)
      throw Error(log.string(), "", fmt::format("building the simulator failed (exit {}); see the log", r.exit_code));
  }
  if (!fs::exists(program)) throw Error(log.string(), "", "the simulator build made no cello-sim-top");
  return {top, program, "built"};
}

// ---- Checks against the executor ---------------------------------------------

std::string tensor_name(const exec::ExecProgram& p, size_t t) {
  return p.tensors[t].name.empty() ? fmt::format("t{}", t) : p.tensors[t].name;
}

// DRAM bytes per memory region: tensors whose address ranges overlap (versions
// of one tensor, and tensors the layout put in the same space) form one region,
// listed once with all their names. The DRAM model counts each address for
// one tensor (the latest described), port and host traffic alike (see the
// DRAM line below), so a region's RTL bytes are the sum over
// its tensors, as are the executor's; a last row holds any RTL bytes outside
// every tensor, so the rows add up to the totals.
nlohmann::json memory_regions(const exec::ExecProgram& p, const exec::Result& want, const nlohmann::json& counted,
                              uint64_t total_read, uint64_t total_written) {
  std::map<size_t, std::pair<uint64_t, uint64_t>> rtl;  // tensor id -> RTL bytes read, written
  for (const auto& g : counted)
    rtl[std::stoul(g["name"].get<std::string>().substr(1))] = {g["read"].get<uint64_t>() + g.value("host_read", uint64_t{0}),
                                                                g["written"].get<uint64_t>() + g.value("host_written", uint64_t{0})};
  std::vector<size_t> ids;
  for (size_t t = 0; t < p.tensors.size(); ++t)
    if (p.tensors[t].described && p.tensors[t].bytes > 0) ids.push_back(t);
  std::sort(ids.begin(), ids.end(), [&](size_t x, size_t y) { return p.tensors[x].base < p.tensors[y].base; });
  nlohmann::json out = nlohmann::json::array();
  uint64_t sum_rr = 0, sum_rw = 0;
  for (size_t i = 0; i < ids.size();) {
    const uint64_t base = p.tensors[ids[i]].base;
    uint64_t end = base;
    std::vector<size_t> members;
    for (; i < ids.size() && p.tensors[ids[i]].base < std::max(end, base + 1); ++i) {
      members.push_back(ids[i]);
      end = std::max(end, p.tensors[ids[i]].base + p.tensors[ids[i]].bytes);
    }
    std::sort(members.begin(), members.end());
    uint64_t rr = 0, rw = 0, er = 0, ew = 0;
    std::string names;
    for (size_t t : members) {
      rr += rtl[t].first;
      rw += rtl[t].second;
      er += want.top.tensor_read_bytes[t];
      ew += want.top.tensor_write_bytes[t];
      if (!names.empty()) names += ',';
      names += tensor_name(p, t);
    }
    if (rr + rw + er + ew == 0) continue;
    out.push_back({{"tensors", names}, {"base", base}, {"bytes", end - base}, {"rtl_read", rr}, {"rtl_written", rw},
                   {"executor_read", er}, {"executor_written", ew}});
    sum_rr += rr;
    sum_rw += rw;
  }
  if (sum_rr != total_read || sum_rw != total_written)  // bytes outside every tensor's range
    out.push_back({{"tensors", "(outside every tensor)"}, {"rtl_read", total_read - sum_rr},
                   {"rtl_written", total_written - sum_rw}, {"executor_read", 0}, {"executor_written", 0}});
  return out;
}

// One line on the memory regions whose RTL bytes differ from the executor's
// prediction: how many, and the one with the most bytes of difference.
// Said where the executor's prediction for this top is not exact (top.exact).
constexpr const char* kNotExact = "; not an exact prediction here (docs/commands.md, \"DRAM traffic\")";

void print_region_summary(const nlohmann::json& regions, bool exact) {
  size_t differ = 0;
  std::string worst;
  uint64_t worst_diff = 0;
  for (const auto& g : regions) {
    const uint64_t r = g["rtl_read"].get<uint64_t>() + g["rtl_written"].get<uint64_t>(),
                   e = g["executor_read"].get<uint64_t>() + g["executor_written"].get<uint64_t>();
    if (g["rtl_read"] == g["executor_read"] && g["rtl_written"] == g["executor_written"]) continue;
    ++differ;
    const uint64_t diff = std::max(r, e) - std::min(r, e);
    if (worst.empty() || diff > worst_diff) {
      worst_diff = diff;
      worst = fmt::format("{}: RTL {} B, executor {} B", g["tensors"].get<std::string>(), r, e);
    }
  }
  fmt::print("  DRAM per memory region: {} of {} equal to the executor's prediction{}{}\n", regions.size() - differ,
             regions.size(), differ ? fmt::format(" (furthest: {})", worst) : std::string(),
             differ && !exact ? kNotExact : "");
}

// The kind of record i (its opcode's name), for the tables by kind.
std::string record_kind(const stream::Stream& st, size_t i) {
  const stream::OpcodeSpec* spec = i < st.records.size() ? stream::find_opcode(static_cast<uint8_t>(st.records[i].op())) : nullptr;
  return spec ? spec->name : "(after the last record)";
}

// RTL cycles per record kind (the cycles each record was the running one),
// beside the executor's estimate for its launches of that kind; printed as a
// table, returned for the JSON report.
nlohmann::json cycles_by_kind(const stream::Stream& st, const exec::Result& want, const std::vector<uint64_t>& per_record,
                              uint64_t total) {
  std::map<std::string, std::pair<uint64_t, uint64_t>> kinds;  // kind -> RTL cycles, executor cycles
  std::map<std::string, uint64_t> macs;                        // kind -> its launches' MACs
  for (size_t i = 0; i < per_record.size(); ++i) kinds[record_kind(st, i)].first += per_record[i];
  for (const auto& op : want.ops) {
    kinds[op.mode].second += op.cycles;
    macs[op.mode] += op.macs;
  }
  std::vector<std::pair<std::string, std::pair<uint64_t, uint64_t>>> rows(kinds.begin(), kinds.end());
  std::sort(rows.begin(), rows.end(), [](const auto& x, const auto& y) { return x.second.first > y.second.first; });
  fmt::print("  cycles by record kind: RTL (share of the run) against the executor's estimate\n");
  nlohmann::json out = nlohmann::json::object();
  uint64_t rest = 0;  // kinds with no estimate and under 0.1% of the run: one line
  for (const auto& [kind, c] : rows) {
    if (c.first == 0 && c.second == 0) continue;
    out[kind] = {{"rtl", c.first}, {"executor", c.second}, {"macs", macs[kind]}};
    if (c.second == 0 && c.first * 1000 < total) {
      rest += c.first;
      continue;
    }
    fmt::print("    {:<10} {:>12} ({:5.1f}%)  executor {:>10}{}\n", kind, c.first,
               100.0 * ratio(static_cast<double>(c.first), static_cast<double>(total)), c.second,
               c.second ? fmt::format("  ({:.2f}x)", ratio(static_cast<double>(c.first), static_cast<double>(c.second))) : "");
  }
  if (rest) fmt::print("    {:<10} {:>12}  (every other kind of record)\n", "other", rest);
  return out;
}

// The engine's counters per record kind (each record's growth of the register
// port, as the simulator read it at every change of record): its FMA steps,
// the product unit's, and where its running cycles went. Printed for the
// kinds that ran the engine, returned for the JSON report.
nlohmann::json engine_by_kind(const stream::Stream& st, const std::vector<std::vector<uint64_t>>& per_record) {
  std::vector<std::pair<std::string, size_t>> regs;  // counter name, register
  for (const char* n : {"launches", "fma", "gram_steps", "pair_steps", "engine_cycles"}) regs.emplace_back(n, gen::counter_register(n));
  for (const auto& c : gen::engine_cycle_counters()) regs.emplace_back(c.name, gen::counter_register(c.name));
  std::map<std::string, std::map<std::string, uint64_t>> kinds;
  for (size_t i = 0; i < per_record.size(); ++i) {
    std::map<std::string, uint64_t>& kind = kinds[record_kind(st, i)];
    for (const auto& [name, reg] : regs)
      if (reg < per_record[i].size()) kind[name] += per_record[i][reg];
  }
  nlohmann::json out = nlohmann::json::object();
  fmt::print("  engine by record kind: FMA steps (of them on GEMM row pairs), the product unit's steps, and where the running cycles went\n");
  for (const auto& [kind, c] : kinds) {
    const uint64_t running = c.at("engine_cycles");
    if (running == 0) continue;
    out[kind] = c;
    std::string split;
    for (const auto& e : gen::engine_cycle_counters())
      split += fmt::format("  {} {:.1f}%", e.name, 100.0 * ratio(static_cast<double>(c.at(e.name)), static_cast<double>(running)));
    fmt::print("    {:<10} {:>12} cycles running, {:>11} FMA steps ({} on row pairs), {:>10} product steps{}\n", kind, running,
               c.at("fma"), c.at("pair_steps"), c.at("gram_steps"), split);
  }
  return out;
}

// The dense tensors the final DRAM image holds: no later tensor reuses their
// region. With CHORD on the datapath a CHORD-bound tensor that is not an output
// may end in CHORD (only outputs are written back), so only outputs of those.
std::vector<size_t> final_tensors(const exec::ExecProgram& p, bool chord_on_datapath) {
  std::vector<size_t> out;
  for (size_t t = 0; t < p.tensors.size(); ++t) {
    const auto& d = p.tensors[t];
    if (!d.described || d.csr || (chord_on_datapath && d.chord() && !d.output())) continue;
    bool reused = false;
    for (size_t u = t + 1; u < p.tensors.size() && !reused; ++u)
      reused = p.tensors[u].described && d.shares_bytes(p.tensors[u]);
    if (!reused) out.push_back(t);
  }
  return out;
}

std::string status_names(unsigned status) {
  std::string s;
  for (int b = 0; b < stream::kStatusBits; ++b)
    if (status >> b & 1) {
      if (!s.empty()) s += '|';
      s += stream::to_string(static_cast<stream::StatusBit>(b));
    }
  return s.empty() ? "none" : s;
}

// What bounds the RTL's datapath as it is (docs/sim.md, "What the RTL cannot
// do yet"): its FMA lanes against the array's MACs, and SPMM's column blocks
// when the dense operand does not fit the gather buffer 16 columns at a time.
void print_datapath(const arch::Arch& a, const exec::ExecProgram& p, const exec::Result& want, uint64_t rtl_bytes,
                    double bw, uint64_t cycles, nlohmann::json& rep) {
  const int lanes = arch::engine_lanes(a);
  // A split array adds as many lanes for fused Gram products; the bound lets
  // every MAC use them, so it stays a lower bound.
  const bool split = arch::engine_split_gram(a);
  const int tiles = arch::engine_tiles(a);
  const int all_lanes = (split ? 2 * lanes : lanes) * tiles;
  const uint64_t bound = std::max(ceil_div(want.macs, static_cast<uint64_t>(all_lanes)),
                                  static_cast<uint64_t>(std::ceil(static_cast<double>(rtl_bytes) / bw)));
  fmt::print("  datapath: {} of the {}x{} array's PEs: {} tile{} of {} FMA lanes{}{}; "
             "max(MACs / {}, RTL bytes / {} B per cycle) = {} cycles, RTL at {:.2f}x\n",
             all_lanes, a.pe_rows, a.pe_cols, tiles, tiles > 1 ? "s" : "", lanes,
             split ? fmt::format(" and {} more for fused Gram products{}", lanes,
                                 exec::engine_row_pairs(a) ? " and GEMM row pairs" : "")
                   : std::string(),
             tiles > 1 ? " (GRAMs and fused launches on tile 0)" : "", all_lanes, bw, bound, ratio(static_cast<double>(cycles), static_cast<double>(bound)));
  rep["datapath"] = {{"lanes", lanes}, {"product_lanes", split ? lanes : 0}, {"tiles", tiles}, {"bound_cycles", bound}};
  // SPMM's column blocks, as the engine picks them.
  uint64_t most = 1, rows = 0, width = 0;
  bool too_tall = false;
  for (const exec::ExecOp& op : p.ops) {
    if (op.kind != stream::Opcode::Spmm) continue;
    const exec::TensorDesc& x = p.tensors[static_cast<size_t>(exec::spmm_dense(p, op))];
    const uint64_t w = static_cast<uint64_t>(arch::spmm_block_cols(x.rows, a.gather_words));
    if (w == 0) {
      too_tall = true;
      rows = x.rows;
      continue;
    }
    const uint64_t blocks = ceil_div(uint64_t{x.cols}, w);
    if (blocks > most) most = blocks, rows = x.rows, width = w;
  }
  if (too_tall)
    fmt::print("  SPMM: a dense operand of {} rows does not fit the {}-word gather buffer even one column at a time: it is "
               "gathered word by word from DRAM\n",
               rows, a.gather_words);
  else if (most > 1)
    fmt::print("  SPMM: a dense operand of {} rows fits the {}-word gather buffer {} column{} at a time: {} column blocks, "
               "each reading the CSR operand again\n",
               rows, a.gather_words, width, width == 1 ? "" : "s", most);
  rep["datapath"]["spmm_column_blocks"] = most;
  rep["datapath"]["spmm_gathered_from_dram"] = too_tall;
}

// Pipelined GRAMs: the ones the top takes from their producer's accumulators
// (docs/top.md, "Pipelined GRAM"), against those whose second operand is bound pipe.
void print_pipelined_grams(const stream::Stream& st, const exec::Result& want, const arch::Arch& a, nlohmann::json& rep) {
  size_t piped = 0;
  for (const exec::ExecOp& op : want.program.ops) piped += op.kind == stream::Opcode::Gram && op.bind[2] == stream::Bind::Pipe;
  const size_t fused = exec::pipelined_grams(st, want.program, a).size();
  if (piped > 0)
    fmt::print("  pipeline buffer: {} of {} GRAMs whose second operand is bound pipe take it from their producer's "
               "accumulators and read no memory; the rest read it through CHORD or DRAM\n",
               fused, piped);
  rep["pipelined_grams"] = {{"bound_pipe", piped}, {"from_producer", fused}};
}

// The simulator's register samples ({cycle, record, register 0, 1, ...}) as CSV:
// per window, its end cycle, the record running then, and how much each perf
// counter grew over the window.
std::string timeline_csv(const std::vector<std::vector<uint64_t>>& samples) {
  const auto& specs = gen::top_counters();
  std::string csv = "cycle,record";
  for (const auto& c : specs) csv += "," + c.name;
  csv += "\n";
  std::vector<uint64_t> last(specs.size(), 0);
  for (const auto& row : samples) {
    csv += fmt::format("{},{}", row.at(0), row.at(1));
    for (size_t k = 0; k < specs.size(); ++k) {
      const uint64_t v = row.at(k + 4);  // registers 0 and 1 are status and err_record
      csv += fmt::format(",{}", v - last[k]);
      last[k] = v;
    }
    csv += "\n";
  }
  return csv;
}

double true_residual(const mtx::Csr& a, const std::vector<float>& x, const std::vector<float>& b, int64_t n) {
  const std::vector<double> xd(x.begin(), x.end());
  std::vector<double> r = mtx::spmm(a, xd, n);
  for (size_t i = 0; i < r.size(); ++i) r[i] = b[i] - r[i];
  return exec::worst_column_ratio(r, b, static_cast<uint64_t>(a.rows), static_cast<uint64_t>(n));
}


}  // namespace

double ratio(double a, double b) { return a / std::max(b, 1.0); }

void add_sim_bench_options(CLI::App* cmd, int& iters, uint64_t& max_cycles, std::string& cache, std::string& json) {
  cmd->add_option("--iters", iters, "CG iterations")->capture_default_str()->check(CLI::Range(1, 1000));
  cmd->add_option("--max-cycles", max_cycles, "fail a run past this many cycles")->capture_default_str();
  cmd->add_option("--cache", cache, "simulator cache folder (default: ~/.cache/cello)");
  add_json_option(cmd, json);
}

std::string default_sim_cache() {
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return (fs::path(x) / "cello").string();
  if (const char* h = std::getenv("HOME"); h && *h) return (fs::path(h) / ".cache" / "cello").string();
  return (fs::temp_directory_path() / "cello-cache").string();
}

SimRun run_sim(const SimOptions& o) {
  for (const auto& [path, opt] : {std::pair{o.counters_csv, "--counters"}, std::pair{o.timeline_csv, "--timeline"},
                                  std::pair{o.trace, "--trace"}})
    if (!path.empty()) check_output_path(path, opt);
  const arch::Arch arch = gen::load_arch(o.config);
  const uint64_t lat_min = o.latency_min ? o.latency_min : arch.dram_latency;
  const uint64_t lat_max = o.latency_max ? o.latency_max : lat_min;
  const double bw = o.dram_bw > 0 ? o.dram_bw : arch.dram_bytes_per_cycle;
  if (bw > arch.granule_bytes) throw Error("", "--dram-bw", gen::dram_bandwidth_excess(bw, static_cast<int>(arch.granule_bytes)));

  // Compile and run the golden executor.
  const stream::Problem pr = stream::make_problem(o.problem);
  const exec::Prepared prep = exec::prepare(pr, arch);
  const stream::Stream& st = prep.compiled.stream;
  const int iters = o.problem.iters;
  fmt::print("cello sim: {} on {} (M={}, nnz={}, {} iteration{}) on {} ({}x{} array, DRAM {} B/cycle, latency {}{}), seed {}\n",
             o.problem.workload, pr.source, pr.matrix.rows, pr.matrix.nnz(), iters, iters == 1 ? "" : "s", arch.name,
             arch.pe_rows, arch.pe_cols, bw, lat_min, lat_max != lat_min ? fmt::format("..{}", lat_max) : "", o.seed);
  const exec::Result want = exec::execute(st, "<compiled stream>", arch, prep.image);
  fmt::print("  compiled: {} records; executor: {} MACs, {} predicted cycles, roofline {}\n", st.records.size(),
             want.macs, want.cycles, want.roofline_cycles);

  const fs::path cache = o.cache.empty() ? fs::path(default_sim_cache()) : fs::path(o.cache);
  const Simulator sim = simulator_for(o.config, cache);
  fmt::print("  simulator: {} ({})\n", sim.program.string(), sim.how);

  // Run it.
  std::error_code ec;
  const fs::path run = cache / fmt::format("run-{}", process_tag());
  fs::create_directories(run, ec);
  if (ec) throw Error(run.string(), "--cache", "cannot create: " + ec.message());
  stream::write_bytes((run / "commands.bin").string(), stream::encode(st));
  stream::write_bytes((run / "image.bin").string(), prep.image);
  const size_t registers = 2 + gen::top_counters().size();
  std::vector<std::string> argv = {sim.program.string(), "--stream", (run / "commands.bin").string(), "--image",
                                   (run / "image.bin").string(), "--out-image", (run / "final.bin").string(),
                                   "--result", (run / "result.json").string(), "--seed", std::to_string(o.seed),
                                   "--latency-min", std::to_string(lat_min), "--latency-max", std::to_string(lat_max),
                                   "--bytes-per-cycle", fmt::format("{}", bw), "--max-cycles",
                                   std::to_string(o.max_cycles), "--registers", std::to_string(registers)};
  if (lat_min != lat_max) argv.push_back("--out-of-order");
  if (!o.progress) argv.insert(argv.end(), {"--progress-every", std::to_string(UINT64_MAX)});
  if (!o.trace.empty()) argv.insert(argv.end(), {"--trace", fs::absolute(o.trace).string()});
  if (!o.timeline_csv.empty()) argv.insert(argv.end(), {"--sample-every", std::to_string(o.timeline_every)});
  std::fflush(stdout);
  const ProcessResult pr_run = run_process(argv, "");
  nlohmann::json res;
  std::vector<uint8_t> image;
  try {
    res = nlohmann::json::parse(read_file_capped((run / "result.json").string(), uint64_t{1} << 30, "result"));
    image = stream::read_bytes((run / "final.bin").string(), st.header.memory_bytes);
  } catch (const std::exception& e) {
    throw Error(sim.program.string(), "", fmt::format("exit {} without a result ({})", pr_run.exit_code, e.what()));
  }
  fs::remove_all(run, ec);

  SimRun out;
  nlohmann::json& rep = out.report;
  rep = {{"command", "sim"}, {"config", arch.name}, {"top", sim.top}, {"workload", o.problem.workload},
         {"source", pr.source}, {"rows", pr.matrix.rows}, {"nnz", pr.matrix.nnz()}, {"iters", iters},
         {"seed", o.seed}, {"dram", {{"latency_min", lat_min}, {"latency_max", lat_max}, {"bytes_per_cycle", bw}}},
         {"records", st.records.size()}, {"simulator", sim.how}};
  const double seconds = res.value("seconds", 0.0);
  const uint64_t cycles = res.value("cycles", uint64_t{0});
  rep["cycles"] = cycles;
  rep["seconds"] = seconds;
  const double khz = static_cast<double>(cycles) / std::max(seconds, 1e-9) / 1e3;
  rep["khz"] = khz;
  if (res.contains("failure")) {
    const std::string f = res["failure"];
    fmt::print("  FAIL: {}\n", f);
    rep["failure"] = f;
    return out;
  }
  const unsigned status = res["status"];
  fmt::print("  run: {} after {} cycles in {:.2f} s ({:.0f} kHz simulated); status {}\n",
             res["done"].get<bool>() ? "END" : "halted", cycles, seconds, khz, status_names(status));
  bool ok = res["done"].get<bool>() && status == 0;
  if (!ok) {
    fmt::print("  FAIL: the top stopped at record {} with status {}\n", res["err_record"].get<uint64_t>(), status_names(status));
    rep["failure"] = fmt::format("halted at record {} with status {}", res["err_record"].get<uint64_t>(), status_names(status));
  }

  // Every tensor the final image holds, bit for bit.
  const exec::ExecProgram& p = want.program;
  uint64_t words = 0, wrong = 0;
  nlohmann::json mismatches = nlohmann::json::array();
  const bool chord_on_datapath = res.contains("chord");  // the simulator reported CHORD's counters
  const std::vector<size_t> finals = final_tensors(p, chord_on_datapath);
  std::map<std::string, std::vector<float>> got_values;
  for (size_t t : finals) {
    const auto& d = p.tensors[t];
    const std::vector<float> got = exec::read_dense(image, d);
    got_values[tensor_name(p, t)] = got;
    for (size_t e = 0; e < got.size(); ++e, ++words) {
      const uint32_t g = std::bit_cast<uint32_t>(got[e]), w = std::bit_cast<uint32_t>(want.values[t][e]);
      if (g == w) continue;
      if (++wrong <= 8) {
        const std::string line = fmt::format("{}[{},{}] (element {}): RTL {:.9g} ({:#010x}), executor {:.9g} ({:#010x})",
                                             tensor_name(p, t), e / d.cols, e % d.cols, e, got[e], g, want.values[t][e], w);
        fmt::print("  MISMATCH {}\n", line);
        mismatches.push_back(line);
      }
    }
  }
  fmt::print("  final DRAM image: {} of {} words in {} tensors{} equal the executor bit for bit{}\n", words - wrong, words,
             finals.size(), chord_on_datapath ? " (outputs, and tensors never bound to CHORD)" : "",
             wrong ? "  FAIL" : "");
  ok = ok && wrong == 0 && words > 0;
  rep["check"] = {{"words", words}, {"mismatches", wrong}, {"tensors", finals.size()}, {"first", mismatches}};

  // The solution against the double-precision solver.
  const auto bt = prep.schedule.program.find_tensor("B");
  const auto xt = prep.schedule.program.find_tensor(fmt::format("X.{}", iters));
  if ((o.problem.workload == "cg" || o.problem.workload == "bicgstab") && bt && xt) {
    const auto& bd = p.tensors[static_cast<size_t>(*bt)];
    const std::vector<float> b = exec::read_dense(image, bd), x = exec::read_dense(image, p.tensors[static_cast<size_t>(*xt)]);
    const int64_t n = bd.cols;
    golden::SolveOptions so;
    so.max_iters = iters;
    so.tol = 0;
    const std::vector<double> b64(b.begin(), b.end());
    const golden::SolveResult d = o.problem.workload == "cg" ? golden::block_cg(pr.matrix, b64, static_cast<int>(n), so)
                                                             : golden::block_bicgstab(pr.matrix, b64, static_cast<int>(n), so);
    const double r_rtl = true_residual(pr.matrix, x, b, n);
    const double r_dbl = d.history.empty() ? NAN : d.history.back();
    fmt::print("  residual max_j |b_j - A x_j| / |b_j| after {} iteration{}: RTL {:.6e}, double-precision solver {:.6e}\n",
               iters, iters == 1 ? "" : "s", r_rtl, r_dbl);
    rep["residual"] = {{"rtl", r_rtl}, {"double", r_dbl}};
  }

  // DRAM traffic per region beside the executor's prediction for this top
  // (exec::Result::top). The RTL's bytes are the DRAM port's plus the host's
  // (HOST commands read their operands and write their result), which the
  // executor counts as the HOST op's traffic. On a top with CHORD, CELLO's own
  // walk (every pipelined edge on chip, `cello model`'s CELLO) is shown too.
  const uint64_t hrd = res.value("host_read_bytes", uint64_t{0}), hwr = res.value("host_write_bytes", uint64_t{0});
  const uint64_t rd = res["dram_read_bytes"].get<uint64_t>() + hrd, wr = res["dram_write_bytes"].get<uint64_t>() + hwr;
  const auto& top = want.top;
  fmt::print("  DRAM: RTL {} B read, {} B written (the host's HOST traffic included: {} B, {} B); executor predicts {} B "
             "read, {} B written ({:.2f}x the prediction){}\n",
             rd, wr, hrd, hwr, top.read_bytes, top.write_bytes,
             ratio(static_cast<double>(rd + wr), static_cast<double>(top.read_bytes + top.write_bytes)),
             arch.has_chord() ? fmt::format("; CELLO's walk {} B ({:.2f}x)", want.read_bytes + want.write_bytes,
                                            ratio(static_cast<double>(rd + wr), static_cast<double>(want.read_bytes + want.write_bytes)))
                              : std::string());
  const nlohmann::json regions = memory_regions(p, want, res["regions"], rd, wr);
  rep["dram_bytes"] = {{"rtl_read", rd},          {"rtl_written", wr},
                       {"host_read", hrd},        {"host_written", hwr},
                       {"executor_read", top.read_bytes}, {"executor_written", top.write_bytes},
                       {"cello_read", want.read_bytes}, {"cello_written", want.write_bytes},
                       {"regions", regions}};
  print_region_summary(regions, top.exact);
  if (arch.has_chord()) {
    // CHORD's counters beside the executor's walk of this top: equal where
    // the prediction is exact (top.exact; docs/commands.md, "DRAM traffic").
    // Reported here; the top testbench checks them.
    const traffic::ChordCounts& c = top.chord;
    nlohmann::json exec_counts = nlohmann::json::object();
    for (const auto& [name, v] : exec::chord_counter_values(c)) exec_counts[name] = v;
    if (chord_on_datapath) {
      const nlohmann::json& r = res["chord"];
      std::string line;
      for (const auto& [name, v] : exec_counts.items())
        line += fmt::format("{} {} ({}), ", name, r.value(name, uint64_t{0}), v.get<uint64_t>());
      fmt::print("  CHORD on the datapath: {}errors {} (RTL (executor's walk)){}\n", line, r.value("error", uint64_t{0}),
                 top.exact ? "" : kNotExact);
      rep["chord"] = {{"executor", exec_counts}, {"rtl", r}, {"walk_exact", top.exact}};
    } else {
      fmt::print("  CHORD: the executor predicts {} read hits, {} read misses, {} write hits, {} spills, {} evicted "
                 "words; not compared: this top's CHORD is not on its datapath (docs/top.md), its accesses go to DRAM\n",
                 c.read_hits, c.read_misses, c.write_hits, c.spills, c.evicted_words);
      rep["chord"] = {{"executor", exec_counts}, {"rtl", nullptr}};
    }
  }

  print_pipelined_grams(st, want, arch, rep);

  // Cycles against the executor's estimate and the roofline.
  fmt::print("  cycles: RTL {}; executor estimate {} ({:.2f}x); roofline {} ({:.2f}x: max of {} MACs / {} per cycle, {} B / {} B per cycle)\n",
             cycles, want.cycles, ratio(static_cast<double>(cycles), static_cast<double>(want.cycles)),
             want.roofline_cycles, ratio(static_cast<double>(cycles), static_cast<double>(want.roofline_cycles)),
             want.macs, arch.macs_per_cycle(), want.read_bytes + want.write_bytes, arch.dram_bytes_per_cycle);
  print_datapath(arch, p, want, rd + wr, bw, cycles, rep);
  rep["executor_cycles"] = want.cycles;
  rep["roofline_cycles"] = want.roofline_cycles;
  rep["macs"] = want.macs;
  rep["cycles_by_kind"] = cycles_by_kind(st, want, res.value("record_cycles", std::vector<uint64_t>{}), cycles);

  // Perf counters.
  const std::vector<uint64_t> regs = res["registers"];
  nlohmann::json counters = nlohmann::json::object();
  std::string csv = "counter,value\n";
  const auto& specs = gen::top_counters();
  for (size_t k = 0; k < specs.size() && k + 2 < regs.size(); ++k) {
    counters[specs[k].name] = regs[k + 2];
    csv += fmt::format("{},{}\n", specs[k].name, regs[k + 2]);
  }
  rep["counters"] = counters;
  // Where the engine's running cycles went (the classes sum to engine_cycles).
  const auto engine_cycles = counters.value("engine_cycles", uint64_t{0});
  std::string split;
  for (const auto& c : gen::engine_cycle_counters())
    split += fmt::format("{} {:.1f}%  ", c.name, 100.0 * ratio(static_cast<double>(counters.value(c.name, uint64_t{0})),
                                                          static_cast<double>(engine_cycles)));
  fmt::print("  engine: {} cycles running ({:.1f}% of the run): {}\n", engine_cycles,
             100.0 * ratio(static_cast<double>(engine_cycles), static_cast<double>(cycles)), split);
  rep["engine_by_kind"] =
      engine_by_kind(st, res.value("record_registers", std::vector<std::vector<uint64_t>>{}));
  if (!o.counters_csv.empty()) {
    write_output_file(o.counters_csv, csv);
    fmt::print("  counters -> {}\n", o.counters_csv);
  }
  if (!o.timeline_csv.empty()) {
    const auto samples = res.value("samples", std::vector<std::vector<uint64_t>>{});
    write_output_file(o.timeline_csv, timeline_csv(samples));
    fmt::print("  timeline -> {} ({} window{} of {} cycles)\n", o.timeline_csv, samples.size(),
               samples.size() == 1 ? "" : "s", o.timeline_every);
  }

  if (!o.dump_dir.empty()) {
    fs::create_directories(o.dump_dir, ec);
    if (ec) throw Error(o.dump_dir, "--dump", "cannot create: " + ec.message());
    // The final tensors, and the dense inputs (B, X.0) as the initial image holds them.
    size_t files = 0;
    for (size_t t = 0; t < p.tensors.size(); ++t) {
      const auto& d = p.tensors[t];
      const bool final = std::find(finals.begin(), finals.end(), t) != finals.end();
      if (!d.described || d.csr || !(final || d.input())) continue;
      std::string name = tensor_name(p, t);
      const std::vector<float> v = final ? got_values[name] : exec::read_dense(prep.image, d);
      if (name == fmt::format("X.{}", iters)) name = "X";
      if (name == "X.0") name = "X0";
      write_output_file((fs::path(o.dump_dir) / (name + ".mtx")).string(), mtx::matrix_market_array(d.rows, d.cols, v));
      ++files;
    }
    fmt::print("  {} tensors (inputs and final values) -> {}/*.mtx\n", files, o.dump_dir);
  }
  out.pass = ok;
  rep["pass"] = ok;
  fmt::print("cello sim: {}\n", ok ? "PASS" : "FAIL");
  return out;
}

}  // namespace cello::cli
