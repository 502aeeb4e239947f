#include "vm/executor.h"

#include <cstdlib>
#include <cstring>
#include <new>
#include <thread>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/text_cursor.h"
#include "oneapi/tbb/task_group.h"
#include "vm/api.h"
#include "vm/async_exchange.h"
#include "vm/profiler.h"

namespace hlovm {
namespace vm {

//===----------------------------------------------------------------------===//
// ExecContext.
//===----------------------------------------------------------------------===//

namespace {

// `message` at `where` in `module`'s source (either may be unknown), marked
// located; keeps the code and payloads of `status`.
absl::Status Located(const absl::Status& status, const HloModule* module,
                     const SourceLocation& where, std::string_view message) {
  std::string located(message);
  if (module != nullptr || where.line > 0) {
    const std::string* text = module != nullptr ? module->source_text.get() : nullptr;
    located = FormatSourceMessage(
        module != nullptr ? std::string_view(module->source_name) : std::string_view(),
        where.line, where.column, text != nullptr ? std::string_view(*text) : std::string_view(),
        text != nullptr && where.line > 0 ? where.offset : std::string_view::npos, message);
  }
  absl::Status out(status.code(), located);
  status.ForEachPayload(
      [&](absl::string_view url, const absl::Cord& payload) { out.SetPayload(url, payload); });
  out.SetPayload(kLocatedPayload, absl::Cord());
  return out;
}

std::string_view View(absl::string_view s) { return std::string_view(s.data(), s.size()); }

}  // namespace

absl::Status AnnotateStatus(const absl::Status& status, const HloInstruction* hlo) {
  if (hlo == nullptr || status.ok() || status.GetPayload(kLocatedPayload).has_value()) {
    return status;
  }
  // Messages that name the instruction already keep only their own text.
  absl::string_view message = status.message();
  const std::string bare = absl::StrCat("%", hlo->name(), ": ");
  if (absl::StartsWith(message, bare)) message.remove_prefix(bare.size());
  const std::string body = absl::StrCat("%", hlo->name(), " (",
                                        std::string(HloOpcodeName(hlo->opcode())), "): ", message);
  const HloModule* module = hlo->parent() != nullptr ? hlo->parent()->parent() : nullptr;
  if (module == nullptr && hlo->location().line <= 0) {
    absl::Status out(status.code(), body);
    status.ForEachPayload(
        [&](absl::string_view url, const absl::Cord& payload) { out.SetPayload(url, payload); });
    return out;
  }
  return Located(status, module, hlo->location(), body);
}

absl::Status AnnotateStatus(const absl::Status& status, const HloComputation* computation) {
  if (computation == nullptr || status.ok() || status.GetPayload(kLocatedPayload).has_value()) {
    return status;
  }
  return Located(status, computation->parent(), computation->location(), View(status.message()));
}

absl::Status AnnotateStatus(const absl::Status& status, const HloModule& module) {
  if (status.ok() || status.GetPayload(kLocatedPayload).has_value()) return status;
  return Located(status, &module, SourceLocation{}, View(status.message()));
}

bool ExecContext::Fail(absl::Status s) {
  absl::MutexLock lock(&mu);
  if (status.ok()) status = std::move(s);
  failed.store(true, std::memory_order_relaxed);
  return false;
}

void ExecContext::Annotate(const HloInstruction* hlo) {
  absl::MutexLock lock(&mu);
  status = AnnotateStatus(status, hlo);
}

void ExecContext::FailCheck(int64_t order, absl::Status s) {
  absl::MutexLock lock(&mu);
  ++checks_failed;
  if (order < check_order) {
    check_order = order;
    check_status = std::move(s);
  }
}

absl::Status ExecContext::Result() {
  absl::MutexLock lock(&mu);
  if (!status.ok()) return status;
  if (checks_failed == 0) return absl::OkStatus();
  if (checks_failed == 1) return check_status;
  absl::Status out(check_status.code(), absl::StrCat(check_status.message(), " (and ",
                                                     checks_failed - 1, " more failed checks)"));
  check_status.ForEachPayload(
      [&](absl::string_view url, const absl::Cord& payload) { out.SetPayload(url, payload); });
  return out;
}

//===----------------------------------------------------------------------===//
// Frame.
//===----------------------------------------------------------------------===//

namespace {
alignas(64) uint8_t empty_buffer[64];
}  // namespace

absl::StatusOr<std::unique_ptr<Frame>> Frame::Create(const Function& fn) {
  std::unique_ptr<Frame> frame = CreateUnbound(fn);
  if (fn.arena_bytes > 0) {
    frame->arena_ = static_cast<uint8_t*>(
        ::operator new(static_cast<size_t>(fn.arena_bytes), std::align_val_t(64), std::nothrow));
    if (frame->arena_ == nullptr) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "cannot allocate ", fn.arena_bytes, " bytes of buffers for %", fn.name));
    }
  }
  frame->Bind(frame->arena_, nullptr);
  return frame;
}

