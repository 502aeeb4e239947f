// `hlovm fmt FILE...`: prints each module in canonical text (XLA's long
// form, every constant in full) to stdout, or rewrites the files with -i.
// StableHLO MLIR input (`.mlir`) prints as HLO text (--to=hlo, the default);
// -i refuses it, since that would replace the file's language.
// Comments are kept (frontend/printer.h SourceComments): a file's header
// comments stay at its top, a comment line stays before the computation or
// instruction it precedes, and a comment at the end of a line stays at the
// end of that instruction's line. Where a comment would be lost (it belongs
// to something the canonical text does not print), -i leaves the file as it
// is and says so. With --split-input-file each `// -----` part is formatted
// on its own and the parts are printed separated by `// -----` lines.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "frontend/parser.h"
#include "frontend/printer.h"
#include "frontend/stablehlo/stablehlo_parser.h"
#include "repl/command.h"
#include "repl/source_file.h"

namespace hlovm {
namespace {

bool WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return false;
  out << text;
  out.close();
  return static_cast<bool>(out);
}

std::string_view TrimTrailingSpace(std::string_view s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == '\r' || s.back() == '\t')) {
    s.remove_suffix(1);
  }
  return s;
}

std::string_view TrimLeadingNewlines(std::string_view s) {
  while (!s.empty() && (s.front() == '\n' || s.front() == '\r')) s.remove_prefix(1);
  return s;
}

// Formats one module text with its comments; returns false (after printing
// the parser's error to stderr) when it does not parse. Adds to `*lost` the
// comments the printed text could not keep.
bool FormatText(std::string_view text, const std::string& path, int first_line, std::string* out,
                int64_t* lost) {
  ParseOptions options;
  options.file_name = path;
  options.first_line = first_line;
  auto module = ParseHloModule(text, options);
  if (!module.ok()) {
    std::string message(module.status().message());
    std::fprintf(stderr, "%s\n", message.c_str());
    return false;
  }
  SourceComments comments(text, **module);
  PrintOptions print = PrintOptions::Long();
  print.comments = &comments;
  out->append(TrimTrailingSpace(PrintModule(**module, print)));
  out->push_back('\n');
  *lost += comments.count() - comments.placed();
  return true;
}

int RunFmt(const std::vector<std::string>& args, const cli::Options& options) {
  if (args.empty()) {
    std::fprintf(stderr, "usage: hlovm fmt [-i] [--split-input-file] [--to=hlo] FILE...\n");
    return kExitBadInput;
  }
  const bool in_place = options.flags.i;
  const bool split = options.flags.split_input_file;
  if (options.flags.to != "hlo") {
    std::fprintf(stderr, "hlovm fmt: --to=%s: the only output is hlo (HLO text)\n",
                 options.flags.to.c_str());
    return kExitBadInput;
  }
  bool unreadable = false, invalid = false;
  for (const std::string& path : args) {
    absl::StatusOr<std::string> read = ReadSourceFile(path);
    if (!read.ok()) {
      std::fprintf(stderr, "hlovm fmt: %s\n", std::string(read.status().message()).c_str());
      unreadable = true;
      continue;
    }
    const std::string& text = *read;
    if (in_place && LooksLikeStableHlo(text, path)) {
      std::fprintf(stderr,
                   "hlovm fmt: %s is StableHLO text; -i would rewrite it as HLO (print it with "
                   "--to=hlo instead)\n",
                   path.c_str());
      unreadable = true;
      continue;
    }
    std::string formatted;
    bool ok = true;
    int64_t lost = 0;
    if (split) {
      std::vector<TextChunk> chunks = SplitInputFile(text);
      for (size_t c = 0; c < chunks.size(); ++c) {
        if (c > 0) formatted.append("\n// -----\n\n");
        if (IsBlankText(chunks[c].text)) {
          // Parts holding only comments (e.g. `// CHECK` lines) stay as written.
          std::string_view kept = TrimLeadingNewlines(TrimTrailingSpace(chunks[c].text));
          formatted.append(kept);
          if (!kept.empty()) formatted.push_back('\n');
          continue;
        }
        ok = FormatText(chunks[c].text, path, chunks[c].first_line, &formatted, &lost) && ok;
      }
    } else {
      ok = FormatText(text, path, 1, &formatted, &lost);
    }
    if (!ok) {
      invalid = true;
      continue;  // never rewrite or print a file that did not parse
    }
    if (lost > 0) {
      std::fprintf(stderr,
                   "hlovm fmt: %s: %lld comment(s) belong to parts the canonical text does not "
                   "print%s\n",
                   path.c_str(), static_cast<long long>(lost),
                   in_place ? "; the file is left as it is" : " and are left out");
      if (in_place) {
        invalid = true;
        continue;
      }
    }
    if (in_place) {
      if (formatted != text && !WriteFile(path, formatted)) {
        std::fprintf(stderr, "hlovm fmt: cannot write '%s'\n", path.c_str());
        unreadable = true;
      }
    } else {
      std::fwrite(formatted.data(), 1, formatted.size(), stdout);
    }
  }
  std::fflush(stdout);
  // A file that does not parse is bad input, as for `run` and `dis`.
  return unreadable || invalid ? kExitBadInput : kExitOk;
}

}  // namespace

HLOVM_REGISTER_COMMAND(fmt, "fmt", "hlovm fmt [-i] [--split-input-file] [--to=hlo] FILE...",
                       "print each module in canonical HLO text (-i rewrites the files; "
                       ".mlir input prints as HLO)",
                       {cli::FlagId::kInPlace, cli::FlagId::kSplitInputFile, cli::FlagId::kTo},
                       RunFmt);

}  // namespace hlovm
