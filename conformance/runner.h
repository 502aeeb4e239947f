// The conformance suite runner: finds self-checking `.hlo` cases
// (../shared/conformance/FORMAT.md), runs each in a child process of its own
// (so that a crash, a hang or running out of memory marks one case errored and
// the run goes on), and reports per case, per family and in total, as text,
// JUnit XML and JSON.
//
// The child is a fork of the runner that calls RunCaseInProcess (the
// default of `hlovm conformance`), or any command that prints a result with
// SerializeCaseResult, such as the hlovm binary's hidden single-case mode
// (`hlovm conformance --conformance_child FILE`).
#ifndef HLOVM_CONFORMANCE_RUNNER_H_
#define HLOVM_CONFORMANCE_RUNNER_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "vm/check_failure.h"

namespace hlovm {

// One case file and what its `//` header lines say.
struct CaseInfo {
  std::string path;    // as found
  std::string name;    // path relative to the argument it was found under, without ".hlo"
  std::string family;  // from `// family: NAME`; "unknown" when missing
  // From `// note: upstream marks this test RUN-DISABLED(...)` or
  // `// note: fragile: ...`: reported apart; failing it is not a conformance
  // failure.
  bool set_apart = false;
  std::string note;
};

enum class CaseOutcome { kPassed, kFailed, kErrored, kSkipped };
std::string_view CaseOutcomeName(CaseOutcome outcome);

// How many cases ended each way.
struct OutcomeCounts {
  int passed = 0, failed = 0, errored = 0, skipped = 0;
  int total() const { return passed + failed + errored + skipped; }
  void Add(CaseOutcome outcome) {
    switch (outcome) {
      case CaseOutcome::kPassed:
        ++passed;
        break;
      case CaseOutcome::kFailed:
        ++failed;
        break;
      case CaseOutcome::kErrored:
        ++errored;
        break;
      case CaseOutcome::kSkipped:
        ++skipped;
        break;
    }
  }
};

struct CaseResult {
  CaseInfo info;
  CaseOutcome outcome = CaseOutcome::kErrored;
  // One line: why it failed, errored or was skipped.
  std::string message;
  std::optional<CheckFailure> check;  // the first failed check, when known
  std::string root;                   // ROOT's value on failure (informative; may be cut)
  // The case's checks passed, but its rerun for --compare_threads or
  // --compare_passes gave other ROOT bits or failed (outcome is then kFailed
  // or kErrored). Such a case fails the run whatever --min_pass_rate allows.
  bool compare_mismatch = false;
  double seconds = 0;
};

// Finds every `.hlo` file under `paths` (files are taken as they are,
// directories recursively), sorted by name, and reads their header lines.
// Each directory is walked once (symbolic links are followed, but a
// directory already walked, known by device and inode, is not entered
// again, so a link loop ends), and each file is one case however many paths
// reach it (links, an argument given twice). Errors: a path that is missing,
// a dangling link, a `.hlo` entry that is not a regular file (a FIFO, a
// socket), a directory argument without `.hlo` files, no cases at all.
absl::StatusOr<std::vector<CaseInfo>> DiscoverCases(const std::vector<std::string>& paths);
// Reads the `//` header lines of `text`.
void ParseCaseHeader(std::string_view text, CaseInfo* info);

struct SingleCaseOptions {
  int64_t replicas = 0;  // > 0: overrides the module's replica_count
  int threads = 1;       // executor threads per device
  // Runs a passing single-device case again with 1 and 2 threads and fails
  // it unless the two ROOT values are bitwise identical.
  bool compare_threads = false;
  // Compiles a passing case again without the pass pipeline
  // (--passes=none) and fails it unless every device's ROOT value is
  // bitwise identical to the one with passes.
  bool compare_passes = false;
  // Every run flushes subnormals to zero (ExecuteOptions::flush_denormals).
  bool flush_denormals = false;
};

// Compiles and runs one case in this process and evaluates its checks.
// Never fails itself: every problem is in the result. Unimplemented features
// give kSkipped, failed checks kFailed, everything else that goes wrong
// kErrored, a module without checks (FORMAT.md: a `check.expect_eq`,
// `check.expect_close` or `check.expect_almost_eq` custom-call in ENTRY)
// included: it tests nothing.
CaseResult RunCaseInProcess(const CaseInfo& info, const SingleCaseOptions& options);

// The line protocol between the child and the runner.
std::string SerializeCaseResult(const CaseResult& result);
// Parses what a child printed; `info` is the case it ran.
absl::StatusOr<CaseResult> ParseCaseResult(std::string_view text, const CaseInfo& info);

struct RunnerOptions {
  int jobs = 1;
  double timeout_seconds = 60;
  // RLIMIT_AS of each child; 0: none. Built with a sanitizer (which
  // reserves terabytes of address space) the runner instead kills a child
  // whose resident memory grows past it, checked as it polls (every 50 ms).
  int64_t memory_limit_mb = 4096;
  bool fail_fast = false;
  // The command that runs one case: argv, with the case's path appended.
  std::vector<std::string> child_command;
  // When set, each case runs in a forked child (no exec) that calls this
  // and prints its result; child_command is then unused. Only for a parent
  // that has started no threads.
  std::function<CaseResult(const CaseInfo&)> fork_function;
  // Called after each case completes (for progress and failure lines).
  std::function<void(const CaseResult&, int done, int total)> on_result;
};

// Runs `cases` in child processes, at most `jobs` at a time. Results are in
// the order of `cases`; with fail_fast, cases not started after the first
// failure are left out.
std::vector<CaseResult> RunCases(const std::vector<CaseInfo>& cases, const RunnerOptions& options);

// Per-failure line: "FAILED name: check ... at {i,j}: actual A, expected E (ulp ...)".
std::string FailureLine(const CaseResult& result);
// The summary table per family, the set-apart cases, and totals.
std::string SummaryTable(const std::vector<CaseResult>& results);
// True when some case ran and no case that is not set apart failed or
// errored.
bool AllPassed(const std::vector<CaseResult>& results);
// Pass rate over all cases, in [0, 1] (0 when there are none: nothing
// passed).
double PassRate(const std::vector<CaseResult>& results);
// How many cases that are not set apart have compare_mismatch.
int CompareMismatches(const std::vector<CaseResult>& results);
// Whether the run succeeds: with min_pass_rate < 0, AllPassed; otherwise
// PassRate reaches min_pass_rate. Either way no case may have a
// compare mismatch (a threshold allows failed checks, never results that
// change with the thread count or the pass pipeline).
bool RunSucceeded(const std::vector<CaseResult>& results, double min_pass_rate);

std::string JunitXml(const std::vector<CaseResult>& results);
std::string ResultsJson(const std::vector<CaseResult>& results);

}  // namespace hlovm

#endif  // HLOVM_CONFORMANCE_RUNNER_H_
