// RunCaseInProcess: compiles one conformance case with the VM and runs it on
// every device it asks for.
#include <chrono>
#include <fstream>
#include <optional>
#include <sstream>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "conformance/runner.h"
#include "core/hlo_ir.h"
#include "frontend/parser.h"
#include "re2/re2.h"
#include "vm/api.h"
#include "vm/check_failure.h"

namespace hlovm {
namespace {

// Sets `replica_count=N` in the module header (adding it when absent).
std::string OverrideReplicaCount(const std::string& text, int64_t replicas) {
  const size_t start = text.find("HloModule");
  if (start == std::string::npos) return text;
  size_t end = text.find('\n', start);
  if (end == std::string::npos) end = text.size();
  std::string header = text.substr(start, end - start);
  static const LazyRE2 kReplicaCount = {R"(replica_count=\d+)"};
  const std::string replacement = absl::StrCat("replica_count=", replicas);
  if (!RE2::Replace(&header, *kReplicaCount, replacement)) {
    // "HloModule name, attr=..." or "HloModule name": append the attribute.
    header = absl::StrCat(header, ", ", replacement);
  }
  return absl::StrCat(text.substr(0, start), header, text.substr(end));
}

// The checks of a case (FORMAT.md): custom-calls in ENTRY with one of the
// three check targets. Checks anywhere else are not counted.
int CountChecks(const HloModule& module) {
  if (module.entry() == nullptr) return 0;
  int checks = 0;
  for (const auto& instr : module.entry()->instructions()) {
    if (instr->opcode() != HloOpcode::kCustomCall) continue;
    const std::string& target = instr->attrs().custom_call_target;
    checks += target == "check.expect_eq" || target == "check.expect_close" ||
              target == "check.expect_almost_eq";
  }
  return checks;
}

void Classify(const absl::Status& status, CaseResult* result) {
  if (status.ok()) {
    result->outcome = CaseOutcome::kPassed;
    return;
  }
  result->message = absl::StrCat(absl::StatusCodeToString(status.code()), ": ", status.message());
  if (std::optional<CheckFailure> failure = GetCheckFailure(status)) {
    result->outcome = CaseOutcome::kFailed;
    result->check = std::move(failure);
  } else if (status.code() == absl::StatusCode::kFailedPrecondition &&
             absl::StrContains(status.message(), "check.")) {
    result->outcome = CaseOutcome::kFailed;
  } else if (status.code() == absl::StatusCode::kUnimplemented) {
    result->outcome = CaseOutcome::kSkipped;
  } else {
    result->outcome = CaseOutcome::kErrored;
  }
}

// --compare-passes: the module compiled without passes must give the same
// ROOT bits on every device as the one with them (`with`).
void ComparePasses(const std::string& text, const CaseInfo& info, const SingleCaseOptions& options,
                   const std::vector<std::optional<Literal>>& with, CaseResult* result) {
  CompileOptions plain;
  plain.file_name = info.path;
  plain.passes = "none";
  plain.fusion = false;
  auto exe = Executable::FromText(text, plain);
  if (!exe.ok()) {
    result->outcome = CaseOutcome::kErrored;
    result->compare_mismatch = true;
    result->message = absl::StrCat("compiling with --passes=none failed: ", exe.status().message());
    return;
  }
  const int64_t devices = static_cast<int64_t>(with.size());
  // The same devices on a collective bus of their own.
  ReplicatedOptions replicated;
  replicated.threads = options.threads;
  replicated.flush_denormals = options.flush_denormals;
  const std::vector<const Literal*> no_arguments;
  std::vector<absl::StatusOr<Literal>> without =
      ExecuteReplicated(**exe, absl::MakeConstSpan(&no_arguments, 1), replicated);
  for (int64_t d = 0; d < devices; ++d) {
    if (!with[d].has_value()) continue;
    if (!without[d].ok()) {
      result->outcome = CaseOutcome::kFailed;
      result->compare_mismatch = true;
      result->message = absl::StrCat("with --passes=none the run fails: ",
                                     without[d].status().message());
      return;
    }
    if (!without[d]->BitwiseEqual(*with[d])) {
      result->outcome = CaseOutcome::kFailed;
      result->compare_mismatch = true;
      result->message = absl::StrCat("ROOT of device ", d, " differs between passes and --passes=none");
      result->root = absl::StrCat("passes: ", with[d]->ToString().substr(0, 1000),
                                  "\nnone: ", without[d]->ToString().substr(0, 1000));
      return;
    }
  }
}

}  // namespace

CaseResult RunCaseInProcess(const CaseInfo& info, const SingleCaseOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  CaseResult result;
  result.info = info;
  auto finish = [&]() {
    result.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
  };
  std::ifstream in(info.path);
  if (!in) {
    result.outcome = CaseOutcome::kErrored;
    result.message = absl::StrCat(info.path, ": cannot read");
    return finish();
  }
  std::stringstream buffer;
  buffer << in.rdbuf();
  std::string text = buffer.str();
  if (options.replicas > 0) text = OverrideReplicaCount(text, options.replicas);

  CompileOptions compile_options;
  compile_options.file_name = info.path;
  // Parsed here (Executable::FromText would parse it the same way) to see
  // its checks before the passes run.
  ParseOptions parse_options;
  parse_options.file_name = info.path;
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text, parse_options);
  if (module.ok() && CountChecks(**module) == 0) {
    result.outcome = CaseOutcome::kErrored;
    result.message =
        "the case has no checks (no check.expect_eq, check.expect_close or "
        "check.expect_almost_eq custom-call in ENTRY), so it tests nothing";
    return finish();
  }
  auto executable = module.ok() ? Executable::FromModule(*std::move(module), compile_options)
                                : absl::StatusOr<std::unique_ptr<Executable>>(module.status());
  if (!executable.ok()) {
    Classify(executable.status(), &result);
    if (result.outcome == CaseOutcome::kPassed) result.outcome = CaseOutcome::kErrored;
    return finish();
  }
  const Executable& exe = **executable;
  const int64_t replicas = std::max<int64_t>(1, exe.module().replica_count);
  const int64_t partitions = std::max<int64_t>(1, exe.module().num_partitions);
  const int64_t devices = replicas * partitions;

