// The `hlovm` subcommands. Each command lives in its own cmd_<name>.cc in this
// folder and registers itself with HLOVM_REGISTER_COMMAND, stating the flags
// it takes; main.cc parses the command line for it and dispatches.
#ifndef HLOVM_REPL_COMMAND_H_
#define HLOVM_REPL_COMMAND_H_

#include <string>
#include <string_view>
#include <vector>

#include "repl/options.h"

namespace hlovm {

// Exit codes of every command (DESIGN.md).
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;    // the program or a check failed
inline constexpr int kExitBadInput = 2;  // bad input or usage

struct Command {
  std::string_view name;
  std::string_view usage;    // e.g. "hlovm check [FLAGS] FILE..."
  std::string_view summary;  // one line for `hlovm --help`
  // The flags the command takes (repl/options.h); any other is a usage
  // error before `run` is called.
  cli::FlagSet flags;
  // Receives the positional arguments after the command name and the
  // options built from its flags. Returns the exit code.
  int (*run)(const std::vector<std::string>& args, const cli::Options& options);
};

// Registers `command`; returns true so it can initialise a static.
bool RegisterCommand(const Command& command);
// Commands in registration-independent (name) order.
std::vector<Command> RegisteredCommands();
const Command* FindCommand(std::string_view name);

#define HLOVM_REGISTER_COMMAND(id, ...) \
  static const bool hlovm_command_registered_##id = ::hlovm::RegisterCommand(Command{__VA_ARGS__})

}  // namespace hlovm

#endif  // HLOVM_REPL_COMMAND_H_
