// Lowering of batch-norm-training, batch-norm-inference and batch-norm-grad
// (kernels in ops/norm/batch_norm.h). The work is split by fixed ranges of
// features, so results never depend on the thread count.
#include <algorithm>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "ops/lowerings.h"
#include "ops/norm/batch_norm.h"
#include "vm/lowering.h"

namespace hlovm {
namespace vm {
namespace {

struct NormVmPlan {
  ElementType type = ElementType::kF32;
  BatchNormGeometry geometry;
  float epsilon = 0;
  int64_t features_per_chunk = 1;
  // Row mode (see ops/norm/batch_norm.h): rows per chunk and chunk count.
  bool rows = false;
  int64_t rows_per_chunk = 1, row_chunks = 0;
};

// Row mode: partial sums per fixed chunk of rows, added in chunk order, then
// the elementwise pass. `in`: x, scale, offset|mean, mean|var, var|grad_y as
// the op orders them.
bool RowModeRun(const NormVmPlan& p, BatchNormOp op, const Instr& instr, uint8_t* const* regs,
                ExecContext& ctx) {
  const int64_t F = p.geometry.features;
  // Sums and constants are kept in the element type (f32 for f16/bf16).
  const int es = ByteWidth(p.type) == 2 ? 4 : ByteWidth(p.type);
  const void* x = regs[instr.in[0]];
  const void* scale = regs[instr.in[1]];
  const void* offset = op == BatchNormOp::kGrad ? nullptr : regs[instr.in[2]];
  const void* mean = op == BatchNormOp::kTraining ? nullptr
                     : op == BatchNormOp::kGrad   ? regs[instr.in[2]]
                                                  : regs[instr.in[3]];
  const void* var = op == BatchNormOp::kTraining ? nullptr
                    : op == BatchNormOp::kGrad   ? regs[instr.in[3]]
                                                 : regs[instr.in[4]];
  const void* gy = op == BatchNormOp::kGrad ? regs[instr.in[4]] : nullptr;
  // Element-type scratch, 8-byte aligned (double storage).
  const int64_t partial_elems = op == BatchNormOp::kInference ? 0 : p.row_chunks * 2 * F;
  std::vector<double> partials((partial_elems * es + 7) / 8 + 1), consts((4 * F * es + 7) / 8 + 1);
  if (op != BatchNormOp::kInference) {
    ForEachChunk(ctx, p.row_chunks, 1, [&](int64_t b, int64_t e) {
      for (int64_t c = b; c < e; ++c) {
        BatchNormRowPartials(p.type, op, p.geometry, p.rows_per_chunk, c, x, gy, mean,
                             reinterpret_cast<uint8_t*>(partials.data()) + c * 2 * F * es);
      }
    });
  }
  void* out1 = op == BatchNormOp::kInference ? nullptr : regs[instr.out[1]];
  void* out2 = op == BatchNormOp::kInference ? nullptr : regs[instr.out[2]];
  BatchNormRowFinish(p.type, op, p.geometry, p.row_chunks, partials.data(), scale, offset, mean,
                     var, p.epsilon, out1, out2, consts.data());
  ForEachChunk(ctx, p.row_chunks, 1, [&](int64_t b, int64_t e) {
    BatchNormRowApply(p.type, op, p.geometry, p.rows_per_chunk, b, e, x, gy, consts.data(), var,
                      p.epsilon, regs[instr.out[0]]);
  });
  return true;
}

bool TrainingHandler(const Instr& instr, uint8_t* const* regs, ExecContext& ctx) {
  const auto& p = *static_cast<const NormVmPlan*>(instr.plan);
  if (p.rows) return RowModeRun(p, BatchNormOp::kTraining, instr, regs, ctx);
  ForEachChunk(ctx, p.geometry.features, p.features_per_chunk, [&](int64_t b, int64_t e) {
    BatchNormTraining(p.type, p.geometry, regs[instr.in[0]], regs[instr.in[1]], regs[instr.in[2]],
                      p.epsilon, regs[instr.out[0]], regs[instr.out[1]], regs[instr.out[2]], b, e);
  });
  return true;
}

bool InferenceHandler(const Instr& instr, uint8_t* const* regs, ExecContext& ctx) {
  const auto& p = *static_cast<const NormVmPlan*>(instr.plan);
  if (p.rows) return RowModeRun(p, BatchNormOp::kInference, instr, regs, ctx);
  ForEachChunk(ctx, p.geometry.features, p.features_per_chunk, [&](int64_t b, int64_t e) {
    BatchNormInference(p.type, p.geometry, regs[instr.in[0]], regs[instr.in[1]],
                       regs[instr.in[2]], regs[instr.in[3]], regs[instr.in[4]], p.epsilon,
                       regs[instr.out[0]], b, e);
  });
  return true;
}

bool GradHandler(const Instr& instr, uint8_t* const* regs, ExecContext& ctx) {
  const auto& p = *static_cast<const NormVmPlan*>(instr.plan);
  if (p.rows) return RowModeRun(p, BatchNormOp::kGrad, instr, regs, ctx);
  ForEachChunk(ctx, p.geometry.features, p.features_per_chunk, [&](int64_t b, int64_t e) {
    BatchNormGrad(p.type, p.geometry, regs[instr.in[0]], regs[instr.in[1]], regs[instr.in[2]],
                  regs[instr.in[3]], regs[instr.in[4]], p.epsilon, regs[instr.out[0]],
                  regs[instr.out[1]], regs[instr.out[2]], b, e);
  });
  return true;
}

absl::Status LowerBatchNorm(FunctionBuilder& b, const HloInstruction& instr,
                            absl::Span<const ValueDesc* const> ops, ValueDesc* result) {
  const HloOpcode op = instr.opcode();
  const int want_in = op == HloOpcode::kBatchNormTraining ? 3 : 5;
  const int want_out = op == HloOpcode::kBatchNormInference ? 1 : 3;
  const std::string name(HloOpcodeName(op));
  if (static_cast<int>(instr.operand_count()) != want_in) {
    return absl::InvalidArgumentError(absl::StrCat(name, " takes ", want_in, " operands"));
  }
  for (const ValueDesc* v : ops) {
    if (v->size() != 1)
      return absl::InvalidArgumentError(absl::StrCat(name, " operands must be arrays"));
  }
  const Shape& x = instr.operand(0)->shape();
  if (instr.attrs().feature_index < 0 || instr.attrs().feature_index >= x.rank()) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": feature_index ",
                                                   instr.attrs().feature_index,
                                                   " is outside the operand's rank ", x.rank()));
  }
  if (!BatchNormSupports(x.element_type())) {
    return absl::UnimplementedError(absl::StrCat(
        name, " of ", std::string(ElementTypeName(x.element_type())), " is not supported"));
  }
  NormVmPlan plan;
  plan.type = x.element_type();
  plan.geometry = MakeBatchNormGeometry(x, instr.attrs().feature_index);
  plan.epsilon = instr.attrs().epsilon;
  const int64_t bytes = x.element_count() * ByteWidth(x.element_type()) * (want_in == 5 ? 3 : 2);
  const int64_t feature_bytes =
      std::max<int64_t>(1, plan.geometry.per_feature() * ByteWidth(x.element_type()));
  plan.features_per_chunk = bytes < kParallelKernelBytes
                                ? std::max<int64_t>(1, plan.geometry.features)
                                : std::max<int64_t>(1, kChunkBytes / feature_bytes);
  // Feature-minor operands split by rows (each feature-range task would read
  // the whole array).
  if (plan.geometry.inner == 1 && bytes >= kParallelKernelBytes &&
      BatchNormRowModeSupports(plan.type) && plan.geometry.features > 0) {
    plan.rows = true;
    const int64_t row_bytes = plan.geometry.features * ByteWidth(plan.type);
    plan.rows_per_chunk = std::max<int64_t>(1, kChunkBytes / row_bytes);
    plan.row_chunks = (plan.geometry.outer + plan.rows_per_chunk - 1) / plan.rows_per_chunk;
  }
  HLOVM_ASSIGN_OR_RETURN(ValueDesc outs, b.NewOwnedValue(instr.shape()));
  if (static_cast<int>(outs.size()) != want_out) {
    return absl::InvalidArgumentError(absl::StrCat(name, " has ", want_out, " results"));
  }
  FunctionBuilder::EmitSpec spec;
  spec.handler = op == HloOpcode::kBatchNormTraining    ? &TrainingHandler
                 : op == HloOpcode::kBatchNormInference ? &InferenceHandler
                                                        : &GradHandler;
  for (const ValueDesc* v : ops) spec.in.push_back((*v)[0]);
  spec.out = outs;
  spec.cost = bytes;
  spec.kind = HandlerKind::kBatchNorm;
  spec.variant =
      absl::StrCat(std::string(ElementTypeName(plan.type)), " outer=", plan.geometry.outer,
                   " features=", plan.geometry.features, " inner=", plan.geometry.inner,
                   plan.rows ? " rows/chunk=" : " features/chunk=",
                   plan.rows ? plan.rows_per_chunk : plan.features_per_chunk);
  spec.plan = b.program().AddPlan(std::move(plan));
  b.Emit(&instr, std::move(spec));
  for (Reg r : outs) result->push_back(r);
  return absl::OkStatus();
}

}  // namespace

void RegisterNormLowerings(LoweringTable& table) {
  table[static_cast<int>(HloOpcode::kBatchNormTraining)] = &LowerBatchNorm;
  table[static_cast<int>(HloOpcode::kBatchNormInference)] = &LowerBatchNorm;
  table[static_cast<int>(HloOpcode::kBatchNormGrad)] = &LowerBatchNorm;
}

}  // namespace vm
}  // namespace hlovm
