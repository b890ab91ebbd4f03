#include "sw/traffic/workload.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <map>

#include "sw/common/error.hpp"
#include "sw/common/enum_names.hpp"

namespace cello::traffic {

constexpr const char* kUseNames[] = {"stream", "whole", "gather"};
static_assert(names_cover(kUseNames, Use::Gather));
const char* to_string(Use u) { return name_of(u, kUseNames); }

uint64_t Tensor::words() const {
  if (csr) return csr->rows + 1 + 2 * csr->nnz();
  return rows * row_words;
}

uint64_t Workload::total_macs() const {
  uint64_t s = 0;
  for (const auto& op : ops) s += op.macs;
  return s;
}

int Workload::add_tensor(Tensor t) {
  tensors.push_back(std::move(t));
  return static_cast<int>(tensors.size()) - 1;
}

void Workload::validate() const {
  const std::string file = name.empty() ? "workload" : name;
  auto bad_tensor = [&](int t) { return t < 0 || static_cast<size_t>(t) >= tensors.size(); };
  if (word_bytes == 0) throw Error(file, "", "word size is 0 bytes");
  if (!base.empty() && base.size() != tensors.size())
    throw Error(file, "", fmt::format("{} tensor bases for {} tensors", base.size(), tensors.size()));
  for (const auto& t : tensors) {
    if (t.sparse()) {
      const auto& c = *t.csr;
      if (c.rows < 0 || c.row_ptr.size() != static_cast<uint64_t>(c.rows) + 1 || c.row_ptr.front() != 0 ||
          c.row_ptr.back() != c.nnz())
        throw Error(file, "tensor " + t.name, "CSR row pointers do not match the rows and nonzeros");
      for (int64_t r = 0; r < c.rows; ++r)
        if (c.row_ptr[r] > c.row_ptr[r + 1]) throw Error(file, "tensor " + t.name, "CSR row pointers decrease");
      for (auto k : c.col)
        if (k < 0 || k >= c.cols) throw Error(file, "tensor " + t.name, fmt::format("column {} out of range", k));
    } else if (t.rows == 0 || t.row_words == 0) {
      throw Error(file, "tensor " + t.name, "empty dense tensor");
    }
  }
  std::vector<int> producer(tensors.size(), -1);
  for (size_t i = 0; i < ops.size(); ++i) {
    const auto& op = ops[i];
    const std::string place = fmt::format("op {} ({})", i, op.name);
    for (const auto& in : op.in) {
      if (bad_tensor(in.tensor)) throw Error(file, place, "operand names no tensor");
      const auto& t = tensors[static_cast<size_t>(in.tensor)];
      if (!t.input && producer[static_cast<size_t>(in.tensor)] < 0)
        throw Error(file, place, fmt::format("reads {} before it is produced", t.name));
      if (in.use == Use::Gather) {
        if (bad_tensor(in.index_by) || !tensors[static_cast<size_t>(in.index_by)].sparse())
          throw Error(file, place, fmt::format("gather of {} needs a CSR index tensor", t.name));
        const auto& c = *tensors[static_cast<size_t>(in.index_by)].csr;
        if (t.sparse() || t.rows < static_cast<uint64_t>(c.cols))
          throw Error(file, place, fmt::format("gathered {} has {} rows, the CSR has {} columns", t.name, t.rows, c.cols));
      }
    }
    if (bad_tensor(op.out)) throw Error(file, place, "output names no tensor");
    auto& p = producer[static_cast<size_t>(op.out)];
    if (tensors[static_cast<size_t>(op.out)].input) throw Error(file, place, "writes an application input");
    if (tensors[static_cast<size_t>(op.out)].sparse()) throw Error(file, place, "CSR outputs are not modelled");
    if (p >= 0) throw Error(file, place, fmt::format("{} is produced twice", tensors[static_cast<size_t>(op.out)].name));
    p = static_cast<int>(i);
  }
  std::map<std::pair<int, int>, int> seen;  // (dst, tensor) -> edges
  for (const auto& e : edges) {
    if (e.src < 0 || e.dst < 0 || static_cast<size_t>(e.src) >= ops.size() || static_cast<size_t>(e.dst) >= ops.size() ||
        bad_tensor(e.tensor))
      throw Error(file, "edges", "edge with an index out of range");
    if (producer[static_cast<size_t>(e.tensor)] != e.src)
      throw Error(file, "edges", fmt::format("edge {}->{} carries {}, which op {} does not produce", e.src, e.dst,
                                             tensors[static_cast<size_t>(e.tensor)].name, e.src));
    ++seen[{e.dst, e.tensor}];
  }
  for (size_t i = 0; i < ops.size(); ++i)
    for (const auto& in : ops[i].in) {
      int p = producer[static_cast<size_t>(in.tensor)];
      if (p >= 0 && !seen.count({static_cast<int>(i), in.tensor}))
        throw Error(file, fmt::format("op {} ({})", i, ops[i].name),
                    fmt::format("no dependency edge for {} from op {}", tensors[static_cast<size_t>(in.tensor)].name, p));
    }
}

Analysis analyze(const Workload& w) {
  Analysis a;
  const size_t T = w.tensors.size();
  a.producer.assign(T, -1);
  a.consumers.assign(T, {});
  a.classes.assign(T, {});
  a.last_use.assign(T, -1);
  for (size_t i = 0; i < w.ops.size(); ++i) a.producer[static_cast<size_t>(w.ops[i].out)] = static_cast<int>(i);
  std::map<std::pair<int, int>, EdgeClass> cls;  // (dst, tensor)
  for (const auto& e : w.edges) cls[{e.dst, e.tensor}] = e.cls;
  for (size_t i = 0; i < w.ops.size(); ++i)
    for (const auto& in : w.ops[i].in) {
      auto& c = a.consumers[static_cast<size_t>(in.tensor)];
      if (!c.empty() && c.back() == static_cast<int>(i)) continue;
      c.push_back(static_cast<int>(i));
      auto it = cls.find({static_cast<int>(i), in.tensor});
      a.classes[static_cast<size_t>(in.tensor)].push_back(it == cls.end() ? EdgeClass::Sequential : it->second);
      a.last_use[static_cast<size_t>(in.tensor)] = static_cast<int>(i);
    }
  return a;
}

}  // namespace cello::traffic
