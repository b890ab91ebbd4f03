#include "sw/golden/fp32_dag.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>

#include "sw/common/error.hpp"
#include "sw/fp/fp32.hpp"

namespace cello::golden {

using fp::add32;
using fp::fma32;
using fp::mul32;

namespace {

int64_t elements(const ir::Program& p, const ir::Tensor& t) {
  int64_t e = 1;
  for (ir::RankId r : t.dims) e *= p.ranks[r].size;
  return e;
}

// Odometer over a list of ranks (last fastest), writing values into val[].
struct Odometer {
  std::vector<ir::RankId> ranks;
  std::vector<int64_t> size;
  std::vector<int64_t>& val;
  bool start() {
    for (size_t i = 0; i < ranks.size(); ++i) {
      if (size[i] == 0) return false;
      val[ranks[i]] = 0;
    }
    return true;
  }
  bool next() {
    for (size_t i = ranks.size(); i-- > 0;) {
      if (++val[ranks[i]] < size[i]) return true;
      val[ranks[i]] = 0;
    }
    return false;
  }
};

// Reads one dense operand at the current rank values (zero outside a "same" window).
struct Access {
  const std::vector<float>* data = nullptr;
  std::vector<ir::Index> idx;
  std::vector<int64_t> stride, dim, shift;
  float at(const std::vector<int64_t>& val) const {
    int64_t off = 0;
    for (size_t d = 0; d < idx.size(); ++d) {
      int64_t v = val[idx[d].a];
      if (idx[d].window()) v += val[idx[d].b] - shift[d];
      if (v < 0 || v >= dim[d]) return 0.0f;
      off += v * stride[d];
    }
    return (*data)[static_cast<size_t>(off)];
  }
};

float combine(std::vector<float>& lanes, bool tree) {
  if (!tree) {
    float s = lanes[0];
    for (size_t l = 1; l < lanes.size(); ++l) s = add32(s, lanes[l]);
    return s;
  }
  size_t n = lanes.size();
  while (n > 1) {
    size_t h = 0;
    for (size_t l = 0; l + 1 < n; l += 2) lanes[h++] = add32(lanes[l], lanes[l + 1]);
    if (n % 2) lanes[h++] = lanes[n - 1];
    n = h;
  }
  return lanes[0];
}

float relu(float x) { return x < 0.0f ? 0.0f : x; }

class Runner {
 public:
  Runner(const ir::Program& p, const Fp32Inputs& in, const Fp32Order& o) : p_(p), in_(in), o_(o) {
    if (o_.lanes < 1) throw Error("", "fp32 order", "lanes must be >= 1");
    val_.assign(p.ranks.size(), 0);
    v_.resize(p.tensors.size());
  }

  std::vector<std::vector<float>> run() {
    for (size_t t = 0; t < p_.tensors.size(); ++t) {
      const ir::Tensor& x = p_.tensors[t];
      if (!x.input) continue;
      if (x.format == ir::Format::Csr) {
        auto it = in_.csr.find(x.name);
        if (it == in_.csr.end() || !it->second) throw Error("", "tensor '" + x.name + "'", "missing CSR input");
        const mtx::Csr& a = *it->second;
        if (a.rows != p_.ranks[x.dims[0]].size || a.cols != p_.ranks[x.dims[1]].size)
          throw Error("", "tensor '" + x.name + "'", "CSR input has the wrong shape");
        csr_[t] = &a;
        continue;
      }
      auto it = in_.dense.find(x.name);
      if (it == in_.dense.end()) throw Error("", "tensor '" + x.name + "'", "missing dense input");
      if (static_cast<int64_t>(it->second.size()) != elements(p_, x))
        throw Error("", "tensor '" + x.name + "'", fmt::format("dense input needs {} values", elements(p_, x)));
      v_[t] = it->second;
      for (float& f : v_[t]) f = fp::flush_subnormal(f);
    }
    for (const ir::Op& op : p_.ops) {
      std::vector<float>& out = v_[op.out.tensor];
      out.assign(static_cast<size_t>(elements(p_, p_.tensors[op.out.tensor])), 0.0f);
      switch (op.kind) {
        case ir::OpKind::Contract: contract(op, out); break;
        case ir::OpKind::Eltwise: eltwise(op, out); break;
        case ir::OpKind::Host: host(op, out); break;
      }
    }
    return std::move(v_);
  }

 private:
  Access access(const ir::Operand& x) const {
    Access a;
    const ir::Tensor& t = p_.tensors[x.tensor];
    a.data = &v_[x.tensor];
    a.idx = x.idx;
    a.stride.assign(t.dims.size(), 1);
    a.dim.resize(t.dims.size());
    a.shift.assign(t.dims.size(), 0);
    for (size_t d = t.dims.size(); d-- > 0;) {
      a.dim[d] = p_.ranks[t.dims[d]].size;
      if (d + 1 < t.dims.size()) a.stride[d] = a.stride[d + 1] * a.dim[d + 1];
      if (x.idx[d].window() && a.dim[d] == p_.ranks[x.idx[d].a].size)
        a.shift[d] = (p_.ranks[x.idx[d].b].size - 1) / 2;
    }
    return a;
  }

