#include "gen/sv_module.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <sstream>

namespace cello::gen {

std::string logic_type(int width) {
  return width == 1 ? std::string("logic") : fmt::format("logic [{}:0]", width - 1);
}

std::string sv_const(int width, long long value) { return fmt::format("{}'d{}", width, value); }

Instance& Instance::param(const std::string& name, const std::string& value) {
  params_.emplace_back(name, value);
  return *this;
}

Instance& Instance::connect(const std::string& port, const std::string& expr) {
  conns_.emplace_back(port, expr);
  return *this;
}

namespace {
// Joins ".name(value)" items one per line with aligned parentheses.
std::string named_list(const std::vector<std::pair<std::string, std::string>>& items, const std::string& indent) {
  size_t w = 0;
  for (const auto& [k, v] : items) w = std::max(w, k.size());
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    out += fmt::format("{}.{:<{}} ({}){}\n", indent, items[i].first, w, items[i].second,
                       i + 1 < items.size() ? "," : "");
  }
  return out;
}

std::string indent_block(const std::string& body, const std::string& indent) {
  std::istringstream in(body);
  std::string line, out;
  while (std::getline(in, line)) out += line.empty() ? "\n" : indent + line + "\n";
  return out;
}

// Strips one leading and trailing newline so raw string literals read naturally.
std::string trim_newlines(std::string s) {
  while (!s.empty() && s.front() == '\n') s.erase(s.begin());
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}
}  // namespace

std::string Instance::render() const {
  std::string out = module_;
  if (!params_.empty()) out += " #(\n" + named_list(params_, "  ") + ")";
  out += " " + name_ + " (\n" + named_list(conns_, "  ") + ");\n";
  return out;
}

void SvModule::port(Dir dir, const std::string& name, int width, const std::string& comment) {
  ports_.push_back({dir, name, width, comment});
}
void SvModule::input(const std::string& name, int width, const std::string& comment) {
  port(Dir::In, name, width, comment);
}
void SvModule::output(const std::string& name, int width, const std::string& comment) {
  port(Dir::Out, name, width, comment);
}
void SvModule::clock_reset(const std::string& reset_doc) {
  input("clk", 1, "clock");
  input("rst_n", 1, reset_doc);
}
void SvModule::bundle(const Bundle& b, Dir flow) {
  const Dir back = flow == Dir::In ? Dir::Out : Dir::In;
  auto doc = [&](const std::string& d) { return b.phrase.empty() ? d : b.phrase + ": " + d; };
  port(flow, b.prefix + "_valid", b.lanes, doc(b.valid_doc));
  port(back, b.prefix + "_ready", b.lanes, doc(b.ready_doc));
  port_group(flow, b.prefix + "_", b.phrase, b.payload);
}
void SvModule::port_group(Dir dir, const std::string& prefix, const std::string& phrase,
                          const std::vector<Field>& fields) {
  for (const auto& f : fields) port(dir, prefix + f.suffix, f.width, phrase.empty() ? f.doc : phrase + ": " + f.doc);
}
void SvModule::localparam(const std::string& name, const std::string& value, const std::string& comment) {
  params_.push_back({name, value, comment});
}
void SvModule::signal(const std::string& name, int width, const std::string& comment) {
  signals_.push_back({name, width, comment, 0});
}
void SvModule::array(const std::string& name, int width, int depth, const std::string& comment) {
  signals_.push_back({name, width, comment, depth});
}
void SvModule::unread_signal(const std::string& name, int width, const std::string& why) {
  signals_.push_back({name, width, "unread: " + why, 0, true});
}
Instance& SvModule::instantiate(const std::string& module, const std::string& inst_name) {
  instances_.emplace_back(module, inst_name);
  return instances_.back();
}
std::vector<std::string> SvModule::instantiated_modules() const {
  std::vector<std::string> names;
  for (const auto& inst : instances_) names.push_back(inst.module());
  return names;
}
void SvModule::section(const std::string& title, const std::string& body) {
  sections_.emplace_back(title, trim_newlines(body));
}

namespace {
// Whether the SystemVerilog text has the identifier `id` as a token, outside
// comments, string literals and based literals (the "h80" of 8'h80).
bool text_has_identifier(const std::string& text, const std::string& id) {
  const auto ident_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$'; };
  size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      i = text.find('\n', i);
      if (i == std::string::npos) return false;
    } else if (c == '"') {
      i = text.find('"', i + 1);
      if (i == std::string::npos) return false;
      ++i;
    } else if (c == '\'') {
      ++i;
      while (i < text.size() && ident_char(text[i])) ++i;  // the base and digits
    } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      const size_t start = i;
      while (i < text.size() && ident_char(text[i])) ++i;
      if (text.compare(start, i - start, id) == 0) return true;
    } else {
      ++i;
    }
  }
  return false;
}
}  // namespace

bool SvModule::uses_identifier(const std::string& id) const {
  for (const auto& p : ports_)
    if (p.name == id) return true;
  for (const auto& lp : params_)
    if (lp.name == id || text_has_identifier(lp.value, id)) return true;
  for (const auto& sg : signals_)
    if (sg.name == id) return true;
  for (const auto& inst : instances_)
    if (text_has_identifier(inst.render(), id)) return true;
  for (const auto& sec : sections_)
    if (text_has_identifier(sec.second, id)) return true;
  return false;
}

std::string SvModule::render() const {
  std::string out;
  out += fmt::format("// {:-<78}\n", "");
  out += fmt::format("// {} -- generated by `cello gen`; do not edit.\n", name_);
  out += indent_block(purpose_, "// ");
  for (const auto& n : notes_) out += "// " + n + "\n";
  if (!config_.is_null()) {
    out += "//\n// Configuration that produced this module:\n";
    out += indent_block(config_.dump(2), "//   ");
  }
  out += fmt::format("// {:-<78}\n", "");
  out += "module " + name_ + " (\n";
  size_t wtype = 0, wname = 0;
  for (const auto& p : ports_) {
    wtype = std::max(wtype, logic_type(p.width).size());
    wname = std::max(wname, p.name.size());
  }
  for (size_t i = 0; i < ports_.size(); ++i) {
    const auto& p = ports_[i];
    std::string decl = fmt::format("  {:<6} {:<{}} {}{}", p.dir == Dir::In ? "input" : "output",
                                   logic_type(p.width), wtype, p.name, i + 1 < ports_.size() ? "," : "");
    out += fmt::format("{:<{}}  // {}\n", decl, wtype + wname + 11, p.comment);
  }
  out += ");\n";
  if (!params_.empty()) out += "\n";
  for (const auto& lp : params_)
    out += fmt::format("  localparam {} = {};  // {}\n", lp.name, lp.value, lp.comment);
  if (!signals_.empty()) out += "\n";
  for (const auto& s : signals_) {
    std::string decl = s.array_depth > 0
                           ? fmt::format("  {} {} [0:{}];", logic_type(s.width), s.name, s.array_depth - 1)
                           : fmt::format("  {} {};", logic_type(s.width), s.name);
    if (s.unread) decl = "  /* verilator lint_off UNUSEDSIGNAL */" + decl.substr(1) + " /* verilator lint_on UNUSEDSIGNAL */";
    out += fmt::format("{:<40} // {}\n", decl, s.comment);
  }
  for (const auto& inst : instances_) {
    out += '\n';
    out += indent_block(inst.render(), "  ");
  }
  for (const auto& [title, body] : sections_) {
    out += "\n  // ---- " + title + "\n";
    out += indent_block(body, "  ");
  }
  out += "\nendmodule\n";
  return out;
}

}  // namespace cello::gen
