// The REPL's session: bound values, computations the user defined or loaded,
// the `:` commands and the debugger. The terminal side (line editing,
// prompts, Ctrl-C) lives in cmd_repl.cc and line_editor.cc; a Session only
// reads complete inputs and writes its answers to a FILE.
//
//   x = f32[2,3] constant({{1,2,3},{4,5,6}})   binds x and prints it
//   exponential(x)                             prints without binding (as _)
//   my_comp { ... }                            defines a computation
//   :run my_comp x y                           runs it
#ifndef HLOVM_REPL_SESSION_H_
#define HLOVM_REPL_SESSION_H_

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "core/literal.h"
#include "vm/api.h"

namespace hlovm {
namespace repl {

class Debugger;

class Session {
 public:
  // What Tab offers for the arguments of a `:` command.
  enum class ArgumentCompletion : uint8_t {
    kNone,         // no arguments, or none to guess (a number)
    kOpcode,       // an opcode (or a `:` command)
    kName,         // a bound value or a computation
    kComputation,  // a computation
    kRun,          // a computation, then bound values as arguments
    kInstruction,  // an instruction of the computations, or a computation
    kFile,         // a path
    kNameThenFile, // a bound value, then a path
    kExpression,   // an instruction line: opcodes, attributes, names
  };

  // One `:` command. The table of them (Commands()) is the only list: input
  // dispatch, :help and Tab completion all read it.
  struct CommandInfo {
    absl::string_view name;       // without the colon
    absl::string_view aliases;    // other names, separated by spaces ("h ?")
    absl::string_view arguments;  // as shown by :help, e.g. "[OPCODE]"
    absl::string_view help;       // what it does; a '\n' starts another line
    ArgumentCompletion completion;
    bool debugger;  // listed under "Debugger:" by :help
    // Refused while a program is stopped in the debugger, as it would
    // abandon that program (:run, :load, :reset): :continue, :finish or
    // :kill it first.
    bool refused_while_debugging;
    bool (Session::*handler)(absl::string_view args);
  };
  static absl::Span<const CommandInfo> Commands();
  // The command called `name` (or one of its aliases), without the colon.
  static const CommandInfo* FindCommand(absl::string_view name);
  // The text of :help.
  static std::string HelpText();

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
  // What Tab offers at the end of `line` (the text before the cursor): the
  // words that complete its last word, which starts at `*word_start`. After
  // a `:` command, its ArgumentCompletion decides (directories end in '/').
  std::vector<std::string> CompleteLine(absl::string_view line, size_t* word_start) const;

  // True when the parser reads attribute `name` (it keeps others as text).
  static bool IsKnownAttribute(absl::string_view name);
  // The predefined reducers (add, mul, max, ...), which Tab also offers.
  static std::vector<std::string> ReducerNames();

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

  // True when `rhs` (the instruction part of `input`) starts with an opcode
  // and its operands and names only attributes the parser knows; otherwise
  // one error, with the op or attribute meant where it can tell.
  bool CheckOpcode(absl::string_view input, absl::string_view rhs);
  // Builds and compiles the module that evaluates one instruction line.
  bool PrepareInstruction(absl::string_view input, Prepared* prepared);
  // Builds and compiles a module whose ENTRY is computation `name`, with
  // arguments from `args`.
  bool PrepareRun(absl::string_view args, Prepared* prepared);
  // Runs `prepared` (under the debugger when breakpoints or watches are set);
  // prints and binds the result.
  bool Execute(Prepared& prepared);
  void FinishResult(const std::string& bind, Literal result);
  // Execute for a run of several instances (replica_count x num_partitions).
  bool ExecuteInstances(Prepared& prepared);
  // The options every program of the session compiles with.
  CompileOptions CompileOptionsFor(std::string file_name) const;
  int64_t instances() const { return replicas_ * partitions_; }

  std::string ComputationsText(absl::string_view except) const;
  std::string ReducersText(absl::string_view used_text, const std::string& type) const;
  const Computation* FindComputation(absl::string_view name) const;

  void PrintValue(absl::string_view name, const Literal& value, bool full);
  void Error(absl::string_view message);
  void Print(absl::string_view text);

  std::vector<std::string> ArgumentCompletions(ArgumentCompletion kind,
                                               absl::string_view prefix) const;

  // The `:` commands (see kCommandTable in session.cc).
  static const CommandInfo kCommandTable[];
  bool CmdHelp(absl::string_view args);
  bool CmdQuit(absl::string_view args);
  bool CmdType(absl::string_view args);
  bool CmdList(absl::string_view args);
  bool CmdDis(absl::string_view args);
  bool CmdTime(absl::string_view args);
  bool CmdThreads(absl::string_view args);
  bool CmdReplicas(absl::string_view args);
  bool CmdInfeed(absl::string_view args);
  bool CmdReset(absl::string_view args);
  bool CmdSave(absl::string_view args);
  bool CmdSaveValue(absl::string_view args);
  bool CmdLoad(absl::string_view args);
  bool CmdPrint(absl::string_view args);
  bool CmdRun(absl::string_view args);
  // The debugger's.
  bool CmdBreak(absl::string_view args);
  bool CmdWatch(absl::string_view args);
  bool CmdDelete(absl::string_view args);
  bool CmdDebug(absl::string_view args);
  bool CmdKill(absl::string_view args);
  bool CmdWhere(absl::string_view args);
  bool CmdStep(absl::string_view args);
  bool CmdNext(absl::string_view args);
  bool CmdContinue(absl::string_view args);
  bool CmdFinish(absl::string_view args);
  // True when `instruction` names an instruction of computation
  // `computation` (empty: of any); otherwise says so, with a near name.
  bool CheckInstructionName(const std::string& computation, const std::string& instruction);
  // True when a program is stopped in the debugger; otherwise says so.
  bool CheckStopped();
  // Waits until the debugged program stops or ends and reports it.
  bool WaitForDebugger();

  std::FILE* out_;
  std::map<std::string, Value> values_;
  std::vector<std::string> value_order_;  // binding order, for :list and :save
  std::vector<Computation> computations_;
  std::string entry_;  // the loaded module's ENTRY computation, if any
  int threads_ = 0;
  // Instances each run has (:replicas; :load takes the module's).
  int64_t replicas_ = 1;
  int64_t partitions_ = 1;
  // Values queued by :infeed for the next runs' infeed (every instance of a
  // replicated run gets all of them).
  std::vector<Literal> infeed_;
  bool quit_ = false;
  bool color_ = false;
  std::atomic<bool> cancel_{false};
  std::unique_ptr<Debugger> debugger_;
};

}  // namespace repl
}  // namespace hlovm

#endif  // HLOVM_REPL_SESSION_H_
