// Memory for many small objects that are made together and mostly die
// together: a module's instructions, their attributes.
//
// Blocks are carved in address order from slabs of 256 KiB, aligned to their
// size so that a block finds its slab by masking its address. Each thread
// carves from a slab of its own; a slab whose blocks are all freed (and that
// no thread carves from) goes back to its pool and is carved again from its
// start. What is made together therefore lies together, and freeing a block
// is one atomic decrement: no allocator bookkeeping, no merging of
// neighbouring free chunks. The price is that one live block keeps its whole
// slab; slabs are kept for reuse, never returned to the system.
#ifndef HLOVM_CORE_SLAB_POOL_H_
#define HLOVM_CORE_SLAB_POOL_H_

#include <cstddef>
#include <cstdint>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace hlovm {

class SlabPool {
 public:
  static constexpr size_t kSlabBytes = size_t{1} << 18;
  static constexpr size_t kHeaderBytes = 64;
  static constexpr size_t kAlignment = 8;
  static constexpr size_t kMaxBlockBytes = kSlabBytes - kHeaderBytes;
  // Pools that can exist at once (each thread has a carver for each).
  static constexpr int kMaxPools = 4;

  // For a pool with static storage duration.
  explicit constexpr SlabPool(int id) : id_(id) {}
  SlabPool(const SlabPool&) = delete;
  SlabPool& operator=(const SlabPool&) = delete;

  // A block of `bytes` (at most kMaxBlockBytes), aligned to kAlignment.
  void* Allocate(size_t bytes);
  // Frees a block that Allocate of any pool gave; any thread may free it.
  static void Free(void* block);

 private:
  struct Slab;
  friend struct SlabCarver;
  Slab* Take();
  static void Release(Slab* slab);

  const int id_;
  absl::Mutex mu_{absl::kConstInit};
  Slab* empty_ ABSL_GUARDED_BY(mu_) = nullptr;
};

// The pool of the IR: instructions and their attributes. An instruction's
// attributes are mostly carved just after it, so that what reads both (cse
// comparing instructions) finds them in neighbouring lines.
SlabPool& IrPool();

}  // namespace hlovm

#endif  // HLOVM_CORE_SLAB_POOL_H_
