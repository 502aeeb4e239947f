// Lowering of the data-movement opcodes beyond broadcast/iota/reshape:
// transpose, slice, dynamic-slice, dynamic-update-slice, concatenate, pad,
// reverse, get-dimension-size, set-dimension-size, dynamic-reshape and
// bitcast-convert. Kernels live beside it in ops/shape/; every kernel works
// on element byte widths and splits large work into fixed chunks
// (ForEachChunk).
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/status_macros.h"
#include "ops/lowerings.h"
#include "ops/shape/bitcast_convert.h"
#include "ops/shape/concatenate.h"
#include "ops/shape/dynamic_slice.h"
#include "ops/shape/pad.h"
#include "ops/shape/reverse.h"
#include "ops/shape/slice.h"
#include "ops/shape/transpose.h"
#include "vm/lowering.h"

namespace hlovm {
namespace vm {
namespace {

std::string TypeName(const Shape& s) { return std::string(ElementTypeName(s.element_type())); }

int ElemSize(const Shape& s) { return std::max(1, ByteWidth(s.element_type())); }

// Units per chunk for work of `bytes` split into `units`: everything in one
// chunk below the parallel threshold, else about kChunkBytes per chunk.
int64_t UnitsPerChunk(int64_t bytes, int64_t units) {
  if (units <= 0) return 1;
  if (bytes < kParallelKernelBytes) return units;
  const int64_t per_unit = std::max<int64_t>(1, bytes / units);
  return std::max<int64_t>(1, kChunkBytes / per_unit);
}

absl::Status NeedArray(const Shape& s, const char* what) {
  if (!s.IsArray()) {
    return absl::InvalidArgumentError(absl::StrCat(what, " must be an array, is ", s.ToString()));
  }
  return absl::OkStatus();
}

//===----------------------------------------------------------------------===//
// transpose.
//===----------------------------------------------------------------------===//

struct TransposeOpPlan {
  TransposePlan t;
  int64_t units_per_chunk;
};

bool TransposeHandler(const Instr& instr, uint8_t* const* regs, ExecContext& ctx) {
  const auto& p = *static_cast<const TransposeOpPlan*>(instr.plan);
  const uint8_t* src = regs[instr.in[0]];
  uint8_t* dst = regs[instr.out[0]];
  ForEachChunk(ctx, p.t.units(), p.units_per_chunk,
               [&](int64_t b, int64_t e) { RunTranspose(p.t, src, dst, b, e); });
  return true;
}

absl::Status LowerTranspose(FunctionBuilder& b, const HloInstruction& instr,
                            absl::Span<const ValueDesc* const> ops, ValueDesc* result) {
  const Shape& in = instr.operand(0)->shape();
  HLOVM_RETURN_IF_ERROR(NeedArray(in, "transpose operand"));
  HLOVM_ASSIGN_OR_RETURN(TransposePlan t,
                         MakeTransposePlan(ElemSize(in), in.dimensions(), instr.dimensions));
  HLOVM_ASSIGN_OR_RETURN(Reg out, b.NewReg(RegKind::kOwned, instr.shape()));
  const int64_t bytes = b.function().regs[out].bytes;
  const int64_t units = t.units();
  const int64_t per_chunk = bytes < kParallelKernelBytes ? std::max<int64_t>(1, units)
                                                         : t.units_per_chunk;
  FunctionBuilder::EmitSpec spec;
  spec.handler = &TransposeHandler;
  spec.in = {(*ops[0])[0]};
  spec.out = {out};
  spec.cost = 2 * bytes;
  spec.kind = HandlerKind::kTranspose;
  spec.variant = absl::StrCat(TypeName(in), " dims={", absl::StrJoin(instr.dimensions, ","), "} ",
                              t.row_copy ? "rows" : absl::StrCat("tiled ", t.nx, "x", t.ny));
  spec.plan = b.program().AddPlan(TransposeOpPlan{std::move(t), per_chunk});
  b.Emit(&instr, std::move(spec));
  result->push_back(out);
  return absl::OkStatus();
}

//===----------------------------------------------------------------------===//
// slice and reverse: strided copies from a fixed offset.
//===----------------------------------------------------------------------===//

struct OffsetCopyOpPlan {
  OffsetCopyPlan c;
  int64_t rows_per_chunk;
};

bool OffsetCopyHandler(const Instr& instr, uint8_t* const* regs, ExecContext& ctx) {
  const auto& p = *static_cast<const OffsetCopyOpPlan*>(instr.plan);
  const uint8_t* src = regs[instr.in[0]];
  uint8_t* dst = regs[instr.out[0]];
  ForEachChunk(ctx, p.c.copy.rows(), p.rows_per_chunk,
               [&](int64_t b, int64_t e) { RunOffsetCopy(p.c, src, dst, b, e); });
  return true;
}

absl::Status EmitOffsetCopy(FunctionBuilder& b, const HloInstruction& instr, Reg in,
                            OffsetCopyPlan c, HandlerKind kind, std::string variant,
                            ValueDesc* result) {
  HLOVM_ASSIGN_OR_RETURN(Reg out, b.NewReg(RegKind::kOwned, instr.shape()));
  const int64_t bytes = b.function().regs[out].bytes;
  const int64_t rows = c.copy.element_count == 0 ? 0 : c.copy.rows();
  FunctionBuilder::EmitSpec spec;
  spec.handler = &OffsetCopyHandler;
  spec.in = {in};
  spec.out = {out};
  spec.cost = 2 * bytes;
  spec.kind = kind;
  spec.variant = absl::StrCat(variant, " rows=", rows, "x", c.copy.row_length());
  spec.plan = b.program().AddPlan(OffsetCopyOpPlan{std::move(c), UnitsPerChunk(bytes, rows)});
  b.Emit(&instr, std::move(spec));
  result->push_back(out);
  return absl::OkStatus();
}

absl::Status LowerSlice(FunctionBuilder& b, const HloInstruction& instr,
                        absl::Span<const ValueDesc* const> ops, ValueDesc* result) {
  const Shape& in = instr.operand(0)->shape();
  HLOVM_RETURN_IF_ERROR(NeedArray(in, "slice operand"));
  if (!instr.slice.has_value()) return absl::InvalidArgumentError("slice needs slice={...}");
  const SliceAttr& s = *instr.slice;
  std::vector<int64_t> strides = s.strides;
  if (strides.empty()) strides.assign(s.starts.size(), 1);
  HLOVM_ASSIGN_OR_RETURN(OffsetCopyPlan c,
                         MakeSlicePlan(ElemSize(in), in.dimensions(), s.starts, s.limits, strides));
  return EmitOffsetCopy(b, instr, (*ops[0])[0], std::move(c), HandlerKind::kSlice, TypeName(in),
                        result);
}

absl::Status LowerReverse(FunctionBuilder& b, const HloInstruction& instr,
                          absl::Span<const ValueDesc* const> ops, ValueDesc* result) {
  const Shape& in = instr.operand(0)->shape();
  HLOVM_RETURN_IF_ERROR(NeedArray(in, "reverse operand"));
  HLOVM_ASSIGN_OR_RETURN(OffsetCopyPlan c,
                         MakeReversePlan(ElemSize(in), in.dimensions(), instr.dimensions));
  return EmitOffsetCopy(b, instr, (*ops[0])[0], std::move(c), HandlerKind::kReverse,
                        absl::StrCat(TypeName(in), " dims={",
                                     absl::StrJoin(instr.dimensions, ","), "}"),
                        result);
}

//===----------------------------------------------------------------------===//
// concatenate.
//===----------------------------------------------------------------------===//

struct ConcatenateOpPlan {
  ConcatenatePlan c;
  int64_t chunk_bytes;
};

bool ConcatenateHandler(const Instr& instr, uint8_t* const* regs, ExecContext& ctx) {
  const auto& p = *static_cast<const ConcatenateOpPlan*>(instr.plan);
  absl::InlinedVector<const uint8_t*, 8> srcs(instr.num_in);
  for (uint32_t i = 0; i < instr.num_in; ++i) srcs[i] = regs[instr.in[i]];
  uint8_t* dst = regs[instr.out[0]];
  ForEachChunk(ctx, p.c.total_bytes(), p.chunk_bytes,
               [&](int64_t b, int64_t e) { RunConcatenate(p.c, srcs.data(), dst, b, e); });
  return true;
}

absl::Status LowerConcatenate(FunctionBuilder& b, const HloInstruction& instr,
                              absl::Span<const ValueDesc* const> ops, ValueDesc* result) {
  if (instr.dimensions.size() != 1) {
    return absl::InvalidArgumentError("concatenate needs one dimension");
  }
  std::vector<std::vector<int64_t>> dims;
  for (const HloInstruction* o : instr.operands()) {
    HLOVM_RETURN_IF_ERROR(NeedArray(o->shape(), "concatenate operand"));
    dims.emplace_back(o->shape().dimensions().begin(), o->shape().dimensions().end());
  }
  const int es = ElemSize(instr.shape());
  HLOVM_ASSIGN_OR_RETURN(ConcatenatePlan c, MakeConcatenatePlan(es, dims, instr.dimensions[0]));
  HLOVM_ASSIGN_OR_RETURN(Reg out, b.NewReg(RegKind::kOwned, instr.shape()));
  const int64_t bytes = c.total_bytes();
  FunctionBuilder::EmitSpec spec;
  spec.handler = &ConcatenateHandler;
  for (const ValueDesc* op : ops) spec.in.push_back((*op)[0]);
  spec.out = {out};
  spec.cost = 2 * bytes;
  spec.kind = HandlerKind::kConcatenate;
  spec.variant = absl::StrCat(TypeName(instr.shape()), " x", ops.size(), " dim=",
                              instr.dimensions[0], " rows=", c.outer);
  const int64_t chunk = bytes < kParallelKernelBytes ? std::max<int64_t>(1, bytes) : kChunkBytes;
  spec.plan = b.program().AddPlan(ConcatenateOpPlan{std::move(c), chunk});
  b.Emit(&instr, std::move(spec));
  result->push_back(out);
  return absl::OkStatus();
}

//===----------------------------------------------------------------------===//
// pad.
//===----------------------------------------------------------------------===//

struct PadOpPlan {
  PadPlan p;
  int64_t rows_per_chunk;
};

bool PadHandler(const Instr& instr, uint8_t* const* regs, ExecContext& ctx) {
  const auto& p = *static_cast<const PadOpPlan*>(instr.plan);
  const uint8_t* src = regs[instr.in[0]];
  const uint8_t* value = regs[instr.in[1]];
  uint8_t* dst = regs[instr.out[0]];
  ForEachChunk(ctx, p.p.rows(), p.rows_per_chunk,
               [&](int64_t b, int64_t e) { RunPad(p.p, src, value, dst, b, e); });
  return true;
}

absl::Status LowerPad(FunctionBuilder& b, const HloInstruction& instr,
                      absl::Span<const ValueDesc* const> ops, ValueDesc* result) {
  const Shape& in = instr.operand(0)->shape();
  HLOVM_RETURN_IF_ERROR(NeedArray(in, "pad operand"));
  if (!instr.attrs().padding.has_value()) return absl::InvalidArgumentError("pad needs padding=");
  HLOVM_ASSIGN_OR_RETURN(PadPlan p,
                         MakePadPlan(ElemSize(in), in.dimensions(), *instr.attrs().padding));
  HLOVM_ASSIGN_OR_RETURN(Reg out, b.NewReg(RegKind::kOwned, instr.shape()));
  const int64_t bytes = b.function().regs[out].bytes;
  FunctionBuilder::EmitSpec spec;
  spec.handler = &PadHandler;
  spec.in = {(*ops[0])[0], (*ops[1])[0]};
  spec.out = {out};
  spec.cost = bytes + b.function().regs[(*ops[0])[0]].bytes;
  spec.kind = HandlerKind::kPad;
  std::vector<std::string> cfg;
  for (const PaddingDimension& d : *instr.attrs().padding) {
    cfg.push_back(
        absl::StrCat(d.low, "_", d.high, d.interior != 0 ? absl::StrCat("_", d.interior) : ""));
  }
  spec.variant = absl::StrCat(TypeName(in), " ", absl::StrJoin(cfg, "x"));
  const int64_t rows = p.rows();
  spec.plan = b.program().AddPlan(PadOpPlan{std::move(p), UnitsPerChunk(bytes, rows)});
  b.Emit(&instr, std::move(spec));
  result->push_back(out);
  return absl::OkStatus();
}

//===----------------------------------------------------------------------===//
// dynamic-slice and dynamic-update-slice.
//===----------------------------------------------------------------------===//

struct DynamicSliceOpPlan {
  DynamicSlicePlan d;
  bool per_dim;         // one scalar register per start index
  uint32_t first_index; // input position of the first start index
  int64_t rows_per_chunk;
  int64_t copy_chunk_bytes;  // dynamic-update-slice: operand copy chunks
};

int64_t StartBase(const DynamicSliceOpPlan& p, const Instr& instr, uint8_t* const* regs) {
  absl::InlinedVector<const uint8_t*, 8> starts;
  for (uint32_t i = p.first_index; i < instr.num_in; ++i) starts.push_back(regs[instr.in[i]]);
  return DynamicSliceBase(p.d, starts.data(), p.per_dim);
}

bool DynamicSliceHandler(const Instr& instr, uint8_t* const* regs, ExecContext& ctx) {
  const auto& p = *static_cast<const DynamicSliceOpPlan*>(instr.plan);
  const int64_t base = StartBase(p, instr, regs);
  const uint8_t* src = regs[instr.in[0]];
  uint8_t* dst = regs[instr.out[0]];
  const int64_t rows = p.d.copy.element_count == 0 ? 0 : p.d.copy.rows();
  ForEachChunk(ctx, rows, p.rows_per_chunk,
               [&](int64_t b, int64_t e) { RunDynamicSlice(p.d, src, base, dst, b, e); });
  return true;
}

bool DynamicUpdateSliceHandler(const Instr& instr, uint8_t* const* regs, ExecContext& ctx) {
  const auto& p = *static_cast<const DynamicSliceOpPlan*>(instr.plan);
  const int64_t base = StartBase(p, instr, regs);
  const uint8_t* operand = regs[instr.in[0]];
  const uint8_t* update = regs[instr.in[1]];
  uint8_t* dst = regs[instr.out[0]];
  if (dst != operand && p.d.operand_bytes > 0) {
    ForEachChunk(ctx, p.d.operand_bytes, p.copy_chunk_bytes, [&](int64_t b, int64_t e) {
      std::memcpy(dst + b, operand + b, e - b);
    });
  }
  const int64_t rows = p.d.copy.element_count == 0 ? 0 : p.d.copy.rows();
  ForEachChunk(ctx, rows, p.rows_per_chunk,
               [&](int64_t b, int64_t e) { RunDynamicUpdateSlice(p.d, update, base, dst, b, e); });
  return true;
}

absl::Status LowerDynamicSliceOrUpdate(FunctionBuilder& b, const HloInstruction& instr,
                                       absl::Span<const ValueDesc* const> ops,
                                       ValueDesc* result) {
  const bool update = instr.opcode() == HloOpcode::kDynamicUpdateSlice;
  const Shape& in = instr.operand(0)->shape();
  HLOVM_RETURN_IF_ERROR(NeedArray(in, "dynamic slice operand"));
  const uint32_t first_index = update ? 2 : 1;
  if (in.rank() == 0 && instr.operand_count() == first_index) {
    // A scalar has no start indices: the slice is the operand itself and the
    // update replaces it whole.
    *result = *ops[update ? 1 : 0];
    return absl::OkStatus();
  }
  if (instr.operand_count() <= first_index) {
    return absl::InvalidArgumentError("dynamic slice needs start indices");
  }
  const Shape& index0 = instr.operand(first_index)->shape();
  const int64_t n_index = instr.operand_count() - first_index;
  const bool per_dim = !(n_index == 1 && index0.rank() == 1 && in.rank() != 1);
  if (per_dim ? n_index != in.rank() : index0.dimensions(0) != in.rank()) {
    return absl::InvalidArgumentError(absl::StrCat("dynamic slice of a rank ", in.rank(),
                                                   " operand needs ", in.rank(),
                                                   " start indices"));
  }
  for (int64_t i = 0; i < n_index; ++i) {
    const Shape& s = instr.operand(first_index + i)->shape();
    if (s.element_type() != index0.element_type() || (per_dim && s.rank() != 0)) {
      return absl::InvalidArgumentError("dynamic slice start indices must be scalars of one type");
    }
  }
  std::vector<int64_t> sizes;
  if (update) {
    const Shape& u = instr.operand(1)->shape();
    HLOVM_RETURN_IF_ERROR(NeedArray(u, "dynamic-update-slice update"));
    if (u.element_type() != in.element_type()) {
      return absl::InvalidArgumentError("dynamic-update-slice update has another element type");
    }
    sizes.assign(u.dimensions().begin(), u.dimensions().end());
  } else {
    sizes = instr.attrs().dynamic_slice_sizes;
  }
  const int es = ElemSize(in);
  HLOVM_ASSIGN_OR_RETURN(DynamicSlicePlan d,
                         MakeDynamicSlicePlan(es, in.dimensions(), sizes,
                                              index0.element_type(), update));
  HLOVM_ASSIGN_OR_RETURN(Reg out, b.NewReg(RegKind::kOwned, instr.shape()));
  const int64_t slice_bytes = d.copy.element_count * es;
  const int64_t rows = d.copy.element_count == 0 ? 0 : d.copy.rows();
  FunctionBuilder::EmitSpec spec;
  spec.handler = update ? &DynamicUpdateSliceHandler : &DynamicSliceHandler;
  for (const ValueDesc* op : ops) spec.in.push_back((*op)[0]);
  spec.out = {out};
  spec.cost = update ? 2 * (d.operand_bytes + slice_bytes) : 2 * slice_bytes;
  spec.kind = update ? HandlerKind::kDynamicUpdateSlice : HandlerKind::kDynamicSlice;
  spec.variant = absl::StrCat(TypeName(in), " sizes={", absl::StrJoin(sizes, ","), "} idx=",
                              TypeName(index0), per_dim ? "" : " vector");
  // The result may take over the operand's buffer when that dies here; the
  // kernel then only writes the update.
  if (update) spec.inplace_mask = 1;
  const int64_t copy_chunk = d.operand_bytes < kParallelKernelBytes
                                 ? std::max<int64_t>(1, d.operand_bytes)
                                 : kChunkBytes;
  spec.plan = b.program().AddPlan(DynamicSliceOpPlan{std::move(d), per_dim, first_index,
                                                     UnitsPerChunk(slice_bytes, rows), copy_chunk});
  b.Emit(&instr, std::move(spec));
  result->push_back(out);
  return absl::OkStatus();
}

//===----------------------------------------------------------------------===//
// get-dimension-size, set-dimension-size, dynamic-reshape.
//===----------------------------------------------------------------------===//

// Arrays hold their bound shape; a dimension's size is its bound unless a
// set-dimension-size (seen through ops that keep the dimension) set it.
struct DimensionSizePlan {
  int32_t value;
};

bool DimensionSizeConstHandler(const Instr& instr, uint8_t* const* regs, ExecContext& ctx) {
  const auto& p = *static_cast<const DimensionSizePlan*>(instr.plan);
  std::memcpy(regs[instr.out[0]], &p.value, sizeof(int32_t));
  return true;
}

bool DimensionSizeCopyHandler(const Instr& instr, uint8_t* const* regs, ExecContext& ctx) {
  std::memcpy(regs[instr.out[0]], regs[instr.in[0]], sizeof(int32_t));
  return true;
}

bool KeepsDimensions(const HloInstruction& h) {
  const OpFamily f = HloOpcodeFamily(h.opcode());
  const bool elementwise = f == OpFamily::kUnary || f == OpFamily::kBinary ||
                           f == OpFamily::kTernary || h.opcode() == HloOpcode::kConvert ||
                           h.opcode() == HloOpcode::kCopy ||
                           h.opcode() == HloOpcode::kReducePrecision;
  return elementwise && h.operand_count() >= 1 && h.shape().IsArray() &&
         h.operand(0)->shape().IsArray() &&
         h.operand(0)->shape().rank() == h.shape().rank();
}

// The set-dimension-size that gives `dim` of `h` its size, if any.
const HloInstruction* FindDimensionSizeSource(const HloInstruction* h, int64_t dim) {
  for (int depth = 0; depth < 64 && h != nullptr; ++depth) {
    if (!h->shape().IsArray() || dim >= h->shape().rank() ||
        !h->shape().is_dynamic_dimension(dim)) {
      return nullptr;
    }
    if (h->opcode() == HloOpcode::kSetDimensionSize) {
      if (h->dimensions.size() == 1 && h->dimensions[0] == dim) return h->operand(1);
      h = h->operand(0);
      continue;
    }
    if (!KeepsDimensions(*h)) return nullptr;
    h = h->operand(0);
  }
  return nullptr;
}

absl::Status LowerGetDimensionSize(FunctionBuilder& b, const HloInstruction& instr,
                                   absl::Span<const ValueDesc* const> ops, ValueDesc* result) {
  const Shape& in = instr.operand(0)->shape();
  HLOVM_RETURN_IF_ERROR(NeedArray(in, "get-dimension-size operand"));
  if (instr.dimensions.size() != 1 || instr.dimensions[0] < 0 ||
      instr.dimensions[0] >= in.rank()) {
    return absl::InvalidArgumentError("get-dimension-size dimension out of range");
  }
  const int64_t dim = instr.dimensions[0];
  HLOVM_ASSIGN_OR_RETURN(Reg out, b.NewReg(RegKind::kOwned, instr.shape()));
  FunctionBuilder::EmitSpec spec;
  spec.out = {out};
  spec.cost = 4;
  spec.kind = HandlerKind::kDimSize;
  const HloInstruction* source = FindDimensionSizeSource(instr.operand(0), dim);
  auto it = source != nullptr ? b.function().values.find(source) : b.function().values.end();
  if (it != b.function().values.end() && it->second.size() == 1) {
    spec.handler = &DimensionSizeCopyHandler;
    spec.in = {it->second[0]};
    spec.variant = absl::StrCat("dim=", dim, " from %", source->name());
  } else {
    spec.handler = &DimensionSizeConstHandler;
    spec.plan = b.program().AddPlan(
        DimensionSizePlan{static_cast<int32_t>(in.dimensions()[dim])});
    spec.variant = absl::StrCat("dim=", dim, " = ", in.dimensions()[dim]);
  }
  b.Emit(&instr, std::move(spec));
  result->push_back(out);
  return absl::OkStatus();
}

// set-dimension-size passes its operand through (buffers hold the bound).
absl::Status LowerSetDimensionSize(FunctionBuilder& b, const HloInstruction& instr,
                                   absl::Span<const ValueDesc* const> ops, ValueDesc* result) {
  HLOVM_RETURN_IF_ERROR(NeedArray(instr.operand(0)->shape(), "set-dimension-size operand"));
  *result = *ops[0];
  return absl::OkStatus();
}

struct DynamicReshapePlan {
  int elem_size;
  std::vector<int64_t> bounds;  // result dimensions (bounds)
  int64_t operand_count;        // operand elements
  int64_t result_bytes;
};

bool DynamicReshapeHandler(const Instr& instr, uint8_t* const* regs, ExecContext& ctx) {
  const auto& p = *static_cast<const DynamicReshapePlan*>(instr.plan);
  const uint8_t* src = regs[instr.in[0]];
  uint8_t* dst = regs[instr.out[0]];
  const int64_t rank = static_cast<int64_t>(p.bounds.size());
  std::vector<int64_t> sizes(rank);
  int64_t count = 1;
  bool full = true;
  for (int64_t d = 0; d < rank; ++d) {
    int32_t v;
    std::memcpy(&v, regs[instr.in[1 + d]], sizeof(v));
    if (v < 0 || v > p.bounds[d]) {
      return ctx.Fail(absl::OutOfRangeError(absl::StrCat(
          "dynamic-reshape size ", v, " of dimension ", d, " exceeds its bound ", p.bounds[d])));
    }
    sizes[d] = v;
    count *= v;
    full = full && v == p.bounds[d];
  }
  if (count != p.operand_count) {
    return ctx.Fail(absl::OutOfRangeError(absl::StrCat("dynamic-reshape to sizes {",
                                                       absl::StrJoin(sizes, ","), "} needs ",
                                                       count, " elements, operand has ",
                                                       p.operand_count)));
  }
  const int es = p.elem_size;
  if (full) {
    if (p.result_bytes > 0) std::memcpy(dst, src, p.result_bytes);
    return true;
  }
  // Element i (row-major over the runtime sizes) lands at its index in the
  // bound shape; the rest is zero.
  std::memset(dst, 0, p.result_bytes);
  if (count == 0) return true;
  const int64_t len = sizes[rank - 1];
  const std::vector<int64_t> bound_strides = RowMajorStrides(p.bounds);
  std::vector<int64_t> idx(rank, 0);
  for (int64_t row = 0; row < count / len; ++row) {
    int64_t r = row, off = 0;
    for (int64_t d = rank - 2; d >= 0; --d) {
      off += (r % sizes[d]) * bound_strides[d];
      r /= sizes[d];
    }
    std::memcpy(dst + off * es, src + row * len * es, len * es);
  }
  return true;
}

absl::Status LowerDynamicReshape(FunctionBuilder& b, const HloInstruction& instr,
                                 absl::Span<const ValueDesc* const> ops, ValueDesc* result) {
  const Shape& in = instr.operand(0)->shape();
  const Shape& out = instr.shape();
  HLOVM_RETURN_IF_ERROR(NeedArray(in, "dynamic-reshape operand"));
  HLOVM_RETURN_IF_ERROR(NeedArray(out, "dynamic-reshape result"));
  if (instr.operand_count() != out.rank() + 1) {
    return absl::InvalidArgumentError(absl::StrCat("dynamic-reshape to rank ", out.rank(),
                                                   " needs ", out.rank(), " sizes"));
  }
  if (out.rank() == 0) {
    *result = *ops[0];  // a scalar: nothing to place
    return absl::OkStatus();
  }
  HLOVM_ASSIGN_OR_RETURN(Reg r, b.NewReg(RegKind::kOwned, out));
  DynamicReshapePlan plan{ElemSize(out),
                          std::vector<int64_t>(out.dimensions().begin(), out.dimensions().end()),
                          in.element_count(), b.function().regs[r].bytes};
  FunctionBuilder::EmitSpec spec;
  spec.handler = &DynamicReshapeHandler;
  for (const ValueDesc* op : ops) spec.in.push_back((*op)[0]);
  spec.out = {r};
  spec.cost = 2 * plan.result_bytes;
  spec.kind = HandlerKind::kDynamicReshape;
  spec.variant = TypeName(out);
  spec.plan = b.program().AddPlan(std::move(plan));
  b.Emit(&instr, std::move(spec));
  result->push_back(r);
  return absl::OkStatus();
}

//===----------------------------------------------------------------------===//
// bitcast-convert.
//===----------------------------------------------------------------------===//

struct BitcastConvertOpPlan {
  BitcastConvertPlan c;
  int64_t chunk;
};

bool BitcastConvertHandler(const Instr& instr, uint8_t* const* regs, ExecContext& ctx) {
  const auto& p = *static_cast<const BitcastConvertOpPlan*>(instr.plan);
  const uint8_t* src = regs[instr.in[0]];
  uint8_t* dst = regs[instr.out[0]];
  ForEachChunk(ctx, p.c.out_count, p.chunk,
               [&](int64_t b, int64_t e) { RunBitcastConvert(p.c, src, dst, b, e); });
  return true;
}

absl::Status LowerBitcastConvert(FunctionBuilder& b, const HloInstruction& instr,
                                 absl::Span<const ValueDesc* const> ops, ValueDesc* result) {
  const Shape& in = instr.operand(0)->shape();
  const Shape& out = instr.shape();
  HLOVM_RETURN_IF_ERROR(NeedArray(in, "bitcast-convert operand"));
  HLOVM_RETURN_IF_ERROR(NeedArray(out, "bitcast-convert result"));
  if (in.element_count() * BitWidth(in.element_type()) !=
      out.element_count() * BitWidth(out.element_type())) {
    return absl::InvalidArgumentError(absl::StrCat("bitcast-convert from ", in.ToString(), " to ",
                                                   out.ToString(), " changes the bit count"));
  }
  if (BitcastConvertIsAlias(in.element_type(), out.element_type())) {
    // Row-major buffers: the same bytes, read as the new type. Same widths
    // alias the register (as reshape does); across widths the element count
    // changes, and registers keep their shape, so the bytes are copied into a
    // register of the result's shape.
    if (in.element_count() == out.element_count()) {
      *result = *ops[0];
      return absl::OkStatus();
    }
    HLOVM_ASSIGN_OR_RETURN(Reg r, b.NewReg(RegKind::kOwned, out));
    EmitCopy(b, &instr, (*ops[0])[0], r,
             absl::StrCat("bitcast-convert ", TypeName(in), " -> ", TypeName(out)));
    result->push_back(r);
    return absl::OkStatus();
  }
  HLOVM_ASSIGN_OR_RETURN(BitcastConvertPlan c,
                         MakeBitcastConvertPlan(in.element_type(), out.element_type(),
                                                out.element_count()));
  HLOVM_ASSIGN_OR_RETURN(Reg r, b.NewReg(RegKind::kOwned, out));
  const int64_t bytes = b.function().regs[r].bytes;
  FunctionBuilder::EmitSpec spec;
  spec.handler = &BitcastConvertHandler;
  spec.in = {(*ops[0])[0]};
  spec.out = {r};
  spec.cost = 2 * bytes;
  spec.kind = HandlerKind::kBitcastConvert;
  spec.variant = absl::StrCat(TypeName(in), " -> ", TypeName(out));
  const int64_t chunk = bytes < kParallelKernelBytes
                            ? std::max<int64_t>(1, c.out_count)
                            : std::max<int64_t>(1, kChunkBytes / std::max(1, c.out_bytes));
  spec.plan = b.program().AddPlan(BitcastConvertOpPlan{c, chunk});
  b.Emit(&instr, std::move(spec));
  result->push_back(r);
  return absl::OkStatus();
}

}  // namespace

void RegisterShapeOpLowerings(LoweringTable& table) {
  auto set = [&](HloOpcode op, LowerFn fn) { table[static_cast<int>(op)] = fn; };
  set(HloOpcode::kTranspose, &LowerTranspose);
  set(HloOpcode::kSlice, &LowerSlice);
  set(HloOpcode::kReverse, &LowerReverse);
  set(HloOpcode::kConcatenate, &LowerConcatenate);
  set(HloOpcode::kPad, &LowerPad);
  set(HloOpcode::kDynamicSlice, &LowerDynamicSliceOrUpdate);
  set(HloOpcode::kDynamicUpdateSlice, &LowerDynamicSliceOrUpdate);
  set(HloOpcode::kGetDimensionSize, &LowerGetDimensionSize);
  set(HloOpcode::kSetDimensionSize, &LowerSetDimensionSize);
  set(HloOpcode::kDynamicReshape, &LowerDynamicReshape);
  set(HloOpcode::kBitcastConvert, &LowerBitcastConvert);
}

}  // namespace vm
}  // namespace hlovm
