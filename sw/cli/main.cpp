// `cello`: one program, one subcommand per step of the flow (see README.md).
#include <fmt/core.h>

#include <CLI/CLI.hpp>
#include <exception>

#include "cli/commands.hpp"
#include "common/error.hpp"

int main(int argc, char** argv) {
  CLI::App app{"cello: generator, compiler, simulator and models for the CELLO tensor accelerator"};
  app.require_subcommand(1);
  cello::cli::add_registered_commands(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::RuntimeError& e) {  // a check that ran and failed: its report is already printed
    return e.get_exit_code();
  } catch (const CLI::ParseError& e) {
    fmt::print(stderr, "cello: error: {}\n", e.what());
    return 2;
  } catch (const cello::Error& e) {
    fmt::print(stderr, "cello: error: {}\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    fmt::print(stderr, "cello: internal error: {}\n", e.what());
    return 3;
  }
  return 0;
}
