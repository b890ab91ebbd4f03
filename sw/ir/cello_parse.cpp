// Parser for the .cello format. Three phases: tokens -> statements (syntax),
// names -> ids with the DAG checks that need the whole file (duplicates, cycles,
// use before produce), then the shared shape checks of check_program() with
// every error mapped back to a line:column.
#include <fmt/core.h>

#include <charconv>
#include <cmath>
#include <fstream>
#include <optional>
#include <sstream>
#include <unordered_map>

#include "sw/common/error.hpp"
#include "sw/common/read_file.hpp"
#include "sw/ir/cello_format.hpp"

namespace cello::ir {

namespace {

struct Loc {
  int line = 1, col = 1;
  std::string str() const { return fmt::format("{}:{}", line, col); }
};

enum class Tok { Ident, Number, Punct, Newline, End };

struct Token {
  Tok kind = Tok::End;
  std::string text;
  Loc loc;
};

bool ident_start(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; }
bool ident_char(char c) { return ident_start(c) || (c >= '0' && c <= '9') || c == '.'; }
bool digit(char c) { return c >= '0' && c <= '9'; }

class Lexer {
 public:
  Lexer(std::string_view s, const std::string& file) : s_(s), file_(file) {}

  std::vector<Token> run() {
    std::vector<Token> out;
    while (true) {
      skip_blank();
      Token t;
      t.loc = loc_;
      if (pos_ >= s_.size()) {
        t.kind = Tok::End;
        out.push_back(t);
        return out;
      }
      char c = s_[pos_];
      if (c == '\n') {
        t.kind = Tok::Newline;
        advance(1);
      } else if (ident_start(c)) {
        size_t b = pos_;
        while (pos_ < s_.size() && ident_char(s_[pos_])) advance(1);
        t.kind = Tok::Ident;
        t.text = s_.substr(b, pos_ - b);
      } else if (digit(c) || (c == '.' && pos_ + 1 < s_.size() && digit(s_[pos_ + 1]))) {
        size_t b = pos_;
        while (pos_ < s_.size() && (digit(s_[pos_]) || s_[pos_] == '.')) advance(1);
        if (pos_ < s_.size() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
          size_t q = pos_ + 1;
          if (q < s_.size() && (s_[q] == '+' || s_[q] == '-')) ++q;
          if (q < s_.size() && digit(s_[q])) {
            advance(q - pos_);
            while (pos_ < s_.size() && digit(s_[pos_])) advance(1);
          }
        }
        t.kind = Tok::Number;
        t.text = s_.substr(b, pos_ - b);
      } else if (std::string_view("[],:=+-*()").find(c) != std::string_view::npos) {
        t.kind = Tok::Punct;
        t.text = std::string(1, c);
        advance(1);
      } else {
        std::string shown = (c >= 32 && c < 127) ? fmt::format("'{}'", c)
                                                 : fmt::format("byte 0x{:02x}", static_cast<unsigned char>(c));
        throw Error(file_, loc_.str(), "unexpected character " + shown);
      }
      out.push_back(std::move(t));
    }
  }

 private:
  void advance(size_t n) {
    for (size_t i = 0; i < n; ++i, ++pos_) {
      if (s_[pos_] == '\n') {
        ++loc_.line;
        loc_.col = 1;
      } else {
        ++loc_.col;
      }
    }
  }
  void skip_blank() {
    while (pos_ < s_.size()) {
      char c = s_[pos_];
      if (c == ' ' || c == '\t' || c == '\r') {
        advance(1);
      } else if (c == '#') {
        while (pos_ < s_.size() && s_[pos_] != '\n') advance(1);
      } else {
        break;
      }
    }
  }
  std::string_view s_;
  const std::string& file_;
  size_t pos_ = 0;
  Loc loc_;
};

// ---- statements (names unresolved) ----

struct RawIndex {
  std::string a, b;
  Loc loc, loc_b;
};
struct RawOperand {
  std::string tensor;
  Loc loc;
  std::vector<RawIndex> idx;
};
struct RawTerm {
  double coef = 1.0;
  RawOperand x;
  std::optional<RawOperand> y;
  Loc loc;
};
struct RawOp {
  std::string name;
  Loc loc;
  int iter = 0;
  std::string line;
  RawOperand out;
  bool host = false;
  std::string fn;  // host function or activation
  Loc fn_loc;
  std::vector<RawOperand> args;  // host
  std::vector<RawTerm> terms;    // contract / eltwise
};
struct RawRank {
  std::string name, alias;
  int64_t size = 0;
  Loc loc, value_loc;
};
struct RawInput {
  RawOperand decl;  // tensor name + dims (each RawIndex holds a rank name)
  bool csr = false;
  int64_t nnz = 0;
  Loc nnz_loc;
};
struct RawName {
  std::string name;
  Loc loc;
};

class Parser {
 public:
  Parser(std::vector<Token> toks, const std::string& file) : t_(std::move(toks)), file_(file) {}

