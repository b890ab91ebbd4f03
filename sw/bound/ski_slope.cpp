#include "sw/bound/ski_slope.hpp"

#include <fmt/core.h>
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <numeric>

#include "sw/common/error.hpp"
#include "sw/plot/svg.hpp"

namespace cello::bound {

namespace {

uint64_t mul_sat(uint64_t a, uint64_t b) {
  if (a != 0 && b > kUnreachable / a) return kUnreachable;
  return a * b;
}

std::string trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == sep) {
      out.push_back(trim(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(trim(cur));
  return out;
}

uint64_t parse_u64(const std::string& spec, const std::string& text, const char* what) {
  if (text.empty() || !std::all_of(text.begin(), text.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
    throw Error("", spec, fmt::format("{} '{}' is not a positive integer", what, text));
  uint64_t v = 0;
  for (char c : text) {
    if (v > (kUnreachable - 9) / 10) throw Error("", spec, fmt::format("{} '{}' is too large", what, text));
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  if (v == 0) throw Error("", spec, fmt::format("{} '{}' must be at least 1", what, text));
  return v;
}

std::vector<std::vector<int>> permutations(int n) {
  std::vector<int> p(static_cast<size_t>(n));
  std::iota(p.begin(), p.end(), 0);
  std::vector<std::vector<int>> out;
  do out.push_back(p);
  while (std::next_permutation(p.begin(), p.end()));
  return out;
}

std::string describe(const Einsum& e, const Mapping& m) {
  std::string s = "tiles";
  for (size_t r = 0; r < e.ranks.size(); ++r) s += fmt::format(" {}={}", e.ranks[r].name, m.tiles[r]);
  s += "; outer";
  for (int r : m.order) {
    uint64_t bound = e.ranks[static_cast<size_t>(r)].size / m.tiles[static_cast<size_t>(r)];
    if (bound > 1) s += fmt::format(" {}{}", e.ranks[static_cast<size_t>(r)].name, bound);
  }
  return s;
}

}  // namespace

uint64_t Einsum::tensor_size(const TensorUse& t) const {
  uint64_t s = 1;
  for (int r : t.ranks) s = mul_sat(s, ranks[static_cast<size_t>(r)].size);
  return s;
}

uint64_t Einsum::algorithmic_minimum() const {
  uint64_t s = tensor_size(output);
  for (const auto& t : inputs) s += tensor_size(t);
  return s;
}

uint64_t Einsum::macs() const {
  uint64_t s = 1;
  for (const auto& r : ranks) s = mul_sat(s, r.size);
  return s;
}

void Einsum::validate() const {
  const std::string place = name.empty() ? "einsum" : name;
  if (ranks.empty()) throw Error("", place, "an einsum needs at least one rank");
  if (ranks.size() > 7) throw Error("", place, fmt::format("{} ranks; at most 7 are supported", ranks.size()));
  if (inputs.empty()) throw Error("", place, "an einsum needs at least one input");
  for (const auto& r : ranks) {
    if (r.size == 0) throw Error("", place, fmt::format("rank {} has size 0", r.name));
    if (r.size > kMaxRankSize)
      throw Error("", place, fmt::format("rank {} has size {}; at most 2^40 is supported", r.name, r.size));
  }
  // Every count the search makes is at most (tensors + 1) x the MAC count, so
  // bounding the MACs keeps them all exact in 64 bits.
  if (macs() > kMaxMacs)
    throw Error("", place, "the product of the rank sizes (the MAC count) is above 2^56, more than the bound can count");
  auto check = [&](const TensorUse& t) {
    for (size_t i = 0; i < t.ranks.size(); ++i) {
      int r = t.ranks[i];
      if (r < 0 || static_cast<size_t>(r) >= ranks.size())
        throw Error("", place, fmt::format("tensor {} uses an unknown rank", t.name));
      if (std::count(t.ranks.begin(), t.ranks.begin() + static_cast<std::ptrdiff_t>(i), r))
        throw Error("", place, fmt::format("tensor {} uses rank {} twice", t.name, ranks[static_cast<size_t>(r)].name));
    }
  };
  if (inputs.size() > 16) throw Error("", place, "at most 16 input tensors are supported");
  for (const auto& t : inputs) check(t);
  check(output);
  for (size_t r = 0; r < ranks.size(); ++r) {
    bool used = false;
    for (const auto& t : inputs) used = used || std::count(t.ranks.begin(), t.ranks.end(), static_cast<int>(r)) > 0;
    if (!used) throw Error("", place, fmt::format("rank {} is not used by any input", ranks[r].name));
  }
}

Einsum Einsum::parse(const std::string& spec) {
  Einsum e;
  e.name = spec;
  auto colon = spec.find(':');
  if (colon == std::string::npos) throw Error("", spec, "expected 'rank=size,...: A[..] B[..] -> Z[..]'");
  for (const auto& item : split(spec.substr(0, colon), ',')) {
    auto eq = item.find('=');
    if (eq == std::string::npos) throw Error("", spec, fmt::format("rank '{}' has no '=size'", item));
    Rank r{trim(item.substr(0, eq)), parse_u64(spec, trim(item.substr(eq + 1)), "rank size")};
    if (r.name.empty()) throw Error("", spec, "empty rank name");
    for (const auto& o : e.ranks)
      if (o.name == r.name) throw Error("", spec, fmt::format("rank {} given twice", r.name));
    e.ranks.push_back(r);
  }
  std::string body = spec.substr(colon + 1);
  auto arrow = body.find("->");
  if (arrow == std::string::npos) throw Error("", spec, "missing '->' before the output tensor");
  auto parse_tensors = [&](const std::string& text) {
    std::vector<TensorUse> out;
    size_t i = 0;
    while (i < text.size()) {
      while (i < text.size() && (std::isspace(static_cast<unsigned char>(text[i])) || text[i] == '*')) ++i;
      if (i >= text.size()) break;
      auto open = text.find('[', i);
      auto close = text.find(']', i);
      if (open == std::string::npos || close == std::string::npos || close < open)
        throw Error("", spec, fmt::format("tensor near '{}' needs [ranks]", text.substr(i)));
      TensorUse t;
      t.name = trim(text.substr(i, open - i));
      if (t.name.empty()) throw Error("", spec, "tensor without a name");
      for (const auto& rn : split(text.substr(open + 1, close - open - 1), ',')) {
        if (rn.empty()) continue;
        int idx = -1;
        for (size_t r = 0; r < e.ranks.size(); ++r)
          if (e.ranks[r].name == rn) idx = static_cast<int>(r);
        if (idx < 0) throw Error("", spec, fmt::format("tensor {} uses undeclared rank '{}'", t.name, rn));
        t.ranks.push_back(idx);
      }
      out.push_back(t);
      i = close + 1;
    }
    return out;
  };
  e.inputs = parse_tensors(body.substr(0, arrow));
  auto outs = parse_tensors(body.substr(arrow + 2));
  if (outs.size() != 1) throw Error("", spec, "exactly one output tensor is expected after '->'");
  e.output = outs[0];
  e.validate();
  return e;
}

std::string Einsum::to_string() const {
  std::string s;
  for (size_t r = 0; r < ranks.size(); ++r) s += fmt::format("{}{}={}", r ? "," : "", ranks[r].name, ranks[r].size);
  s += ":";
  auto t = [&](const TensorUse& u) {
    std::string x = " " + u.name + "[";
    for (size_t i = 0; i < u.ranks.size(); ++i) x += (i ? "," : "") + ranks[static_cast<size_t>(u.ranks[i])].name;
    return x + "]";
  };
  for (const auto& u : inputs) s += t(u);
  return s + " ->" + t(output);
}

std::vector<uint64_t> divisors(uint64_t n) {
  std::vector<uint64_t> small, large;
  for (uint64_t d = 1; d <= n / d; ++d)  // not d * d <= n: that overflows near 2^64
    if (n % d == 0) {
      small.push_back(d);
      if (d != n / d) large.push_back(n / d);
    }
  small.insert(small.end(), large.rbegin(), large.rend());
  return small;
}

BoundPoint evaluate(const Einsum& e, const Mapping& m) {
  const size_t R = e.ranks.size();
  std::vector<uint64_t> outer(R);
  for (size_t r = 0; r < R; ++r) outer[r] = e.ranks[r].size / m.tiles[r];
  BoundPoint p;
  auto tile = [&](const TensorUse& t) {
    uint64_t s = 1;
    for (int r : t.ranks) s = mul_sat(s, m.tiles[static_cast<size_t>(r)]);
    return s;
  };
  auto visits = [&](const TensorUse& t) {
    // Product of the outer bounds down to the innermost loop indexing t.
    uint64_t prefix = 1, upto = 1;
    for (int r : m.order) {
      prefix = mul_sat(prefix, outer[static_cast<size_t>(r)]);
      if (outer[static_cast<size_t>(r)] > 1 && std::count(t.ranks.begin(), t.ranks.end(), r)) upto = prefix;
    }
    return mul_sat(tile(t), upto);
  };
  for (const auto& t : e.inputs) {
    p.buffer += tile(t);
    p.accesses += visits(t);
  }
  p.buffer += tile(e.output);
  p.accesses += 2 * visits(e.output) - e.tensor_size(e.output);
  return p;
}

std::vector<BoundPoint> pareto(std::vector<BoundPoint> points) {
  std::sort(points.begin(), points.end(), [](const BoundPoint& a, const BoundPoint& b) {
    return a.buffer != b.buffer ? a.buffer < b.buffer : a.accesses < b.accesses;
  });
  std::vector<BoundPoint> out;
  for (auto& p : points)
    if (out.empty() || p.accesses < out.back().accesses) out.push_back(std::move(p));
  return out;
}

uint64_t accesses_at(const std::vector<BoundPoint>& front, uint64_t buffer) {
  auto it = std::upper_bound(front.begin(), front.end(), buffer,
                             [](uint64_t b, const BoundPoint& p) { return b < p.buffer; });
  if (it == front.begin()) return kUnreachable;
  return std::prev(it)->accesses;
}

std::vector<BoundPoint> ski_slope(const Einsum& e, SearchStats* stats, uint64_t max_mappings) {
  e.validate();
  const size_t R = e.ranks.size();
  std::vector<std::vector<uint64_t>> divs(R);
  uint64_t tilings = 1;
  for (size_t r = 0; r < R; ++r) {
    divs[r] = divisors(e.ranks[r].size);
    tilings = mul_sat(tilings, divs[r].size());
  }
  const auto orders = permutations(static_cast<int>(R));
  const uint64_t total = mul_sat(tilings, orders.size());
  if (total > max_mappings)
    throw Error("", e.name.empty() ? "einsum" : e.name,
                fmt::format("{} tilings x {} loop orders exceed the search limit of {} mappings", tilings,
                            orders.size(), max_mappings));
  struct Cand {
    uint64_t buffer, accesses, tiling;
    uint32_t order;
  };
  std::vector<Cand> cands;
  auto compact = [&] {
    std::sort(cands.begin(), cands.end(), [](const Cand& a, const Cand& b) {
      return a.buffer != b.buffer ? a.buffer < b.buffer : a.accesses < b.accesses;
    });
    std::vector<Cand> keep;
    for (const auto& c : cands)
      if (keep.empty() || c.accesses < keep.back().accesses) keep.push_back(c);
    cands.swap(keep);
  };
  std::vector<size_t> idx(R, 0);
  Mapping m;
  m.tiles.resize(R);
  for (uint64_t t = 0; t < tilings; ++t) {
    uint64_t code = t;
    for (size_t r = 0; r < R; ++r) {
      idx[r] = code % divs[r].size();
      code /= divs[r].size();
      m.tiles[r] = divs[r][idx[r]];
    }
    for (size_t o = 0; o < orders.size(); ++o) {
      m.order = orders[o];
      auto p = evaluate(e, m);
      cands.push_back({p.buffer, p.accesses, t, static_cast<uint32_t>(o)});
    }
    if (cands.size() > (1u << 22)) compact();
  }
  compact();
  if (stats) stats->mappings += total;
  std::vector<BoundPoint> out;
  for (const auto& c : cands) {
    uint64_t code = c.tiling;
    for (size_t r = 0; r < R; ++r) {
      m.tiles[r] = divs[r][code % divs[r].size()];
      code /= divs[r].size();
    }
    m.order = orders[c.order];
    out.push_back({c.buffer, c.accesses, describe(e, m)});
  }
  return out;
}

void GemmChain::validate() const {
  if (m == 0 || k0 == 0) throw Error("", "chain", "M and K0 must be at least 1");
  if (n.size() < 2) throw Error("", "chain", "a chain needs at least two stages (M,K0,N0,N1)");
  if (n.size() > 16) throw Error("", "chain", "at most 16 stages are supported");
  for (auto v : n)
    if (v == 0) throw Error("", "chain", "stage sizes must be at least 1");
  // Keep every product the chain bound forms (M x K, K x N, and their sums over
  // at most 16 stages) exact in 64 bits.
  uint64_t k = k0;
  for (auto v : n) {
    for (uint64_t p : {mul_sat(m, k), mul_sat(k, v), mul_sat(m, v), mul_sat(mul_sat(m, k), v)})
      if (p > kMaxMacs) throw Error("", "chain", "sizes too large: a stage's M x K x N is above 2^56");
    k = v;
  }
}

uint64_t GemmChain::algorithmic_minimum() const {
  uint64_t s = m * k0 + m * n.back();
  uint64_t k = k0;
  for (auto v : n) {
    s += k * v;
    k = v;
  }
  return s;
}

std::vector<Einsum> GemmChain::stages() const {
  std::vector<Einsum> out;
  uint64_t k = k0;
  for (size_t e = 0; e < n.size(); ++e) {
    Einsum s;
    s.name = fmt::format("stage{}", e);
    s.ranks = {{"m", m}, {"k", k}, {"n", n[e]}};
    s.inputs = {{e == 0 ? "A" : fmt::format("Z{}", e - 1), {0, 1}}, {fmt::format("W{}", e), {1, 2}}};
    s.output = {fmt::format("Z{}", e), {0, 2}};
    out.push_back(s);
    k = n[e];
  }
  return out;
}

GemmChain GemmChain::parse(const std::string& spec) {
  auto parts = split(spec, ',');
  if (parts.size() < 4) throw Error("", spec, "a chain is M,K0,N0,N1[,N2...] (at least two stages)");
  GemmChain c;
  c.m = parse_u64(spec, parts[0], "M");
  c.k0 = parse_u64(spec, parts[1], "K0");
  for (size_t i = 2; i < parts.size(); ++i) c.n.push_back(parse_u64(spec, parts[i], "stage size"));
  c.validate();
  return c;
}

std::vector<BoundPoint> fused_chain(const GemmChain& c, SearchStats* stats) {
  c.validate();
  const size_t E = c.n.size();
  std::vector<uint64_t> K(E), W(E);
  for (size_t e = 0; e < E; ++e) {
    K[e] = e == 0 ? c.k0 : c.n[e - 1];
    W[e] = K[e] * c.n[e];
  }
  std::vector<BoundPoint> points;
  for (uint64_t m0 : divisors(c.m)) {
    const uint64_t m1 = c.m / m0;
    for (uint64_t mask = 0; mask < (1ull << E); ++mask) {
      uint64_t resident = 0, stage_max = 0;
      uint64_t acc = c.m * c.k0 + c.m * c.n.back();
      for (size_t e = 0; e < E; ++e) {
        const bool res = (mask >> e) & 1;
        uint64_t need;
        if (e == 0)
          need = m0 + m0 * c.n[0];
        else if (e + 1 == E)
          need = m0 * K[e] + m0;
        else
          need = m0 * K[e] + m0 * c.n[e];
        if (!res) need += 1;
        stage_max = std::max(stage_max, need);
        if (res) {
          resident += W[e];
          acc += W[e];
        } else {
          acc += m1 * W[e];
        }
      }
      std::string desc = fmt::format("M0={}; resident weights:", m0);
      for (size_t e = 0; e < E; ++e)
        if ((mask >> e) & 1) desc += fmt::format(" W{}", e);
      points.push_back({stage_max + resident, acc, desc});
    }
  }
  if (stats) stats->mappings += points.size();
  return pareto(std::move(points));
}

std::vector<BoundPoint> unfused_chain(const GemmChain& c, SearchStats* stats) {
  c.validate();
  std::vector<std::vector<BoundPoint>> fronts;
  std::vector<uint64_t> breaks;
  for (const auto& s : c.stages()) {
    fronts.push_back(ski_slope(s, stats));
    for (const auto& p : fronts.back()) breaks.push_back(p.buffer);
  }
  std::sort(breaks.begin(), breaks.end());
  breaks.erase(std::unique(breaks.begin(), breaks.end()), breaks.end());
  std::vector<BoundPoint> points;
  for (uint64_t b : breaks) {
    uint64_t sum = 0;
    bool ok = true;
    for (const auto& f : fronts) {
      uint64_t a = accesses_at(f, b);
      if (a == kUnreachable) {
        ok = false;
        break;
      }
      sum += a;
    }
    if (ok) points.push_back({b, sum, "best unfused mapping per stage"});
  }
  return pareto(std::move(points));
}

std::string to_csv(const std::vector<Series>& series, unsigned word_bytes) {
  std::string s = "series,buffer_words,buffer_bytes,accesses_words,accesses_bytes,mapping\n";
  for (const auto& se : series)
    for (const auto& p : se.points)
      s += fmt::format("{},{},{},{},{},\"{}\"\n", se.name, p.buffer, p.buffer * word_bytes, p.accesses,
                       p.accesses * word_bytes, p.mapping);
  return s;
}

std::string to_svg(const std::vector<Series>& series, unsigned word_bytes, const std::string& title) {
  plot::LineChart chart;
  chart.title = title;
  chart.x_label = "buffer size (bytes)";
  chart.y_label = "backing-store accesses (bytes)";
  chart.log_x = chart.log_y = true;
  chart.step = true;
  for (const auto& se : series) {
    plot::LineSeries ls;
    ls.name = se.name;
    for (const auto& p : se.points)
      ls.points.push_back({static_cast<double>(p.buffer) * word_bytes, static_cast<double>(p.accesses) * word_bytes});
    chart.series.push_back(ls);
  }
  return plot::line_chart_svg(chart);
}

}  // namespace cello::bound
