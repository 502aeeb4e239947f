// Lowering of broadcast, iota, reshape (a register alias: row-major data
// keeps its order) and bitcast (an alias, or a relayout between layouts).
// The other shape ops are in shape_ops_lower.cc.
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/status_macros.h"
#include "ops/lowerings.h"
#include "ops/shape/broadcast.h"
#include "ops/shape/iota.h"
#include "ops/shape/strided_copy.h"
#include "vm/lowering.h"

namespace hlovm {
namespace vm {
namespace {

struct RelayoutPlan {
  StridedCopyPlan copy;
  int64_t rows_per_chunk;
};

bool RelayoutHandler(const Instr& instr, uint8_t* const* regs, ExecContext& ctx) {
  const auto& p = *static_cast<const RelayoutPlan*>(instr.plan);
  const uint8_t* src = regs[instr.in[0]];
  uint8_t* dst = regs[instr.out[0]];
  ForEachChunk(ctx, p.copy.rows(), p.rows_per_chunk,
               [&](int64_t b, int64_t e) { RunStridedCopy(p.copy, src, dst, b, e); });
  return true;
}

// Emits `to := relayout(from)` with the given copy plan.
void EmitRelayout(FunctionBuilder& b, const HloInstruction* hlo, Reg from, Reg to,
                  StridedCopyPlan copy, std::string variant) {
  const int64_t row_bytes = std::max<int64_t>(1, copy.row_length() * copy.elem_size);
  RelayoutPlan plan{std::move(copy), std::max<int64_t>(1, kChunkBytes / row_bytes)};
  const int64_t bytes = b.function().regs[to].bytes;
  FunctionBuilder::EmitSpec spec;
  spec.handler = &RelayoutHandler;
  spec.plan = b.program().AddPlan(std::move(plan));
  spec.in = {from};
  spec.out = {to};
  spec.cost = 2 * bytes;
  spec.kind = HandlerKind::kRelayout;
  spec.variant = std::move(variant);
  b.Emit(hlo, std::move(spec));
}

absl::Status LowerReshape(FunctionBuilder& b, const HloInstruction& instr,
                          absl::Span<const ValueDesc* const> ops, ValueDesc* result) {
  const Shape& in = instr.operand(0)->shape();
  const Shape& out = instr.shape();
  if (!in.IsArray() || !out.IsArray() || in.element_count() != out.element_count() ||
      in.element_type() != out.element_type()) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot reshape ", in.ToString(), " to ", out.ToString()));
  }
  // Row-major data keeps its order under reshape: a view.
  *result = *ops[0];
  return absl::OkStatus();
}

absl::Status LowerBitcast(FunctionBuilder& b, const HloInstruction& instr,
                          absl::Span<const ValueDesc* const> ops, ValueDesc* result) {
  const Shape& in = instr.operand(0)->shape();
  const Shape& out = instr.shape();
  if (!in.IsArray() || !out.IsArray() || in.byte_size() != out.byte_size()) {
    return absl::InvalidArgumentError(absl::StrCat("bitcast from ", in.ToString(), " to ",
                                                   out.ToString(), " changes the byte size"));
  }
  if (IsEffectivelyRowMajor(in) && IsEffectivelyRowMajor(out)) {
    *result = *ops[0];  // the same bytes in the same order
    return absl::OkStatus();
  }
  if (ByteWidth(in.element_type()) != ByteWidth(out.element_type())) {
    return absl::UnimplementedError(absl::StrCat(
        "bitcast between layouts that also changes the element size (", in.ToString(), " to ",
        out.ToString(), ")"));
  }
  // Row-major operand -> its physical order, which is the result's physical
  // order -> row-major result.
  const int es = ByteWidth(in.element_type());
  Shape flat(out.element_type(), {out.element_count()});
  HLOVM_ASSIGN_OR_RETURN(Reg physical, b.NewReg(RegKind::kOwned, flat));
  HLOVM_ASSIGN_OR_RETURN(Reg r, b.NewReg(RegKind::kOwned, out));
  EmitRelayout(b, &instr, (*ops[0])[0], physical,
               MakeFromRowMajorPlan(es, in.dimensions(), in.minor_to_major()),
               absl::StrCat("row-major -> ", in.ToString()));
  EmitRelayout(b, &instr, physical, r,
               MakeToRowMajorPlan(es, out.dimensions(), out.minor_to_major()),
               absl::StrCat(out.ToString(), " -> row-major"));
  result->push_back(r);
  return absl::OkStatus();
}

struct BroadcastPlan {
  StridedCopyPlan copy;
  int64_t rows_per_chunk;
};

bool BroadcastHandler(const Instr& instr, uint8_t* const* regs, ExecContext& ctx) {
  const auto& p = *static_cast<const BroadcastPlan*>(instr.plan);
  const uint8_t* src = regs[instr.in[0]];
  uint8_t* dst = regs[instr.out[0]];
  const int64_t rows = p.copy.rows();
  if (rows <= p.rows_per_chunk) {
    RunStridedCopy(p.copy, src, dst, 0, rows);
    return true;
  }
  ForEachChunk(ctx, rows, p.rows_per_chunk,
               [&](int64_t b, int64_t e) { RunStridedCopy(p.copy, src, dst, b, e); });
  return true;
}

absl::Status LowerBroadcast(FunctionBuilder& b, const HloInstruction& instr,
                            absl::Span<const ValueDesc* const> ops, ValueDesc* result) {
  const Shape& in = instr.operand(0)->shape();
  HLOVM_ASSIGN_OR_RETURN(StridedCopyPlan copy, MakeBroadcastPlan(in, instr.shape(),
                                                                 instr.dimensions));
  HLOVM_ASSIGN_OR_RETURN(Reg out, b.NewReg(RegKind::kOwned, instr.shape()));
  const int64_t bytes = b.function().regs[out].bytes;
  const int64_t row_bytes = std::max<int64_t>(1, copy.row_length() * copy.elem_size);
  const int64_t rows_per_chunk =
      bytes < kParallelKernelBytes ? copy.rows() : std::max<int64_t>(1, kChunkBytes / row_bytes);
  FunctionBuilder::EmitSpec spec;
  spec.handler = &BroadcastHandler;
  spec.in = {(*ops[0])[0]};
  spec.out = {out};
  spec.cost = bytes + b.function().regs[(*ops[0])[0]].bytes;
  spec.kind = HandlerKind::kBcast;
  spec.variant = absl::StrCat(std::string(ElementTypeName(in.element_type())), " dims={",
                              absl::StrJoin(instr.dimensions, ","), "} rows=", copy.rows(),
                              "x", copy.row_length());
  spec.plan = b.program().AddPlan(BroadcastPlan{std::move(copy), rows_per_chunk});
  b.Emit(&instr, std::move(spec));
  result->push_back(out);
  return absl::OkStatus();
}

struct IotaPlan {
  IotaKernel kernel;
  int64_t n, dim_size, inner, chunk;
  int elem_size;
};

bool IotaHandler(const Instr& instr, uint8_t* const* regs, ExecContext& ctx) {
  const auto& p = *static_cast<const IotaPlan*>(instr.plan);
  uint8_t* o = regs[instr.out[0]];
  ForEachChunk(ctx, p.n, p.chunk,
               [&](int64_t b, int64_t e) { p.kernel(o + b * p.elem_size, b, e, p.dim_size, p.inner); });
  return true;
}

absl::Status LowerIota(FunctionBuilder& b, const HloInstruction& instr,
                       absl::Span<const ValueDesc* const> ops, ValueDesc* result) {
  const Shape& shape = instr.shape();
  if (!shape.IsArray() || instr.iota_dimension < 0 || instr.iota_dimension >= shape.rank()) {
    return absl::InvalidArgumentError(absl::StrCat("iota_dimension ", instr.iota_dimension,
                                                   " out of range for ", shape.ToString()));
  }
  HLOVM_ASSIGN_OR_RETURN(IotaKernel kernel, SelectIotaKernel(shape.element_type()));
  HLOVM_ASSIGN_OR_RETURN(Reg out, b.NewReg(RegKind::kOwned, shape));
  int64_t inner = 1;
  for (int64_t d = instr.iota_dimension + 1; d < shape.rank(); ++d) inner *= shape.dimensions(d);
  const int64_t n = shape.element_count();
  const int es = std::max(1, ByteWidth(shape.element_type()));
  const int64_t bytes = n * es;
  IotaPlan plan{kernel, n, shape.dimensions(instr.iota_dimension), std::max<int64_t>(inner, 1),
                bytes < kParallelKernelBytes ? std::max<int64_t>(n, 1) : kChunkBytes / es,
                ByteWidth(shape.element_type())};
  FunctionBuilder::EmitSpec spec;
  spec.handler = &IotaHandler;
  spec.plan = b.program().AddPlan(plan);
  spec.out = {out};
  spec.cost = bytes;
  spec.kind = HandlerKind::kIota;
  spec.variant = absl::StrCat(std::string(ElementTypeName(shape.element_type())), " dim=", instr.iota_dimension);
  b.Emit(&instr, std::move(spec));
  result->push_back(out);
  return absl::OkStatus();
}

}  // namespace

void RegisterShapeLowerings(LoweringTable& table) {
  table[static_cast<int>(HloOpcode::kBroadcast)] = &LowerBroadcast;
  table[static_cast<int>(HloOpcode::kIota)] = &LowerIota;
  table[static_cast<int>(HloOpcode::kReshape)] = &LowerReshape;
  table[static_cast<int>(HloOpcode::kBitcast)] = &LowerBitcast;
}

}  // namespace vm
}  // namespace hlovm
