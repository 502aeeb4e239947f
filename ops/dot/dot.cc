#include "ops/dot/dot.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/status_macros.h"

namespace hlovm {
namespace {

int64_t AlignUp(int64_t x) { return (x + 63) / 64 * 64; }

// The element stride that walks `group` (dimensions in order, row-major
// strides `strides`) as one merged dimension; false when the group is not
// contiguous in that order.
bool GroupStride(const Shape& shape, const std::vector<int64_t>& strides,
                 const std::vector<int64_t>& group, int64_t* stride) {
  std::vector<int64_t> g;
  for (int64_t d : group) {
    if (shape.dimensions(d) != 1) g.push_back(d);
  }
  *stride = 0;
  if (g.empty()) return true;
  for (size_t i = 0; i + 1 < g.size(); ++i) {
    if (strides[g[i]] != strides[g[i + 1]] * shape.dimensions(g[i + 1])) return false;
  }
  *stride = strides[g.back()];
  return true;
}

// Strides of `shape` viewed as [group0, group1, group2]; false when a group
// cannot be merged.
bool ViewStrides(const Shape& shape, const std::vector<int64_t>& g0,
                 const std::vector<int64_t>& g1, const std::vector<int64_t>& g2, int64_t* s0,
                 int64_t* s1, int64_t* s2) {
  std::vector<int64_t> strides(shape.rank(), 1);
  for (int64_t i = shape.rank() - 2; i >= 0; --i) {
    strides[i] = strides[i + 1] * shape.dimensions(i + 1);
  }
  return GroupStride(shape, strides, g0, s0) && GroupStride(shape, strides, g1, s1) &&
         GroupStride(shape, strides, g2, s2);
}

}  // namespace

absl::StatusOr<DotOperandPlan> MakeDotOperandPlan(const Shape& shape,
                                                  const std::vector<int64_t>& order,
                                                  ElementType compute, bool strided,
                                                  bool always_convert) {
  // bf16 / f16 operands of an f32 dot are converted by the GEMM while it
  // packs them (no conversion pass).
  DotOperandPlan p;
  p.type = shape.element_type();
  p.elem_size = ByteWidth(p.type);
  p.element_count = shape.element_count();
  bool identity = true;
  for (size_t i = 0; i < order.size(); ++i) identity &= order[i] == static_cast<int64_t>(i);
  if (!identity && !strided) {
    std::vector<int64_t> dims;
    for (int64_t i = 0; i < shape.rank(); ++i) dims.push_back(shape.dimensions(i));
    HLOVM_ASSIGN_OR_RETURN(TransposePlan t, MakeTransposePlan(p.elem_size, dims, order));
    p.transpose = std::move(t);
  }
  if (p.type != compute && (always_convert || !GemmConvertsWhilePacking(compute, p.type))) {
    HLOVM_ASSIGN_OR_RETURN(p.convert, SelectConvertKernel(p.type, compute));
  }
  return p;
}

const void* PrepareDotOperand(const DotOperandPlan& p, const void* src, uint8_t* t_buf,
                              uint8_t* c_buf) {
  const void* cur = src;
  if (p.transpose.has_value()) {
    RunTranspose(*p.transpose, cur, t_buf, 0, p.transpose->units());
    cur = t_buf;
  }
  if (p.convert != nullptr) {
    p.convert(cur, c_buf, p.element_count);
    cur = c_buf;
  }
  return cur;
}

ElementType DotComputeType(ElementType result) {
  switch (result) {
    case ElementType::kPred:
    case ElementType::kS32:
    case ElementType::kU32:
    case ElementType::kS64:
    case ElementType::kU64:
    case ElementType::kF32:
    case ElementType::kF64:
    case ElementType::kC64:
    case ElementType::kC128:
      return result;
    case ElementType::kS2:
    case ElementType::kS4:
    case ElementType::kS8:
    case ElementType::kS16:
      return ElementType::kS32;
    case ElementType::kU2:
    case ElementType::kU4:
    case ElementType::kU8:
    case ElementType::kU16:
      return ElementType::kU32;
    default:
      return ElementType::kF32;  // f16, bf16 and the narrow floats
  }
}

absl::StatusOr<DotPlan> MakeDotPlan(const Shape& lhs, const Shape& rhs, const Shape& result,
                                    const DotDimensionNumbers& dn) {
  if (!lhs.IsArray() || !rhs.IsArray() || !result.IsArray()) {
    return absl::InvalidArgumentError("dot needs array operands and result");
  }
  if (dn.lhs_batch_dimensions.size() != dn.rhs_batch_dimensions.size() ||
      dn.lhs_contracting_dimensions.size() != dn.rhs_contracting_dimensions.size()) {
    return absl::InvalidArgumentError("dot: mismatched dimension numbers");
  }
  DotPlan plan;
  plan.result_type = result.element_type();
  plan.compute_type = DotComputeType(plan.result_type);
  plan.compute_size = ByteWidth(plan.compute_type);

  auto order = [](const Shape& s, const std::vector<int64_t>& batch,
                  const std::vector<int64_t>& contract, bool contract_last, int64_t* b,
                  int64_t* free_size, int64_t* k) -> absl::StatusOr<std::vector<int64_t>> {
    std::vector<bool> used(s.rank(), false);
    std::vector<int64_t> free;
    *b = 1, *k = 1, *free_size = 1;
    for (int64_t d : batch) {
      if (d < 0 || d >= s.rank() || used[d]) return absl::InvalidArgumentError("dot: bad batch dim");
      used[d] = true;
      *b *= s.dimensions(d);
    }
    for (int64_t d : contract) {
      if (d < 0 || d >= s.rank() || used[d]) {
        return absl::InvalidArgumentError("dot: bad contracting dim");
      }
      used[d] = true;
      *k *= s.dimensions(d);
    }
    for (int64_t d = 0; d < s.rank(); ++d) {
      if (!used[d]) {
        free.push_back(d);
        *free_size *= s.dimensions(d);
      }
    }
    std::vector<int64_t> o(batch.begin(), batch.end());
    if (contract_last) {
      o.insert(o.end(), free.begin(), free.end());
      o.insert(o.end(), contract.begin(), contract.end());
    } else {
      o.insert(o.end(), contract.begin(), contract.end());
      o.insert(o.end(), free.begin(), free.end());
    }
    return o;
  };
  int64_t lb, lm, lk, rb, rn, rk;
  HLOVM_ASSIGN_OR_RETURN(std::vector<int64_t> lorder,
                         order(lhs, dn.lhs_batch_dimensions, dn.lhs_contracting_dimensions, true,
                               &lb, &lm, &lk));
  HLOVM_ASSIGN_OR_RETURN(std::vector<int64_t> rorder,
                         order(rhs, dn.rhs_batch_dimensions, dn.rhs_contracting_dimensions,
                               false, &rb, &rn, &rk));
  if (lb != rb || lk != rk || lb * lm * rn != result.element_count()) {
    return absl::InvalidArgumentError("dot: operand and result sizes disagree");
  }
  plan.dims = GemmDims{lb, lm, lk, rn};
  // The f32/f64 kernels read operands through strides when each group of
  // dimensions (batch, free, contracting) is contiguous in its order: no
  // transpose pass then.
  bool strided = false;
  if (GemmReadsStrided(plan.compute_type)) {
    auto free_of = [](const Shape& s, const std::vector<int64_t>& a,
                      const std::vector<int64_t>& b) {
      std::vector<int64_t> f;
      for (int64_t d = 0; d < s.rank(); ++d) {
        if (std::find(a.begin(), a.end(), d) == a.end() &&
            std::find(b.begin(), b.end(), d) == b.end()) {
          f.push_back(d);
        }
      }
      return f;
    };
    GemmDims& d = plan.dims;
    strided =
        ViewStrides(lhs, dn.lhs_batch_dimensions,
                    free_of(lhs, dn.lhs_batch_dimensions, dn.lhs_contracting_dimensions),
                    dn.lhs_contracting_dimensions, &d.a_sb, &d.a_sm, &d.a_sk) &&
        ViewStrides(rhs, dn.rhs_batch_dimensions, dn.rhs_contracting_dimensions,
                    free_of(rhs, dn.rhs_batch_dimensions, dn.rhs_contracting_dimensions),
                    &d.b_sb, &d.b_sk, &d.b_sn);
    d.use_strides = strided;
  }
  plan.dims.a_source = GemmSourceOf(plan.compute_type, lhs.element_type());
  plan.dims.b_source = GemmSourceOf(plan.compute_type, rhs.element_type());
  HLOVM_ASSIGN_OR_RETURN(plan.lhs, MakeDotOperandPlan(lhs, lorder, plan.compute_type, strided));
  HLOVM_ASSIGN_OR_RETURN(plan.rhs, MakeDotOperandPlan(rhs, rorder, plan.compute_type, strided));
  if (plan.compute_type != plan.result_type) {
    HLOVM_ASSIGN_OR_RETURN(plan.result_convert,
                           SelectConvertKernel(plan.compute_type, plan.result_type));
  }
  HLOVM_ASSIGN_OR_RETURN(plan.gemm, SelectGemmKernel(plan.compute_type));
  if (plan.flops() >= kParallelDotFlops) {
    plan.gemm.SplitUnits(&plan.dims, kDotWantedUnits, kDotMinUnitFlops);
  }
  plan.units = plan.gemm.Units(plan.dims);
  int64_t s = 0;
  for (const DotOperandPlan* p : {&plan.lhs, &plan.rhs}) {
    if (p->transpose.has_value()) s += AlignUp(p->element_count * p->elem_size);
    if (p->convert != nullptr) s += AlignUp(p->element_count * plan.compute_size);
  }
  if (plan.result_convert != nullptr) s += AlignUp(result.element_count() * plan.compute_size);
  plan.scratch_bytes = s;
  return plan;
}

DotBuffers DotPrepare(const DotPlan& plan, const void* lhs, const void* rhs, void* out,
                      void* scratch) {
  uint8_t* p = static_cast<uint8_t*>(scratch);
  auto take = [&p](bool need, int64_t bytes) -> uint8_t* {
    if (!need) return nullptr;
    uint8_t* r = p;
    p += AlignUp(bytes);
    return r;
  };
  DotBuffers bufs;
  for (int side = 0; side < 2; ++side) {
    const DotOperandPlan& op = side == 0 ? plan.lhs : plan.rhs;
    uint8_t* t = take(op.transpose.has_value(), op.element_count * op.elem_size);
    uint8_t* c = take(op.convert != nullptr, op.element_count * plan.compute_size);
    (side == 0 ? bufs.a : bufs.b) = PrepareDotOperand(op, side == 0 ? lhs : rhs, t, c);
  }
  const int64_t out_count = plan.dims.batch * plan.dims.m * plan.dims.n;
  bufs.c = plan.result_convert != nullptr ? take(true, out_count * plan.compute_size) : out;
  if (plan.dims.k == 0 && out_count > 0) {
    std::memset(bufs.c, 0, static_cast<size_t>(out_count * plan.compute_size));
  }
  return bufs;
}

void DotGemmUnits(const DotPlan& plan, const DotBuffers& bufs, int64_t unit_begin,
                  int64_t unit_end) {
  if (plan.dims.k == 0) return;
  plan.gemm.fn(bufs.a, bufs.b, bufs.c, plan.dims, unit_begin, unit_end);
}

void DotFinish(const DotPlan& plan, const DotBuffers& bufs, void* out) {
  if (plan.result_convert != nullptr) {
    plan.result_convert(bufs.c, out, plan.dims.batch * plan.dims.m * plan.dims.n);
  }
}

void RunDot(const DotPlan& plan, const void* lhs, const void* rhs, void* out, void* scratch) {
  const DotBuffers bufs = DotPrepare(plan, lhs, rhs, out, scratch);
  DotGemmUnits(plan, bufs, 0, plan.units);
  DotFinish(plan, bufs, out);
}

}  // namespace hlovm
