// Lowering of convolution to one instruction running ops/dot/conv.h:
// operands converted and the kernel packed on the calling thread, then
// fixed units (group, output batch, tile of output positions) split across
// threads (results do not depend on the thread count), then the result
// converted.
#include <algorithm>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "ops/dot/conv.h"
#include "vm/lowering.h"
#include "vm/unit_kernel.h"

namespace hlovm {
namespace vm {
namespace {

// Below this many flops a convolution runs on the calling thread.
constexpr int64_t kParallelConvFlops = 2 * 1024 * 1024;

bool ConvHandler(const Instr& instr, uint8_t* const* regs, ExecContext& ctx) {
  const auto& p = *static_cast<const ConvPlan*>(instr.plan);
  uint8_t* out = regs[instr.out[0]];
  const uint8_t* lhs = regs[instr.in[0]];
  const uint8_t* rhs = regs[instr.in[1]];
  return RunUnitKernel(
      ctx, p, "convolution", kParallelConvFlops,
      [&](uint8_t* scratch) { return ConvPrepare(p, lhs, rhs, out, scratch); },
      [&](const auto& bufs, int64_t b, int64_t e) { ConvUnits(p, bufs, b, e); },
      [&](const auto& bufs) { ConvFinish(p, bufs, out); });
}

absl::Status LowerConvolution(FunctionBuilder& b, const HloInstruction& instr,
                              absl::Span<const ValueDesc* const> ops, ValueDesc* result) {
  if (instr.operand_count() != 2 || ops.size() != 2) {
    return absl::InvalidArgumentError("convolution takes two operands");
  }
  if (!instr.window.has_value() && instr.operand(0)->shape().rank() > 2) {
    return absl::InvalidArgumentError("convolution needs a window");
  }
  const Window window = instr.window.value_or(Window{});
  const ConvolutionDimensionNumbers dnums =
      instr.convolution_dimension_numbers.value_or(ConvolutionDimensionNumbers{});
  HLOVM_ASSIGN_OR_RETURN(
      ConvPlan plan,
      MakeConvPlan(instr.operand(0)->shape(), instr.operand(1)->shape(), instr.shape(), window,
                   dnums, instr.feature_group_count, instr.batch_group_count));
  HLOVM_ASSIGN_OR_RETURN(Reg out, b.NewReg(RegKind::kOwned, instr.shape()));
  FunctionBuilder::EmitSpec spec;
  spec.handler = &ConvHandler;
  spec.in = {(*ops[0])[0], (*ops[1])[0]};
  spec.out = {out};
  spec.cost = std::max<int64_t>(plan.flops(), b.function().regs[out].bytes);
  spec.mnemonic = "convolution";
  spec.variant = absl::StrCat(
      std::string(ElementTypeName(instr.operand(0)->shape().element_type())), "x",
      std::string(ElementTypeName(instr.operand(1)->shape().element_type())), "->",
      std::string(ElementTypeName(plan.result_type)), " via ",
      std::string(ElementTypeName(plan.compute_type)), " groups=", plan.groups,
      " m=", plan.s_out, " k=", plan.kdim, " n=", plan.og, " tile=", plan.rows_per_tile,
      plan.depthwise ? " depthwise" : "");
  spec.plan = b.program().AddPlan(std::move(plan));
  b.Emit(&instr, std::move(spec));
  result->push_back(out);
  return absl::OkStatus();
}

}  // namespace

void RegisterConvLowerings(LoweringTable& table) {
  table[static_cast<int>(HloOpcode::kConvolution)] = &LowerConvolution;
}

}  // namespace vm
}  // namespace hlovm
