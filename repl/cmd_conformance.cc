// `hlovm conformance PATH...`: runs self-checking conformance cases
// (../shared/conformance/FORMAT.md), each in a child process of its own.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "conformance/runner.h"
#include "re2/re2.h"
#include "repl/command.h"

ABSL_FLAG(std::string, filter, "", "conformance: run only cases whose name matches this RE2 regex");
ABSL_FLAG(int, jobs, 0, "conformance: cases run in parallel (0: one per core)");
ABSL_FLAG(double, timeout, 120, "conformance: seconds a case may run before it is killed (errored)");
ABSL_FLAG(int64_t, memory_limit_mb, 8192,
          "conformance: address-space limit of each case's process in MiB (0: none)");
ABSL_FLAG(std::string, junit, "", "conformance: write a JUnit XML report to this file");
ABSL_FLAG(std::string, json, "", "conformance, bench: write a JSON report to this file");
ABSL_FLAG(bool, list, false, "conformance: list the cases (after --filter) instead of running them");
ABSL_FLAG(bool, fail_fast, false, "conformance: stop at the first failed or errored case");
ABSL_FLAG(int64_t, replicas, 0, "run, conformance: run with this many replicas (0: the module's replica_count)");
ABSL_FLAG(double, min_pass_rate, -1,
          "conformance: when >= 0, succeed when at least this fraction of the cases passed "
          "(instead of requiring every case to pass); for CI thresholds");
ABSL_FLAG(bool, verbose, false, "conformance: also print a line for every passing case");
ABSL_FLAG(bool, compare_threads, false,
          "conformance: also run each passing case with 1 and 2 threads and fail it unless the "
          "results are bitwise identical");
ABSL_FLAG(bool, compare_passes, false,
          "conformance: also run each passing case compiled with --passes=none and fail it "
          "unless the results are bitwise identical");
ABSL_FLAG(bool, exec_children, false,
          "conformance: run each case by executing hlovm anew instead of in a fork");
ABSL_FLAG(bool, conformance_child, false, "(internal) run the one case given and print its result");

ABSL_DECLARE_FLAG(int, threads);
ABSL_DECLARE_FLAG(bool, flush_denormals);

