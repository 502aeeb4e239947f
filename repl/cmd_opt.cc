// `hlovm opt FILE.hlo`: runs the pass pipeline (--passes=, default "default")
// on a verified module and prints the optimized module as HLO text that
// `hlovm check` accepts; which passes ran and what they changed go to stderr.
#include <cstdio>
#include <string>
#include <vector>

#include "frontend/printer.h"
#include "repl/command.h"
#include "repl/source_file.h"
#include "vm/api.h"

namespace hlovm {
namespace {

int RunOpt(const std::vector<std::string>& args, const cli::Options& flag_options) {
  if (args.size() != 1) {
    std::fprintf(stderr, "usage: hlovm opt [--passes=none|default|LIST] FILE.hlo\n");
    return kExitBadInput;
  }
  absl::StatusOr<std::string> text = ReadSourceFile(args[0]);
  if (!text.ok()) {
    std::fprintf(stderr, "hlovm opt: %s\n", std::string(text.status().message()).c_str());
    return kExitBadInput;
  }
  CompileOptions options;
  options.file_name = args[0];
  options.passes = flag_options.compile.passes;
  auto exe = Executable::FromText(*text, options);
  if (!exe.ok()) {
    std::fprintf(stderr, "hlovm: %s\n", std::string(exe.status().message()).c_str());
    return ExitCodeForStatus(exe.status()) == 1 ? kExitFailed : kExitBadInput;
  }
  const std::string report = (*exe)->PassReport();
  std::fwrite(report.data(), 1, report.size(), stderr);
  const std::string module = PrintModule((*exe)->module(), PrintOptions::Long());
  std::fwrite(module.data(), 1, module.size(), stdout);
  return kExitOk;
}

HLOVM_REGISTER_COMMAND(opt, "opt", "hlovm opt [--passes=none|default|LIST] FILE.hlo",
                       "run the pass pipeline and print the optimized module as HLO text",
                       {cli::FlagId::kPasses}, &RunOpt);

}  // namespace
}  // namespace hlovm
