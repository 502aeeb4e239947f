#include "core/slab_pool.h"

#include <atomic>
#include <cstdlib>
#include <new>

namespace hlovm {

struct SlabPool::Slab {
  std::atomic<int64_t> live;  // blocks in use, plus one while a thread carves
  SlabPool* pool;
  Slab* next;
};

// A thread's current slab in each pool, released when the thread ends.
struct SlabCarver {
  SlabPool::Slab* slab = nullptr;
  size_t next = SlabPool::kHeaderBytes;  // offset of the next block
  ~SlabCarver() {
    if (slab != nullptr) SlabPool::Release(slab);
  }
};

namespace {
thread_local SlabCarver carvers[SlabPool::kMaxPools];
}  // namespace

void SlabPool::Release(Slab* slab) {
  if (slab->live.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  SlabPool& pool = *slab->pool;
  absl::MutexLock lock(&pool.mu_);
  slab->next = pool.empty_;
  pool.empty_ = slab;
}

SlabPool::Slab* SlabPool::Take() {
  static_assert(sizeof(Slab) <= kHeaderBytes && kHeaderBytes % kAlignment == 0);
  {
    absl::MutexLock lock(&mu_);
    if (empty_ != nullptr) {
      Slab* slab = empty_;
      empty_ = slab->next;
      slab->live.store(1, std::memory_order_relaxed);
      return slab;
    }
  }
  void* memory = std::aligned_alloc(kSlabBytes, kSlabBytes);
  if (memory == nullptr) throw std::bad_alloc();
  return new (memory) Slab{{1}, this, nullptr};
}

void* SlabPool::Allocate(size_t bytes) {
  bytes = (bytes + kAlignment - 1) & ~(kAlignment - 1);
  SlabCarver& c = carvers[id_];
  if (c.slab == nullptr || c.next + bytes > kSlabBytes) {
    if (c.slab != nullptr) Release(c.slab);
    c.slab = Take();
    c.next = kHeaderBytes;
  }
  c.slab->live.fetch_add(1, std::memory_order_relaxed);
  void* block = reinterpret_cast<char*>(c.slab) + c.next;
  c.next += bytes;
  return block;
}

SlabPool& IrPool() {
  static SlabPool pool(0);
  return pool;
}

void SlabPool::Free(void* block) {
  Release(reinterpret_cast<Slab*>(reinterpret_cast<uintptr_t>(block) & ~(kSlabBytes - 1)));
}

}  // namespace hlovm
