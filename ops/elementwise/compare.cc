// compare kernels for every element type, direction and comparison type.
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "ops/elementwise/elementwise_binary_ops.h"
#include "ops/elementwise/elementwise_internal.h"

namespace hlovm {
namespace elementwise_internal {
namespace {

template <ET kType, bool kTotalOrder>
BinaryKernel SelectDirection(ComparisonDirection direction) {
  switch (direction) {
    case ComparisonDirection::kEq:
      return &BinaryLoop<kType, ET::kPred, CompareOp<ComparisonDirection::kEq, kTotalOrder>>;
    case ComparisonDirection::kNe:
      return &BinaryLoop<kType, ET::kPred, CompareOp<ComparisonDirection::kNe, kTotalOrder>>;
    case ComparisonDirection::kGe:
      return &BinaryLoop<kType, ET::kPred, CompareOp<ComparisonDirection::kGe, kTotalOrder>>;
    case ComparisonDirection::kGt:
      return &BinaryLoop<kType, ET::kPred, CompareOp<ComparisonDirection::kGt, kTotalOrder>>;
    case ComparisonDirection::kLe:
      return &BinaryLoop<kType, ET::kPred, CompareOp<ComparisonDirection::kLe, kTotalOrder>>;
    case ComparisonDirection::kLt:
      return &BinaryLoop<kType, ET::kPred, CompareOp<ComparisonDirection::kLt, kTotalOrder>>;
  }
  return nullptr;
}

absl::Status BadCompare(ElementType type, ComparisonType comparison_type) {
  return absl::InvalidArgumentError(absl::StrCat(
      "compare of ", TypeName(type), " with type=",
      comparison_type == ComparisonType::kFloat        ? "FLOAT"
      : comparison_type == ComparisonType::kTotalOrder ? "TOTALORDER"
      : comparison_type == ComparisonType::kSigned     ? "SIGNED"
                                                       : "UNSIGNED"));
}

}  // namespace

absl::StatusOr<BinaryKernel> SelectCompare(ElementType type, ComparisonDirection direction,
                                           ComparisonType comparison_type) {
  const bool is_float = IsFloatingPoint(type);
  const bool is_complex = IsComplex(type);
  if (comparison_type != ComparisonType::kDefault) {
    const bool float_type = comparison_type == ComparisonType::kFloat ||
                            comparison_type == ComparisonType::kTotalOrder;
    if (float_type != (is_float || is_complex)) return BadCompare(type, comparison_type);
    if (comparison_type == ComparisonType::kSigned && !IsSignedInteger(type)) {
      return BadCompare(type, comparison_type);
    }
    if (comparison_type == ComparisonType::kUnsigned && !IsUnsignedInteger(type) &&
        type != ET::kPred) {
      return BadCompare(type, comparison_type);
    }
  }
  if (is_complex && direction != ComparisonDirection::kEq &&
      direction != ComparisonDirection::kNe) {
    return absl::InvalidArgumentError("complex numbers compare only with EQ or NE");
  }
  const bool total = comparison_type == ComparisonType::kTotalOrder;
  switch (type) {
    case ET::kPred:
      return SelectDirection<ET::kPred, false>(direction);
#define HLOVM_EW_TYPE_(e) \
  case ET::e:             \
    return SelectDirection<ET::e, false>(direction);
      HLOVM_EW_INT_TYPES(HLOVM_EW_TYPE_)
      HLOVM_EW_COMPLEX_TYPES(HLOVM_EW_TYPE_)
#undef HLOVM_EW_TYPE_
#define HLOVM_EW_TYPE_(e)                                                       \
  case ET::e:                                                                   \
    return total ? SelectDirection<ET::e, true>(direction)                      \
                 : SelectDirection<ET::e, false>(direction);
      HLOVM_EW_FLOAT_TYPES(HLOVM_EW_TYPE_)
#undef HLOVM_EW_TYPE_
    default:
      return absl::UnimplementedError(
          absl::StrCat("No compare kernel for ", TypeName(type)));
  }
}

}  // namespace elementwise_internal
}  // namespace hlovm
