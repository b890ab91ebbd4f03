// `cello`: one program, one subcommand per step of the flow (see README.md).
#include <fmt/core.h>
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <exception>
#include <filesystem>
#include <new>

#include "sw/cli/commands.hpp"
#include "sw/cli/output_files.hpp"
#include "sw/common/error.hpp"
#include "sw/common/limits.hpp"

namespace {

// Every --json, --csv and --svg file of every subcommand is checked while the
// command line is parsed, so an output that cannot be created fails at once.
void guard_output_options(CLI::App& app) {
  for (CLI::App* sub : app.get_subcommands({})) {
    for (const char* name : {"--json", "--csv", "--svg"}) {
      CLI::Option* opt = sub->get_option_no_throw(name);
      if (!opt) continue;
      // The check's cello::Error passes through CLI11 to main's one-line message.
      opt->check(CLI::Validator(
          [name](std::string& path) {
            cello::cli::check_output_path(path, name);
            return std::string();
          },
          "FILE"));
    }
    guard_output_options(*sub);
  }
}

// "cello frob": name the unknown word and list the subcommands.
bool unknown_subcommand(CLI::App& app, int argc, char** argv) {
  if (argc < 2 || argv[1][0] == '-') return false;
  std::vector<std::string> names;
  for (CLI::App* sub : app.get_subcommands({})) {
    if (sub->get_name() == argv[1]) return false;
    names.push_back(sub->get_name());
  }
  fmt::print(stderr, "cello: error: {}: unknown subcommand (one of: {})\n", cello::Error::printable(argv[1]),
             fmt::join(names, ", "));
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"cello: generator, compiler, simulator and models for the CELLO tensor accelerator"};
  app.require_subcommand(1);
  app.add_option_function<std::string>(
         "--max-memory",
         [](const std::string& v) {
           uint64_t bytes = 0;
           if (!cello::limits::parse_size(v, bytes) || bytes == 0)
             throw CLI::ValidationError("--max-memory", "'" + v + "' is not a size (e.g. 2G, 512M)");
           cello::limits::set_memory_budget(bytes);
         },
         "memory budget for sizes declared by inputs (default: half the machine's memory, or $CELLO_MAX_MEMORY)")
      ->trigger_on_parse();
  cello::cli::add_registered_commands(app);
  guard_output_options(app);
  // Runs once the whole command line is parsed and checked, before any
  // subcommand: an output may not replace a file the command reads.
  app.parse_complete_callback([&app] { cello::cli::note_command_line_inputs(app); });
  if (unknown_subcommand(app, argc, argv)) return 2;
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::RuntimeError& e) {  // a check that ran and failed: its report is already printed
    return e.get_exit_code();
  } catch (const CLI::ParseError& e) {
    fmt::print(stderr, "cello: error: {}\n", cello::Error::printable(e.what()));
    return 2;
  } catch (const cello::Error& e) {
    fmt::print(stderr, "cello: error: {}\n", e.what());
    return 2;
  } catch (const std::filesystem::filesystem_error& e) {
    fmt::print(stderr, "cello: error: {}: {}\n", cello::Error::printable(e.path1().string()), e.code().message());
    return 2;
  } catch (const std::bad_alloc&) {
    fmt::print(stderr, "cello: error: out of memory (lower the sizes, or see --max-memory)\n");
    return 2;
  } catch (const std::exception& e) {
    fmt::print(stderr, "cello: internal error: {}\n", e.what());
    return 3;
  }
  return 0;
}
