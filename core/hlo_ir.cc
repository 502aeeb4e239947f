#include "core/hlo_ir.h"

#include <memory>
#include <string_view>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace hlovm {
namespace {

// The instruction allocator: blocks of sizeof(HloInstruction), carved from
// slabs that are never returned, kept on a free list per thread. A thread
// that ends hands its list to a shared one, which threads refill from
// before carving a new slab.
struct FreeBlock {
  FreeBlock* next;
};
constexpr size_t kBlocksPerSlab = 128;

absl::Mutex shared_mu;
FreeBlock* shared_free ABSL_GUARDED_BY(shared_mu) = nullptr;

// Trivially destructible, so that they stay usable while the thread's other
// thread_locals are destroyed.
thread_local FreeBlock* local_free = nullptr;
thread_local bool local_ended = false;

void GiveToShared(FreeBlock* head) {
  if (head == nullptr) return;
  FreeBlock* tail = head;
  while (tail->next != nullptr) tail = tail->next;
  absl::MutexLock lock(&shared_mu);
  tail->next = shared_free;
  shared_free = head;
}

// Hands the thread's list on when the thread ends.
struct LocalReclaimer {
  bool armed = false;
  ~LocalReclaimer() {
    local_ended = true;
    GiveToShared(local_free);
    local_free = nullptr;
  }
};
thread_local LocalReclaimer local_reclaimer;

// A list of free blocks: the shared list, else a new slab.
FreeBlock* TakeBlocks() {
  {
    absl::MutexLock lock(&shared_mu);
    if (shared_free != nullptr) {
      FreeBlock* head = shared_free;
      shared_free = nullptr;
      return head;
    }
  }
  char* slab = static_cast<char*>(::operator new(kBlocksPerSlab * sizeof(HloInstruction)));
  FreeBlock* head = nullptr;
  for (size_t k = kBlocksPerSlab; k-- > 0;) {
    auto* b = reinterpret_cast<FreeBlock*>(slab + k * sizeof(HloInstruction));
    b->next = head;
    head = b;
  }
  return head;
}

}  // namespace

void* HloInstruction::operator new(size_t size) {
  if (size != sizeof(HloInstruction)) return ::operator new(size);
  if (local_free == nullptr) {
    FreeBlock* head = TakeBlocks();
    if (local_ended) {  // no list of its own any more: the rest is shared
      GiveToShared(head->next);
      return head;
    }
    local_reclaimer.armed = true;
    local_free = head;
  }
  FreeBlock* b = local_free;
  local_free = b->next;
  return b;
}

void HloInstruction::operator delete(void* block, size_t size) noexcept {
  if (block == nullptr) return;
  if (size != sizeof(HloInstruction)) {
    ::operator delete(block, size);
    return;
  }
  auto* b = static_cast<FreeBlock*>(block);
  if (local_ended) {
    b->next = nullptr;
    GiveToShared(b);
    return;
  }
  b->next = local_free;
  local_free = b;
}

const OpAttributes& HloInstruction::NoAttributes() {
  static const OpAttributes* const defaults = new OpAttributes();
  return *defaults;
}

const std::string* HloInstruction::FindRawAttribute(std::string_view name) const {
  for (const auto& [key, value] : raw_attributes_) {
    if (key == name) return &value;
  }
  return nullptr;
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
