// One error type for every user-facing failure: it carries a single line
// "file: place: reason" that the command line prints before exiting non-zero.
#pragma once

#include <stdexcept>
#include <string>

namespace cello {

class Error : public std::runtime_error {
 public:
  // file: the input that is wrong (may be empty), place: where in it (key path,
  // line:column, command index...), reason: what is wrong.
  Error(const std::string& file, const std::string& place, const std::string& reason)
      : std::runtime_error(compose(file, place, reason)) {}
  explicit Error(const std::string& line) : std::runtime_error(line) {}

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
