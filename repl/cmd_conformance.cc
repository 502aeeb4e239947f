// `hlovm conformance PATH...`: runs self-checking conformance cases
// (../shared/conformance/FORMAT.md), each in a child process of its own.
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "conformance/runner.h"
#include "re2/re2.h"
#include "repl/command.h"
#include "repl/options.h"

namespace hlovm {
namespace {

std::string SelfPath() {
  char buffer[4096];
  const ssize_t n = readlink("/proc/self/exe", buffer, sizeof(buffer) - 1);
  if (n <= 0) return "";
  return std::string(buffer, n);
}

// How one case runs, from the flags; `threads` is the executor threads of
// each case.
SingleCaseOptions CaseOptions(const cli::Flags& flags, int threads) {
  SingleCaseOptions options;
  options.replicas = flags.replicas;
  options.threads = threads;
  options.compare_threads = flags.compare_threads;
  options.compare_passes = flags.compare_passes;
  options.flush_denormals = flags.flush_denormals;
  return options;
}

int RunChild(const std::vector<std::string>& args, const cli::Flags& flags) {
  if (args.size() != 1) {
    std::fprintf(stderr, "hlovm conformance --conformance_child takes exactly one case file\n");
    return kExitBadInput;
  }
  CaseInfo info;
  info.path = args[0];
  info.name = args[0];
  CaseResult result = RunCaseInProcess(info, CaseOptions(flags, flags.threads));
  const std::string text = SerializeCaseResult(result);
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
  return kExitOk;
}

// The module's replica_count x num_partitions, from its header line (1
// when it names neither).
int64_t InstancesOf(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("HloModule", 0) != 0) continue;
    int64_t replicas = 1, partitions = 1;
    RE2::PartialMatch(line, R"(replica_count=(\d+))", &replicas);
    RE2::PartialMatch(line, R"(num_partitions=(\d+))", &partitions);
    return std::max<int64_t>(1, replicas) * std::max<int64_t>(1, partitions);
  }
  return 1;
}

std::string ShellQuote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// Runs `command` with sh; returns its stdout and exit code.
std::pair<std::string, int> RunCommand(const std::string& command) {
  std::string out;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return {"", -1};
  char buffer[65536];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof(buffer), pipe)) > 0) out.append(buffer, n);
  const int status = pclose(pipe);
  return {out, WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status)};
}

