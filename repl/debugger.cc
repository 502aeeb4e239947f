// The REPL's debugger (see debugger.h) and its value printing.
#include "repl/debugger.h"

#include <chrono>
#include <cmath>
#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/element_type.h"
#include "frontend/printer.h"

namespace hlovm {
namespace repl {

//===--- Values -----------------------------------------------------------===//

namespace {

constexpr int64_t kSummaryThreshold = 100;  // more elements than this: summary
constexpr int64_t kSummaryEdge = 5;         // first/last elements shown
}  // namespace

// Values up to this size are kept for :print after their buffers are reused.
constexpr int64_t kKeepBytes = 1 << 16;

namespace {

std::string Summary(const Literal& value) {
  const Shape& shape = value.shape();
  const int64_t n = shape.element_count();
  std::string text = absl::StrCat(shape.ToString(false), " (", n, " elements; `:print NAME full` shows all)");
  // Logical (row-major) order.
  Literal row_major_storage;
  const Literal* v = &value;
  if (shape.has_layout() && shape.layout() != Layout::RowMajor(shape.rank())) {
    auto relaid = value.Relayout(Layout::RowMajor(shape.rank()));
    if (relaid.ok()) {
      row_major_storage = std::move(*relaid);
      v = &row_major_storage;
    }
  }
  auto elements = [&](int64_t from, int64_t to) {
    std::string s;
    for (int64_t i = from; i < to; ++i) absl::StrAppend(&s, i > from ? ", " : "", v->GetAsString(i));
    return s;
  };
  absl::StrAppend(&text, "\n  first: ", elements(0, kSummaryEdge));
  absl::StrAppend(&text, "\n  last:  ", elements(n - kSummaryEdge, n));
  const ElementType type = shape.element_type();
  if (IsComplex(type)) return text;
  double lo = std::numeric_limits<double>::infinity(), hi = -lo, sum = 0;
  int64_t nans = 0, infs = 0, finite = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double x = v->GetAsDouble(i);
    if (std::isnan(x)) {
      ++nans;
      continue;
    }
    if (std::isinf(x)) ++infs;
    lo = std::min(lo, x);
    hi = std::max(hi, x);
    if (!std::isinf(x)) {
      sum += x;
      ++finite;
    }
  }
  absl::StrAppend(&text, "\n  min ", absl::StrFormat("%.6g", lo), "  max ", absl::StrFormat("%.6g", hi),
                  "  mean ", finite > 0 ? absl::StrFormat("%.6g", sum / finite) : std::string("nan"));
  if (IsFloatingPoint(type)) absl::StrAppend(&text, "  NaN ", nans, "  Inf ", infs);
  return text;
}

}  // namespace

static bool HasLargeArray(const Literal& value) {
  if (value.shape().IsArray()) return value.shape().element_count() > kSummaryThreshold;
  for (const Literal& e : value.tuple_elements()) {
    if (HasLargeArray(e)) return true;
  }
  return false;
}

std::string FormatValue(const Literal& value, bool full) {
  const Shape& shape = value.shape();
  if (shape.IsTuple() && !full) {
    if (HasLargeArray(value)) {
      std::string text = absl::StrCat(shape.ToString(false), " (");
      for (size_t i = 0; i < value.tuple_elements().size(); ++i) {
        std::string element = FormatValue(value.tuple_elements()[i], false);
        for (size_t at = 0; (at = element.find('\n', at)) != std::string::npos; at += 3) {
          element.replace(at, 1, "\n  ");
        }
        absl::StrAppend(&text, "\n  {", i, "}: ", element);
      }
      return text + "\n)";
    }
  }
  if (!full && shape.IsArray() && shape.element_count() > kSummaryThreshold) return Summary(value);
  return value.ToString();
}

//===--- Debugger ---------------------------------------------------------===//

Debugger::~Debugger() { Kill(); }

void Debugger::AddBreakpoint(std::string computation, std::string instruction) {
  breakpoints_.emplace_back(std::move(computation), std::move(instruction));
}

void Debugger::AddWatch(std::string instruction) { watches_.push_back(std::move(instruction)); }

bool Debugger::ClearBreakpoint(std::string_view instruction) {
  bool found = false;
  for (size_t i = 0; i < breakpoints_.size();) {
    if (instruction.empty() || breakpoints_[i].second == instruction) {
      breakpoints_.erase(breakpoints_.begin() + static_cast<std::ptrdiff_t>(i));
      found = true;
    } else {
      ++i;
    }
  }
  for (size_t i = 0; i < watches_.size();) {
    if (instruction.empty() || watches_[i] == instruction) {
      watch_values_.erase(watches_[i]);
      watches_.erase(watches_.begin() + static_cast<std::ptrdiff_t>(i));
      found = true;
    } else {
      ++i;
    }
  }
  return found;
}

std::string Debugger::ListBreakpoints() const {
  std::string text;
  for (const auto& [computation, instruction] : breakpoints_) {
    absl::StrAppend(&text, "break ", computation.empty() ? "" : computation + " ", instruction, "\n");
  }
  for (const std::string& w : watches_) absl::StrAppend(&text, "watch ", w, "\n");
  return text;
}

void Debugger::Start(std::unique_ptr<Executable> exe, std::vector<Literal> arguments, int threads,
                     std::atomic<bool>* cancel, std::string bind, bool stop_at_start) {
  Kill();
  exe_ = std::move(exe);
  arguments_ = std::move(arguments);
  cancel_ = cancel;
  bind_ = std::move(bind);
  stack_.clear();
  seen_.clear();
  watch_values_.clear();
  {
    std::lock_guard<std::mutex> lock(mu_);
    state_ = State::kRunning;
    mode_ = Mode::kContinue;
    stop_at_start_ = stop_at_start;
    request_ = Request::kNone;
  }
  thread_ = std::thread([this, threads] {
    std::vector<const Literal*> pointers;
    for (const Literal& a : arguments_) pointers.push_back(&a);
    ExecuteOptions options;
    options.threads = threads;
    options.cancel = cancel_;
    options.observer = this;
    absl::StatusOr<Literal> result = exe_->Execute(pointers, options);
    std::lock_guard<std::mutex> lock(mu_);
    result_ = std::move(result);
    state_ = State::kFinished;
    cv_.notify_all();
  });
}

Debugger::State Debugger::WaitForStop(const std::atomic<bool>& interrupt) {
  std::unique_lock<std::mutex> lock(mu_);
  while (state_ == State::kRunning) {
    cv_.wait_for(lock, std::chrono::milliseconds(10));
    if (interrupt.load() && cancel_ != nullptr) cancel_->store(true);
  }
  return state_;
}

Debugger::State Debugger::state() const {
  std::lock_guard<std::mutex> lock(mu_);
  return state_;
}

std::string Debugger::StopText() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stop_text_;
}

