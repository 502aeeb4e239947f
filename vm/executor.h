// The executor: runs bytecode Functions over register files.
//
// A function runs sequentially (the plain dispatch loop) unless the compiler
// marked it `parallel` and the context has several threads; then
// instructions whose dependencies are done run concurrently on oneTBB's
// work-stealing scheduler: a finished instruction decrements its successors'
// counters, large ready instructions are spawned as tasks and small ones run
// inline on the current thread. Kernels split large arrays themselves
// (ForEachChunk). Cancellation and stepping (ExecContext::hooked) select a
// separate instantiation of the loops, so they cost nothing when unused.
#ifndef HLOVM_VM_EXECUTOR_H_
#define HLOVM_VM_EXECUTOR_H_

#include <cstdint>
#include <memory>

#include "absl/status/statusor.h"
#include "vm/api.h"
#include "vm/buffer_plan.h"
#include "vm/bytecode.h"

namespace hlovm {
namespace vm {

// One activation of a function: its register file and arena. Owned and
// constant registers point where they belong; parameter registers are null
// until the caller sets them.
class Frame {
 public:
  // A frame with an arena of its own (the entry function, a kernel's call).
  // Entry results (Function::slot_result) are bound by each run.
  static absl::StatusOr<std::unique_ptr<Frame>> Create(const Function& fn);
  // A frame whose owned registers point nowhere until Bind: loop conditions,
  // bodies and branches live in a buffer of their caller's arena.
  static std::unique_ptr<Frame> CreateUnbound(const Function& fn);
  // Points the owned registers into `arena` (Function::arena_bytes) and
  // those of result slots into `results` (a loop body's result buffers,
  // Function::result_region_bytes; null elsewhere).
  void Bind(uint8_t* arena, uint8_t* results);
  ~Frame();
  uint8_t** regs() { return regs_.get(); }
  const Function& function() const { return *fn_; }

 private:
  Frame() = default;
  const Function* fn_ = nullptr;
  std::unique_ptr<uint8_t*[]> regs_;
  uint8_t* arena_ = nullptr;
  // What the owned registers point into since the last Bind (only Bind
  // writes them, so binding to the same buffers again changes nothing).
  bool bound_ = false;
  const uint8_t* bound_arena_ = nullptr;
  const uint8_t* bound_results_ = nullptr;
};

// Frames of one function kept for reuse: a loop body or branch that runs
// many times makes its register file once, not per run.
struct FramePool;
std::shared_ptr<FramePool> NewFramePool();

// A frame of `fn` taken from its pool (or created), bound to `arena` and
// `results` (see Frame::Bind), and given back when it goes out of scope.
// Parameter registers hold whatever the last user set.
class PooledFrame {
 public:
  static PooledFrame Acquire(const Function& fn, uint8_t* arena, uint8_t* results = nullptr);
  PooledFrame(PooledFrame&&) = default;
  PooledFrame& operator=(PooledFrame&&) = default;
  ~PooledFrame();
  uint8_t** regs() { return frame_->regs(); }

 private:
  PooledFrame(const Function* fn, std::unique_ptr<Frame> frame)
      : fn_(fn), frame_(std::move(frame)) {}
  const Function* fn_;
  std::unique_ptr<Frame> frame_;
};

// Runs `fn` with the register file `regs` (parameters set). Returns false
// after recording an error in `ctx`.
bool RunFunction(const Function& fn, uint8_t** regs, ExecContext& ctx);

// The plain dispatch loop: runs `fn`'s instructions in order on this thread
// with no hooks; kPublish stores each instruction in ctx.position before it
// runs. Inline, so that a caller running a function many times (a loop's
// condition and body) dispatches without a call into the executor.
template <bool kPublish>
inline bool RunStraight(const Function& fn, uint8_t** regs, ExecContext& ctx) {
  const Instr* const begin = fn.code.data();
  const Instr* const end = begin + fn.code.size();
  for (const Instr* instr = begin; instr != end; ++instr) {
    if constexpr (kPublish) ctx.position->instruction.store(instr, std::memory_order_relaxed);
    if (!instr->handler(*instr, regs, ctx)) [[unlikely]] {
      ctx.Annotate(fn.info[instr - begin].hlo);
      return false;
    }
  }
  return true;
}

// How RunFunction would run `fn` under `ctx`, decided once by a caller that
// runs it many times (the context's hooks do not change during a run).
// `cancel_checked`: the caller checks cancellation just before each run (a
// loop's back-edge before its condition), so a cancel flag alone does not
// need the hooked loop.
enum class Dispatch : uint8_t {
  kGeneral,    // through RunFunction (hooks, or in parallel)
  kStraight,   // RunStraight<false>
  kPublished,  // RunStraight<true>
};
inline Dispatch ChooseDispatch(const Function& fn, const ExecContext& ctx,
                               bool cancel_checked = false) {
  if (ctx.observer != nullptr || ctx.profiler != nullptr) return Dispatch::kGeneral;
  if (ctx.cancel != nullptr && !cancel_checked) return Dispatch::kGeneral;
  if (fn.parallel && ctx.threads > 1 && !ctx.sequential) return Dispatch::kGeneral;
  return ctx.position != nullptr ? Dispatch::kPublished : Dispatch::kStraight;
}
// RunFunction, by the dispatch ChooseDispatch chose.
inline bool RunFunctionAs(Dispatch dispatch, const Function& fn, uint8_t** regs,
                          ExecContext& ctx) {
  switch (dispatch) {
    case Dispatch::kStraight:
      return RunStraight<false>(fn, regs, ctx);
    case Dispatch::kPublished:
      return RunStraight<true>(fn, regs, ctx);
    case Dispatch::kGeneral:
      break;
  }
  return RunFunction(fn, regs, ctx);
}

}  // namespace vm
}  // namespace hlovm

#endif  // HLOVM_VM_EXECUTOR_H_
