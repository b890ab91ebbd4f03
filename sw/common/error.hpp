// One error type for every user-facing failure: it carries a single line
// "file: place: reason" that the command line prints before exiting non-zero.
// The line is made printable (control bytes such as NUL or a newline from the
// input are shown escaped, so they neither cut nor split it) and is shortened
// when it would quote a huge part of the input.
#pragma once

#include <cstdio>
#include <stdexcept>
#include <string>

namespace cello {

class Error : public std::runtime_error {
 public:
  // file: the input that is wrong (may be empty), place: where in it (key path,
  // line:column, command index...), reason: what is wrong.
  Error(const std::string& file, const std::string& place, const std::string& reason)
      : std::runtime_error(printable(compose(file, place, reason))) {}
  explicit Error(const std::string& line) : std::runtime_error(printable(line)) {}

  static constexpr size_t kMaxLength = 400;

  // Escapes control bytes and cuts the text to kMaxLength characters.
  static std::string printable(const std::string& s) {
    std::string out;
    size_t i = 0;
    for (; i < s.size() && out.size() < kMaxLength; ++i) {
      unsigned char c = static_cast<unsigned char>(s[i]);
      if (c == '\n') out += "\\n";
      else if (c == '\r') out += "\\r";
      else if (c == '\t') out += "\\t";
      else if (c < 0x20 || c == 0x7f) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\x%02x", c);
        out += buf;
      } else {
        out += static_cast<char>(c);
      }
    }
    if (i < s.size()) out += "... (" + std::to_string(s.size() - i) + " more bytes)";
    return out;
  }

 private:
  static std::string compose(const std::string& file, const std::string& place,
                             const std::string& reason) {
    std::string out;
    if (!file.empty()) out += file + ": ";
    if (!place.empty()) out += place + ": ";
    return out + reason;
  }
};

}  // namespace cello