std::unique_ptr<Frame> Frame::CreateUnbound(const Function& fn) {
  std::unique_ptr<Frame> frame(new Frame());
  frame->fn_ = &fn;
  frame->regs_ = std::make_unique<uint8_t*[]>(fn.regs.size());
  for (size_t r = 0; r < fn.regs.size(); ++r) {
    const RegInfo& info = fn.regs[r];
    uint8_t* p = nullptr;
    switch (info.kind) {
      case RegKind::kOwned:
        if (info.bytes == 0 || info.slot < 0) p = empty_buffer;
        break;
      case RegKind::kConst:
        p = const_cast<uint8_t*>(info.const_data);
        if (p == nullptr) p = empty_buffer;
        break;
      case RegKind::kToken:
        p = empty_buffer;
        break;
      case RegKind::kParam:
        p = nullptr;
        break;
    }
    frame->regs_[r] = p;
  }
  return frame;
}

void Frame::Bind(uint8_t* arena, uint8_t* results) {
  // A pooled frame is mostly taken again by the same caller, over the same
  // buffers (an inner loop entered on every iteration of an outer one).
  if (bound_ && arena == bound_arena_ && results == bound_results_) return;
  bound_ = true;
  bound_arena_ = arena;
  bound_results_ = results;
  const Function& fn = *fn_;
  for (size_t r = 0; r < fn.regs.size(); ++r) {
    const RegInfo& info = fn.regs[r];
    if (info.kind != RegKind::kOwned || info.bytes == 0 || info.slot < 0) continue;
    uint8_t* base = fn.ResultOfSlot(info.slot) >= 0 ? results : arena;
    regs_[r] = base == nullptr ? nullptr : base + fn.slot_offset[info.slot];
  }
}

Frame::~Frame() {
  if (arena_ != nullptr) ::operator delete(arena_, std::align_val_t(64));
}

struct FramePool {
  // A few frames per function: as many as threads run it at once, usually.
  static constexpr size_t kKeep = 8;
  // Held for a push or a pop only, and taken on every entry of an inner
  // loop: a spin lock, cheaper than a mutex for that.
  std::atomic<bool> busy{false};
  std::vector<std::unique_ptr<Frame>> free;  // guarded by `busy`

  void Lock() {
    while (busy.exchange(true, std::memory_order_acquire)) {
      while (busy.load(std::memory_order_relaxed)) std::this_thread::yield();
    }
  }
  void Unlock() { busy.store(false, std::memory_order_release); }
};

std::shared_ptr<FramePool> NewFramePool() { return std::make_shared<FramePool>(); }

PooledFrame PooledFrame::Acquire(const Function& fn, uint8_t* arena, uint8_t* results) {
  std::unique_ptr<Frame> frame;
  if (fn.frame_pool != nullptr) {
    FramePool& pool = *fn.frame_pool;
    pool.Lock();
    if (!pool.free.empty()) {
      frame = std::move(pool.free.back());
      pool.free.pop_back();
    }
    pool.Unlock();
  }
  if (frame == nullptr) frame = Frame::CreateUnbound(fn);
  frame->Bind(arena, results);
  return PooledFrame(&fn, std::move(frame));
}

PooledFrame::~PooledFrame() {
  if (frame_ == nullptr || fn_->frame_pool == nullptr) return;
  FramePool& pool = *fn_->frame_pool;
  std::unique_ptr<Frame> dropped;  // deleted outside the lock
  pool.Lock();
  if (pool.free.size() < FramePool::kKeep) {
    pool.free.push_back(std::move(frame_));
  } else {
    dropped = std::move(frame_);
  }
  pool.Unlock();
}

//===----------------------------------------------------------------------===//
// Stepping.
//===----------------------------------------------------------------------===//