  void run() {
    while (peek().kind != Tok::End) {
      if (peek().kind == Tok::Newline) {
        ++i_;
        continue;
      }
      statement();
      if (peek().kind != Tok::End) expect_newline();
    }
  }

  std::string workload;
  std::vector<RawRank> ranks;
  std::vector<RawInput> inputs;
  std::vector<RawOp> ops;
  std::vector<RawName> outputs;

 private:
  const Token& peek(size_t k = 0) const { return t_[std::min(i_ + k, t_.size() - 1)]; }
  [[noreturn]] void fail(const Loc& l, const std::string& why) const { throw Error(file_, l.str(), why); }
  std::string describe(const Token& t) const {
    switch (t.kind) {
      case Tok::Newline: return "end of line";
      case Tok::End: return "end of file";
      default: return "'" + t.text + "'";
    }
  }
  bool is_punct(const char* p, size_t k = 0) const { return peek(k).kind == Tok::Punct && peek(k).text == p; }
  void expect_punct(const char* p) {
    if (!is_punct(p)) fail(peek().loc, fmt::format("expected '{}' but found {}", p, describe(peek())));
    ++i_;
  }
  void expect_newline() {
    if (peek().kind != Tok::Newline) fail(peek().loc, "expected end of line but found " + describe(peek()));
    ++i_;
  }
  const Token& ident(const char* what) {
    if (peek().kind != Tok::Ident) fail(peek().loc, fmt::format("expected {} but found {}", what, describe(peek())));
    return t_[i_++];
  }
  bool accept_word(const char* w) {
    if (peek().kind == Tok::Ident && peek().text == w) {
      ++i_;
      return true;
    }
    return false;
  }
  int64_t integer(const char* what) {
    const Token& t = peek();
    if (t.kind != Tok::Number) fail(t.loc, fmt::format("expected {} but found {}", what, describe(t)));
    int64_t v = 0;
    auto [p, ec] = std::from_chars(t.text.data(), t.text.data() + t.text.size(), v);
    if (ec == std::errc::result_out_of_range) fail(t.loc, fmt::format("{} {} is out of range", what, t.text));
    if (ec != std::errc() || p != t.text.data() + t.text.size())
      fail(t.loc, fmt::format("expected {} (a whole number) but found '{}'", what, t.text));
    ++i_;
    return v;
  }
  double number() {
    const Token& t = peek();
    double v = 0;
    auto [p, ec] = std::from_chars(t.text.data(), t.text.data() + t.text.size(), v);
    if (ec != std::errc() || p != t.text.data() + t.text.size()) fail(t.loc, "malformed number '" + t.text + "'");
    if (!std::isfinite(v)) fail(t.loc, "number '" + t.text + "' is out of range");
    ++i_;
    return v;
  }

