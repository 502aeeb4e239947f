// `hlovm dis FILE.hlo`: compiles a module and prints its bytecode: per
// function each instruction with its registers, result shapes, kernel
// variant and buffer (offset+size in the function's arena), then the peak
// memory of the plan.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "repl/command.h"
#include "vm/api.h"

namespace hlovm {
namespace {

int RunDis(const std::vector<std::string>& args) {
  if (args.size() != 1) {
    std::fprintf(stderr, "usage: hlovm dis FILE.hlo\n");
    return kExitBadInput;
  }
  std::error_code error;
  std::ifstream in(args[0], std::ios::binary);
  if (!in || std::filesystem::is_directory(args[0], error)) {
    std::fprintf(stderr, "hlovm: cannot read %s\n", args[0].c_str());
    return kExitBadInput;
  }
  std::ostringstream buffer;
  buffer << in.rdbuf();
  CompileOptions options;
  options.file_name = args[0];
  options.elided = ElidedFill::kZeros;  // values do not matter for the listing
  auto exe = Executable::FromText(buffer.str(), options);
  if (!exe.ok()) {
    std::fprintf(stderr, "hlovm: %s\n", std::string(exe.status().message()).c_str());
    return ExitCodeForStatus(exe.status()) == 1 ? kExitFailed : kExitBadInput;
  }
  const std::string text = (*exe)->Disassemble();
  std::fwrite(text.data(), 1, text.size(), stdout);
  return kExitOk;
}

HLOVM_REGISTER_COMMAND(dis, "dis", "hlovm dis FILE.hlo",
                       "print the compiled bytecode: registers, shapes, kernels, buffers", &RunDis);

}  // namespace
}  // namespace hlovm