// --mpi: runs the case with `hlovm run` in one process and under mpirun
// with `per_process` instances a process; it passes when both print the
// same bytes and exit with the same code.
CaseResult RunCaseUnderMpi(const CaseInfo& info, const std::string& self, int64_t per_process,
                           const std::string& mpirun_args, double timeout) {
  const auto start = std::chrono::steady_clock::now();
  CaseResult result;
  result.info = info;
  const int64_t instances = InstancesOf(info.path);
  if (instances % per_process != 0) per_process = 1;
  const int64_t processes = instances / per_process;
  const std::string run = absl::StrCat(ShellQuote(self), " run --collective_timeout=",
                                       std::max(1.0, timeout / 4), " ", ShellQuote(info.path));
  auto [one, one_code] = RunCommand(run + " 2>/dev/null");
  // A session directory of its own: launches at the same moment race to
  // create Open MPI's shared one.
  char session[] = "/tmp/hlovm_mpi_XXXXXX";
  const bool have_session = mkdtemp(session) != nullptr;
  const std::string errors = have_session ? absl::StrCat(session, "/stderr") : "/dev/null";
  const std::string mpirun = absl::StrCat(
      have_session ? absl::StrCat("OMPI_MCA_orte_tmpdir_base=", session, " ") : "",
      "timeout -k 5 ", static_cast<int>(timeout), " mpirun ",
      geteuid() == 0 ? "--allow-run-as-root " : "", "--oversubscribe -n ", processes, " ",
      mpirun_args, " ", run, " 2>", errors, " </dev/null");
  auto [many, many_code] = RunCommand(mpirun);
  std::string stderr_text;
  if (have_session) {
    std::ifstream in(errors);
    std::stringstream text;
    text << in.rdbuf();
    stderr_text = text.str();
    std::error_code ec;
    std::filesystem::remove_all(session, ec);
  }
  if (one == many && one_code == many_code) {
    result.outcome = CaseOutcome::kPassed;
  } else {
    result.outcome = CaseOutcome::kFailed;
    size_t at = 0;
    while (at < one.size() && at < many.size() && one[at] == many[at]) ++at;
    result.message = absl::StrCat(
        "under mpirun -n ", processes, " (", per_process, " instance",
        per_process == 1 ? "" : "s", " a process): exit code ", many_code, " (one process: ",
        one_code, ")", one == many ? "" : absl::StrCat(", stdout differs from byte ", at),
        stderr_text.empty() ? "" : absl::StrCat("; stderr: ", stderr_text.substr(0, 1500)));
    result.root = many.substr(0, 2000);
  }
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
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

int RunConformance(const std::vector<std::string>& args, const cli::Options& flag_options) {
  const cli::Flags& flags = flag_options.flags;
  if (flags.conformance_child) return RunChild(args, flags);
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
  const std::string filter = flags.filter;
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
  if (flags.mpi) {
    // Only cases with several instances run under mpirun.
    std::vector<CaseInfo> multi;
    for (CaseInfo& c : cases) {
      if (InstancesOf(c.path) > 1) multi.push_back(std::move(c));
    }
    cases = std::move(multi);
  }
  if (cases.empty()) {  // never "passed 0 of 0"
    std::fprintf(stderr, "hlovm conformance: no case name matches --filter=%s\n", filter.c_str());
    return kExitBadInput;
  }
  if (flags.list) {
    for (const CaseInfo& c : cases) {
      std::printf("%s\t%s%s\n", c.name.c_str(), c.family.c_str(),
                  c.set_apart ? ("\t(set apart: " + c.note + ")").c_str() : "");
    }
    return kExitOk;
  }

  RunnerOptions options;
  int jobs = flags.jobs;
  if (jobs <= 0) jobs = static_cast<int>(std::max(1L, sysconf(_SC_NPROCESSORS_ONLN)));
  options.jobs = jobs;
  options.timeout_seconds = flags.timeout;
  options.memory_limit_mb = flags.memory_limit_mb;
  options.fail_fast = flags.fail_fast;
  const std::string self = SelfPath();
  if (self.empty()) {
    std::fprintf(stderr, "hlovm conformance: cannot find the hlovm binary (/proc/self/exe)\n");
    return kExitBadInput;
  }
  // With several jobs, each case uses one executor thread, so that the jobs
  // share the cores instead of oversubscribing them.
  int threads = flags.threads;
  if (threads <= 0 && jobs > 1) threads = 1;
  options.child_command = {self,
                           "conformance",
                           "--conformance_child",
                           absl::StrCat("--replicas=", flags.replicas),
                           absl::StrCat("--threads=", threads),
                           absl::StrCat("--compare_threads=", flags.compare_threads),
                           absl::StrCat("--compare_passes=", flags.compare_passes),
                           absl::StrCat("--flush_denormals=", flags.flush_denormals)};
  // By default each case runs in a fork of this process (no exec: about
  // 40 ms less per case); --exec_children runs the binary anew instead.
  const SingleCaseOptions single = CaseOptions(flags, threads);
  if (!flags.exec_children) {
    options.fork_function = [single](const CaseInfo& info) { return RunCaseInProcess(info, single); };
  }
  if (flags.mpi) {
    const int64_t per_process = flags.mpi_instances;
    const std::string mpirun_args = flags.mpirun_args;
    const double timeout = flags.timeout;
    options.fork_function = [=](const CaseInfo& info) {
      return RunCaseUnderMpi(info, self, per_process, mpirun_args, timeout);
    };
    std::printf("%zu multi-instance case%s under mpirun, %lld instance%s a process%s%s\n",
                cases.size(), cases.size() == 1 ? "" : "s",
                static_cast<long long>(per_process), per_process == 1 ? "" : "s",
                mpirun_args.empty() ? "" : ", mpirun ", mpirun_args.c_str());
    std::fflush(stdout);
  }

  const bool terminal = isatty(fileno(stderr));
  const bool verbose = flags.verbose;
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
  if (!flags.junit.empty()) ok &= WriteFile(flags.junit, JunitXml(results));
  if (!flags.json.empty()) ok &= WriteFile(flags.json, ResultsJson(results));
  if (!ok) return kExitBadInput;
  const double min_rate = flags.min_pass_rate;
  if (min_rate >= 0) {
    const double rate = PassRate(results);
    std::printf("pass rate %.4f, required %.4f: %s\n", rate, min_rate,
                rate + 1e-12 >= min_rate ? "ok" : "BELOW THE THRESHOLD");
  }
  if (const int mismatches = CompareMismatches(results); mismatches > 0) {
    std::printf("%d case%s gave other results with --compare_threads or --compare_passes: "
                "FAILED whatever the pass rate\n",
                mismatches, mismatches == 1 ? "" : "s");
  }
  return RunSucceeded(results, min_rate) ? kExitOk : kExitFailed;
}

}  // namespace

HLOVM_REGISTER_COMMAND(conformance, "conformance", "hlovm conformance [flags] DIR_OR_FILE...",
                       "run self-checking conformance cases (--filter, --jobs, --timeout, --junit, "
                       "--json, --list, --fail_fast, --replicas, --mpi[=N])",
                       {cli::FlagGroup::kExecute, cli::FlagId::kReplicas, cli::FlagId::kFilter,
                        cli::FlagId::kJobs, cli::FlagId::kTimeout, cli::FlagId::kMemoryLimitMb,
                        cli::FlagId::kJunit, cli::FlagId::kJson, cli::FlagId::kList,
                        cli::FlagId::kFailFast, cli::FlagId::kMinPassRate, cli::FlagId::kVerbose,
                        cli::FlagId::kCompareThreads, cli::FlagId::kComparePasses,
                        cli::FlagId::kExecChildren, cli::FlagId::kConformanceChild,
                        cli::FlagId::kMpi, cli::FlagId::kMpiInstances, cli::FlagId::kMpirunArgs},
                       RunConformance);

}  // namespace hlovm
