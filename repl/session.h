// The REPL's session: bound values, computations the user defined or loaded,
// the `:` commands and the debugger. The terminal side (line editing,
// prompts, Ctrl-C) lives in repl_main.cc; a Session only reads complete
// inputs and writes its answers to a FILE.
//
//   x = f32[2,3] constant({{1,2,3},{4,5,6}})   binds x and prints it
//   exponential(x)                             prints without binding (as _)
//   my_comp { ... }                            defines a computation
//   :run my_comp x y                           runs it
#ifndef HLOVM_REPL_SESSION_H_
#define HLOVM_REPL_SESSION_H_

#include <atomic>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/string_view.h"
#include "core/literal.h"

namespace hlovm {
namespace repl {

class Debugger;

class Session {
 public:
  explicit Session(std::FILE* out);
  ~Session();

  // True when `text` is a whole input: every `(`, `{` and `[` outside
  // strings and comments is closed. An unfinished one keeps reading.
  static bool IsComplete(absl::string_view text);

  // Handles one complete input; returns false when it was an error (the
  // session is then as it was before).
  bool Handle(absl::string_view input);

  bool quit_requested() const { return quit_; }
  // Errors in color (on a terminal).
  void set_color(bool color) { color_ = color; }
  // Set (from a signal handler) to stop the running program.
  std::atomic<bool>& cancel() { return cancel_; }
  // "hlo> ", or "(debug) hlo> " while a program is stopped in the debugger.
  std::string Prompt() const;
  bool debugging() const;

  // Words that complete `prefix`: commands after ':', otherwise opcodes,
  // attribute names, bound names and computations.
  std::vector<std::string> Completions(absl::string_view prefix) const;

  // Help text for one opcode, or empty when there is none.
  static std::string OpcodeHelp(absl::string_view opcode);

 private:
  struct Value {
    Literal literal;
  };
  struct Computation {
    std::string name;
    std::string text;  // as written, without ENTRY
  };
  struct Prepared;

  bool HandleCommand(absl::string_view line);
  bool HandleInstruction(absl::string_view input);
  bool HandleComputation(absl::string_view input);
  bool HandleModuleText(absl::string_view text, absl::string_view file_name);

  // Builds and compiles the module that evaluates one instruction line.
  bool PrepareInstruction(absl::string_view input, Prepared* prepared);
  // Builds and compiles a module whose ENTRY is computation `name`, with
  // arguments from `args`.
  bool PrepareRun(absl::string_view args, Prepared* prepared);
  // Runs `prepared` (under the debugger when breakpoints or watches are set);
  // prints and binds the result.
  bool Execute(Prepared& prepared);
  void FinishResult(const std::string& bind, Literal result);

  std::string ComputationsText(absl::string_view except) const;
  std::string ReducersText(absl::string_view used_text, const std::string& type) const;
  const Computation* FindComputation(absl::string_view name) const;

  void PrintValue(absl::string_view name, const Literal& value, bool full);
  void Error(absl::string_view message);
  void Print(absl::string_view text);

  // Commands.
  bool CmdHelp(absl::string_view args);
  bool CmdType(absl::string_view args);
  bool CmdList();
  bool CmdDis(absl::string_view args);
  bool CmdTime(absl::string_view args);
  bool CmdThreads(absl::string_view args);
  bool CmdReset();
  bool CmdSave(absl::string_view args);
  bool CmdLoad(absl::string_view args);
  bool CmdPrint(absl::string_view args);
  bool CmdDebug(absl::string_view command, absl::string_view args);

  std::FILE* out_;
  std::map<std::string, Value> values_;
  std::vector<std::string> value_order_;  // binding order, for :list and :save
  std::vector<Computation> computations_;
  std::string entry_;  // the loaded module's ENTRY computation, if any
  int threads_ = 0;
  bool quit_ = false;
  bool color_ = false;
  std::atomic<bool> cancel_{false};
  std::unique_ptr<Debugger> debugger_;
};

}  // namespace repl
}  // namespace hlovm

#endif  // HLOVM_REPL_SESSION_H_
