// Lowering of convolution to one instruction running ops/dot/conv.h:
// operands converted and the kernel packed on the calling thread, then
// fixed units (group, tile of output batch x position rows) split across
// threads (results do not depend on the thread count), then the result
// converted.
#include <algorithm>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "ops/dot/conv.h"
#include "ops/dot/dot_lower.h"
#include "ops/dot/unit_kernel.h"
#include "ops/lowerings.h"
#include "vm/lowering.h"

namespace hlovm {
namespace vm {
namespace {

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

// A convolution whose window covers its whole (unpadded, undilated) input
// has one output position: it is a dot contracting the input feature and
// spatial dimensions (a weight gradient: out[b][o] = sum over the batch and
// the image of lhs * rhs). The dot runs as one GEMM over every output
// batch row instead of one im2col row per batch element. The product is
// [B, O] or [O, B], whichever order the result's batch and feature
// dimensions have (its spatial dimensions are all 1).
bool WholeWindow(const HloInstruction& instr, const Window& window,
                 const ConvolutionDimensionNumbers& dn) {
  if (instr.attrs().feature_group_count != 1 || instr.attrs().batch_group_count != 1) return false;
  const Shape& lhs = instr.operand(0)->shape();
  if (window.size() != dn.input_spatial_dimensions.size() || window.empty()) return false;
  for (size_t d = 0; d < window.size(); ++d) {
    const WindowDimension& w = window[d];
    if (w.size != lhs.dimensions(dn.input_spatial_dimensions[d]) || w.padding_low != 0 ||
        w.padding_high != 0 || w.base_dilation != 1 || w.window_dilation != 1 ||
        w.window_reversal) {
      return false;
    }
  }
  return true;
}

absl::Status LowerWholeWindow(FunctionBuilder& b, const HloInstruction& instr,
                              const ConvolutionDimensionNumbers& dn, Reg lhs, Reg rhs,
                              ValueDesc* result) {
  DotDimensionNumbers dot;
  dot.lhs_contracting_dimensions.push_back(dn.input_feature_dimension);
  dot.rhs_contracting_dimensions.push_back(dn.kernel_input_feature_dimension);
  for (size_t d = 0; d < dn.input_spatial_dimensions.size(); ++d) {
    dot.lhs_contracting_dimensions.push_back(dn.input_spatial_dimensions[d]);
    dot.rhs_contracting_dimensions.push_back(dn.kernel_spatial_dimensions[d]);
  }
  const Shape& ls = instr.operand(0)->shape();
  const Shape& rs = instr.operand(1)->shape();
  const int64_t batch = ls.dimensions(dn.input_batch_dimension);
  const int64_t features = rs.dimensions(dn.kernel_output_feature_dimension);
  const ElementType type = instr.shape().element_type();
  if (dn.output_batch_dimension < dn.output_feature_dimension) {
    return EmitDotAs(b, instr, lhs, rhs, ls, rs, Shape(type, {batch, features}), dot, result);
  }
  std::swap(dot.lhs_contracting_dimensions, dot.rhs_contracting_dimensions);
  return EmitDotAs(b, instr, rhs, lhs, rs, ls, Shape(type, {features, batch}), dot, result);
}

absl::Status LowerConvolution(FunctionBuilder& b, const HloInstruction& instr,
                              absl::Span<const ValueDesc* const> ops, ValueDesc* result) {
  if (instr.operand_count() != 2 || ops.size() != 2) {
    return absl::InvalidArgumentError("convolution takes two operands");
  }
  if (!instr.attrs().window.has_value() && instr.operand(0)->shape().rank() > 2) {
    return absl::InvalidArgumentError("convolution needs a window");
  }
  const Window window = instr.attrs().window.value_or(Window{});
  const ConvolutionDimensionNumbers dnums =
      instr.attrs().convolution_dimension_numbers.value_or(ConvolutionDimensionNumbers{});
  if (ConvRunsAsDot(instr)) {
    return LowerWholeWindow(b, instr, dnums, (*ops[0])[0], (*ops[1])[0], result);
  }
  HLOVM_ASSIGN_OR_RETURN(
      ConvPlan plan,
      MakeConvPlan(instr.operand(0)->shape(), instr.operand(1)->shape(), instr.shape(), window,
                   dnums, instr.attrs().feature_group_count, instr.attrs().batch_group_count));
  HLOVM_ASSIGN_OR_RETURN(Reg out, b.NewReg(RegKind::kOwned, instr.shape()));
  FunctionBuilder::EmitSpec spec;
  spec.handler = &ConvHandler;
  spec.in = {(*ops[0])[0], (*ops[1])[0]};
  spec.out = {out};
  spec.cost = std::max<int64_t>(plan.flops(), b.function().regs[out].bytes);
  spec.kind = HandlerKind::kConvolution;
  spec.variant = ConvPlanText(plan, instr.operand(0)->shape().element_type(),
                              instr.operand(1)->shape().element_type());
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

bool ConvRunsAsDot(const HloInstruction& instr) {
  if (instr.operand_count() != 2 || !instr.attrs().window.has_value()) return false;
  return vm::WholeWindow(instr, *instr.attrs().window,
                         instr.attrs().convolution_dimension_numbers.value_or(
                             ConvolutionDimensionNumbers{}));
}

}  // namespace hlovm