namespace hlovm {
namespace {

std::string SelfPath() {
  char buffer[4096];
  const ssize_t n = readlink("/proc/self/exe", buffer, sizeof(buffer) - 1);
  if (n <= 0) return "";
  return std::string(buffer, n);
}

int RunChild(const std::vector<std::string>& args) {
  if (args.size() != 1) {
    std::fprintf(stderr, "hlovm conformance --conformance_child takes exactly one case file\n");
    return kExitBadInput;
  }
  CaseInfo info;
  info.path = args[0];
  info.name = args[0];
  SingleCaseOptions options;
  options.replicas = absl::GetFlag(FLAGS_replicas);
  options.threads = absl::GetFlag(FLAGS_threads);
  options.compare_threads = absl::GetFlag(FLAGS_compare_threads);
  options.compare_passes = absl::GetFlag(FLAGS_compare_passes);
  options.flush_denormals = absl::GetFlag(FLAGS_flush_denormals);
  CaseResult result = RunCaseInProcess(info, options);
  const std::string text = SerializeCaseResult(result);
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
  return kExitOk;
}

bool WriteFile(const std::string& path, const std::string& contents) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << contents;
  out.close();
  if (!out) {
    std::fprintf(stderr, "hlovm conformance: cannot write %s\n", path.c_str());
    return false;
  }
  return true;
}

int RunConformance(const std::vector<std::string>& args) {
  if (absl::GetFlag(FLAGS_conformance_child)) return RunChild(args);
  if (args.empty()) {
    std::fprintf(stderr, "usage: hlovm conformance [flags] DIR_OR_FILE...\n");
    return kExitBadInput;
  }
  auto discovered = DiscoverCases(args);
  if (!discovered.ok()) {
    std::fprintf(stderr, "hlovm conformance: %s\n", std::string(discovered.status().message()).c_str());
    return kExitBadInput;
  }
  std::vector<CaseInfo> cases;
  const std::string filter = absl::GetFlag(FLAGS_filter);
  if (!filter.empty()) {
    RE2 re(filter);
    if (!re.ok()) {
      std::fprintf(stderr, "hlovm conformance: bad --filter regex: %s\n", re.error().c_str());
      return kExitBadInput;
    }
    for (CaseInfo& c : *discovered) {
      if (RE2::PartialMatch(c.name, re)) cases.push_back(std::move(c));
    }
  } else {
    cases = std::move(*discovered);
  }
  if (cases.empty()) {  // never "passed 0 of 0"
    std::fprintf(stderr, "hlovm conformance: no case name matches --filter=%s\n", filter.c_str());
    return kExitBadInput;
  }
  if (absl::GetFlag(FLAGS_list)) {
    for (const CaseInfo& c : cases) {
      std::printf("%s\t%s%s\n", c.name.c_str(), c.family.c_str(),
                  c.set_apart ? ("\t(set apart: " + c.note + ")").c_str() : "");
    }
    return kExitOk;
  }

  RunnerOptions options;
  int jobs = absl::GetFlag(FLAGS_jobs);
  if (jobs <= 0) jobs = static_cast<int>(std::max(1L, sysconf(_SC_NPROCESSORS_ONLN)));
  options.jobs = jobs;
  options.timeout_seconds = absl::GetFlag(FLAGS_timeout);
  options.memory_limit_mb = absl::GetFlag(FLAGS_memory_limit_mb);
  options.fail_fast = absl::GetFlag(FLAGS_fail_fast);
  const std::string self = SelfPath();
  if (self.empty()) {
    std::fprintf(stderr, "hlovm conformance: cannot find the hlovm binary (/proc/self/exe)\n");
    return kExitBadInput;
  }
  // With several jobs, each case uses one executor thread, so that the jobs
  // share the cores instead of oversubscribing them.
  int threads = absl::GetFlag(FLAGS_threads);
  if (threads <= 0 && jobs > 1) threads = 1;
  options.child_command = {self, "conformance", "--conformance_child",
                           absl::StrCat("--replicas=", absl::GetFlag(FLAGS_replicas)),
                           absl::StrCat("--threads=", threads),
                           absl::StrCat("--compare_threads=", absl::GetFlag(FLAGS_compare_threads))};
  options.child_command.push_back(
      absl::StrCat("--compare_passes=", absl::GetFlag(FLAGS_compare_passes)));
  options.child_command.push_back(
      absl::StrCat("--flush_denormals=", absl::GetFlag(FLAGS_flush_denormals)));
  // By default each case runs in a fork of this process (no exec: about
  // 40 ms less per case); --exec_children runs the binary anew instead.
  SingleCaseOptions single;
  single.replicas = absl::GetFlag(FLAGS_replicas);
  single.threads = threads;
  single.compare_threads = absl::GetFlag(FLAGS_compare_threads);
  single.compare_passes = absl::GetFlag(FLAGS_compare_passes);
  single.flush_denormals = absl::GetFlag(FLAGS_flush_denormals);
  if (!absl::GetFlag(FLAGS_exec_children)) {
    options.fork_function = [single](const CaseInfo& info) { return RunCaseInProcess(info, single); };
  }

  const bool terminal = isatty(fileno(stderr));
  const bool verbose = absl::GetFlag(FLAGS_verbose);
  OutcomeCounts counts;
  const auto start = std::chrono::steady_clock::now();
  options.on_result = [&](const CaseResult& r, int done, int total) {
    counts.Add(r.outcome);
    if (terminal) std::fprintf(stderr, "\r\033[K");
    if (r.outcome == CaseOutcome::kFailed || r.outcome == CaseOutcome::kErrored ||
        verbose) {
      std::printf("%s\n", FailureLine(r).c_str());
      std::fflush(stdout);
    }
    if (terminal) {
      constexpr int kWidth = 30;
      const int filled = total ? kWidth * done / total : kWidth;
      std::fprintf(stderr, "[%s%s] %d/%d  passed %d  failed %d  errored %d  skipped %d",
                   std::string(filled, '#').c_str(), std::string(kWidth - filled, ' ').c_str(),
                   done, total, counts.passed, counts.failed, counts.errored, counts.skipped);
      std::fflush(stderr);
    }
  };
  std::vector<CaseResult> results = RunCases(cases, options);
  if (terminal) std::fprintf(stderr, "\r\033[K");
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  std::printf("\n%s", SummaryTable(results).c_str());
  std::printf("wall time %.1fs, --jobs=%d\n", seconds, jobs);
  if (results.size() < cases.size()) {
    std::printf("stopped early (--fail-fast): %zu of %zu cases not run\n",
                cases.size() - results.size(), cases.size());
  }
  bool ok = true;
  if (!absl::GetFlag(FLAGS_junit).empty()) ok &= WriteFile(absl::GetFlag(FLAGS_junit), JunitXml(results));
  if (!absl::GetFlag(FLAGS_json).empty()) ok &= WriteFile(absl::GetFlag(FLAGS_json), ResultsJson(results));
  if (!ok) return kExitBadInput;
  if (const double min_rate = absl::GetFlag(FLAGS_min_pass_rate); min_rate >= 0) {
    const double rate = PassRate(results);
    std::printf("pass rate %.4f, required %.4f: %s\n", rate, min_rate,
                rate + 1e-12 >= min_rate ? "ok" : "BELOW THE THRESHOLD");
    return rate + 1e-12 >= min_rate ? kExitOk : kExitFailed;
  }
  return AllPassed(results) ? kExitOk : kExitFailed;
}

}  // namespace

HLOVM_REGISTER_COMMAND(conformance, "conformance", "hlovm conformance [flags] DIR_OR_FILE...",
                       "run self-checking conformance cases (--filter, --jobs, --timeout, --junit, "
                       "--json, --list, --fail_fast, --replicas)",
                       RunConformance);

}  // namespace hlovm
