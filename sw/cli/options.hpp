// Small CLI11 validators shared by the subcommands.
#pragma once

#include <CLI/CLI.hpp>

namespace cello::cli {

// Refuses an empty value ("--matrix ''" is a mistake, not "no matrix").
inline CLI::Validator non_empty() {
  return CLI::Validator([](std::string& s) { return s.empty() ? std::string("must not be empty") : std::string(); },
                        "NONEMPTY");
}

}  // namespace cello::cli