  void statement() {
    const Token& kw = peek();
    if (kw.kind != Tok::Ident)
      fail(kw.loc, "expected a statement (cello, workload, rank, input, op, output) but found " + describe(kw));
    ++i_;
    if (kw.text == "cello") {
      Loc l = peek().loc;
      if (integer("format version") != 1) fail(l, "unsupported format version (this reader knows version 1)");
    } else if (kw.text == "workload") {
      workload = ident("a workload name").text;
    } else if (kw.text == "rank") {
      RawRank r;
      r.loc = peek().loc;
      r.name = ident("a rank name").text;
      expect_punct("=");
      r.value_loc = peek().loc;
      if (peek().kind == Tok::Ident)
        r.alias = t_[i_++].text;
      else
        r.size = integer("a rank size");
      ranks.push_back(r);
    } else if (kw.text == "input") {
      RawInput in;
      in.decl = operand(true);
      if (accept_word("csr")) {
        in.csr = true;
        in.nnz_loc = peek().loc;
        if (!accept_word("nnz")) fail(peek().loc, "expected 'nnz=<count>' after 'csr'");
        expect_punct("=");
        in.nnz_loc = peek().loc;
        in.nnz = integer("an nnz count");
      }
      inputs.push_back(in);
    } else if (kw.text == "output") {
      while (true) {
        RawName n;
        n.loc = peek().loc;
        n.name = ident("a tensor name").text;
        outputs.push_back(n);
        if (!is_punct(",")) break;
        ++i_;
      }
    } else if (kw.text == "op") {
      op();
    } else {
      fail(kw.loc, "unknown statement '" + kw.text + "' (expected cello, workload, rank, input, op or output)");
    }
  }

  // NAME[idx, idx+idx, ...]; declarations allow plain rank names only.
  RawOperand operand(bool decl) {
    RawOperand x;
    x.loc = peek().loc;
    x.tensor = ident("a tensor name").text;
    expect_punct("[");
    while (true) {
      RawIndex ix;
      ix.loc = peek().loc;
      ix.a = ident("a rank name").text;
      if (is_punct("+")) {
        if (decl) fail(peek().loc, "a declared shape lists rank names only");
        ++i_;
        ix.loc_b = peek().loc;
        ix.b = ident("a rank name").text;
      }
      x.idx.push_back(ix);
      if (is_punct("]")) break;
      expect_punct(",");
    }
    ++i_;
    return x;
  }

  void op() {
    RawOp o;
    o.loc = peek().loc;
    o.name = ident("an op name").text;
    while (!is_punct(":")) {
      const Token& a = peek();
      if (a.kind != Tok::Ident || (a.text != "iter" && a.text != "line"))
        fail(a.loc, "expected 'iter=', 'line=' or ':' but found " + describe(a));
      ++i_;
      expect_punct("=");
      if (a.text == "iter") {
        Loc l = peek().loc;
        int64_t v = integer("an iteration number");
        if (v < 0 || v > 1'000'000'000) fail(l, "iteration number out of range");
        o.iter = static_cast<int>(v);
      } else {
        const Token& v = peek();
        if (v.kind != Tok::Ident && v.kind != Tok::Number) fail(v.loc, "expected a line label");
        o.line = v.text;
        ++i_;
      }
    }
    ++i_;
    o.out = operand(false);
    expect_punct("=");
    // host fn(args) | act(sum) | sum
    if (peek().kind == Tok::Ident && peek().text == "host" && peek(1).kind == Tok::Ident && is_punct("(", 2)) {
      ++i_;
      o.host = true;
      o.fn_loc = peek().loc;
      o.fn = t_[i_++].text;
      ++i_;
      if (!is_punct(")")) {
        while (true) {
          o.args.push_back(operand(false));
          if (is_punct(")")) break;
          expect_punct(",");
        }
      }
      ++i_;
    } else if (peek().kind == Tok::Ident && is_punct("(", 1)) {
      o.fn_loc = peek().loc;
      o.fn = t_[i_++].text;
      ++i_;
      sum(o);
      expect_punct(")");
    } else {
      sum(o);
    }
    ops.push_back(std::move(o));
  }

  // term (('+'|'-') term)*
  void sum(RawOp& o) {
    o.terms.push_back(term(1.0));
    while (is_punct("+") || is_punct("-")) {
      double sign = peek().text == "-" ? -1.0 : 1.0;
      ++i_;
      o.terms.push_back(term(sign));
    }
  }

  // ['-'] [NUMBER '*'] operand ['*' operand]
  RawTerm term(double sign) {
    RawTerm t;
    t.loc = peek().loc;
    if (is_punct("-")) {
      sign = -sign;
      ++i_;
    }
    t.coef = sign;
    if (peek().kind == Tok::Number) {
      t.coef = sign * number();
      expect_punct("*");
    }
    t.x = operand(false);
    if (is_punct("*")) {
      ++i_;
      t.y = operand(false);
    }
    return t;
  }

  std::vector<Token> t_;
  size_t i_ = 0;
  const std::string& file_;
};

// ---- resolution ----

class Resolver {
 public:
  Resolver(const Parser& ps, const std::string& file) : ps_(ps), file_(file) {}

