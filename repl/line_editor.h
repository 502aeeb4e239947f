// Line editing for the interactive REPL on libedit: emacs keys, history kept
// across sessions, tab completion from the session, and Ctrl-C that abandons
// the line being typed.
#ifndef HLOVM_REPL_LINE_EDITOR_H_
#define HLOVM_REPL_LINE_EDITOR_H_

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace hlovm {
namespace repl {

class LineEditor {
 public:
  // Given the line up to the cursor, returns the words that may replace its
  // last word and sets `*word_start` to where that word starts.
  using Completer =
      std::function<std::vector<std::string>(const std::string& line, size_t* word_start)>;
  // `history_path` may be empty (no history file).
  LineEditor(std::string history_path, Completer completer);
  ~LineEditor();
  LineEditor(const LineEditor&) = delete;
  LineEditor& operator=(const LineEditor&) = delete;

  // Reads one line (without its newline). nullopt at end of input (Ctrl-D);
  // `*interrupted` is set when Ctrl-C abandoned the line.
  std::optional<std::string> ReadLine(const std::string& prompt, bool* interrupted);
  // Adds a whole (possibly multi-line) input to the history and saves it.
  void AddHistory(const std::string& entry);

  // Called from the SIGINT handler while a line is being read.
  static void NoteInterrupt();

  // The history file: $XDG_STATE_HOME/hlovm/history, else
  // ~/.local/state/hlovm/history (its folder is created); empty when there
  // is no home.
  static std::string DefaultHistoryPath();

 private:
  struct Impl;
  Impl* impl_;
};

}  // namespace repl
}  // namespace hlovm

#endif  // HLOVM_REPL_LINE_EDITOR_H_
