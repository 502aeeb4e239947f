#include "conformance/runner.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define HLOVM_CONFORMANCE_SANITIZED 1
#else
#define HLOVM_CONFORMANCE_SANITIZED 0
#endif

namespace hlovm {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

absl::string_view Sv(std::string_view s) { return absl::string_view(s.data(), s.size()); }

std::string Escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string Unescape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size()) {
      const char n = s[++i];
      out += n == 'n' ? '\n' : n == 't' ? '\t' : n == 'r' ? '\r' : n;
    } else {
      out += s[i];
    }
  }
  return out;
}

// Keeps the last `max` bytes of `text` (on a line boundary when possible).
std::string Tail(const std::string& text, size_t max) {
  if (text.size() <= max) return text;
  std::string tail = text.substr(text.size() - max);
  const size_t nl = tail.find('\n');
  if (nl != std::string::npos && nl + 1 < tail.size()) tail = tail.substr(nl + 1);
  return "..." + tail;
}

std::string OneLine(std::string_view text, size_t max = 400) {
  std::string out;
  for (char c : text) {
    if (c == '\n' || c == '\r' || c == '\t') {
      if (!out.empty() && out.back() != ' ') out += ' ';
    } else {
      out += c;
    }
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  if (out.size() > max) out = out.substr(0, max) + "...";
  return out;
}

std::string SignalName(int sig) {
  switch (sig) {
    case SIGSEGV:
      return "SIGSEGV";
    case SIGABRT:
      return "SIGABRT";
    case SIGBUS:
      return "SIGBUS";
    case SIGFPE:
      return "SIGFPE";
    case SIGILL:
      return "SIGILL";
    case SIGKILL:
      return "SIGKILL";
    case SIGTERM:
      return "SIGTERM";
    default:
      return absl::StrCat("signal ", sig);
  }
}

}  // namespace

std::string_view CaseOutcomeName(CaseOutcome outcome) {
  switch (outcome) {
    case CaseOutcome::kPassed:
      return "passed";
    case CaseOutcome::kFailed:
      return "failed";
    case CaseOutcome::kErrored:
      return "errored";
    case CaseOutcome::kSkipped:
      return "skipped";
  }
  return "errored";
}

void ParseCaseHeader(std::string_view text, CaseInfo* info) {
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    absl::string_view line = absl::StripAsciiWhitespace(Sv(text.substr(pos, end - pos)));
    pos = end + 1;
    if (line.empty()) continue;
    if (!absl::ConsumePrefix(&line, "//")) break;  // the header is the leading comment block
    line = absl::StripLeadingAsciiWhitespace(line);
    if (absl::ConsumePrefix(&line, "family:")) {
      info->family = std::string(absl::StripAsciiWhitespace(line));
    } else if (absl::ConsumePrefix(&line, "note:")) {
      line = absl::StripAsciiWhitespace(line);
      if (absl::StrContains(line, "RUN-DISABLED") || absl::StartsWith(line, "fragile")) {
        info->set_apart = true;
        if (!info->note.empty()) info->note += "; ";
        info->note += std::string(line);
      }
    }
  }
  if (info->family.empty()) info->family = "unknown";
}

absl::StatusOr<std::vector<CaseInfo>> DiscoverCases(const std::vector<std::string>& paths) {
  std::vector<CaseInfo> cases;
  for (const std::string& arg : paths) {
    std::error_code ec;
    const fs::path root(arg);
    std::vector<fs::path> files;
    if (fs::is_directory(root, ec)) {
      for (fs::recursive_directory_iterator it(root, fs::directory_options::follow_directory_symlink, ec), end;
           !ec && it != end; it.increment(ec)) {
        if (it->is_regular_file(ec) && it->path().extension() == ".hlo") files.push_back(it->path());
      }
      if (ec) return absl::InvalidArgumentError(absl::StrCat(arg, ": ", ec.message()));
    } else if (fs::is_regular_file(root, ec)) {
      files.push_back(root);
    } else {
      return absl::InvalidArgumentError(absl::StrCat(arg, ": no such file or directory"));
    }
    std::sort(files.begin(), files.end());
    for (const fs::path& file : files) {
      CaseInfo info;
      info.path = file.string();
      fs::path rel = fs::is_directory(root, ec) ? file.lexically_relative(root) : file.filename();
      rel.replace_extension();
      info.name = rel.string();
      std::ifstream in(file);
      if (!in) return absl::InvalidArgumentError(absl::StrCat(info.path, ": cannot read"));
      std::string head;
      std::string line;
      for (int i = 0; i < 64 && std::getline(in, line); ++i) absl::StrAppend(&head, line, "\n");
      ParseCaseHeader(head, &info);
      cases.push_back(std::move(info));
    }
  }
  return cases;
}