  Program run() {
    p_.name = ps_.workload;
    resolve_ranks();
    resolve_inputs();
    index_producers();
    find_cycle();
    for (size_t k = 0; k < ps_.ops.size(); ++k) resolve_op(static_cast<int>(k));
    for (const RawName& n : ps_.outputs) {
      auto t = tensor(n.name);
      if (!t) fail(n.loc, "unknown tensor '" + n.name + "' (not an input and not produced by any op)");
      p_.tensors[*t].output = true;
    }
    check_program(p_, file_, [this](OpId o, int k) {
      const auto& locs = operand_locs_[o];
      if (k == -2) return locs.out.str();
      if (k >= 0 && k < static_cast<int>(locs.in.size())) return locs.in[k].str();
      return locs.op.str();
    });
    return std::move(p_);
  }

 private:
  struct OpLocs {
    Loc op, out;
    std::vector<Loc> in;  // in IR operand order
  };

  [[noreturn]] void fail(const Loc& l, const std::string& why) const { throw Error(file_, l.str(), why); }

  void resolve_ranks() {
    std::unordered_map<std::string, Loc> seen;
    for (const RawRank& r : ps_.ranks) {
      if (auto it = seen.find(r.name); it != seen.end())
        fail(r.loc, fmt::format("duplicate name: rank '{}' already declared at line {}", r.name, it->second.line));
      seen.emplace(r.name, r.loc);
      int64_t size = r.size;
      if (!r.alias.empty()) size = p_.ranks[rank(r.alias, r.value_loc)].size;
      if (size < 1 || size > (int64_t{1} << 40)) fail(r.value_loc, fmt::format("rank size {} out of range 1..2^40", size));
      rank_ids_[r.name] = p_.add_rank(r.name, size);
    }
  }

  RankId rank(const std::string& name, const Loc& l) const {
    auto r = rank_ids_.find(name);
    if (r == rank_ids_.end()) fail(l, "unknown rank '" + name + "'");
    return r->second;
  }
  std::optional<TensorId> tensor(const std::string& name) const {
    auto t = tensor_ids_.find(name);
    if (t == tensor_ids_.end()) return std::nullopt;
    return t->second;
  }
  void add_tensor_id(const std::string& name) { tensor_ids_[name] = static_cast<TensorId>(p_.tensors.size() - 1); }

  void resolve_inputs() {
    for (const RawInput& in : ps_.inputs) {
      if (tensor(in.decl.tensor))
        fail(in.decl.loc, "duplicate name: tensor '" + in.decl.tensor + "' already declared");
      std::vector<RankId> dims;
      for (const RawIndex& i : in.decl.idx) dims.push_back(rank(i.a, i.loc));
      for (size_t d = 0; d < dims.size(); ++d)
        for (size_t e = 0; e < d; ++e)
          if (dims[d] == dims[e]) fail(in.decl.idx[d].loc, "rank '" + in.decl.idx[d].a + "' appears twice in a shape");
      if (in.csr) {
        if (dims.size() != 2) fail(in.decl.loc, "a CSR tensor has exactly two ranks");
        double cap = static_cast<double>(p_.ranks[dims[0]].size) * static_cast<double>(p_.ranks[dims[1]].size);
        if (in.nnz < 0 || static_cast<double>(in.nnz) > cap)
          fail(in.nnz_loc, fmt::format("nnz {} out of range 0..rows*cols", in.nnz));
      }
      double elements = 1;
      for (RankId d : dims) elements *= static_cast<double>(p_.ranks[d].size);
      if (!in.csr && !(elements <= 9007199254740992.0))
        fail(in.decl.loc, fmt::format("input {} has more than 2^53 elements", in.decl.tensor));
      p_.add_input(in.decl.tensor, dims, in.csr ? Format::Csr : Format::Dense, in.csr ? in.nnz : 0);
      add_tensor_id(in.decl.tensor);
    }
  }