  Odometer odometer(const std::vector<ir::RankId>& ranks) {
    Odometer od{ranks, {}, val_};
    for (ir::RankId r : ranks) od.size.push_back(p_.ranks[r].size);
    return od;
  }

  void contract(const ir::Op& op, std::vector<float>& out) {
    std::vector<ir::RankId> outr;
    for (const ir::Index& i : op.out.idx) outr.push_back(i.a);
    std::vector<ir::RankId> con;
    for (ir::RankId r : ir::op_ranks(op))
      if (std::find(outr.begin(), outr.end(), r) == outr.end()) con.push_back(r);
    const ir::Operand* fa = &op.mul_a();
    const ir::Operand* fb = &op.mul_b();
    if (csr_.count(fb->tensor)) std::swap(fa, fb);  // products commute; the CSR factor goes first
    const mtx::Csr* a = csr_.count(fa->tensor) ? csr_.at(fa->tensor) : nullptr;
    ir::RankId ccol = -1;
    if (a) {
      ccol = fa->idx[1].a;
      if (std::find(con.begin(), con.end(), ccol) == con.end() ||
          std::find(outr.begin(), outr.end(), fa->idx[0].a) == outr.end())
        throw Error("", "op '" + op.name + "'", "fp32 model: a CSR factor must be A[output rank, contracted rank]");
      con.erase(std::find(con.begin(), con.end(), ccol));
    }
    Access xa = a ? Access{} : access(*fa), xb = access(*fb);
    Access xc = op.acc ? access(op.in[0]) : Access{};
    const float alpha = static_cast<float>(op.alpha), beta = static_cast<float>(op.beta);
    const auto lanes_it = o_.op_lanes.find(op.name);
    const int nlanes = lanes_it == o_.op_lanes.end() ? o_.lanes : lanes_it->second;
    if (nlanes < 1) throw Error("", "op '" + op.name + "'", "fp32 order: lanes must be >= 1");
    const auto chunk_it = o_.op_k_chunk.find(op.name);
    const int64_t chunk = chunk_it == o_.op_k_chunk.end() ? 0 : chunk_it->second;
    std::vector<float> lanes(static_cast<size_t>(nlanes));
    Odometer oo = odometer(outr), co = odometer(con);
    int64_t q = 0;
    auto term = [&](float av) {
      float bv = xb.at(val_);
      float& lane = lanes[static_cast<size_t>(q % nlanes)];
      if (chunk > 0 && q > 0 && q % chunk == 0) lane = fma32(1.0f, lane, 0.0f);
      ++q;
      lane = o_.acc_first ? fma32(mul32(beta, av), bv, lane) : fma32(av, bv, lane);
    };
    if (!oo.start()) return;
    size_t pos = 0;
    do {
      std::fill(lanes.begin(), lanes.end(), 0.0f);
      const float cz = !op.acc ? 0.0f : o_.c_plus_zero ? fma32(alpha, xc.at(val_), 0.0f) : mul32(alpha, xc.at(val_));
      if (op.acc && o_.acc_first) lanes[0] = cz;
      q = 0;
      if (a) {
        const int64_t row = val_[fa->idx[0].a];
        const int64_t b0 = a->row_ptr[row], b1 = a->row_ptr[row + 1];
        for (int64_t k = 0; k < b1 - b0; ++k) {
          const int64_t pnz = o_.reverse_csr ? b1 - 1 - k : b0 + k;
          val_[ccol] = a->col[pnz];
          const float av = fp::flush_subnormal(static_cast<float>(a->val[pnz]));
          if (!co.start()) continue;
          do term(av);
          while (co.next());
        }
      } else if (co.start()) {
        do term(xa.at(val_));
        while (co.next());
      }
      float z = combine(lanes, o_.tree);
      if (!o_.acc_first) z = op.acc ? fma32(beta, z, cz) : mul32(beta, z);
      if (op.fn == "relu") z = relu(z);
      out[pos++] = z;
    } while (oo.next());
  }

  void eltwise(const ir::Op& op, std::vector<float>& out) {
    std::vector<ir::RankId> outr;
    for (const ir::Index& i : op.out.idx) outr.push_back(i.a);
    Access xa = access(op.in[0]);
    Access xb = op.in.size() > 1 ? access(op.in[1]) : Access{};
    const float alpha = static_cast<float>(op.alpha), beta = static_cast<float>(op.beta);
    Odometer oo = odometer(outr);
    if (!oo.start()) return;
    size_t pos = 0;
    do {
      float z = mul32(alpha, xa.at(val_));
      if (op.in.size() > 1) z = fma32(beta, xb.at(val_), z);
      if (op.fn == "relu") z = relu(z);
      out[pos++] = z;
    } while (oo.next());
  }

