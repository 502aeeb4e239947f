// LineEditor on libedit's native interface (histedit.h); without libedit, a
// plain line reader.
#include "repl/line_editor.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cwchar>
#include <filesystem>
#include <iostream>

#ifdef HLOVM_HAVE_LIBEDIT
#include <histedit.h>
#endif

namespace hlovm {
namespace repl {
namespace {

std::atomic<bool> g_interrupt{false};

}  // namespace

void LineEditor::NoteInterrupt() { g_interrupt.store(true); }

std::string LineEditor::DefaultHistoryPath() {
  std::filesystem::path dir;
  if (const char* state = std::getenv("XDG_STATE_HOME"); state != nullptr && *state != '\0') {
    dir = std::filesystem::path(state) / "hlovm";
  } else if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    dir = std::filesystem::path(home) / ".local" / "state" / "hlovm";
  } else {
    return "";
  }
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return "";
  return (dir / "history").string();
}

#ifdef HLOVM_HAVE_LIBEDIT

struct LineEditor::Impl {
  EditLine* el = nullptr;
  History* history = nullptr;
  std::string history_path;
  std::string prompt;
  Completer completer;
  bool interrupted = false;

  static Impl* From(EditLine* el) {
    void* data = nullptr;
    el_get(el, EL_CLIENTDATA, &data);
    return static_cast<Impl*>(data);
  }

  static char* Prompt(EditLine* el) { return const_cast<char*>(From(el)->prompt.c_str()); }

  // Reads a byte; a Ctrl-C that interrupted the read becomes ^C, which is
  // bound to Interrupt.
  static int GetChar(EditLine* /*el*/, wchar_t* c) {
    while (true) {
      if (g_interrupt.exchange(false)) {
        *c = 3;
        return 1;
      }
      unsigned char byte;
      const ssize_t n = read(STDIN_FILENO, &byte, 1);
      if (n == 1) {
        *c = byte;
        return 1;
      }
      if (n == 0) return 0;
      if (errno != EINTR) return -1;
    }
  }

  static unsigned char Interrupt(EditLine* el, int /*ch*/) {
    From(el)->interrupted = true;
    return CC_NEWLINE;
  }