  void index_producers() {
    std::unordered_map<std::string, int> op_names;
    for (size_t k = 0; k < ps_.ops.size(); ++k) {
      const RawOp& o = ps_.ops[k];
      if (auto it = op_names.find(o.name); it != op_names.end())
        fail(o.loc, fmt::format("duplicate name: op '{}' already defined at line {}", o.name, ps_.ops[it->second].loc.line));
      op_names.emplace(o.name, static_cast<int>(k));
      const std::string& t = o.out.tensor;
      if (tensor(t)) fail(o.out.loc, "duplicate name: tensor '" + t + "' is an input and cannot be produced");
      if (auto it = producer_.find(t); it != producer_.end())
        fail(o.out.loc, fmt::format("duplicate name: tensor '{}' is already produced by op '{}' at line {}", t,
                                    ps_.ops[it->second].name, ps_.ops[it->second].loc.line));
      producer_.emplace(t, static_cast<int>(k));
    }
  }

  std::vector<const RawOperand*> reads(const RawOp& o) const {
    std::vector<const RawOperand*> r;
    for (const auto& a : o.args) r.push_back(&a);
    for (const auto& t : o.terms) {
      r.push_back(&t.x);
      if (t.y) r.push_back(&*t.y);
    }
    return r;
  }

  // Iterative DFS over "op reads a tensor produced by op"; reports the first cycle.
  void find_cycle() const {
    const int n = static_cast<int>(ps_.ops.size());
    bool forward = false;
    std::vector<std::vector<int>> deps(n);
    for (int k = 0; k < n; ++k)
      for (const RawOperand* x : reads(ps_.ops[k]))
        if (auto it = producer_.find(x->tensor); it != producer_.end()) {
          deps[k].push_back(it->second);
          forward |= it->second >= k;
        }
    if (!forward) return;
    std::vector<int> color(n, 0), parent(n, -1);
    for (int s = 0; s < n; ++s) {
      if (color[s]) continue;
      std::vector<std::pair<int, size_t>> stack{{s, 0}};
      color[s] = 1;
      while (!stack.empty()) {
        auto& [v, next] = stack.back();
        if (next == deps[v].size()) {
          color[v] = 2;
          stack.pop_back();
          continue;
        }
        int w = deps[v][next++];
        if (color[w] == 0) {
          color[w] = 1;
          parent[w] = v;
          stack.push_back({w, 0});
        } else if (color[w] == 1) {
          // v reads w's output and w (transitively) reads v's: report w -> ... -> v -> w in data-flow order.
          std::vector<int> cyc{v};
          for (int u = v; u != w;) cyc.push_back(u = parent[u]);
          std::string path;
          for (int u : cyc) path += "'" + ps_.ops[u].name + "' -> ";
          path += "'" + ps_.ops[v].name + "'";
          fail(ps_.ops[w].loc, "cycle: op " + path + " (each reads the previous one's output)");
        }
      }
    }
  }

  Operand resolve_operand(const RawOperand& x, int k) {
    Operand o;
    auto t = tensor(x.tensor);
    if (!t) {
      auto it = producer_.find(x.tensor);
      if (it == producer_.end())
        fail(x.loc, "tensor '" + x.tensor + "' is used before it is produced (it is neither an input nor the output of any op)");
      fail(x.loc, fmt::format("tensor '{}' is used before it is produced (op '{}' at line {} produces it)", x.tensor,
                              ps_.ops[it->second].name, ps_.ops[it->second].loc.line));
    }
    if (!p_.tensors[*t].input && producer_.at(x.tensor) >= k)
      fail(x.loc, "tensor '" + x.tensor + "' is used before it is produced (an op cannot read its own output)");
    o.tensor = *t;
    for (const RawIndex& i : x.idx) o.idx.push_back({rank(i.a, i.loc), i.b.empty() ? -1 : rank(i.b, i.loc_b)});
    return o;
  }

