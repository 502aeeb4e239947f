// The `hlovm` binary: finds the command, parses the flags it takes
// (repl/options.h) and dispatches to it.
#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/aligned_buffer.h"
#include "ops/linalg/lapack.h"
#include "repl/command.h"
#include "repl/options.h"
#include "vm/mpi_run.h"

namespace hlovm {
namespace {

std::map<std::string_view, Command>& Registry() {
  static auto* registry = new std::map<std::string_view, Command>();
  return *registry;
}

// The exit codes of every command (repl/command.h), as help states them.
constexpr char kExitCodesText[] =
    "Exit codes: 0 success, 1 the program or a check failed, 2 bad input or usage "
    "(an unknown command or flag, a file that cannot be read or parsed).";

std::string UsageText() {
  std::string text = "hlovm runs XLA HLO programs on the CPU.\n\nUsage:\n";
  if (FindCommand("repl") != nullptr) {
    absl::StrAppend(&text, "  hlovm\n      start the interactive REPL\n");
  }
  absl::StrAppend(&text, "  hlovm FILE.hlo [INPUT...]\n      the same as `hlovm run FILE.hlo ...`\n");
  for (const Command& command : RegisteredCommands()) {
    // std::string: Debian's Abseil has its own string_view type.
    absl::StrAppend(&text, "  ", std::string(command.usage), "\n      ",
                    std::string(command.summary), "\n");
  }
  absl::StrAppend(&text, "\n", kExitCodesText,
                  "\n`hlovm COMMAND --help` describes one command and its flags; "
                  "--helpfull lists every flag.");
  return text;
}

}  // namespace

bool RegisterCommand(const Command& command) {
  Registry()[command.name] = command;
  return true;
}

std::vector<Command> RegisteredCommands() {
  std::vector<Command> commands;
  for (const auto& [name, command] : Registry()) commands.push_back(command);
  return commands;
}

const Command* FindCommand(std::string_view name) {
  auto it = Registry().find(name);
  return it == Registry().end() ? nullptr : &it->second;
}

// Handles `--help`/`-h` (with or without a command) and `--helpfull`.
// Returns true when help was printed.
bool PrintHelpIfAsked(const std::vector<std::string>& args, const Command* command) {
  bool asked = false, full = false;
  for (const std::string& arg : args) {
    if (arg == "--") break;
    if (arg == "--help" || arg == "-h" || arg == "-help") asked = true;
    if (arg == "--helpfull" || arg == "-helpfull") full = true;
  }
  if (full) {
    std::printf("%s\n\nEvery flag, with the commands that take it:\n", UsageText().c_str());
    for (const cli::FlagInfo& info : cli::AllFlags()) {
      std::string takers;
      for (const Command& c : RegisteredCommands()) {
        if (c.flags.Contains(info.id)) absl::StrAppend(&takers, takers.empty() ? "" : ", ", std::string(c.name));
      }
      const cli::FlagSet one = {info.id};
      std::string help = cli::FlagsHelp(one);
      help = help.substr(help.find('\n') + 1);  // without the group title
      std::printf("%s      (%s)\n", help.c_str(), takers.c_str());
    }
    return true;
  }
  if (!asked) return false;
  if (command != nullptr) {
    std::printf("Usage: %s\n  %s\n", std::string(command->usage).c_str(),
                std::string(command->summary).c_str());
    if (!command->flags.empty()) std::printf("\n%s", cli::FlagsHelp(command->flags).c_str());
    std::printf("\n%s\n", kExitCodesText);
  } else {
    std::printf("%s\n", UsageText().c_str());
  }
  return true;
}

}  // namespace hlovm

int main(int argc, char** argv) {
  using namespace hlovm;
  // Before any thread starts (see there).
  BindToLocalCores();
  RunBlasOnCallingThread();
  KeepFreedMemoryForReuse();
  std::vector<std::string> args(argv + 1, argv + argc);
  // The command is the first word that is not a flag; `hlovm FILE.hlo ...`
  // is `hlovm run FILE.hlo ...`, and no command at all is the REPL.
  const std::optional<size_t> first = cli::FindFirstPositional(args);
  const Command* command = nullptr;
  std::string name = "repl";
  if (first.has_value()) {
    name = args[*first];
    command = FindCommand(name);
    if (command != nullptr) {
      args.erase(args.begin() + static_cast<std::ptrdiff_t>(*first));
    } else if (absl::EndsWith(name, ".hlo")) {
      command = FindCommand("run");
    }
  } else {
    command = FindCommand("repl");
  }
  // `hlovm --help` describes every command, `hlovm COMMAND --help` one.
  if (PrintHelpIfAsked(args, first.has_value() ? command : nullptr)) return kExitOk;
  if (command == nullptr && !first.has_value()) {
    std::fprintf(stderr, "hlovm: no command given\n\n%s\n", UsageText().c_str());
    return kExitBadInput;
  }
  if (command == nullptr) {
    std::fprintf(stderr, "hlovm: unknown command '%s'\n\n%s\n", name.c_str(), UsageText().c_str());
    return kExitBadInput;
  }
  absl::StatusOr<cli::ParsedArgs> parsed = cli::ParseArgs(args, command->flags, command->name);
  if (!parsed.ok()) {
    std::fprintf(stderr, "%s\n", std::string(parsed.status().message()).c_str());
    return kExitBadInput;
  }
  absl::StatusOr<cli::Options> options = cli::BuildOptions(parsed->flags);
  if (!options.ok()) {
    std::fprintf(stderr, "hlovm %s: %s\n", std::string(command->name).c_str(),
                 std::string(options.status().message()).c_str());
    return kExitBadInput;
  }
  return command->run(parsed->positional, *options);
}