  static unsigned char Complete(EditLine* el, int /*ch*/) {
    Impl* impl = From(el);
    const LineInfo* info = el_line(el);
    const std::string line(info->buffer, info->cursor);
    size_t word_start = line.size();
    std::vector<std::string> options = impl->completer(line, &word_start);
    const std::string prefix = line.substr(std::min(word_start, line.size()));
    if (options.empty()) return CC_REFRESH_BEEP;
    std::string common = options[0];
    for (const std::string& o : options) {
      size_t k = 0;
      while (k < common.size() && k < o.size() && common[k] == o[k]) ++k;
      common.resize(k);
    }
    if (common.size() > prefix.size()) {
      std::string rest = common.substr(prefix.size());
      // A whole `:` command takes a space: its arguments come next.
      if (options.size() == 1 && !prefix.empty() && prefix[0] == ':') rest += " ";
      el_insertstr(el, rest.c_str());
      return CC_REFRESH;
    }
    if (options.size() == 1) return CC_REFRESH;  // already complete
    // Nothing more in common: list the choices under the line.
    std::string list = "\n";
    size_t width = 0;
    for (const std::string& o : options) width = std::max(width, o.size());
    const size_t per_line = std::max<size_t>(1, 78 / (width + 2));
    for (size_t i = 0; i < options.size(); ++i) {
      list += options[i] + std::string(width + 2 - options[i].size(), ' ');
      if ((i + 1) % per_line == 0 || i + 1 == options.size()) list += "\n";
    }
    std::fwrite(list.data(), 1, list.size(), stdout);
    std::fflush(stdout);
    return CC_REDISPLAY;
  }
};

LineEditor::LineEditor(std::string history_path, Completer completer) : impl_(new Impl) {
  impl_->history_path = std::move(history_path);
  impl_->completer = std::move(completer);
  impl_->el = el_init("hlovm", stdin, stdout, stderr);
  el_set(impl_->el, EL_CLIENTDATA, impl_);
  el_set(impl_->el, EL_EDITOR, "emacs");
  el_set(impl_->el, EL_SIGNAL, 0);
  el_set(impl_->el, EL_PROMPT, &Impl::Prompt);
  el_set(impl_->el, EL_GETCFN, &Impl::GetChar);
  impl_->history = history_init();
  HistEvent event;
  history(impl_->history, &event, H_SETSIZE, 2000);
  history(impl_->history, &event, H_SETUNIQUE, 1);
  if (!impl_->history_path.empty()) history(impl_->history, &event, H_LOAD, impl_->history_path.c_str());
  el_set(impl_->el, EL_HIST, history, impl_->history);
  // The wide form: libedit keeps the name and help pointers it is given and
  // never frees them, and its narrow el_set(EL_ADDFN) passes it copies (so
  // they would leak); static strings need no freeing.
  el_wset(impl_->el, EL_ADDFN, L"hlovm-complete", L"complete a name", &Impl::Complete);
  el_set(impl_->el, EL_BIND, "^I", "hlovm-complete", nullptr);
  el_wset(impl_->el, EL_ADDFN, L"hlovm-interrupt", L"abandon the line", &Impl::Interrupt);
  el_set(impl_->el, EL_BIND, "^C", "hlovm-interrupt", nullptr);
  el_source(impl_->el, nullptr);  // ~/.editrc
}

LineEditor::~LineEditor() {
  if (!impl_->history_path.empty()) {
    HistEvent event;
    history(impl_->history, &event, H_SAVE, impl_->history_path.c_str());
  }
  el_end(impl_->el);
  history_end(impl_->history);
  delete impl_;
}

std::optional<std::string> LineEditor::ReadLine(const std::string& prompt, bool* interrupted) {
  impl_->prompt = prompt;
  impl_->interrupted = false;
  // A Ctrl-C that came while the previous line was answered is not dropped
  // here: it is still meant for this prompt. The terminal goes into editing
  // mode before el_gets prints the prompt, so keys typed the moment the
  // prompt shows (Ctrl-D above all, which a canonical-mode terminal would
  // turn into a NUL byte) reach the editor as typed.
  el_set(impl_->el, EL_PREP_TERM, 1);
  int count = 0;
  const char* line = el_gets(impl_->el, &count);
  *interrupted = impl_->interrupted;
  if (!impl_->interrupted && (line == nullptr || count <= 0)) return std::nullopt;
  std::string text = line != nullptr && count > 0 ? std::string(line, static_cast<size_t>(count)) : "";
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  if (impl_->interrupted) el_reset(impl_->el);
  return text;  // on Ctrl-C: the abandoned text
}

void LineEditor::AddHistory(const std::string& entry) {
  HistEvent event;
  history(impl_->history, &event, H_ENTER, entry.c_str());
  if (!impl_->history_path.empty()) history(impl_->history, &event, H_SAVE, impl_->history_path.c_str());
}

#else  // no libedit: a plain reader

struct LineEditor::Impl {};

LineEditor::LineEditor(std::string, Completer) : impl_(new Impl) {}
LineEditor::~LineEditor() { delete impl_; }

std::optional<std::string> LineEditor::ReadLine(const std::string& prompt, bool* interrupted) {
  *interrupted = false;
  std::fputs(prompt.c_str(), stdout);
  std::fflush(stdout);
  std::string line;
  while (true) {
    char c;
    const ssize_t n = read(STDIN_FILENO, &c, 1);
    if (n == 1) {
      if (c == '\n') return line;
      line += c;
      continue;
    }
    if (n == 0) return line.empty() ? std::nullopt : std::optional<std::string>(line);
    if (errno == EINTR && g_interrupt.exchange(false)) {
      *interrupted = true;
      return std::string();
    }
    if (errno != EINTR) return std::nullopt;
  }
}

void LineEditor::AddHistory(const std::string&) {}

#endif

}  // namespace repl
}  // namespace hlovm