  void resolve_op(int k) {
    const RawOp& r = ps_.ops[k];
    Op op;
    OpLocs locs;
    locs.op = r.loc;
    locs.out = r.out.loc;
    op.name = r.name;
    op.iter = r.iter;
    op.line = r.line;
    op.fn = r.fn;
    auto add = [&](const RawOperand& x) {
      op.in.push_back(resolve_operand(x, k));
      locs.in.push_back(x.loc);
    };
    if (r.host) {
      op.kind = OpKind::Host;
      // The host functions the harness and the golden model implement, each with two operands.
      if (r.fn != "solve" && r.fn != "omega")
        fail(r.fn_loc, "unknown host function '" + r.fn + "' (solve, omega)");
      if (r.args.size() != 2)
        fail(r.fn_loc, "host " + r.fn + "() takes 2 operands, not " + std::to_string(r.args.size()));
      for (const auto& a : r.args) add(a);
    } else {
      int products = 0;
      for (const auto& t : r.terms) products += t.y ? 1 : 0;
      if (products > 1) fail(r.terms[1].loc, "at most one product term per op");
      if (r.terms.size() > 2) fail(r.terms[2].loc, "at most two terms per op");
      if (products == 1) {
        op.kind = OpKind::Contract;
        const RawTerm* prod = r.terms[0].y ? &r.terms[0] : &r.terms[1];
        if (r.terms.size() == 2) {
          const RawTerm* acc = r.terms[0].y ? &r.terms[1] : &r.terms[0];
          op.acc = true;
          op.alpha = acc->coef;
          add(acc->x);
        }
        op.beta = prod->coef;
        add(prod->x);
        add(*prod->y);
      } else {
        op.kind = OpKind::Eltwise;
        op.alpha = r.terms[0].coef;
        add(r.terms[0].x);
        if (r.terms.size() == 2) {
          op.beta = r.terms[1].coef;
          add(r.terms[1].x);
        }
      }
      if (!op.fn.empty() && op.fn != "relu") fail(r.fn_loc, "unknown activation '" + op.fn + "' (known: relu)");
    }
    // The output tensor takes its shape from its subscripts.
    Tensor t;
    t.name = r.out.tensor;
    for (const RawIndex& i : r.out.idx) {
      if (!i.b.empty()) fail(i.loc, "an output cannot be subscripted with a window");
      t.dims.push_back(rank(i.a, i.loc));
    }
    for (size_t d = 0; d < t.dims.size(); ++d)
      for (size_t e = 0; e < d; ++e)
        if (t.dims[d] == t.dims[e]) fail(r.out.idx[d].loc, "rank '" + r.out.idx[d].a + "' subscripts two output dimensions");
    p_.tensors.push_back(t);
    add_tensor_id(t.name);
    op.out.tensor = static_cast<TensorId>(p_.tensors.size() - 1);
    for (RankId d : t.dims) op.out.idx.push_back({d, -1});
    // Sizes and MAC counts are kept as whole numbers downstream (schedule.json,
    // the command stream): refuse an op whose counts do not fit exactly.
    constexpr double kMaxCount = 9007199254740992.0;  // 2^53
    if (!(tensor_elements(p_, op.out.tensor) <= kMaxCount))
      fail(r.out.loc, fmt::format("output {} has more than 2^53 elements", t.name));
    p_.ops.push_back(std::move(op));
    if (!(op_macs(p_, p_.ops.back()) <= kMaxCount))
      fail(r.loc, fmt::format("op {} does more than 2^53 multiply-accumulates", r.name));
    operand_locs_.push_back(std::move(locs));
  }

  const Parser& ps_;
  const std::string& file_;
  Program p_;
  std::unordered_map<std::string, int> producer_;  // tensor name -> raw op index
  std::unordered_map<std::string, RankId> rank_ids_;
  std::unordered_map<std::string, TensorId> tensor_ids_;
  std::vector<OpLocs> operand_locs_;
};

}  // namespace

Program parse_cello(std::string_view text, const std::string& file) {
  Parser ps(Lexer(text, file).run(), file);
  ps.run();
  return Resolver(ps, file).run();
}

Program load_cello(const std::string& path) {
  return parse_cello(read_file_capped(path, kMaxCelloBytes, ".cello DAG"), path);
}

}  // namespace cello::ir
