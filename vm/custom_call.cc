#include "vm/custom_call.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "core/status_macros.h"
#include "vm/api.h"
#include "vm/check_failure.h"
#include "vm/compiler.h"
#include "vm/lowering.h"

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

bool IsCheckFailure(const absl::Status& status) {
  return !status.ok() && GetCheckFailure(status).has_value();
}

int ExitCodeForStatus(const absl::Status& status) {
  if (status.ok()) return 0;
  switch (status.code()) {
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kUnimplemented:
    case absl::StatusCode::kResourceExhausted:
    case absl::StatusCode::kNotFound:
      return 2;
    default:
      return 1;
  }
}

namespace vm {
namespace {

struct CustomCallPlan {
  std::shared_ptr<const PreparedCustomCall> call;
  std::vector<Shape> in_shapes, out_shapes;  // row-major leaves
  const HloInstruction* hlo;
  int64_t check_order;
};

bool CustomCallHandler(const Instr& instr, uint8_t* const* regs, ExecContext& ctx) {
  const auto& p = *static_cast<const CustomCallPlan*>(instr.plan);
  absl::InlinedVector<ArrayView, 4> ins;
  absl::InlinedVector<MutableArrayView, 2> outs;
  for (uint32_t i = 0; i < instr.num_in; ++i) ins.push_back({&p.in_shapes[i], regs[instr.in[i]]});
  for (uint32_t i = 0; i < instr.num_out; ++i) {
    outs.push_back({&p.out_shapes[i], regs[instr.out[i]]});
  }
  absl::Status s = p.call->Run(ins, outs);
  if (s.ok()) return true;
  if (p.call->is_check()) {
    if (std::optional<CheckFailure> failure = GetCheckFailure(s)) {
      failure->replica_id = ctx.replica_id;
      failure->partition_id = ctx.partition_id;
      ctx.FailCheck(p.check_order, CheckFailureStatus(*failure));
      return true;
    }
  }
  return ctx.Fail(std::move(s));
}

absl::Status LowerCustomCall(FunctionBuilder& b, const HloInstruction& instr,
                             absl::Span<const ValueDesc* const> ops, ValueDesc* result) {
  CustomCallFactory factory = FindCustomCallTarget(instr.attrs().custom_call_target);
  if (factory == nullptr) {
    return absl::UnimplementedError(absl::StrCat("unknown custom-call target \"",
                                                 instr.attrs().custom_call_target, "\""));
  }
  HLOVM_ASSIGN_OR_RETURN(std::unique_ptr<PreparedCustomCall> call, factory(instr));
  CustomCallPlan plan;
  plan.hlo = &instr;
  plan.check_order = call->is_check() ? b.compiler().NextCheckOrder() : 0;
  plan.call = std::move(call);
  FunctionBuilder::EmitSpec spec;
  for (const ValueDesc* op : ops) {
    for (Reg r : *op) {
      spec.in.push_back(r);
      plan.in_shapes.push_back(b.function().regs[r].shape);
      spec.cost += b.function().regs[r].bytes;
    }
  }
  HLOVM_ASSIGN_OR_RETURN(*result, b.NewOwnedValue(instr.shape()));
  for (Reg r : *result) {
    spec.out.push_back(r);
    plan.out_shapes.push_back(b.function().regs[r].shape);
    spec.cost += b.function().regs[r].bytes;
  }
  spec.handler = &CustomCallHandler;
  spec.plan = b.program().AddPlan(std::move(plan));
  spec.mnemonic = "custom-call";
  spec.variant = absl::StrCat("\"", instr.attrs().custom_call_target, "\"");
  spec.side_effect = instr.attrs().custom_call_has_side_effect ||
                     static_cast<const CustomCallPlan*>(spec.plan)->call->is_check();
  b.Emit(&instr, std::move(spec));
  return absl::OkStatus();
}

}  // namespace

void RegisterCustomCallLowering(LoweringTable& table) {
  table[static_cast<int>(HloOpcode::kCustomCall)] = &LowerCustomCall;
}

}  // namespace vm
}  // namespace hlovm
