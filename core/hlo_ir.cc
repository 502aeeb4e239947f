#include "core/hlo_ir.h"

#include <cstdint>
#include <memory>
#include <new>
#include <string_view>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/slab_pool.h"

namespace hlovm {
namespace {

// A module's instructions lie in the order they were made (SlabPool).
static_assert(alignof(HloInstruction) <= SlabPool::kAlignment);

}  // namespace

absl::Status ValidateInstanceCounts(int64_t replica_count, int64_t num_partitions) {
  if (replica_count < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("replica_count must be at least 1, not ", replica_count));
  }
  if (num_partitions < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("num_partitions must be at least 1, not ", num_partitions));
  }
  int64_t instances = 0;
  if (__builtin_mul_overflow(replica_count, num_partitions, &instances) ||
      instances > kMaxInstances) {
    return absl::InvalidArgumentError(absl::StrCat(
        replica_count, " replicas x ", num_partitions, " partitions are more than the ",
        kMaxInstances, " instances hlovm runs (a fixed cap: each instance takes a thread and "
        "buffers of its own)"));
  }
  return absl::OkStatus();
}

void* HloInstruction::operator new(size_t size) {
  if (size != sizeof(HloInstruction)) return ::operator new(size);
  return IrPool().Allocate(size);
}

void HloInstruction::operator delete(void* block, size_t size) noexcept {
  if (block == nullptr) return;
  if (size != sizeof(HloInstruction)) {
    ::operator delete(block, size);
    return;
  }
  SlabPool::Free(block);
}

const OpAttributes& HloInstruction::NoAttributes() {
  static const OpAttributes* const defaults = new OpAttributes();
  return *defaults;
}

void HloInstruction::AddControlPredecessor(HloInstruction* i) {
  control_predecessors_.push_back(i);
  if (parent_ != nullptr) parent_->may_have_control_edges_ = true;
}

HloInstruction* HloComputation::AddInstruction(std::unique_ptr<HloInstruction> instruction) {
  HloInstruction* raw = instruction.get();
  raw->set_parent(this);
  if (!raw->control_predecessors().empty()) may_have_control_edges_ = true;
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
