// Lowering of dot (DotGeneral) to one instruction running ops/dot/dot.h:
// operands rearranged and converted on the calling thread, then GEMM tiles
// split in fixed units across threads (results do not depend on the thread
// count), then the result converted.
#include <algorithm>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "ops/dot/dot.h"
#include "ops/dot/dot_lower.h"
#include "ops/dot/ragged_dot.h"
#include "ops/dot/scaled_dot.h"
#include "ops/dot/unit_kernel.h"
#include "ops/lowerings.h"
#include "vm/lowering.h"

namespace hlovm {
namespace vm {
namespace {

bool DotHandler(const Instr& instr, uint8_t* const* regs, ExecContext& ctx) {
  const auto& p = *static_cast<const DotPlan*>(instr.plan);
  uint8_t* out = regs[instr.out[0]];
  const uint8_t* lhs = regs[instr.in[0]];
  const uint8_t* rhs = regs[instr.in[1]];
  return RunUnitKernel(
      ctx, p, "dot", kParallelDotFlops,
      [&](uint8_t* scratch) { return DotPrepare(p, lhs, rhs, out, scratch); },
      [&](const auto& bufs, int64_t b, int64_t e) { DotGemmUnits(p, bufs, b, e); },
      [&](const auto& bufs) { DotFinish(p, bufs, out); });
}

}  // namespace

absl::Status EmitDotAs(FunctionBuilder& b, const HloInstruction& instr, Reg lhs, Reg rhs,
                       const Shape& lhs_shape, const Shape& rhs_shape, const Shape& dot_shape,
                       const DotDimensionNumbers& dnums, ValueDesc* result) {
  HLOVM_ASSIGN_OR_RETURN(DotPlan plan, MakeDotPlan(lhs_shape, rhs_shape, dot_shape, dnums));
  HLOVM_ASSIGN_OR_RETURN(Reg out, b.NewReg(RegKind::kOwned, instr.shape()));
  FunctionBuilder::EmitSpec spec;
  spec.handler = &DotHandler;
  spec.in = {lhs, rhs};
  spec.out = {out};
  spec.cost = std::max<int64_t>(plan.flops(), b.function().regs[out].bytes);
  spec.kind = HandlerKind::kDot;
  spec.variant =
      absl::StrCat(instr.opcode() == HloOpcode::kDot ? "" : "as dot ",
                   std::string(ElementTypeName(lhs_shape.element_type())), "x",
                   std::string(ElementTypeName(rhs_shape.element_type())), "->",
                   std::string(ElementTypeName(plan.result_type)), " via ",
                   std::string(ElementTypeName(plan.compute_type)), " b=", plan.dims.batch,
                   " m=", plan.dims.m, " k=", plan.dims.k, " n=", plan.dims.n,
                   plan.lhs.transpose ? " lhs-T" : "", plan.rhs.transpose ? " rhs-T" : "");
  if (GemmReadsStrided(plan.compute_type)) {
    absl::StrAppend(&spec.variant, " ",
                    gemm_internal::HwyGemmPath(plan.compute_type == ElementType::kF64, plan.dims));
  }
  spec.plan = b.program().AddPlan(std::move(plan));
  b.Emit(&instr, std::move(spec));
  result->push_back(out);
  return absl::OkStatus();
}

namespace {

// Emits the dot of `lhs` and `rhs` (operands 0 and 1 of `instr`).
absl::Status EmitDot(FunctionBuilder& b, const HloInstruction& instr, Reg lhs, Reg rhs,
                     ValueDesc* result) {
  return EmitDotAs(b, instr, lhs, rhs, instr.operand(0)->shape(), instr.operand(1)->shape(),
                   instr.shape(),
                   instr.attrs().dot_dimension_numbers.value_or(DotDimensionNumbers{}), result);
}

absl::Status LowerDot(FunctionBuilder& b, const HloInstruction& instr,
                      absl::Span<const ValueDesc* const> ops, ValueDesc* result) {
  if (instr.operand_count() != 2 || ops.size() != 2) {
    return absl::InvalidArgumentError("dot takes two operands");
  }
  return EmitDot(b, instr, (*ops[0])[0], (*ops[1])[0], result);
}

bool RaggedDotHandler(const Instr& instr, uint8_t* const* regs, ExecContext& /*ctx*/) {
  const auto& p = *static_cast<const RaggedDotPlan*>(instr.plan);
  RunRaggedDot(p, regs[instr.in[0]], regs[instr.in[1]], regs[instr.in[2]], regs[instr.out[0]]);
  return true;
}

absl::Status LowerRaggedDot(FunctionBuilder& b, const HloInstruction& instr,
                            absl::Span<const ValueDesc* const> ops, ValueDesc* result) {
  if (instr.operand_count() != 3 || ops.size() != 3) {
    return absl::InvalidArgumentError("ragged-dot takes three operands");
  }
  const DotDimensionNumbers dnums =
      instr.attrs().dot_dimension_numbers.value_or(DotDimensionNumbers{});
  // A ragged batch dimension changes nothing: the plain dot.
  if (RaggedDotModeOf(dnums) == RaggedDotMode::kBatch) {
    return EmitDot(b, instr, (*ops[0])[0], (*ops[1])[0], result);
  }
  HLOVM_ASSIGN_OR_RETURN(RaggedDotPlan plan,
                         MakeRaggedDotPlan(instr.operand(0)->shape(), instr.operand(1)->shape(),
                                           instr.operand(2)->shape(), instr.shape(), dnums));
  HLOVM_ASSIGN_OR_RETURN(Reg out, b.NewReg(RegKind::kOwned, instr.shape()));
  FunctionBuilder::EmitSpec spec;
  spec.handler = &RaggedDotHandler;
  spec.in = {(*ops[0])[0], (*ops[1])[0], (*ops[2])[0]};
  spec.out = {out};
  spec.cost = std::max<int64_t>(plan.flops(), b.function().regs[out].bytes);
  spec.kind = HandlerKind::kRaggedDot;
  spec.variant =
      absl::StrCat(plan.mode == RaggedDotMode::kContracting ? "contracting" : "non-contracting",
                   " ", std::string(ElementTypeName(plan.result_type)), " b=", plan.batch,
                   " m=", plan.m, " k=", plan.k, " n=", plan.n, " groups=", plan.groups);
  spec.plan = b.program().AddPlan(std::move(plan));
  b.Emit(&instr, std::move(spec));
  result->push_back(out);
  return absl::OkStatus();
}

bool ScaledDotHandler(const Instr& instr, uint8_t* const* regs, ExecContext& /*ctx*/) {
  const auto& p = *static_cast<const ScaledDotPlan*>(instr.plan);
  RunScaledDot(p, regs[instr.in[0]], regs[instr.in[1]], regs[instr.in[2]], regs[instr.in[3]],
               regs[instr.out[0]]);
  return true;
}

// scaled-dot(lhs, rhs, lhs_scale, rhs_scale).
absl::Status LowerScaledDot(FunctionBuilder& b, const HloInstruction& instr,
                            absl::Span<const ValueDesc* const> ops, ValueDesc* result) {
  if (instr.operand_count() != 4 || ops.size() != 4) {
    return absl::InvalidArgumentError("scaled-dot takes four operands");
  }
  const DotDimensionNumbers dnums =
      instr.attrs().dot_dimension_numbers.value_or(DotDimensionNumbers{});
  HLOVM_ASSIGN_OR_RETURN(ScaledDotPlan plan,
                         MakeScaledDotPlan(instr.operand(0)->shape(), instr.operand(1)->shape(),
                                           instr.operand(2)->shape(), instr.operand(3)->shape(),
                                           instr.shape(), dnums));
  HLOVM_ASSIGN_OR_RETURN(Reg out, b.NewReg(RegKind::kOwned, instr.shape()));
  FunctionBuilder::EmitSpec spec;
  spec.handler = &ScaledDotHandler;
  for (const ValueDesc* v : ops) spec.in.push_back((*v)[0]);
  spec.out = {out};
  spec.cost = std::max<int64_t>(plan.flops(), b.function().regs[out].bytes);
  spec.kind = HandlerKind::kScaledDot;
  spec.variant = absl::StrCat(
      "dequantised to ", plan.lhs.active ? std::string(ElementTypeName(plan.lhs.type)) : "-", "/",
      plan.rhs.active ? std::string(ElementTypeName(plan.rhs.type)) : "-", " m=", plan.dot.dims.m,
      " k=", plan.dot.dims.k, " n=", plan.dot.dims.n);
  spec.plan = b.program().AddPlan(std::move(plan));
  b.Emit(&instr, std::move(spec));
  result->push_back(out);
  return absl::OkStatus();
}

}  // namespace

void RegisterDotLowerings(LoweringTable& table) {
  table[static_cast<int>(HloOpcode::kDot)] = &LowerDot;
  table[static_cast<int>(HloOpcode::kRaggedDot)] = &LowerRaggedDot;
  table[static_cast<int>(HloOpcode::kScaledDot)] = &LowerScaledDot;
}

}  // namespace vm
}  // namespace hlovm