namespace {

bool RegLiveAt(const RegInfo& info, int64_t pc, bool after) {
  if (info.kind == RegKind::kParam && info.def >= 0) {
    // A loop state leaf written in place holds its old value until then.
    return after ? pc < info.def : pc <= info.def;
  }
  if (info.kind != RegKind::kOwned) return true;
  if (after) return info.def <= pc && (info.last_use > pc || info.def == pc || info.is_result);
  return info.def < pc && info.last_use >= pc;
}

absl::StatusOr<Literal> ReadRegs(const Function& fn, uint8_t* const* regs, const Shape& shape,
                                 const Reg*& leaf, int64_t pc, bool after,
                                 const HloInstruction* hlo) {
  if (shape.IsTuple()) {
    std::vector<Literal> elements;
    for (const Shape& s : shape.tuple_shapes()) {
      auto e = ReadRegs(fn, regs, s, leaf, pc, after, hlo);
      if (!e.ok()) return e.status();
      elements.push_back(std::move(*e));
    }
    return Literal::Tuple(std::move(elements));
  }
  const Reg r = *leaf++;
  const RegInfo& info = fn.regs[r];
  if (!RegLiveAt(info, pc, after) || regs[r] == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat("%", hlo->name(), " is not live at this point"));
  }
  if (!shape.IsArray()) return Literal();
  auto lit = Literal::CreateUninitialized(info.shape);
  if (!lit.ok()) return lit.status();
  if (info.bytes > 0) std::memcpy(lit->untyped_data(), regs[r], info.bytes);
  return lit;
}

bool Observe(const Function& fn, uint8_t* const* regs, ExecContext& ctx, int64_t pc, bool after) {
  const HloInstruction* hlo = fn.info[pc].hlo;
  auto read = [&](const HloInstruction* which) -> absl::StatusOr<Literal> {
    auto it = fn.values.find(which);
    if (it == fn.values.end()) {
      return absl::NotFoundError(absl::StrCat("%", which->name(), " is not in function %",
                                              fn.name));
    }
    const Reg* leaf = it->second.data();
    return ReadRegs(fn, regs, which->shape(), leaf, pc, after, which);
  };
  StepObserver::Step step{after, hlo, fn.computation, ctx.depth, pc, read};
  if (!ctx.observer->OnStep(step)) return ctx.Fail(absl::CancelledError("stopped by the debugger"));
  return true;
}

// Runs instruction `pc` of `fn` and records its time.
bool RunProfiled(const Function& fn, int32_t pc, uint8_t* const* regs, ExecContext& ctx) {
  const Instr& instr = fn.code[pc];
  ProfileEvent event;
  event.hlo = fn.info[pc].hlo;
  event.fused = fn.info[pc].fused;
  event.instance = ctx.instance;
  event.computation = fn.computation;
  event.begin_ns = Profiler::NowNs();
  const bool ok = instr.handler(instr, regs, ctx);
  event.end_ns = Profiler::NowNs();
  ctx.profiler->Record(event);
  return ok;
}

//===----------------------------------------------------------------------===//
// Sequential dispatch.
//===----------------------------------------------------------------------===//