//===--- The child's line protocol -----------------------------------------===//

std::string SerializeCaseResult(const CaseResult& result) {
  std::string out = absl::StrCat("hlovm-case-result\n", "outcome\t", Sv(CaseOutcomeName(result.outcome)),
                                 "\n", "message\t", Escape(result.message), "\n", "seconds\t",
                                 absl::StrFormat("%.6f", result.seconds), "\n");
  if (result.check) absl::StrAppend(&out, "check\t", SerializeCheckFailure(*result.check), "\n");
  if (!result.root.empty()) absl::StrAppend(&out, "root\t", Escape(result.root), "\n");
  if (result.compare_mismatch) absl::StrAppend(&out, "compare_mismatch\t1\n");
  absl::StrAppend(&out, "end\n");
  return out;
}

absl::StatusOr<CaseResult> ParseCaseResult(std::string_view text, const CaseInfo& info) {
  const size_t start = text.find("hlovm-case-result\n");
  if (start == std::string_view::npos) return absl::InvalidArgumentError("no result");
  CaseResult result;
  result.info = info;
  bool have_outcome = false, have_end = false;
  for (absl::string_view line : absl::StrSplit(Sv(text.substr(start)), '\n')) {
    const size_t tab = line.find('\t');
    absl::string_view key = line.substr(0, tab);
    absl::string_view value = tab == absl::string_view::npos ? "" : line.substr(tab + 1);
    if (key == "outcome") {
      have_outcome = true;
      if (value == "passed") {
        result.outcome = CaseOutcome::kPassed;
      } else if (value == "failed") {
        result.outcome = CaseOutcome::kFailed;
      } else if (value == "skipped") {
        result.outcome = CaseOutcome::kSkipped;
      } else {
        result.outcome = CaseOutcome::kErrored;
      }
    } else if (key == "message") {
      result.message = Unescape(std::string_view(value.data(), value.size()));
    } else if (key == "seconds") {
      (void)absl::SimpleAtod(value, &result.seconds);
    } else if (key == "check") {
      result.check = ParseCheckFailure(std::string_view(value.data(), value.size()));
    } else if (key == "root") {
      result.root = Unescape(std::string_view(value.data(), value.size()));
    } else if (key == "compare_mismatch") {
      result.compare_mismatch = value == "1";
    } else if (key == "end") {
      have_end = true;
      break;
    }
  }
  if (!have_outcome || !have_end) return absl::InvalidArgumentError("incomplete result");
  return result;
}

//===--- Running children --------------------------------------------------===//

