// The REPL's debugger. A program runs on its own thread under a
// StepObserver (vm/api.h); when it stops (a breakpoint, a watched value that
// changed, the end of a :step) its thread waits in OnStep while the prompt
// talks to it: reading values (which only the stopped thread may do), then
// resuming it in one of the stepping modes.
#ifndef HLOVM_REPL_DEBUGGER_H_
#define HLOVM_REPL_DEBUGGER_H_

#include <atomic>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "core/hlo_ir.h"
#include "core/literal.h"
#include "vm/api.h"

namespace hlovm {
namespace repl {

class Debugger : public StepObserver {
 public:
  enum class Mode { kContinue, kStep, kNext, kFinish };
  enum class State { kIdle, kRunning, kStopped, kFinished };

  Debugger() = default;
  ~Debugger() override;

  // Breakpoints stop before the instruction runs; `computation` may be
  // empty (any computation). Watches stop after the named instruction
  // produced a value different from its last one.
  void AddBreakpoint(std::string computation, std::string instruction);
  void AddWatch(std::string instruction);
  bool ClearBreakpoint(std::string_view instruction);  // false: none such
  std::string ListBreakpoints() const;
  bool armed() const { return !breakpoints_.empty() || !watches_.empty(); }

  // Starts `exe` on the program thread; `stop_at_start` stops before its
  // first instruction. Then WaitForStop.
  void Start(std::unique_ptr<Executable> exe, std::vector<Literal> arguments, int threads,
             std::atomic<bool>* cancel, std::string bind, bool stop_at_start);
  // Waits until the program stops or ends; `interrupt` (Ctrl-C) cancels it.
  State WaitForStop(const std::atomic<bool>& interrupt);
  State state() const;
  bool active() const { return state() == State::kRunning || state() == State::kStopped; }
  // What the stop shows (location and value), set when it stopped.
  std::string StopText() const;
  // After kFinished: the result and the name to bind it to; the debugger is
  // then idle again.
  absl::StatusOr<Literal> TakeResult(std::string* bind);

  // While stopped.
  void Resume(Mode mode);
  // The value of instruction `name` now (or as last seen), with a note on
  // where it was computed.
  absl::StatusOr<Literal> ReadValue(const std::string& name, std::string* note);
  std::string Where() const;
  // Stops the program (it ends Cancelled) and joins its thread.
  void Kill();

  bool OnStep(const Step& step) override;

 private:
  struct Frame {
    const HloComputation* computation = nullptr;
    const HloInstruction* current = nullptr;
    const HloInstruction* caller = nullptr;  // the while/conditional that entered it
    int64_t iteration = 0;                   // 1-based body run of a while; 0 otherwise
    int64_t body_entries = 0;                // of the loop `current` names
  };
  void TrackStack(const Step& step);
  bool ShouldStop(const Step& step, std::string* reason);
  std::string Describe(const Step& step, const std::string& reason);
  std::string FrameLabel(const Frame& frame) const;
  // Keeps the (small) parameters of the function `step` runs, and the
  // elements taken out of them, for :print once their buffers are gone.
  void KeepInputs(const Step& step, const Frame& frame);
  const HloInstruction* Find(const std::string& name, const Step& step) const;

  std::vector<std::pair<std::string, std::string>> breakpoints_;
  std::vector<std::string> watches_;
  std::map<std::string, Literal> watch_values_;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  State state_ = State::kIdle;
  Mode mode_ = Mode::kContinue;
  int mode_depth_ = 0;
  const HloComputation* mode_parent_ = nullptr;
  const HloComputation* mode_function_ = nullptr;
  bool stop_at_start_ = false;
  // Requests from the prompt to the stopped program thread.
  enum class Request { kNone, kRead, kResume, kKill } request_ = Request::kNone;
  std::string read_name_;
  absl::StatusOr<Literal> read_result_{absl::UnknownError("")};
  std::string read_note_;

  std::vector<Frame> stack_;
  std::string stop_text_;
  // Values shown at stops, for :print once they are no longer live.
  std::map<std::string, std::pair<Literal, std::string>> seen_;

  std::unique_ptr<Executable> exe_;
  std::vector<Literal> arguments_;
  std::atomic<bool>* cancel_ = nullptr;
  std::string bind_;
  absl::StatusOr<Literal> result_{absl::UnknownError("")};
  std::thread thread_;
};

// Prints a value for the REPL: the HLO literal with its shape, or for a large
// array (unless `full`) a summary: shape, first and last elements, min, max,
// mean and NaN/Inf counts.
std::string FormatValue(const Literal& value, bool full);

}  // namespace repl
}  // namespace hlovm

#endif  // HLOVM_REPL_DEBUGGER_H_
