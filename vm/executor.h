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

}  // namespace vm
}  // namespace hlovm

#endif  // HLOVM_VM_EXECUTOR_H_
