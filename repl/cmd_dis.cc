// `hlovm dis FILE.hlo`: compiles a module and prints its bytecode: per
// function each instruction with its registers, result shapes, kernel
// variant and buffer (offset+size in the function's arena), then the peak
// memory of the plan.
#include <cstdio>
#include <string>
#include <vector>

#include "frontend/printer.h"
#include "repl/command.h"
#include "repl/source_file.h"
#include "vm/api.h"

namespace hlovm {
namespace {

int RunDis(const std::vector<std::string>& args, const cli::Options& flag_options) {
  if (args.size() != 1) {
    std::fprintf(stderr, "usage: hlovm dis FILE.hlo\n");
    return kExitBadInput;
  }
  absl::StatusOr<std::string> text = ReadSourceFile(args[0]);
  if (!text.ok()) {
    std::fprintf(stderr, "hlovm dis: %s\n", std::string(text.status().message()).c_str());
    return kExitBadInput;
  }
  CompileOptions options = flag_options.compile;  // --passes, --no_fusion, --fft_plan
  options.file_name = args[0];
  options.elided = ElidedFill::kZeros;  // values do not matter for the listing
  auto exe = Executable::FromText(*text, options);
  if (!exe.ok()) {
    std::fprintf(stderr, "hlovm: %s\n", std::string(exe.status().message()).c_str());
    return ExitCodeForStatus(exe.status()) == 1 ? kExitFailed : kExitBadInput;
  }
  std::string listing = (*exe)->PassReport();
  if (flag_options.flags.dump_after_passes) {
    listing += PrintModule((*exe)->module(), PrintOptions::Default());
  }
  listing += (*exe)->Disassemble();
  std::fwrite(listing.data(), 1, listing.size(), stdout);
  return kExitOk;
}

HLOVM_REGISTER_COMMAND(dis, "dis", "hlovm dis [--passes=none|default|LIST] [--dump-after-passes] FILE.hlo",
                       "print the compiled bytecode: registers, shapes, kernels, buffers",
                       {cli::FlagId::kPasses, cli::FlagId::kNoFusion, cli::FlagId::kFftPlan,
                        cli::FlagId::kDumpAfterPasses},
                       &RunDis);

}  // namespace
}  // namespace hlovm
