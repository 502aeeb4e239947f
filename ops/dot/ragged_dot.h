// ragged-dot: a dot whose lhs ragged dimension is split into consecutive
// groups by `group_sizes` (the last dimension of group_sizes indexes the
// groups; its leading dimensions, if any, index the first dimensions of the
// lhs, one set of groups each). The modes, as XLA's ragged-dot rewriter
// defines them:
// - ragged non-contracting dimension (rhs has a group dimension): the lhs
//   rows whose ragged index lies in group g are multiplied by rhs group g;
//   rows in no group give zeros. Result: [batch, lhs free, rhs free].
// - ragged contracting dimension: one product per group over the
//   contracting indices in that group, the group dimension first. Result:
//   [groups, batch, lhs free, rhs free].
// - ragged batch dimension: the plain dot (lowered as one).
// Operands are rearranged and converted to the compute type (as dot's,
// ops/dot/dot.h), each group's rows or contracting range is multiplied with
// the GEMM kernel of that type, and the result converted. One thread; the
// arithmetic order is fixed.
#ifndef HLOVM_OPS_DOT_RAGGED_DOT_H_
#define HLOVM_OPS_DOT_RAGGED_DOT_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "core/hlo_ir.h"
#include "core/shape.h"
#include "ops/dot/dot.h"
#include "ops/dot/gemm.h"
#include "ops/elementwise/elementwise.h"

namespace hlovm {

enum class RaggedDotMode : uint8_t { kNonContracting, kContracting, kBatch };

RaggedDotMode RaggedDotModeOf(const DotDimensionNumbers& dnums);

struct RaggedDotPlan {
  RaggedDotMode mode = RaggedDotMode::kNonContracting;
  ElementType compute_type = ElementType::kF32, result_type = ElementType::kF32;
  ElementType group_type = ElementType::kS64;
  int compute_size = 4;
  // lhs as [batch, m, k]; rhs as [groups, batch, k, n] (non-contracting) or
  // [batch, k, n] (contracting), the ragged contracting dimension outermost
  // among the contracting ones.
  DotOperandPlan lhs, rhs;
  UnaryKernel result_convert = nullptr;
  GemmKernel gemm;
  int64_t batch = 1, m = 0, k = 0, n = 0, groups = 0;
  int64_t result_elements = 0;
  // The ragged dimension: its size and the product of the (free or
  // contracting) dimensions after it in the canonical order.
  int64_t ragged_size = 0, ragged_inner = 1;
  // Sets of groups (the product of group_sizes' leading dimensions) and,
  // for each lhs row (batch index, row), which set it uses.
  int64_t group_sets = 1;
  std::vector<int32_t> row_set;  // batch * m entries; empty when one set
  int64_t flops() const { return 2 * batch * m * k * n; }
};

// `result` is the verified shape.
absl::StatusOr<RaggedDotPlan> MakeRaggedDotPlan(const Shape& lhs, const Shape& rhs,
                                                const Shape& group_sizes, const Shape& result,
                                                const DotDimensionNumbers& dnums);

void RunRaggedDot(const RaggedDotPlan& plan, const void* lhs, const void* rhs,
                  const void* group_sizes, void* out);

}  // namespace hlovm

#endif  // HLOVM_OPS_DOT_RAGGED_DOT_H_