namespace {

struct Child {
  size_t case_index = 0;
  pid_t pid = -1;
  int out_fd = -1;
  int err_fd = -1;
  std::string out;
  std::string err;
  Clock::time_point start;
  bool timed_out = false;
};

void ReadAvailable(int* fd, std::string* into) {
  if (*fd < 0) return;
  char buffer[65536];
  while (true) {
    const ssize_t n = read(*fd, buffer, sizeof(buffer));
    if (n > 0) {
      // Keep memory bounded if a child floods its output.
      if (into->size() < (64u << 20)) into->append(buffer, n);
      continue;
    }
    if (n == 0) {
      close(*fd);
      *fd = -1;
    }
    return;  // EAGAIN or error: try again later
  }
}

absl::StatusOr<Child> StartChild(const RunnerOptions& options, const CaseInfo& info) {
  const std::vector<std::string>& command = options.child_command;
  const int64_t memory_limit_mb = options.memory_limit_mb;
  int out_pipe[2], err_pipe[2];
  if (pipe(out_pipe) != 0) return absl::InternalError(absl::StrCat("pipe: ", std::strerror(errno)));
  if (pipe(err_pipe) != 0) {
    close(out_pipe[0]);
    close(out_pipe[1]);
    return absl::InternalError(absl::StrCat("pipe: ", std::strerror(errno)));
  }
  std::vector<std::string> args = command;
  args.push_back(info.path);
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  // Nothing buffered may be written twice (once by each process).
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t pid = fork();
  if (pid < 0) {
    for (int fd : {out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1]}) close(fd);
    return absl::InternalError(absl::StrCat("fork: ", std::strerror(errno)));
  }
  if (pid == 0) {
    // Child: only async-signal-safe calls until exec.
    setpgid(0, 0);
    if (memory_limit_mb > 0 && !HLOVM_CONFORMANCE_SANITIZED) {
      struct rlimit limit;
      limit.rlim_cur = limit.rlim_max = static_cast<rlim_t>(memory_limit_mb) << 20;
      setrlimit(RLIMIT_AS, &limit);
    }
    const int null_fd = open("/dev/null", O_RDONLY);
    if (null_fd >= 0) dup2(null_fd, 0);
    dup2(out_pipe[1], 1);
    dup2(err_pipe[1], 2);
    close(out_pipe[0]);
    close(err_pipe[0]);
    if (options.fork_function) {
      const std::string text = SerializeCaseResult(options.fork_function(info));
      std::fflush(stdout);
      size_t done = 0;
      while (done < text.size()) {
        const ssize_t n = write(1, text.data() + done, text.size() - done);
        if (n <= 0) break;
        done += n;
      }
      _exit(0);
    }
    execv(argv[0], argv.data());
    const char msg[] = "cannot execute the case runner\n";
    (void)!write(2, msg, sizeof(msg) - 1);
    _exit(127);
  }
  setpgid(pid, pid);  // also from the parent, to avoid racing the child
  close(out_pipe[1]);
  close(err_pipe[1]);
  fcntl(out_pipe[0], F_SETFL, fcntl(out_pipe[0], F_GETFL) | O_NONBLOCK);
  fcntl(err_pipe[0], F_SETFL, fcntl(err_pipe[0], F_GETFL) | O_NONBLOCK);
  fcntl(out_pipe[0], F_SETFD, FD_CLOEXEC);
  fcntl(err_pipe[0], F_SETFD, FD_CLOEXEC);
  Child child;
  child.pid = pid;
  child.out_fd = out_pipe[0];
  child.err_fd = err_pipe[0];
  child.start = Clock::now();
  return child;
}

CaseResult FinishChild(Child& child, const CaseInfo& info, int wait_status, double timeout) {
  ReadAvailable(&child.out_fd, &child.out);
  ReadAvailable(&child.err_fd, &child.err);
  if (child.out_fd >= 0) close(child.out_fd);
  if (child.err_fd >= 0) close(child.err_fd);
  child.out_fd = child.err_fd = -1;
  const double seconds = std::chrono::duration<double>(Clock::now() - child.start).count();

  CaseResult result;
  result.info = info;
  result.seconds = seconds;
  const std::string stderr_tail = OneLine(Tail(child.err, 600), 600);
  if (child.timed_out) {
    result.outcome = CaseOutcome::kErrored;
    result.message = absl::StrFormat("timed out after %gs (killed)", timeout);
    return result;
  }
  if (WIFEXITED(wait_status)) {
    auto parsed = ParseCaseResult(child.out, info);
    if (parsed.ok()) {
      parsed->seconds = seconds;
      return *std::move(parsed);
    }
    result.outcome = CaseOutcome::kErrored;
    result.message = absl::StrCat("the case runner exited with code ", WEXITSTATUS(wait_status),
                                  " without a result", stderr_tail.empty() ? "" : ": ", stderr_tail);
    return result;
  }
  result.outcome = CaseOutcome::kErrored;
  if (WIFSIGNALED(wait_status)) {
    const int sig = WTERMSIG(wait_status);
    const bool oom = absl::StrContains(child.err, "bad_alloc") ||
                     absl::StrContains(child.err, "out of memory") ||
                     absl::StrContains(child.err, "ResourceExhausted") || sig == SIGKILL;
    result.message = absl::StrCat("crashed (", SignalName(sig), ")",
                                  oom ? ", probably out of memory" : "",
                                  stderr_tail.empty() ? "" : ": ", stderr_tail);
  } else {
    result.message = "the case runner ended abnormally";
  }
  return result;
}

volatile sig_atomic_t g_interrupted = 0;
void OnInterrupt(int) { g_interrupted = 1; }

}  // namespace

