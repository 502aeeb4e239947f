// `hlovm` with no command (or `hlovm repl [FILE.hlo]`): the interactive HLO
// shell. On a terminal it edits lines with libedit; when stdin is not a
// terminal it reads a script without prompts or line editing and exits 1 if
// any input failed (at once with --fail-fast).
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "repl/command.h"
#include "repl/line_editor.h"
#include "repl/options.h"
#include "repl/session.h"

namespace hlovm {
namespace {

std::atomic<bool>* g_cancel = nullptr;
std::atomic<bool> g_reading{false};

void OnInterrupt(int) {
  if (g_reading.load()) {
    repl::LineEditor::NoteInterrupt();
  } else if (g_cancel != nullptr) {
    g_cancel->store(true);
  }
}

void InstallInterruptHandler(repl::Session& session) {
  g_cancel = &session.cancel();
  struct sigaction action = {};
  action.sa_handler = &OnInterrupt;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0;  // no SA_RESTART: a read at the prompt returns EINTR
  sigaction(SIGINT, &action, nullptr);
}

int RunScript(repl::Session& session, const cli::Flags& flags) {
  const bool fail_fast = flags.fail_fast;
  const bool echo = flags.echo;
  int failures = 0;
  std::string buffer;
  std::string line;
  bool more = true;
  while (more && !session.quit_requested()) {
    more = static_cast<bool>(std::getline(std::cin, line));
    if (more) {
      if (echo) {
        std::printf("%s%s\n", buffer.empty() ? session.Prompt().c_str() : "...> ", line.c_str());
      }
      buffer += line;
      buffer += '\n';
      if (!repl::Session::IsComplete(buffer)) continue;
    } else if (buffer.find_first_not_of(" \t\n") == std::string::npos) {
      break;
    }
    session.cancel().store(false);
    if (!session.Handle(buffer)) {
      ++failures;
      if (fail_fast) return kExitFailed;
    }
    buffer.clear();
  }
  std::fflush(stdout);
  return failures > 0 ? kExitFailed : kExitOk;
}

int RunInteractive(repl::Session& session) {
  repl::LineEditor editor(repl::LineEditor::DefaultHistoryPath(),
                          [&](const std::string& line, size_t* word_start) {
                            return session.CompleteLine(line, word_start);
                          });
  std::printf("hlovm: type HLO (x = f32[2] constant({1, 2})), :help for commands, Ctrl-D to leave\n");
  std::string buffer;
  bool last_interrupted = false;
  // Outside a running program a Ctrl-C belongs to the line editor, also one
  // that arrives while the previous one is being answered.
  g_reading.store(true);
  while (!session.quit_requested()) {
    bool interrupted = false;
    std::optional<std::string> line = editor.ReadLine(buffer.empty() ? session.Prompt() : "...> ",
                                                      &interrupted);
    if (interrupted) {
      std::printf("^C\n");
      const bool was_empty = buffer.empty() && line.has_value() && line->empty();
      if (was_empty && last_interrupted) break;
      if (was_empty) std::printf("(Ctrl-C again or Ctrl-D to leave)\n");
      std::fflush(stdout);
      buffer.clear();
      last_interrupted = was_empty;
      continue;
    }
    if (!line.has_value()) {
      std::printf("\n");
      if (buffer.empty()) break;
      buffer.clear();  // Ctrl-D in a continuation abandons it
      continue;
    }
    last_interrupted = false;
    buffer += *line;
    buffer += '\n';
    if (!repl::Session::IsComplete(buffer)) continue;
    std::string entry = buffer;
    while (!entry.empty() && entry.back() == '\n') entry.pop_back();
    if (entry.find_first_not_of(" \t\n") != std::string::npos) editor.AddHistory(entry);
    session.cancel().store(false);
    g_reading.store(false);  // Ctrl-C now stops the program
    session.Handle(buffer);
    g_reading.store(true);
    buffer.clear();
  }
  return kExitOk;
}

int Repl(const std::vector<std::string>& args, const cli::Options& options) {
  const cli::Flags& flags = options.flags;
  repl::Session session(stdout);
  InstallInterruptHandler(session);
  if (flags.threads > 0) session.Handle(absl::StrCat(":threads ", flags.threads));
  for (const std::string& file : args) {
    if (!session.Handle(":load " + file)) return kExitBadInput;
  }
  if (!isatty(STDIN_FILENO)) return RunScript(session, flags);
  const char* term = std::getenv("TERM");
  session.set_color(isatty(STDOUT_FILENO) && std::getenv("NO_COLOR") == nullptr &&
                    !(term != nullptr && std::string(term) == "dumb"));
  return RunInteractive(session);
}

}  // namespace

HLOVM_REGISTER_COMMAND(repl, "repl", "hlovm repl [--fail-fast] [--echo] [FILE.hlo...]",
                       "the interactive HLO shell (also `hlovm` alone); reads a script when stdin is "
                       "not a terminal",
                       {cli::FlagId::kFailFast, cli::FlagId::kEcho, cli::FlagId::kThreads}, Repl);

}  // namespace hlovm
