#include <map>

#include "sw/cli/commands.hpp"

namespace cello::cli {

namespace {
// Sorted by name so --help lists subcommands in a stable order.
std::map<std::string, CommandAdder>& commands() {
  static std::map<std::string, CommandAdder> m;
  return m;
}
std::map<std::string, CommandAdder>& benches() {
  static std::map<std::string, CommandAdder> m;
  return m;
}
}  // namespace

int register_command(const std::string& name, CommandAdder add) {
  commands()[name] = std::move(add);
  return 0;
}
int register_bench(const std::string& name, CommandAdder add) {
  benches()[name] = std::move(add);
  return 0;
}
void add_registered_commands(CLI::App& app) {
  for (auto& [name, add] : commands()) add(app);
}
void add_registered_benches(CLI::App& bench) {
  for (auto& [name, add] : benches()) add(bench);
}

}  // namespace cello::cli