std::vector<CaseResult> RunCases(const std::vector<CaseInfo>& cases, const RunnerOptions& options) {
  std::vector<std::optional<CaseResult>> results(cases.size());
  std::vector<Child> running;
  const int jobs = std::max(1, options.jobs);
  size_t next = 0;
  int done = 0;
  bool stop = false;
  // Children run in process groups of their own (so that a case's threads
  // and anything it starts can be killed together); Ctrl-C must therefore
  // end them from here.
  g_interrupted = 0;
  struct sigaction on_interrupt = {}, old_int = {}, old_term = {};
  on_interrupt.sa_handler = OnInterrupt;
  sigaction(SIGINT, &on_interrupt, &old_int);
  sigaction(SIGTERM, &on_interrupt, &old_term);

  auto record = [&](CaseResult result, size_t index) {
    const bool bad = (result.outcome == CaseOutcome::kFailed ||
                      result.outcome == CaseOutcome::kErrored) &&
                     !result.info.set_apart;
    results[index] = std::move(result);
    ++done;
    if (options.on_result) options.on_result(*results[index], done, static_cast<int>(cases.size()));
    if (bad && options.fail_fast) stop = true;
  };

  while (true) {
    while (!stop && next < cases.size() && static_cast<int>(running.size()) < jobs) {
      auto child = StartChild(options, cases[next]);
      if (!child.ok()) {
        CaseResult result;
        result.info = cases[next];
        result.outcome = CaseOutcome::kErrored;
        result.message = std::string(child.status().message());
        record(std::move(result), next++);
        continue;
      }
      child->case_index = next++;
      running.push_back(std::move(*child));
    }
    if (running.empty()) break;

    std::vector<pollfd> fds;
    for (const Child& c : running) {
      if (c.out_fd >= 0) fds.push_back({c.out_fd, POLLIN, 0});
      if (c.err_fd >= 0) fds.push_back({c.err_fd, POLLIN, 0});
    }
    if (!fds.empty()) {
      poll(fds.data(), fds.size(), 50);
    } else {
      usleep(10000);
    }

    for (size_t i = 0; i < running.size();) {
      Child& c = running[i];
      ReadAvailable(&c.out_fd, &c.out);
      ReadAvailable(&c.err_fd, &c.err);
      int status = 0;
      pid_t waited = waitpid(c.pid, &status, WNOHANG);
      if (waited == 0 && options.timeout_seconds > 0 &&
          std::chrono::duration<double>(Clock::now() - c.start).count() > options.timeout_seconds) {
        c.timed_out = true;
        kill(-c.pid, SIGKILL);
        kill(c.pid, SIGKILL);
        waited = waitpid(c.pid, &status, 0);
      }
      if (waited == c.pid) {
        // Wait for the pipes to close (grandchildren aside) briefly.
        CaseResult result = FinishChild(c, cases[c.case_index], status, options.timeout_seconds);
        kill(-c.pid, SIGKILL);  // anything the case left behind in its group
        const size_t index = c.case_index;
        running.erase(running.begin() + i);
        record(std::move(result), index);
        continue;
      }
      ++i;
    }
    if (g_interrupted) stop = true;
    if (stop) {
      for (Child& c : running) {
        kill(-c.pid, SIGKILL);
        kill(c.pid, SIGKILL);
        int status;
        waitpid(c.pid, &status, 0);
        if (c.out_fd >= 0) close(c.out_fd);
        if (c.err_fd >= 0) close(c.err_fd);
      }
      running.clear();
      break;
    }
  }
  sigaction(SIGINT, &old_int, nullptr);
  sigaction(SIGTERM, &old_term, nullptr);
  if (g_interrupted) raise(SIGINT);
  std::vector<CaseResult> out;
  for (auto& r : results) {
    if (r) out.push_back(std::move(*r));
  }
  return out;
}

//===--- Reports -----------------------------------------------------------===//

std::string FailureLine(const CaseResult& r) {
  std::string tag = r.outcome == CaseOutcome::kFailed    ? "FAILED"
                    : r.outcome == CaseOutcome::kErrored ? "ERRORED"
                    : r.outcome == CaseOutcome::kSkipped ? "SKIPPED"
                                                         : "PASSED";
  std::string line = absl::StrCat(tag, " ", r.info.name);
  if (r.info.set_apart) absl::StrAppend(&line, " (set apart: ", r.info.note, ")");
  if (!r.check) {
    absl::StrAppend(&line, ": ", OneLine(r.message));
    return line;
  }
  CheckFailure check = *r.check;
  // Exact checks carry no distance; give the absolute one when both values
  // are plain numbers.
  double actual, expected;
  if (check.abs_difference < 0 && check.ulp_difference < 0 &&
      absl::SimpleAtod(check.actual, &actual) && absl::SimpleAtod(check.expected, &expected) &&
      std::isfinite(actual) && std::isfinite(expected)) {
    check.abs_difference = std::fabs(actual - expected);
  }
  absl::StrAppend(&line, ": ", FormatCheckFailure(check));
  return line;
}

