#include "vm/custom_call.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "core/status_macros.h"

namespace hlovm {
namespace {

struct Registry {
  absl::Mutex mu;
  absl::flat_hash_map<std::string, CustomCallFactory> targets ABSL_GUARDED_BY(mu);
};

Registry& RawRegistry() {
  static Registry* registry = new Registry();
  return *registry;
}

// The registry with the built-in targets in it.
// Sharding annotations: on one device (the module runs unpartitioned) each
// is the identity, as XLA's sharding removal treats them.
class IdentityCall final : public PreparedCustomCall {
 public:
  absl::Status Run(absl::Span<const ArrayView> operands,
                   absl::Span<const MutableArrayView> results) const override {
    for (size_t i = 0; i < results.size(); ++i) {
      const int64_t bytes = results[i].shape->byte_size();
      if (bytes > 0 && results[i].data != operands[i].data) {
        std::memcpy(results[i].data, operands[i].data, static_cast<size_t>(bytes));
      }
    }
    return absl::OkStatus();
  }
};

absl::StatusOr<std::unique_ptr<PreparedCustomCall>> MakeIdentityCall(
    const HloInstruction& instr) {
  if (instr.operand_count() != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("custom-call \"", instr.attrs().custom_call_target,
                     "\" takes one operand, got ", instr.operand_count()));
  }
  const Shape& in = instr.operand(0)->shape();
  const Shape& out = instr.shape();
  if (!in.IsArray() || !out.IsArray() || in.element_type() != out.element_type() ||
      in.dimensions() != out.dimensions()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "custom-call \"", instr.attrs().custom_call_target,
        "\" runs unpartitioned as the identity: its result must have the operand's shape"));
  }
  return std::make_unique<IdentityCall>();
}

Registry& GetRegistry() {
  static const bool builtins = [] {
    vm::RegisterCheckTargets();
    for (const char* target : {"Sharding", "SPMDFullToShardShape", "SPMDShardToFullShape"}) {
      RegisterCustomCallTarget(target, &MakeIdentityCall);
    }
    return true;
  }();
  (void)builtins;
  return RawRegistry();
}

}  // namespace

void RegisterCustomCallTarget(std::string_view target, CustomCallFactory factory) {
  Registry& r = RawRegistry();
  absl::MutexLock lock(&r.mu);
  r.targets[std::string(target)] = factory;
}

CustomCallFactory FindCustomCallTarget(std::string_view target) {
  Registry& r = GetRegistry();
  absl::MutexLock lock(&r.mu);
  auto it = r.targets.find(std::string(target));
  return it == r.targets.end() ? nullptr : it->second;
}

std::vector<std::string> CustomCallTargets() {
  Registry& r = GetRegistry();
  absl::MutexLock lock(&r.mu);
  std::vector<std::string> names;
  for (const auto& [name, factory] : r.targets) names.push_back(name);
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace hlovm