absl::StatusOr<Literal> Debugger::TakeResult(std::string* bind) {
  if (thread_.joinable()) thread_.join();
  std::lock_guard<std::mutex> lock(mu_);
  *bind = bind_;
  state_ = State::kIdle;
  absl::StatusOr<Literal> result = std::move(result_);
  result_ = absl::UnknownError("");
  exe_.reset();
  arguments_.clear();
  return result;
}

void Debugger::Resume(Mode mode) {
  std::lock_guard<std::mutex> lock(mu_);
  if (state_ != State::kStopped) return;
  mode_ = mode;
  request_ = Request::kResume;
  state_ = State::kRunning;
  cv_.notify_all();
}

absl::StatusOr<Literal> Debugger::ReadValue(const std::string& name, std::string* note) {
  std::unique_lock<std::mutex> lock(mu_);
  if (state_ != State::kStopped) return absl::FailedPreconditionError("no program is stopped");
  read_name_ = name;
  request_ = Request::kRead;
  cv_.notify_all();
  cv_.wait(lock, [&] { return request_ == Request::kNone; });
  *note = read_note_;
  absl::StatusOr<Literal> result = std::move(read_result_);
  read_result_ = absl::UnknownError("");
  return result;
}

void Debugger::KeepInputs(const Step& step, const Frame& frame) {
  std::vector<const HloInstruction*> inputs(step.computation->parameters().begin(),
                                            step.computation->parameters().end());
  for (const auto& instr : step.computation->instructions()) {
    if (instr->opcode() == HloOpcode::kGetTupleElement &&
        instr->operands()[0]->opcode() == HloOpcode::kParameter) {
      inputs.push_back(instr.get());
    }
  }
  for (const HloInstruction* param : inputs) {
    if (param == nullptr || !param->shape().IsArray() ||
        param->shape().element_count() * ByteWidth(param->shape().element_type()) > kKeepBytes) {
      continue;
    }
    absl::StatusOr<Literal> value = step.read_value(param);
    if (value.ok()) {
      seen_.insert_or_assign(param->name(), std::make_pair(std::move(*value), FrameLabel(frame)));
    }
  }
}

