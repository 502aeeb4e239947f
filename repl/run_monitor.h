// Watches a running program for `hlovm run` and `hlovm bench`: Ctrl-C
// (SIGINT) prints where the run was (the instruction and the while loops and
// iterations it is in) and exits 130, and a run longer than ~2 s on a
// terminal shows where it is on stderr, on one line cleared at the end.
//
//   RunMonitor monitor(&exe);
//   execute_options.position = monitor.position();
//   auto result = exe.Execute(args, execute_options);
//   monitor.Stop();  // before printing results
#ifndef HLOVM_REPL_RUN_MONITOR_H_
#define HLOVM_REPL_RUN_MONITOR_H_

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

#include "vm/api.h"

namespace hlovm {
namespace repl {

class RunMonitor {
 public:
  // Installs the SIGINT handler and starts the watching thread; `exe` runs
  // with ExecuteOptions::position = position() until Stop.
  explicit RunMonitor(const Executable* exe);
  ~RunMonitor();  // Stop()
  RunMonitor(const RunMonitor&) = delete;
  RunMonitor& operator=(const RunMonitor&) = delete;

  RunPosition* position() { return &position_; }
  // Stops watching: clears the progress line and restores SIGINT.
  void Stop();

  // The line for an interrupted run, e.g. "interrupted after 3.2 s at %mul
  // (line 4), in while %loop (line 9) iteration 17".
  static std::string InterruptedText(const Executable& exe, const RunPosition& position,
                                     double seconds);

 private:
  void Watch();
  void ClearLine();

  const Executable* exe_;
  RunPosition position_;
  const std::chrono::steady_clock::time_point start_;
  const bool progress_;  // stderr is a terminal
  bool line_shown_ = false;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  bool stopped_ = false;
  std::thread thread_;
};

}  // namespace repl
}  // namespace hlovm

#endif  // HLOVM_REPL_RUN_MONITOR_H_