namespace {
using Counts = OutcomeCounts;

std::string Row(std::string_view name, const Counts& c) {
  return absl::StrFormat("%-28s %6d %7d %7d %8d %8d\n", Sv(name), c.total(), c.passed, c.failed,
                         c.errored, c.skipped);
}
}  // namespace

std::string SummaryTable(const std::vector<CaseResult>& results) {
  std::map<std::string, Counts> main, apart;
  Counts main_total, apart_total;
  for (const CaseResult& r : results) {
    if (r.info.set_apart) {
      apart[r.info.family].Add(r.outcome);
      apart_total.Add(r.outcome);
    } else {
      main[r.info.family].Add(r.outcome);
      main_total.Add(r.outcome);
    }
  }
  const std::string header = absl::StrFormat("%-28s %6s %7s %7s %8s %8s\n", "family", "cases",
                                             "passed", "failed", "errored", "skipped");
  std::string out = header;
  for (const auto& [family, counts] : main) out += Row(family, counts);
  out += Row("total", main_total);
  if (apart_total.total() > 0) {
    out += "\nset apart (upstream RUN-DISABLED or fragile; failures here do not count):\n";
    out += header;
    for (const auto& [family, counts] : apart) out += Row(family, counts);
    out += Row("total set apart", apart_total);
  }
  Counts all = main_total;
  all.passed += apart_total.passed;
  all.failed += apart_total.failed;
  all.errored += apart_total.errored;
  all.skipped += apart_total.skipped;
  absl::StrAppend(&out, "\n",
                  absl::StrFormat("passed %d of %d cases (%.1f%%); %d failed, %d errored, %d skipped",
                                  all.passed, all.total(),
                                  all.total() ? 100.0 * all.passed / all.total() : 100.0,
                                  all.failed, all.errored, all.skipped),
                  "\n");
  return out;
}

bool AllPassed(const std::vector<CaseResult>& results) {
  for (const CaseResult& r : results) {
    if (r.info.set_apart) continue;
    if (r.outcome == CaseOutcome::kFailed || r.outcome == CaseOutcome::kErrored) return false;
  }
  return true;
}

double PassRate(const std::vector<CaseResult>& results) {
  if (results.empty()) return 1.0;
  int passed = 0;
  for (const CaseResult& r : results) passed += r.outcome == CaseOutcome::kPassed;
  return static_cast<double>(passed) / results.size();
}

int CompareMismatches(const std::vector<CaseResult>& results) {
  int n = 0;
  for (const CaseResult& r : results) n += r.compare_mismatch && !r.info.set_apart;
  return n;
}

bool RunSucceeded(const std::vector<CaseResult>& results, double min_pass_rate) {
  if (CompareMismatches(results) > 0) return false;
  if (min_pass_rate < 0) return AllPassed(results);
  return PassRate(results) + 1e-12 >= min_pass_rate;
}

namespace {
std::string XmlEscape(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\n':
        out += "&#10;";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 && c != '\t') {
          out += ' ';
        } else {
          out += c;
        }
    }
  }
  return out;
}

std::string JsonEscape(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          out += absl::StrFormat("\\u%04x", static_cast<int>(c));
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

std::string JsonNumber(double v) {
  if (std::isnan(v)) return "null";
  if (std::isinf(v)) return v > 0 ? "1e999" : "-1e999";
  return absl::StrFormat("%.17g", v);
}
}  // namespace