  std::vector<absl::Status> statuses(devices);
  std::vector<std::string> roots(devices);
  std::optional<Literal> first_root;
  std::vector<std::optional<Literal>> pass_roots(options.compare_passes ? devices : 0);
  {
    // Every device is an instance of its own on one collective bus.
    ReplicatedOptions replicated;
    replicated.threads = options.threads;
    replicated.flush_denormals = options.flush_denormals;
    const std::vector<const Literal*> no_arguments;
    std::vector<absl::StatusOr<Literal>> values =
        ExecuteReplicated(exe, absl::MakeConstSpan(&no_arguments, 1), replicated);
    for (int64_t device = 0; device < devices; ++device) {
      statuses[device] = values[device].status();
      if (!values[device].ok()) continue;
      roots[device] = values[device]->ToString();
      if (options.compare_passes) pass_roots[device] = values[device]->Clone();
      if (device == 0 && options.compare_threads) first_root = std::move(*values[device]);
    }
  }
  // The first device that failed decides; a failed check beats other errors.
  absl::Status decisive = absl::OkStatus();
  // Instances cancelled because another failed do not decide.
  for (const absl::Status& s : statuses) {
    if (s.ok()) continue;
    const bool weak = decisive.ok() || decisive.code() == absl::StatusCode::kCancelled ||
                      decisive.code() == absl::StatusCode::kAborted;
    if (weak || (GetCheckFailure(s) && !GetCheckFailure(decisive))) decisive = s;
  }
  Classify(decisive, &result);
  if (result.outcome == CaseOutcome::kPassed && options.compare_threads && devices == 1 &&
      first_root.has_value()) {
    // The same module must give the same bits whatever the thread count.
    // Each rerun compiles afresh: a program's rng state carries over from
    // one run of an executable to the next.
    ExecuteOptions one, two;
    one.threads = 1;
    two.threads = 2;
    one.flush_denormals = two.flush_denormals = options.flush_denormals;
    auto exe_one = Executable::FromText(text, compile_options);
    auto exe_two = Executable::FromText(text, compile_options);
    absl::StatusOr<Literal> a = exe_one.ok() ? (*exe_one)->Execute({}, one)
                                             : absl::StatusOr<Literal>(exe_one.status());
    absl::StatusOr<Literal> b = exe_two.ok() ? (*exe_two)->Execute({}, two)
                                             : absl::StatusOr<Literal>(exe_two.status());
    if (!a.ok() || !b.ok()) {
      result.outcome = CaseOutcome::kErrored;
      result.compare_mismatch = true;
      result.message = absl::StrCat("rerun with 1 or 2 threads failed: ",
                                    (!a.ok() ? a.status() : b.status()).message());
    } else if (!a->BitwiseEqual(*b) || !a->BitwiseEqual(*first_root)) {
      result.outcome = CaseOutcome::kFailed;
      result.compare_mismatch = true;
      result.message = "ROOT differs between --threads=1 and --threads=2";
      result.root = absl::StrCat("1 thread: ", a->ToString(), "\n2 threads: ", b->ToString());
    }
  }
  if (result.outcome == CaseOutcome::kPassed && options.compare_passes) {
    ComparePasses(text, info, options, pass_roots, &result);
  }
  if (result.outcome != CaseOutcome::kPassed && !roots[0].empty()) {
    result.root = roots[0].size() > 2000 ? roots[0].substr(0, 2000) + "..." : roots[0];
  }
  return finish();
}

}  // namespace hlovm
