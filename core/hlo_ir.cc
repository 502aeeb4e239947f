#include "core/hlo_ir.h"

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>
#include <string_view>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace hlovm {
namespace {

// Slabs of instruction blocks, aligned to their size so that a block finds
// its slab by masking its address. A thread carves blocks from its current
// slab in address order; a slab whose blocks are all freed (and that no
// thread carves from) goes back to a shared list and is carved again from
// its start, so that a module's instructions lie in the order they were made.
constexpr size_t kSlabBytes = size_t{1} << 18;
struct Slab {
  std::atomic<int64_t> live;  // blocks in use, plus one while a thread carves
  Slab* next;
};
constexpr size_t kSlabHeader = 64;
constexpr size_t kBlocksPerSlab = (kSlabBytes - kSlabHeader) / sizeof(HloInstruction);
static_assert(sizeof(Slab) <= kSlabHeader && kSlabHeader % alignof(HloInstruction) == 0 &&
              sizeof(HloInstruction) % alignof(HloInstruction) == 0);

absl::Mutex empty_mu(absl::kConstInit);
Slab* empty_slabs ABSL_GUARDED_BY(empty_mu) = nullptr;

void Release(Slab* slab) {
  if (slab->live.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  absl::MutexLock lock(&empty_mu);
  slab->next = empty_slabs;
  empty_slabs = slab;
}

Slab* TakeSlab() {
  {
    absl::MutexLock lock(&empty_mu);
    if (empty_slabs != nullptr) {
      Slab* slab = empty_slabs;
      empty_slabs = slab->next;
      slab->live.store(1, std::memory_order_relaxed);
      return slab;
    }
  }
  void* memory = std::aligned_alloc(kSlabBytes, kSlabBytes);
  if (memory == nullptr) throw std::bad_alloc();
  Slab* slab = new (memory) Slab{{1}, nullptr};
  return slab;
}

struct Carver {
  Slab* slab = nullptr;
  size_t next = 0;
  ~Carver() {
    if (slab != nullptr) Release(slab);
    slab = nullptr;
  }
};
thread_local Carver carver;

}  // namespace

void* HloInstruction::operator new(size_t size) {
  if (size != sizeof(HloInstruction)) return ::operator new(size);
  Carver& c = carver;
  if (c.slab == nullptr || c.next == kBlocksPerSlab) {
    if (c.slab != nullptr) Release(c.slab);
    c.slab = TakeSlab();
    c.next = 0;
  }
  c.slab->live.fetch_add(1, std::memory_order_relaxed);
  return reinterpret_cast<char*>(c.slab) + kSlabHeader + c.next++ * sizeof(HloInstruction);
}

void HloInstruction::operator delete(void* block, size_t size) noexcept {
  if (block == nullptr) return;
  if (size != sizeof(HloInstruction)) {
    ::operator delete(block, size);
    return;
  }
  Release(reinterpret_cast<Slab*>(reinterpret_cast<uintptr_t>(block) & ~(kSlabBytes - 1)));
}

const OpAttributes& HloInstruction::NoAttributes() {
  static const OpAttributes* const defaults = new OpAttributes();
  return *defaults;
}

HloInstruction* HloComputation::AddInstruction(std::unique_ptr<HloInstruction> instruction) {
  HloInstruction* raw = instruction.get();
  raw->set_parent(this);
  if (raw->opcode() == HloOpcode::kParameter && raw->parameter_number >= 0) {
    // Parameters are indexed by number; holes (a number never given) stay
    // nullptr until filled, and the verifier reports them.
    size_t number = static_cast<size_t>(raw->parameter_number);
    if (number < (1u << 24)) {
      if (parameters_.size() <= number) parameters_.resize(number + 1, nullptr);
      if (parameters_[number] == nullptr) parameters_[number] = raw;
    }
  }
  instructions_.push_back(std::move(instruction));
  return raw;
}

HloComputation* HloModule::AddComputation(std::unique_ptr<HloComputation> computation) {
  HloComputation* raw = computation.get();
  raw->set_parent(this);
  computations_.push_back(std::move(computation));
  return raw;
}

HloComputation* HloModule::FindComputation(std::string_view name) const {
  for (const auto& computation : computations_) {
    if (computation->name() == name) return computation.get();
  }
  return nullptr;
}

}  // namespace hlovm