std::string Debugger::FrameLabel(const Frame& frame) const {
  std::string label = absl::StrCat("%", frame.computation->name());
  if (frame.caller != nullptr) {
    absl::StrAppend(&label, " (", std::string(HloOpcodeName(frame.caller->opcode())), " %", frame.caller->name());
    if (frame.caller->opcode() == HloOpcode::kWhile) {
      const bool body = frame.caller->called_computations().size() > 1 &&
                        frame.caller->called_computations()[1] == frame.computation;
      absl::StrAppend(&label, body ? ", iteration " : ", condition after iteration ", frame.iteration);
    }
    absl::StrAppend(&label, ")");
  }
  return label;
}

std::string Debugger::Where() const {
  std::lock_guard<std::mutex> lock(mu_);
  if (state_ != State::kStopped) return "no program is stopped\n";
  std::string text;
  for (size_t i = stack_.size(); i-- > 0;) {
    const Frame& f = stack_[i];
    absl::StrAppend(&text, "#", stack_.size() - 1 - i, " ", FrameLabel(f));
    if (f.current != nullptr) {
      absl::StrAppend(&text, " at %", f.current->name());
      if (f.current->parent() != nullptr && f.current->parent() != f.computation) {
        absl::StrAppend(&text, " (in call to %", f.current->parent()->name(), ")");
      }
    }
    absl::StrAppend(&text, "\n");
  }
  return text;
}

void Debugger::Kill() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (state_ == State::kRunning || state_ == State::kStopped) {
      if (cancel_ != nullptr) cancel_->store(true);
      request_ = Request::kKill;
      cv_.notify_all();
    }
  }
  if (thread_.joinable()) thread_.join();
  std::lock_guard<std::mutex> lock(mu_);
  if (state_ == State::kFinished) {
    state_ = State::kIdle;
    exe_.reset();
    arguments_.clear();
    if (cancel_ != nullptr) cancel_->store(false);
  }
}

void Debugger::TrackStack(const Step& step) {
  const size_t depth = static_cast<size_t>(step.depth);
  if (stack_.size() > depth + 1) stack_.resize(depth + 1);
  while (stack_.size() < depth + 1) {
    Frame frame;
    frame.computation = step.computation;
    if (!stack_.empty()) {
      Frame& parent = stack_.back();
      frame.caller = parent.current;
      if (frame.caller != nullptr && frame.caller->opcode() == HloOpcode::kWhile &&
          frame.caller->called_computations().size() > 1 &&
          frame.caller->called_computations()[1] == step.computation) {
        frame.iteration = ++parent.body_entries;
      } else {
        frame.iteration = parent.body_entries;
      }
    }
    stack_.push_back(frame);
    KeepInputs(step, frame);
  }
  Frame& top = stack_.back();
  if (top.computation != step.computation) {
    // A while switching between its condition and its body.
    top.computation = step.computation;
    if (depth > 0) {
      Frame& parent = stack_[depth - 1];
      if (top.caller != nullptr && top.caller->opcode() == HloOpcode::kWhile &&
          top.caller->called_computations().size() > 1 &&
          top.caller->called_computations()[1] == step.computation) {
        top.iteration = ++parent.body_entries;
      } else {
        top.iteration = parent.body_entries;
      }
    }
    KeepInputs(step, top);
  }
  if (!step.after && top.current != step.instruction) top.body_entries = 0;
  top.current = step.instruction;
}

bool Debugger::ShouldStop(const Step& step, std::string* reason) {
  const HloInstruction* instr = step.instruction;
  if (stop_at_start_) {
    stop_at_start_ = false;
    *reason = "start";
    return true;
  }
  if (!step.after) {
    for (const auto& [computation, name] : breakpoints_) {
      if (instr->name() != name) continue;
      if (!computation.empty() && instr->parent()->name() != computation &&
          step.computation->name() != computation) {
        continue;
      }
      *reason = "breakpoint";
      return true;
    }
  } else {
    for (const std::string& w : watches_) {
      if (instr->name() != w) continue;
      absl::StatusOr<Literal> value = step.read_value(instr);
      if (!value.ok()) continue;
      auto it = watch_values_.find(w);
      const bool changed = it == watch_values_.end() || !it->second.BitwiseEqual(*value);
      if (it == watch_values_.end()) {
        watch_values_.emplace(w, std::move(*value));
      } else {
        it->second = std::move(*value);
      }
      if (changed) {
        *reason = "watch";
        return true;
      }
    }
  }
  switch (mode_) {
    case Mode::kContinue:
      return false;
    case Mode::kStep:
      *reason = "step";
      return step.after;
    case Mode::kNext:
      *reason = "next";
      return step.after && (step.depth < mode_depth_ ||
                            (step.depth == mode_depth_ && instr->parent() == mode_parent_) ||
                            (step.depth == mode_depth_ && instr->parent() == step.computation &&
                             mode_parent_ != step.computation));
    case Mode::kFinish:
      *reason = "finish";
      if (!step.after) return false;
      if (step.depth < mode_depth_) return true;
      return step.depth == mode_depth_ && mode_parent_ != mode_function_ &&
             instr->parent() == step.computation;
  }
  return false;
}