  void host(const ir::Op& op, std::vector<float>& out) {
    auto shape = [&](const ir::Operand& x) {
      const ir::Tensor& t = p_.tensors[x.tensor];
      int64_t r = t.dims.size() == 2 ? p_.ranks[t.dims[0]].size : -1;
      int64_t c = t.dims.size() == 2 ? p_.ranks[t.dims[1]].size : -1;
      return std::pair{r, c};
    };
    const auto [orow, ocol] = shape(op.out);
    auto bad = [&](const std::string& why) { throw Error("", "op '" + op.name + "'", "fp32 model: " + why); };
    if (op.fn == "solve") {
      if (op.in.size() != 2) bad("solve takes (D, G)");
      auto [dr, dc] = shape(op.in[0]);
      auto [gr, gc] = shape(op.in[1]);
      if (dr < 1 || dr != dc || gr != dr || orow != dr || ocol != gc) bad("solve needs D: n x n, G and output: n x r");
      out = solve32(v_[op.in[0].tensor], v_[op.in[1].tensor], static_cast<int>(dr), static_cast<int>(gc));
    } else if (op.fn == "omega") {
      if (op.in.size() != 2) bad("omega takes (Ts, Tt)");
      auto [sr, sc] = shape(op.in[0]);
      auto [tr, tc] = shape(op.in[1]);
      if (sr < 1 || sr != sc || tr != sr || tc != sr || orow != sr || ocol != sr) bad("omega needs n x n operands");
      out = omega32(v_[op.in[0].tensor], v_[op.in[1].tensor], static_cast<int>(sr));
    } else {
      bad("no model for host function '" + op.fn + "' (solve, omega)");
    }
  }

  const ir::Program& p_;
  const Fp32Inputs& in_;
  Fp32Order o_;
  std::vector<int64_t> val_;
  std::vector<std::vector<float>> v_;
  std::map<ir::TensorId, const mtx::Csr*> csr_;
};

}  // namespace

std::vector<float> solve32(std::vector<float> d, std::vector<float> g, int n, int r) {
  for (int c = 0; c < n; ++c) {
    int piv = c;
    for (int i = c + 1; i < n; ++i)
      if (std::fabs(d[i * n + c]) > std::fabs(d[piv * n + c])) piv = i;
    if (piv != c) {
      for (int q = 0; q < n; ++q) std::swap(d[c * n + q], d[piv * n + q]);
      for (int q = 0; q < r; ++q) std::swap(g[c * r + q], g[piv * r + q]);
    }
    const float pv = d[c * n + c];
    const float inv = pv == 0.0f ? 0.0f : fp::flush_subnormal(1.0f / pv);
    for (int i = c + 1; i < n; ++i) {
      const float f = mul32(d[i * n + c], inv);
      for (int q = c; q < n; ++q) d[i * n + q] = fma32(-f, d[c * n + q], d[i * n + q]);
      for (int q = 0; q < r; ++q) g[i * r + q] = fma32(-f, g[c * r + q], g[i * r + q]);
    }
  }
  std::vector<float> x(static_cast<size_t>(n) * r, 0.0f);
  for (int i = n - 1; i >= 0; --i) {
    const float pv = d[i * n + i];
    const float inv = pv == 0.0f ? 0.0f : fp::flush_subnormal(1.0f / pv);
    for (int q = 0; q < r; ++q) {
      float s = g[i * r + q];
      for (int c = i + 1; c < n; ++c) s = fma32(-d[i * n + c], x[c * r + q], s);
      x[i * r + q] = mul32(s, inv);
    }
  }
  return x;
}

std::vector<float> omega32(const std::vector<float>& ts, const std::vector<float>& tt, int n) {
  float s = 0.0f, t = 0.0f;
  for (int i = 0; i < n; ++i) {
    s = add32(s, ts[static_cast<size_t>(i * n + i)]);
    t = add32(t, tt[static_cast<size_t>(i * n + i)]);
  }
  const float w = t == 0.0f ? 0.0f : fp::flush_subnormal(s / t);
  std::vector<float> out(static_cast<size_t>(n) * n, 0.0f);
  for (int i = 0; i < n; ++i) out[static_cast<size_t>(i * n + i)] = w;
  return out;
}

std::vector<std::vector<float>> run_fp32(const ir::Program& p, const Fp32Inputs& in, const Fp32Order& order) {
  return Runner(p, in, order).run();
}

}  // namespace cello::golden