std::string JunitXml(const std::vector<CaseResult>& results) {
  std::map<std::string, std::vector<const CaseResult*>> by_family;
  Counts total;
  double total_time = 0;
  for (const CaseResult& r : results) {
    by_family[r.info.family].push_back(&r);
  }
  std::string suites;
  for (const auto& [family, list] : by_family) {
    Counts c;
    double time = 0;
    std::string cases;
    for (const CaseResult* r : list) {
      time += r->seconds;
      // Set-apart cases that do not pass are reported as skipped so that CI
      // systems do not count them as failures.
      CaseOutcome shown = r->outcome;
      if (r->info.set_apart && shown != CaseOutcome::kPassed) shown = CaseOutcome::kSkipped;
      c.Add(shown);
      absl::StrAppend(&cases, "    <testcase classname=\"", XmlEscape(family), "\" name=\"",
                      XmlEscape(r->info.name), "\" file=\"", XmlEscape(r->info.path), "\" time=\"",
                      absl::StrFormat("%.3f", r->seconds), "\"");
      const std::string message = XmlEscape(FailureLine(*r));
      switch (shown) {
        case CaseOutcome::kPassed:
          cases += "/>\n";
          break;
        case CaseOutcome::kFailed:
          absl::StrAppend(&cases, ">\n      <failure message=\"", message, "\">",
                          XmlEscape(r->root.empty() ? r->message : r->message + "\nROOT: " + r->root),
                          "</failure>\n    </testcase>\n");
          break;
        case CaseOutcome::kErrored:
          absl::StrAppend(&cases, ">\n      <error message=\"", message, "\"/>\n    </testcase>\n");
          break;
        case CaseOutcome::kSkipped:
          absl::StrAppend(&cases, ">\n      <skipped message=\"", message, "\"/>\n    </testcase>\n");
          break;
      }
    }
    total.passed += c.passed;
    total.failed += c.failed;
    total.errored += c.errored;
    total.skipped += c.skipped;
    total_time += time;
    absl::StrAppend(&suites, "  <testsuite name=\"", XmlEscape(family), "\" tests=\"", c.total(),
                    "\" failures=\"", c.failed, "\" errors=\"", c.errored, "\" skipped=\"",
                    c.skipped, "\" time=\"", absl::StrFormat("%.3f", time), "\">\n", cases,
                    "  </testsuite>\n");
  }
  return absl::StrCat("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n",
                      "<testsuites name=\"hlovm conformance\" tests=\"", total.total(),
                      "\" failures=\"", total.failed, "\" errors=\"", total.errored,
                      "\" skipped=\"", total.skipped, "\" time=\"",
                      absl::StrFormat("%.3f", total_time), "\">\n", suites, "</testsuites>\n");
}

std::string ResultsJson(const std::vector<CaseResult>& results) {
  Counts all;
  for (const CaseResult& r : results) all.Add(r.outcome);
  std::string out = absl::StrCat("{\n  \"summary\": {\"cases\": ", all.total(),
                                 ", \"passed\": ", all.passed, ", \"failed\": ", all.failed,
                                 ", \"errored\": ", all.errored, ", \"skipped\": ", all.skipped,
                                 ", \"pass_rate\": ", JsonNumber(PassRate(results)), "},\n  \"cases\": [");
  bool first = true;
  for (const CaseResult& r : results) {
    absl::StrAppend(&out, first ? "\n" : ",\n", "    {\"name\": ", JsonEscape(r.info.name),
                    ", \"path\": ", JsonEscape(r.info.path), ", \"family\": ",
                    JsonEscape(r.info.family), ", \"outcome\": ",
                    JsonEscape(CaseOutcomeName(r.outcome)), ", \"set_apart\": ",
                    r.info.set_apart ? "true" : "false", ", \"note\": ", JsonEscape(r.info.note),
                    ", \"seconds\": ", JsonNumber(r.seconds), ", \"message\": ",
                    JsonEscape(r.message));
    if (r.check) {
      const CheckFailure& f = *r.check;
      std::string index;
      for (size_t i = 0; i < f.index.size(); ++i) absl::StrAppend(&index, i ? ", " : "", f.index[i]);
      absl::StrAppend(&out, ", \"check\": {\"name\": ", JsonEscape(f.check), ", \"kind\": ",
                      JsonEscape(f.kind), ", \"index\": [", index, "], \"actual\": ",
                      JsonEscape(f.actual), ", \"expected\": ", JsonEscape(f.expected),
                      ", \"ulp_difference\": ", JsonNumber(f.ulp_difference),
                      ", \"abs_difference\": ", JsonNumber(f.abs_difference),
                      ", \"allowed\": ", JsonEscape(f.allowed), ", \"mismatches\": ",
                      f.mismatch_count, ", \"elements\": ", f.element_count, "}");
    }
    out += "}";
    first = false;
  }
  out += "\n  ]\n}\n";
  return out;
}

}  // namespace hlovm
