// RunMonitor (see run_monitor.h).
#include "repl/run_monitor.h"

#include <signal.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace hlovm {
namespace repl {
namespace {

// Set by the SIGINT handler (a lock-free atomic: async-signal-safe).
std::atomic<bool> g_interrupted{false};
static_assert(std::atomic<bool>::is_always_lock_free);

void OnInterrupt(int) { g_interrupted.store(true, std::memory_order_relaxed); }

struct sigaction g_previous;

// How often the watching thread looks, and when progress first shows.
constexpr auto kPoll = std::chrono::milliseconds(50);
constexpr auto kProgressAfter = std::chrono::seconds(2);
constexpr auto kProgressEvery = std::chrono::milliseconds(250);

double Seconds(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

int TerminalWidth() {
  struct winsize size = {};
  if (ioctl(STDERR_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 10) return size.ws_col;
  return 80;
}

}  // namespace

RunMonitor::RunMonitor(const Executable* exe)
    : exe_(exe), start_(std::chrono::steady_clock::now()), progress_(isatty(STDERR_FILENO) != 0) {
  g_interrupted.store(false);
  struct sigaction action = {};
  action.sa_handler = &OnInterrupt;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  sigaction(SIGINT, &action, &g_previous);
  thread_ = std::thread([this] { Watch(); });
}

RunMonitor::~RunMonitor() { Stop(); }

void RunMonitor::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopped_) return;
    stopped_ = true;
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
  sigaction(SIGINT, &g_previous, nullptr);
  // A Ctrl-C that came as the run ended still ends the process as one would.
  if (g_interrupted.load()) {
    const std::string text =
        InterruptedText(*exe_, position_, Seconds(std::chrono::steady_clock::now() - start_));
    std::fflush(stdout);
    std::fprintf(stderr, "hlovm: %s\n", text.c_str());
    std::_Exit(130);
  }
}

std::string RunMonitor::InterruptedText(const Executable& exe, const RunPosition& position,
                                        double seconds) {
  const std::string where = exe.DescribePosition(position);
  return absl::StrFormat("interrupted after %.1f s%s", seconds,
                         where.empty() ? std::string(" before the first instruction")
                                       : absl::StrCat(" at ", where));
}

void RunMonitor::ClearLine() {
  if (!line_shown_) return;
  std::fputs("\r\033[K", stderr);
  std::fflush(stderr);
  line_shown_ = false;
}

void RunMonitor::Watch() {
  auto last_shown = start_;
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    cv_.wait_for(lock, kPoll);
    if (stop_) break;
    const auto now = std::chrono::steady_clock::now();
    if (g_interrupted.load(std::memory_order_relaxed)) {
      // Where the run is now, then out: the program may be inside a long
      // kernel that would not look at a cancel flag for a while.
      ClearLine();
      const std::string text = InterruptedText(*exe_, position_, Seconds(now - start_));
      std::fflush(stdout);
      std::fprintf(stderr, "hlovm: %s\n", text.c_str());
      std::fflush(stderr);
      std::_Exit(130);
    }
    if (!progress_ || now - start_ < kProgressAfter || now - last_shown < kProgressEvery) continue;
    last_shown = now;
    std::string line = absl::StrFormat("hlovm: running %.0f s", Seconds(now - start_));
    const std::string where = exe_->DescribePosition(position_);
    if (!where.empty()) absl::StrAppend(&line, ", at ", where);
    const size_t width = static_cast<size_t>(TerminalWidth()) - 1;
    if (line.size() > width) line.resize(width);
    std::fprintf(stderr, "\r\033[K%s", line.c_str());
    std::fflush(stderr);
    line_shown_ = true;
  }
  ClearLine();
}

}  // namespace repl
}  // namespace hlovm
