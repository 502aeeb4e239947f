// The `hlovm` binary: dispatches to the registered subcommands.
#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "repl/command.h"

namespace hlovm {
namespace {

std::map<std::string_view, Command>& Registry() {
  static auto* registry = new std::map<std::string_view, Command>();
  return *registry;
}

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
  absl::StrAppend(&text, "\nExit codes: 0 success, 1 the program or a check failed, "
                         "2 bad input or usage.\n`hlovm COMMAND --help` describes one command; "
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

// Handles `--help`/`-h` (with or without a command) before Abseil sees it, so
// the text lists the commands that exist rather than Abseil's flag dump.
// Returns true when help was printed.
bool PrintHelpIfAsked(int argc, char** argv) {
  bool asked = false;
  const Command* command = nullptr;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg == "--") break;
    if (arg == "--help" || arg == "-h" || arg == "-help") asked = true;
    if (!arg.empty() && arg[0] != '-' && command == nullptr) command = FindCommand(arg);
  }
  if (!asked) return false;
  if (command != nullptr) {
    std::printf("Usage: %s\n  %s\n", std::string(command->usage).c_str(),
                std::string(command->summary).c_str());
  } else {
    std::printf("%s\n", UsageText().c_str());
  }
  return true;
}

}  // namespace hlovm

int main(int argc, char** argv) {
  using namespace hlovm;
  if (PrintHelpIfAsked(argc, argv)) return kExitOk;
  absl::SetProgramUsageMessage(UsageText());
  // Two conveniences Abseil lacks, rewritten before parsing: `--random=SEED`
  // (hlovm run) is `--random --seed=SEED` (boolean flags take no number), and
  // dashes in flag names are accepted for underscores.
  std::vector<std::string> rewritten;
  for (int i = 0; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg == "--") {
      for (; i < argc; ++i) rewritten.emplace_back(argv[i]);
      break;
    }
    // `--fail-fast` is `--fail_fast`: dashes in flag names become underscores.
    std::string normalized;
    if (arg.size() > 2 && arg.substr(0, 2) == "--") {
      normalized = std::string(arg);
      const size_t name_end = std::min(normalized.find('='), normalized.size());
      for (size_t c = 2; c < name_end; ++c) {
        if (normalized[c] == '-') normalized[c] = '_';
      }
      arg = normalized;
    }
    if (arg.substr(0, 9) == "--random=" && arg.size() > 9 &&
        arg.find_first_not_of("0123456789", 9) == std::string_view::npos) {
      rewritten.emplace_back("--random");
      rewritten.push_back(absl::StrCat("--seed=", std::string(arg.substr(9))));
    } else {
      rewritten.emplace_back(arg);
    }
  }
  std::vector<char*> new_argv;
  for (std::string& arg : rewritten) new_argv.push_back(arg.data());
  new_argv.push_back(nullptr);
  std::vector<char*> positional =
      absl::ParseCommandLine(static_cast<int>(rewritten.size()), new_argv.data());
  std::vector<std::string> args(positional.begin() + 1, positional.end());
  std::string name = args.empty() ? "repl" : args.front();
  if (!args.empty()) args.erase(args.begin());
  const Command* command = FindCommand(name);
  if (command == nullptr && absl::EndsWith(name, ".hlo")) {
    // `hlovm FILE.hlo ...` is `hlovm run FILE.hlo ...`.
    command = FindCommand("run");
    args.insert(args.begin(), name);
  }
  if (command == nullptr && args.empty() && name == "repl") {
    std::fprintf(stderr, "hlovm: no command given\n\n%s\n", UsageText().c_str());
    return kExitBadInput;
  }
  if (command == nullptr) {
    std::fprintf(stderr, "hlovm: unknown command '%s'\n\n%s\n", name.c_str(), UsageText().c_str());
    return kExitBadInput;
  }
  return command->run(args);
}
