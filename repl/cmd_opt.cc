// `hlovm opt FILE.hlo`: runs the pass pipeline (--passes=, default "default")
// on a verified module and prints the optimized module as HLO text that
// `hlovm check` accepts; which passes ran and what they changed go to stderr.
// Also home of the --passes and --dump-after-passes flags that run and dis
// read.
#include <cstdio>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "frontend/printer.h"
#include "passes/pipeline.h"
#include "repl/command.h"
#include "repl/source_file.h"
#include "vm/api.h"

ABSL_FLAG(std::string, passes, "default",
          "run, dis, opt: the passes between verifier and compiler: none, default or a list "
          "of inline,algsimp,fold,cse,zerotrip,unroll,licm,whiledce,dce");
ABSL_FLAG(bool, no_fusion, false,
          "run, dis, bench: compile elementwise regions op by op instead of fusing them");
ABSL_FLAG(bool, dump_after_passes, false,
          "run, dis: print the module after the passes (to stderr for run)");

namespace hlovm {
namespace {

int RunOpt(const std::vector<std::string>& args) {
  if (args.size() != 1) {
    std::fprintf(stderr, "usage: hlovm opt [--passes=none|default|LIST] FILE.hlo\n");
    return kExitBadInput;
  }
  const std::string spec = absl::GetFlag(FLAGS_passes);
  if (absl::Status s = passes::ValidatePassSpec(spec); !s.ok()) {
    std::fprintf(stderr, "hlovm opt: %s\n", std::string(s.message()).c_str());
    return kExitBadInput;
  }
  absl::StatusOr<std::string> text = ReadSourceFile(args[0]);
  if (!text.ok()) {
    std::fprintf(stderr, "hlovm opt: %s\n", std::string(text.status().message()).c_str());
    return kExitBadInput;
  }
  CompileOptions options;
  options.file_name = args[0];
  options.passes = spec;
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
                       &RunOpt);

}  // namespace
}  // namespace hlovm
