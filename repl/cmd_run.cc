// `hlovm run FILE.hlo [INPUT...]` (also `hlovm FILE.hlo ...`): runs a module's
// entry computation on inputs given as HLO literals, .npy files or random
// values, and prints the results as HLO literals (or writes .npy files).
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/element_type.h"
#include "core/float_format.h"
#include "core/literal.h"
#include "core/npy.h"
#include "core/shape.h"
#include "core/status_macros.h"
#include "ops/fft/fft.h"
#include "repl/command.h"
#include "repl/inputs.h"
#include "repl/source_file.h"
#include "vm/api.h"
#include "vm/check_failure.h"

ABSL_FLAG(bool, random, false,
          "run: fill every entry parameter with deterministic random values; --random=SEED "
          "is --random --seed=SEED");
ABSL_FLAG(uint64_t, seed, 0, "run: seed of --random");
ABSL_FLAG(std::string, elided, "xla",
          "run: how to fill elided constant({...}) literals: xla (XLA's parser's counter "
          "pattern), zeros, or error");
ABSL_FLAG(int, threads, 0, "executor threads (0: all cores)");
ABSL_FLAG(std::string, fft_plan, "estimate",
          "run: how FFT plans are made: estimate (instant) or measure (FFTW measures the "
          "fastest algorithm once; the result is kept in ~/.cache/hlovm/ or $XDG_CACHE_HOME/hlovm/)");
ABSL_FLAG(std::string, output, "",
          "run: write the results as .npy files into this directory instead of printing them");

namespace hlovm {
namespace {

absl::string_view Sv(std::string_view s) { return absl::string_view(s.data(), s.size()); }

// Bad input (a malformed module or arguments, an unsupported op or type, a
// shape too large to allocate) exits 2; a failure of the program itself
// (a failed check, OutOfRange, Cancelled, Internal) exits 1.
int ExitCodeFor(const absl::Status& status, bool during_execution) {
  switch (status.code()) {
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kUnimplemented:
    case absl::StatusCode::kResourceExhausted:
    case absl::StatusCode::kNotFound:
      return kExitBadInput;
    default:
      return during_execution ? kExitFailed : kExitBadInput;
  }
}

void PrintError(const absl::Status& status) {
  std::fprintf(stderr, "hlovm: %s\n", std::string(status.message()).c_str());
}

absl::Status WriteResults(const Literal& result, const std::string& dir, const std::string& stem,
                          std::vector<std::string>* written) {
  if (result.shape().IsTuple()) {
    const auto& elements = result.tuple_elements();
    for (size_t i = 0; i < elements.size(); ++i) {
      HLOVM_RETURN_IF_ERROR(WriteResults(elements[i], dir, absl::StrCat(stem, "_", i), written));
    }
    return absl::OkStatus();
  }
  if (!result.shape().IsArray()) return absl::OkStatus();  // tokens
  const std::string path = (std::filesystem::path(dir) / (stem + ".npy")).string();
  HLOVM_RETURN_IF_ERROR(WriteNpy(result, path));
  std::string note;
  if (NpyStorageType(result.shape().element_type()) != result.shape().element_type()) {
    note = absl::StrCat(" (", Sv(ElementTypeName(result.shape().element_type())), " widened to ",
                        Sv(ElementTypeName(NpyStorageType(result.shape().element_type()))), ")");
  }
  written->push_back(path + note);
  return absl::OkStatus();
}

int Run(const std::vector<std::string>& args) {
  if (args.empty()) {
    std::fprintf(stderr, "usage: hlovm run [--random] [--seed=N] [--elided=xla|zeros|error] "
                         "[--threads=N] [--output=DIR] FILE.hlo [INPUT...]\n");
    return kExitBadInput;
  }
  const std::string& file = args[0];
  auto text = ReadSourceFile(file);
  if (!text.ok()) {
    PrintError(text.status());
    return kExitBadInput;
  }

  CompileOptions compile_options;
  compile_options.file_name = file;
  const std::string elided = absl::GetFlag(FLAGS_elided);
  if (elided == "xla") {
    compile_options.elided = ElidedFill::kXla;
  } else if (elided == "zeros") {
    compile_options.elided = ElidedFill::kZeros;
  } else if (elided == "error") {
    compile_options.elided = ElidedFill::kError;
  } else {
    std::fprintf(stderr, "hlovm: --elided must be xla, zeros or error, not '%s'\n", elided.c_str());
    return kExitBadInput;
  }
  auto fft_plan = ParseFftPlanMode(absl::GetFlag(FLAGS_fft_plan));
  if (!fft_plan.ok()) {
    std::fprintf(stderr, "hlovm: %s\n", std::string(fft_plan.status().message()).c_str());
    return kExitBadInput;
  }
  SetFftPlanMode(*fft_plan);
  auto executable = Executable::FromText(*text, compile_options);
  if (!executable.ok()) {
    PrintError(executable.status());
    return ExitCodeFor(executable.status(), /*during_execution=*/false);
  }
  const Executable& exe = **executable;
  if (const int64_t filled = exe.elided_constants_filled(); filled > 0) {
    std::fprintf(stderr,
                 "hlovm: warning: %s: %lld elided constant%s ({...}) filled with %s; results "
                 "depend on these placeholder values\n",
                 file.c_str(), static_cast<long long>(filled), filled == 1 ? "" : "s",
                 compile_options.elided == ElidedFill::kXla ? "XLA's counter pattern" : "zeros");
  }

  auto arguments = MakeArguments(exe.parameter_shapes(),
                                 std::vector<std::string>(args.begin() + 1, args.end()),
                                 absl::GetFlag(FLAGS_random), absl::GetFlag(FLAGS_seed), file);
  if (!arguments.ok()) {
    PrintError(arguments.status());
    return kExitBadInput;
  }

  std::vector<const Literal*> argument_ptrs;
  for (const Literal& a : *arguments) argument_ptrs.push_back(&a);
  ExecuteOptions execute_options;
  execute_options.threads = absl::GetFlag(FLAGS_threads);
  auto result = exe.Execute(argument_ptrs, execute_options);
  if (!result.ok()) {
    if (auto failure = GetCheckFailure(result.status())) {
      std::fprintf(stderr, "hlovm: %s\n", FormatCheckFailure(*failure).c_str());
      return kExitFailed;
    }
    PrintError(result.status());
    return ExitCodeFor(result.status(), /*during_execution=*/true);
  }

  const std::string output = absl::GetFlag(FLAGS_output);
  if (!output.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(output, ec);
    if (ec) {
      std::fprintf(stderr, "hlovm: --output=%s: %s\n", output.c_str(), ec.message().c_str());
      return kExitBadInput;
    }
    std::vector<std::string> written;
    absl::Status status = WriteResults(*result, output, "result", &written);
    if (!status.ok()) {
      PrintError(status);
      return kExitBadInput;
    }
    for (const std::string& w : written) std::printf("wrote %s\n", w.c_str());
    return kExitOk;
  }
  std::printf("%s\n", result->ToString().c_str());
  return kExitOk;
}

}  // namespace

HLOVM_REGISTER_COMMAND(run, "run",
                       "hlovm run [--random[=SEED]] [--output=DIR] FILE.hlo [INPUT...]",
                       "run the entry computation; inputs are HLO literals ('f32[2] {1, 2}') or "
                       ".npy files; results print as HLO literals",
                       Run);

}  // namespace hlovm