// kPublish: stores each instruction in ctx.position before it runs.
template <bool kHooked, bool kPublish>
bool RunSequential(const Function& fn, uint8_t** regs, ExecContext& ctx) {
  const Instr* code = fn.code.data();
  const size_t n = fn.code.size();
  for (size_t pc = 0; pc < n; ++pc) {
    const Instr& instr = code[pc];
    if constexpr (kPublish) ctx.position->instruction.store(&instr, std::memory_order_relaxed);
    if constexpr (kHooked) {
      if (ctx.cancelled()) return ctx.Fail(ctx.CancelledError());
      if (ctx.observer != nullptr && !Observe(fn, regs, ctx, pc, false)) return false;
    }
    bool ok;
    if constexpr (kHooked) {
      ok = ctx.profiler == nullptr ? instr.handler(instr, regs, ctx)
                                   : RunProfiled(fn, static_cast<int32_t>(pc), regs, ctx);
    } else {
      ok = instr.handler(instr, regs, ctx);
    }
    if (!ok) [[unlikely]] {
      ctx.Annotate(fn.info[pc].hlo);
      return false;
    }
    if constexpr (kHooked) {
      if (ctx.observer != nullptr && !Observe(fn, regs, ctx, pc, true)) return false;
    }
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Parallel dispatch.
//===----------------------------------------------------------------------===//

class ParallelRun {
 public:
  ParallelRun(const Function& fn, uint8_t** regs, ExecContext& ctx)
      : fn_(fn), regs_(regs), ctx_(ctx), pending_(new std::atomic<int32_t>[fn.code.size()]) {
    for (size_t i = 0; i < fn.code.size(); ++i) {
      pending_[i].store(fn.dep_count[i], std::memory_order_relaxed);
    }
  }

  bool Run() {
    // Ready instructions at the start: large ones become tasks, small ones
    // are batched so that a batch is worth a task.
    absl::InlinedVector<int32_t, 64> batch;
    int64_t batch_cost = 0;
    for (int32_t i = 0; i < static_cast<int32_t>(fn_.code.size()); ++i) {
      if (fn_.dep_count[i] != 0) continue;
      const int64_t cost = fn_.code[i].cost;
      if (cost >= kSpawnCost) {
        group_.run([this, i] { Drain({i}); });
        continue;
      }
      batch.push_back(i);
      batch_cost += cost;
      if (batch_cost >= kSpawnCost) {
        group_.run([this, b = batch] { Drain(b); });
        batch.clear();
        batch_cost = 0;
      }
    }
    Drain(batch);
    group_.wait();
    return !ctx_.failed.load(std::memory_order_relaxed);
  }

 private:
  void Drain(absl::InlinedVector<int32_t, 64> stack) {
    while (!stack.empty()) {
      const int32_t i = stack.back();
      stack.pop_back();
      if (ctx_.failed.load(std::memory_order_relaxed)) return;
      if (ctx_.cancelled()) {
        ctx_.Fail(ctx_.CancelledError());
        return;
      }
      const Instr& instr = fn_.code[i];
      if (ctx_.position != nullptr) {
        ctx_.position->instruction.store(&instr, std::memory_order_relaxed);
      }
      const bool ok = ctx_.profiler == nullptr ? instr.handler(instr, regs_, ctx_)
                                               : RunProfiled(fn_, i, regs_, ctx_);
      if (!ok) {
        ctx_.Annotate(fn_.info[i].hlo);
        return;
      }
      for (int32_t k = fn_.succ_begin[i]; k < fn_.succ_begin[i + 1]; ++k) {
        const int32_t s = fn_.succ[k];
        if (pending_[s].fetch_sub(1, std::memory_order_acq_rel) != 1) continue;
        if (fn_.code[s].cost >= kSpawnCost) {
          group_.run([this, s] { Drain({s}); });
        } else {
          stack.push_back(s);
        }
      }
    }
  }

  const Function& fn_;
  uint8_t** regs_;
  ExecContext& ctx_;
  std::unique_ptr<std::atomic<int32_t>[]> pending_;
  tbb::task_group group_;
};

}  // namespace

namespace {

bool RunFunctionOnce(const Function& fn, uint8_t** regs, ExecContext& ctx) {
  const bool publish = ctx.position != nullptr;
  if (ctx.observer != nullptr) {
    return publish ? RunSequential<true, true>(fn, regs, ctx)
                   : RunSequential<true, false>(fn, regs, ctx);
  }
  if (fn.parallel && ctx.threads > 1 && !ctx.sequential) {
    ParallelRun run(fn, regs, ctx);
    return run.Run();
  }
  if (ctx.hooked()) {
    return publish ? RunSequential<true, true>(fn, regs, ctx)
                   : RunSequential<true, false>(fn, regs, ctx);
  }
  return publish ? RunStraight<true>(fn, regs, ctx) : RunStraight<false>(fn, regs, ctx);
}

// How deeply RunFunction calls nest on this thread: the outermost call (a
// run's entry function) ends the run's asynchronous exchanges.
thread_local int run_depth = 0;

}  // namespace

bool RunFunction(const Function& fn, uint8_t** regs, ExecContext& ctx) {
  ++run_depth;
  bool ok = RunFunctionOnce(fn, regs, ctx);
  if (--run_depth == 0 && ThreadBeganExchanges()) {
    // Exchanges begun by -starts whose -done never ran (the run failed in
    // between) end before the caller may free their buffers.
    absl::Status unfinished = FinishExchanges(ctx);
    if (ok && !unfinished.ok()) ok = ctx.Fail(std::move(unfinished));
  }
  return ok;
}

}  // namespace vm
}  // namespace hlovm
