// `hlovm check FILE...`: everything `hlovm run` does to a module short of
// executing it: parses, verifies (every shape rule) and compiles it to
// bytecode with the options `run` uses by default (the pass pipeline,
// fusion, the module's own replica and partition counts), so that
// custom-call targets, unsupported ops and types, and sizes beyond this
// machine's memory are refused as `run` refuses them. Every problem is
// reported once, as `file:line:col: error: ...` with the source line and a
// caret. With --split_input_file each part of a file between `// -----` lines
// is checked as its own module (parts holding only comments are skipped).
// Exit code: 0 all valid, 1 some module is invalid (a check failed), 2 some
// file is unreadable or the command line is wrong.
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "frontend/parser.h"
#include "repl/command.h"
#include "repl/source_file.h"
#include "vm/api.h"

namespace hlovm {
namespace {

// Checks one module text; prints its problems to stderr. True if valid.
bool CheckText(std::string_view text, const std::string& path, int first_line) {
  ParseOptions options;
  options.file_name = path;
  options.first_line = first_line;
  options.keep_source = true;  // the verifier and compiler quote the line
  auto module = ParseHloModule(text, options);
  if (!module.ok()) {
    std::fprintf(stderr, "%s\n", std::string(module.status().message()).c_str());
    return false;
  }
  // The verifier runs inside, then the passes and the compiler, as for `run`.
  CompileOptions compile;
  compile.file_name = path;
  auto executable = Executable::FromModule(std::move(*module), compile);
  if (!executable.ok()) {
    std::fprintf(stderr, "%s\n", std::string(executable.status().message()).c_str());
    return false;
  }
  return true;
}

int RunCheck(const std::vector<std::string>& args, const cli::Options& options) {
  if (args.empty()) {
    std::fprintf(stderr, "usage: hlovm check [--split_input_file] FILE...\n");
    return kExitBadInput;
  }
  const bool split = options.flags.split_input_file;
  bool unreadable = false, invalid = false;
  for (const std::string& path : args) {
    absl::StatusOr<std::string> read = ReadSourceFile(path);
    if (!read.ok()) {
      std::fprintf(stderr, "hlovm check: %s\n", std::string(read.status().message()).c_str());
      unreadable = true;
      continue;
    }
    const std::string& text = *read;
    int modules = 0, bad = 0;
    if (split) {
      for (const TextChunk& chunk : SplitInputFile(text)) {
        if (IsBlankText(chunk.text)) continue;
        ++modules;
        if (!CheckText(chunk.text, path, chunk.first_line)) ++bad;
      }
    } else {
      ++modules;
      if (!CheckText(text, path, 1)) ++bad;
    }
    if (bad > 0) {
      invalid = true;
    } else if (split) {
      std::printf("%s: OK (%d modules)\n", path.c_str(), modules);
    } else {
      std::printf("%s: OK\n", path.c_str());
    }
  }
  if (unreadable) return kExitBadInput;
  return invalid ? kExitFailed : kExitOk;
}

}  // namespace

HLOVM_REGISTER_COMMAND(check, "check", "hlovm check [--split_input_file] FILE...",
                       "parse, verify and compile modules as `run` does, without running them; "
                       "report every error with its location",
                       {cli::FlagId::kSplitInputFile}, &RunCheck);

}  // namespace hlovm
