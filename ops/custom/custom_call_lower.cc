// Lowering of custom-call: the target's factory (vm/custom_call.h registry)
// prepares the call once at compile time; the handler runs it. A failed
// check.* target is recorded as a check failure and the program goes on.
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "ops/linalg/lapack.h"
#include "ops/lowerings.h"
#include "vm/check_failure.h"
#include "vm/custom_call.h"
#include "vm/lowering.h"

namespace hlovm {
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
  spec.kind = HandlerKind::kCustomCall;
  spec.variant = absl::StrCat("\"", instr.attrs().custom_call_target, "\"");
  spec.side_effect = instr.attrs().custom_call_has_side_effect ||
                     static_cast<const CustomCallPlan*>(spec.plan)->call->is_check();
  b.Emit(&instr, std::move(spec));
  return absl::OkStatus();
}

}  // namespace

void RegisterCustomCallLowering(LoweringTable& table) {
  table[static_cast<int>(HloOpcode::kCustomCall)] = &LowerCustomCall;
  RegisterLapackTargets();
}

}  // namespace vm
}  // namespace hlovm
