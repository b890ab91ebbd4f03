// Orojenesis-style data-movement bounds (Huang et al., "Mind the Gap").
//
// Single einsum: a two-level "snowcat" machine (one buffer of unconstrained
// size + a backing store). A mapping chooses, for every rank r, a tile t_r that
// divides the rank's shape (perfect factors) and an order of the outer loops
// (shape_r / t_r iterations each). For each mapping:
//   tile(T)     = product of t_r over the ranks of tensor T
//   buffer      = sum of tile(T) over all tensors
//   visits(T)   = tile(T) x product of the outer-loop bounds from the outermost
//                 loop down to the innermost loop that indexes T (outer loops
//                 inside it do not change T's tile, so T stays in the buffer)
//   accesses(T) = visits(T) for inputs; 2 visits(T) - |T| for the output (every
//                 visit writes the tile back, every revisit first reads the
//                 partial sums)
// The ski slope is the Pareto front of (buffer, total accesses) over every
// tiling x loop order. At a buffer holding all tensors it reaches the
// algorithmic minimum (every tensor moved once).
//
// Chain of GEMMs sharing the row rank (Z_e[m,n_e] = Z_{e-1}[m,k_e] W_e[k_e,n_e],
// Z_{-1} = A): the fused bound enumerates sequentially fused mappings in the
// spirit of Orojenesis' fusion-friendly templates. A block of M0 rows walks
// the whole chain; intermediates never leave the buffer. Per stage the weight
// is either resident for the whole run (moved once, K_e N_e words of buffer) or
// streamed per row block (moved M/M0 times, one word of buffer). Stage 0 streams
// its input column by column, the last stage streams its output column by
// column, middle stages hold their input and output row blocks:
//   buffer   = max over stages of the stage's row-block need + streamed-weight
//              words + sum of resident weights
//   accesses = |A| + |Z_last| + sum_e (resident ? K_e N_e : (M/M0) K_e N_e)
// The unfused curve sums the single-einsum ski slopes of the stages at every
// buffer size (each stage reads its input and writes its output).
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace cello::bound {

constexpr uint64_t kUnreachable = std::numeric_limits<uint64_t>::max();
// Largest rank size and MAC count an einsum may have (keeps counts exact).
constexpr uint64_t kMaxRankSize = uint64_t{1} << 40;
constexpr uint64_t kMaxMacs = uint64_t{1} << 56;

struct Rank {
  std::string name;
  uint64_t size = 1;
};

struct TensorUse {
  std::string name;
  std::vector<int> ranks;  // indices into Einsum::ranks
};

// One einsum: inputs multiplied together and reduced into the output over the
// ranks the output does not carry.
struct Einsum {
  std::string name;
  std::vector<Rank> ranks;
  std::vector<TensorUse> inputs;
  TensorUse output;

  uint64_t tensor_size(const TensorUse& t) const;
  uint64_t algorithmic_minimum() const;  // every tensor once
  uint64_t macs() const;                 // product of all rank shapes
  // Throws cello::Error (place = spec) when ranks are missing or out of range.
  void validate() const;
  // "m=64,k=32,n=16: A[m,k] B[k,n] -> Z[m,n]"
  static Einsum parse(const std::string& spec);
  std::string to_string() const;
};

struct Mapping {
  std::vector<uint64_t> tiles;  // per rank
  std::vector<int> order;       // outer loops, outermost first (rank indices)
};

struct BoundPoint {
  uint64_t buffer = 0;    // words
  uint64_t accesses = 0;  // words moved to/from the backing store
  std::string mapping;    // human-readable description of one mapping reaching it
};

// Exact cost of one mapping (formulas above).
BoundPoint evaluate(const Einsum& e, const Mapping& m);

struct SearchStats {
  uint64_t mappings = 0;  // tiling x order combinations evaluated
};

// Pareto front, sorted by increasing buffer and strictly decreasing accesses.
// Throws cello::Error if the search space exceeds max_mappings.
std::vector<BoundPoint> ski_slope(const Einsum& e, SearchStats* stats = nullptr,
                                  uint64_t max_mappings = 200'000'000ull);

// Fewest accesses any point of a front reaches with at most `buffer` words
// (kUnreachable if none fits).
uint64_t accesses_at(const std::vector<BoundPoint>& front, uint64_t buffer);

// Keeps the Pareto-optimal points (minimum buffer for each access level).
std::vector<BoundPoint> pareto(std::vector<BoundPoint> points);

struct GemmChain {
  uint64_t m = 1;
  uint64_t k0 = 1;             // columns of the chain input A
  std::vector<uint64_t> n;     // output columns of every stage (K_e = n[e-1])
  void validate() const;
  uint64_t algorithmic_minimum() const;  // |A| + sum |W_e| + |Z_last|
  std::vector<Einsum> stages() const;    // the stages as single einsums
  // "M,K0,N0,N1,..." e.g. "4096,1024,4096,1024"
  static GemmChain parse(const std::string& spec);
};

std::vector<BoundPoint> fused_chain(const GemmChain& c, SearchStats* stats = nullptr);
// Sum of the stages' single-einsum fronts, evaluated at every breakpoint.
std::vector<BoundPoint> unfused_chain(const GemmChain& c, SearchStats* stats = nullptr);

std::vector<uint64_t> divisors(uint64_t n);

// CSV with columns series,buffer_words,buffer_bytes,accesses_words,accesses_bytes,mapping.
struct Series {
  std::string name;
  std::vector<BoundPoint> points;
};
std::string to_csv(const std::vector<Series>& series, unsigned word_bytes);
// Log-log step plot of the series (buffer on x, accesses on y), standalone SVG.
std::string to_svg(const std::vector<Series>& series, unsigned word_bytes, const std::string& title);

}  // namespace cello::bound
