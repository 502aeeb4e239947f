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
  static absl::StatusOr<std::unique_ptr<Frame>> Create(const Function& fn);
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
// many times allocates its arena once, not per run.
struct FramePool;
std::shared_ptr<FramePool> NewFramePool();

// A frame of `fn` taken from its pool (or created) and given back when it
// goes out of scope. Owned and constant registers are as Frame::Create sets
// them; parameter registers hold whatever the last user set.
class PooledFrame {
 public:
  static absl::StatusOr<PooledFrame> Acquire(const Function& fn);
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
