// Writes a design's parameter header (see params_header.hpp): one namespace
// per generated block, one constexpr per scalar parameter, the port widths and
// a port-existence macro per port, all read from the manifest block entries.
#include "gen/params_header.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <limits>
#include <string_view>

namespace cello::gen {

namespace {

// C++20 keywords, space-separated: a parameter or module of that name gets a
// trailing '_' (config names are [A-Za-z0-9_] identifiers already, see
// ConfigReader), and so does "ports", the nested namespace of port widths.
constexpr std::string_view kReservedNames =
    " alignas alignof and and_eq asm auto bitand bitor bool break case catch char char8_t char16_t char32_t"
    " class compl concept const consteval constexpr constinit const_cast continue co_await co_return co_yield"
    " decltype default delete do double dynamic_cast else enum explicit export extern false float for friend"
    " goto if import inline int long module mutable namespace new noexcept not not_eq nullptr operator or"
    " or_eq private protected public register reinterpret_cast requires return short signed sizeof static"
    " static_assert static_cast struct switch template this thread_local throw true try typedef typeid"
    " typename union unsigned using virtual void volatile wchar_t while xor xor_eq final override ports ";

// A C++ name for a config identifier: reserved names get a trailing underscore.
std::string cpp_name(const std::string& name) {
  bool taken = kReservedNames.find(" " + name + " ") != std::string_view::npos;
  return taken ? name + "_" : name;
}

// A C++ string literal: quotes, backslashes and control characters escaped.
std::string cpp_string(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\')
      out += {'\\', static_cast<char>(c)};
    else if (c < 0x20 || c == 0x7f)
      out += fmt::format("\\{:03o}", c);
    else
      out += static_cast<char>(c);
  }
  return out + "\"";
}

// "inline constexpr <type> <name> = <value>;" for a scalar JSON value, or ""
// for an array, object or null (no C++ constant stands for them here).
std::string constant(const std::string& name, const nlohmann::json& v) {
  std::string type, value;
  if (v.is_boolean()) {
    type = "bool", value = v.get<bool>() ? "true" : "false";
  } else if (v.is_number_unsigned() && v.get<uint64_t>() > uint64_t(std::numeric_limits<int64_t>::max())) {
    type = "std::uint64_t", value = fmt::format("{}ULL", v.get<uint64_t>());
  } else if (v.is_number_integer()) {
    int64_t i = v.get<int64_t>();
    bool fits_int = i >= std::numeric_limits<int>::min() && i <= std::numeric_limits<int>::max();
    type = fits_int ? "int" : "std::int64_t", value = fmt::format("{}", i);
  } else if (v.is_number_float()) {
    type = "double", value = fmt::format("{}", v.get<double>());
    if (value.find_first_of(".en") == std::string::npos) value += ".0";
  } else if (v.is_string()) {
    type = "std::string_view", value = cpp_string(v.get<std::string>());
  } else {
    return "";
  }
  return fmt::format("inline constexpr {} {} = {};\n", type, cpp_name(name), value);
}

// One block's namespace: parameters, the entry's other scalar fields, port widths.
std::string block_namespace(const nlohmann::json& entry) {
  const std::string module = entry.at("module").get<std::string>();
  std::string out = fmt::format("// {} \"{}\"\nnamespace {} {{\n", entry.value("kind", "block"), module,
                                cpp_name(module));
  const nlohmann::json params = entry.value("params", nlohmann::json::object());
  for (const auto& [key, v] : params.items()) out += constant(key, v);
  for (const auto& [key, v] : entry.items())
    if (key != "kind" && key != "module" && key != "params" && key != "ports") out += constant(key, v);
  out += "namespace ports {  // width in bits of each port\n";
  const nlohmann::json ports = entry.value("ports", nlohmann::json::array());
  for (const auto& p : ports)
    out += constant(p.at("name").get<std::string>(), p.at("width"));
  return out + "}  // namespace ports\n" + fmt::format("}}  // namespace {}\n", cpp_name(module));
}

// The port-existence macros of one block: CELLO_<module>_HAS_<port> 1.
std::string port_macros(const nlohmann::json& entry) {
  const std::string module = entry.at("module").get<std::string>();
  std::string out;
  const nlohmann::json ports = entry.value("ports", nlohmann::json::array());
  for (const auto& p : ports)
    out += fmt::format("#define CELLO_{}_HAS_{} 1\n", module, p.at("name").get<std::string>());
  return out;
}

constexpr std::string_view kPreamble = R"(#pragma once

#include <cstdint>
#include <string_view>

// CELLO_HAS_PORT(module, port): 1 in #if when the generated module has the
// port, 0 when it has not (the macro CELLO_<module>_HAS_<port> is undefined).
#ifndef CELLO_HAS_PORT
#define CELLO_HAS_PORT(module, port) CELLO_HAS_PORT_I(module, port)
#define CELLO_HAS_PORT_I(module, port) CELLO_##module##_HAS_##port
#endif
)";

}  // namespace

std::string params_header_name(const std::string& design_name) { return design_name + "_params.hpp"; }

std::string params_header(const std::string& design_name, const std::string& config_hash,
                          const nlohmann::json& blocks) {
  std::string out = fmt::format(
      "// Generated by cello gen: the resolved parameters of design \"{}\" (config hash {}),\n"
      "// one namespace per generated block. Do not edit; see docs/config.md, \"Generated files\".\n",
      design_name, config_hash);
  out += kPreamble;
  out += "\nnamespace cello::params {\n";
  for (const auto& entry : blocks) {
    out += '\n';
    out += port_macros(entry);
    out += block_namespace(entry);
  }
  return out + "\n}  // namespace cello::params\n";
}

}  // namespace cello::gen