std::string Debugger::Describe(const Step& step, const std::string& reason) {
  const HloInstruction* instr = step.instruction;
  PrintOptions options = PrintOptions::ShortParsable();
  std::string text;
  std::string where = FrameLabel(stack_.back());
  if (instr->parent() != nullptr && instr->parent() != step.computation) {
    where = absl::StrCat("%", instr->parent()->name(), " (called from ", where, ")");
  }
  if (reason == "breakpoint" || reason == "start") {
    absl::StrAppend(&text, reason == "start" ? "stopped before " : "breakpoint: before ", "%",
                    instr->name(), " in ", where, "\n  ", PrintInstruction(*instr, options));
    return text;
  }
  absl::StrAppend(&text, reason == "watch" ? "watch: %" : "%", instr->name(), " in ", where, "\n  ",
                  PrintInstruction(*instr, options));
  absl::StatusOr<Literal> value = step.read_value(instr);
  if (value.ok()) {
    absl::StrAppend(&text, "\n", FormatValue(*value, false));
    seen_.insert_or_assign(instr->name(), std::make_pair(std::move(*value), where));
  }
  return text;
}

const HloInstruction* Debugger::Find(const std::string& name, const Step& step) const {
  auto in = [&](const HloComputation* c) -> const HloInstruction* {
    if (c == nullptr) return nullptr;
    for (const auto& i : c->instructions()) {
      if (i->name() == name) return i.get();
    }
    return nullptr;
  };
  if (const HloInstruction* i = in(step.instruction->parent())) return i;
  if (const HloInstruction* i = in(step.computation)) return i;
  for (size_t f = stack_.size(); f-- > 0;) {
    if (const HloInstruction* i = in(stack_[f].computation)) return i;
  }
  for (const auto& c : exe_->module().computations()) {
    if (const HloInstruction* i = in(c.get())) return i;
  }
  return nullptr;
}

bool Debugger::OnStep(const Step& step) {
  if (cancel_ != nullptr && cancel_->load(std::memory_order_relaxed)) return false;
  TrackStack(step);
  if (step.after && step.instruction->shape().IsArray() &&
      step.instruction->shape().element_count() * ByteWidth(step.instruction->shape().element_type()) <=
          kKeepBytes) {
    // Small values are kept, so :print shows them after their buffers are reused.
    absl::StatusOr<Literal> value = step.read_value(step.instruction);
    if (value.ok()) {
      seen_.insert_or_assign(step.instruction->name(),
                             std::make_pair(std::move(*value), FrameLabel(stack_.back())));
    }
  }
  std::string reason;
  if (!ShouldStop(step, &reason)) return true;
  std::string text = Describe(step, reason);
  std::unique_lock<std::mutex> lock(mu_);
  if (request_ == Request::kKill) return false;
  stop_text_ = std::move(text);
  state_ = State::kStopped;
  cv_.notify_all();
  while (true) {
    cv_.wait(lock, [&] { return request_ != Request::kNone; });
    if (request_ == Request::kKill) return false;
    if (request_ == Request::kResume) {
      request_ = Request::kNone;
      mode_depth_ = step.depth;
      mode_parent_ = step.instruction->parent();
      mode_function_ = step.computation;
      return true;
    }
    // kRead: only this thread may read the running function's buffers.
    read_note_.clear();
    const HloInstruction* target = Find(read_name_, step);
    if (target == nullptr) {
      read_result_ = absl::NotFoundError(absl::StrCat("no instruction %", read_name_, " in the program"));
    } else {
      read_result_ = step.read_value(target);
      if (read_result_.ok()) {
        for (size_t f = stack_.size(); f-- > 0;) {
          if (stack_[f].computation == target->parent() || stack_[f].computation == step.computation) {
            read_note_ = FrameLabel(stack_[f]);
            break;
          }
        }
        seen_.insert_or_assign(read_name_, std::make_pair(read_result_->Clone(), read_note_));
      } else if (auto it = seen_.find(read_name_); it != seen_.end()) {
        read_result_ = it->second.first.Clone();
        read_note_ = absl::StrCat("computed in ", it->second.second);
      } else {
        read_result_ = absl::FailedPreconditionError(absl::StrCat(
            "%", read_name_, " has no value here (not computed yet, or too large to keep after "
            "its buffer was reused: :break on it)"));
      }
    }
    request_ = Request::kNone;
    cv_.notify_all();
  }
}

}  // namespace repl
}  // namespace hlovm
