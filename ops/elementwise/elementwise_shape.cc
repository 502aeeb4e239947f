#include "ops/elementwise/elementwise_shape.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "core/status_macros.h"

namespace hlovm {
namespace {

absl::Status TypeError(std::string_view expected, HloOpcode opcode, ElementType got) {
  return absl::InvalidArgumentError(
      absl::StrFormat("Expected element type in shape to be %s for %s operation; got %s.",
                      expected, HloOpcodeName(opcode), ElementTypeName(got)));
}

bool IsSigned(ElementType t) {
  return IsSignedInteger(t) || IsFloatingPoint(t);
}

std::vector<bool> DynamicFlags(const Shape& s) {
  std::vector<bool> d(s.rank());
  for (int64_t i = 0; i < s.rank(); ++i) d[i] = s.is_dynamic_dimension(i);
  return d;
}

// Elementwise combination of two array shapes (element types already
// checked): equal shapes, equal ranks with size-1 dimensions, or a scalar.
absl::StatusOr<Shape> BroadcastElementwise(HloOpcode opcode, const Shape& lhs,
                                           const Shape& rhs) {
  ElementType type = HigherPrecisionElementType(lhs, rhs);
  if (lhs.rank() != rhs.rank()) {
    if (IsScalar(lhs)) return ChangeElementType(rhs, type);
    if (IsScalar(rhs)) return ChangeElementType(lhs, type);
    return absl::InvalidArgumentError(absl::StrFormat(
        "Binary op %s with incompatible shapes: %s and %s.", HloOpcodeName(opcode),
        ShapeText(lhs), ShapeText(rhs)));
  }
  std::vector<int64_t> dims(lhs.rank());
  std::vector<bool> dynamic(lhs.rank());
  for (int64_t i = 0; i < lhs.rank(); ++i) {
    int64_t a = lhs.dimensions(i), b = rhs.dimensions(i);
    if (a == b || b == kUnboundedSize) {
      dims[i] = a;
    } else if (a == kUnboundedSize) {
      dims[i] = b;
    } else if (a == 1) {
      dims[i] = b;
    } else if (b == 1) {
      dims[i] = a;
    } else {
      return absl::InvalidArgumentError(absl::StrFormat(
          "Binary op %s with incompatible shapes: %s and %s.", HloOpcodeName(opcode),
          ShapeText(lhs), ShapeText(rhs)));
    }
    dynamic[i] = lhs.is_dynamic_dimension(i) || rhs.is_dynamic_dimension(i);
  }
  return MakeArrayShape(type, dims, dynamic);
}

}  // namespace

absl::StatusOr<Shape> InferUnaryOpShape(HloOpcode opcode, const Shape& shape) {
  if (opcode == HloOpcode::kCopy || opcode == HloOpcode::kDomain) return shape;
  HLOVM_RETURN_IF_ERROR(ExpectArray(shape, "operand of unary operation"));
  const ElementType t = shape.element_type();
  switch (opcode) {
    case HloOpcode::kFloor:
    case HloOpcode::kCeil:
    case HloOpcode::kRoundNearestAfz:
    case HloOpcode::kRoundNearestEven:
      if (!IsFloatingPoint(t)) return TypeError("floating", opcode, t);
      return shape;
    case HloOpcode::kCos:
    case HloOpcode::kSin:
    case HloOpcode::kTan:
    case HloOpcode::kExp:
    case HloOpcode::kExpm1:
    case HloOpcode::kLog:
    case HloOpcode::kLog1p:
    case HloOpcode::kLogistic:
    case HloOpcode::kRsqrt:
    case HloOpcode::kSqrt:
    case HloOpcode::kCbrt:
    case HloOpcode::kTanh:
    case HloOpcode::kErf:
    case HloOpcode::kAcos:
    case HloOpcode::kAcosh:
    case HloOpcode::kAsin:
    case HloOpcode::kAsinh:
    case HloOpcode::kAtan:
    case HloOpcode::kAtanh:
    case HloOpcode::kCosh:
    case HloOpcode::kSinh:
      if (!IsFloatingPoint(t) && !IsComplex(t)) {
        return TypeError("floating or complex", opcode, t);
      }
      return shape;
    case HloOpcode::kReal:
    case HloOpcode::kImag:
      if (IsComplex(t)) return ChangeElementType(shape, ComplexComponentType(t));
      if (IsFloatingPoint(t)) return shape;
      return TypeError("floating or complex", opcode, t);
    case HloOpcode::kAbs:
      if (IsComplex(t)) return ChangeElementType(shape, ComplexComponentType(t));
      if (IsSigned(t)) return shape;
      return TypeError("signed or complex", opcode, t);
    case HloOpcode::kClz:
    case HloOpcode::kPopulationCount:
      if (!IsInteger(t)) return TypeError("integral", opcode, t);
      return shape;
    case HloOpcode::kNegate:
      if (!IsInteger(t) && !IsFloatingPoint(t) && !IsComplex(t)) {
        return TypeError("integral, floating or complex", opcode, t);
      }
      return shape;
    case HloOpcode::kSign:
      if (!IsSigned(t) && !IsComplex(t)) return TypeError("signed or complex", opcode, t);
      return shape;
    case HloOpcode::kNot:
      if (t != ElementType::kPred && !IsInteger(t)) {
        return TypeError("pred or integral", opcode, t);
      }
      return shape;
    case HloOpcode::kIsFinite:
      if (!IsFloatingPoint(t)) return TypeError("floating point", opcode, t);
      return ChangeElementType(shape, ElementType::kPred);
    default:
      return absl::InvalidArgumentError(absl::StrFormat(
          "Unknown operation for unary shape inference: \"%s\".", HloOpcodeName(opcode)));
  }
}

absl::StatusOr<Shape> InferBinaryOpShape(HloOpcode opcode, const Shape& lhs,
                                         const Shape& rhs) {
  HLOVM_RETURN_IF_ERROR(
      ExpectArray(lhs, absl::StrCat("lhs of binary operation ", std::string(HloOpcodeName(opcode)))));
  HLOVM_RETURN_IF_ERROR(
      ExpectArray(rhs, absl::StrCat("rhs of binary operation ", std::string(HloOpcodeName(opcode)))));
  if (!SameElementTypeIgnoringFp(lhs, rhs)) {
    return absl::InvalidArgumentError(
        absl::StrFormat("Binary op %s with different element types: %s and %s.",
                        HloOpcodeName(opcode), ShapeText(lhs), ShapeText(rhs)));
  }
  const ElementType t = lhs.element_type();
  switch (opcode) {
    case HloOpcode::kAdd:
    case HloOpcode::kMaximum:
    case HloOpcode::kMinimum:
    case HloOpcode::kMultiply:
      break;
    case HloOpcode::kSubtract:
    case HloOpcode::kAtan2:
    case HloOpcode::kPower:
    case HloOpcode::kDivide:
    case HloOpcode::kRemainder:
    case HloOpcode::kShiftLeft:
    case HloOpcode::kShiftRightArithmetic:
    case HloOpcode::kShiftRightLogical:
    case HloOpcode::kMulhi:
      if (t == ElementType::kPred) {
        return absl::InvalidArgumentError(absl::StrFormat(
            "Expected element type in shape to be arithmetic type for operation %s; got "
            "PRED.",
            HloOpcodeName(opcode)));
      }
      if ((opcode == HloOpcode::kShiftLeft || opcode == HloOpcode::kShiftRightArithmetic ||
           opcode == HloOpcode::kShiftRightLogical || opcode == HloOpcode::kMulhi) &&
          !IsInteger(t)) {
        return TypeError("integral", opcode, t);
      }
      if (opcode == HloOpcode::kAtan2 && !IsFloatingPoint(t) && !IsComplex(t)) {
        return TypeError("floating or complex", opcode, t);
      }
      break;
    case HloOpcode::kComplex: {
      if (!IsFloatingPoint(t)) {
        return absl::InvalidArgumentError(absl::StrFormat(
            "Expected element type in shape to be floating for complex compose "
            "operation; got %s.",
            ElementTypeName(t)));
      }
      HLOVM_ASSIGN_OR_RETURN(Shape shape, BroadcastElementwise(opcode, lhs, rhs));
      if (lhs.element_type() == ElementType::kF32 && rhs.element_type() == ElementType::kF32) {
        return ChangeElementType(shape, ElementType::kC64);
      }
      if (lhs.element_type() == ElementType::kF64 && rhs.element_type() == ElementType::kF64) {
        return ChangeElementType(shape, ElementType::kC128);
      }
      return absl::UnimplementedError("Complex component type is not implemented.");
    }
    case HloOpcode::kAnd:
    case HloOpcode::kOr:
    case HloOpcode::kXor:
      if (t != ElementType::kPred && !IsInteger(t)) {
        return absl::InvalidArgumentError(absl::StrFormat(
            "Expected pred or integral type in argument to and/or operation; got %s.",
            ElementTypeName(t)));
      }
      break;
    case HloOpcode::kCompare: {
      HLOVM_ASSIGN_OR_RETURN(Shape shape, BroadcastElementwise(opcode, lhs, rhs));
      return ChangeElementType(shape, ElementType::kPred);
    }
    default:
      return absl::InvalidArgumentError(absl::StrFormat(
          "Unknown operation for binary shape inference: \"%s\".", HloOpcodeName(opcode)));
  }
  return BroadcastElementwise(opcode, lhs, rhs);
}

absl::StatusOr<Shape> InferSelectShape(const Shape& pred, const Shape& on_true,
                                       const Shape& on_false) {
  HLOVM_RETURN_IF_ERROR(ExpectArray(pred, "pred of select"));
  HLOVM_RETURN_IF_ERROR(ExpectArray(on_true, "on_true of select"));
  HLOVM_RETURN_IF_ERROR(ExpectArray(on_false, "on_false of select"));
  if (!ShapesCompatible(on_true, on_false, /*ignore_fp_precision=*/true)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "Operands to select must be the same shape; got %s and %s.", ShapeText(on_true),
        ShapeText(on_false)));
  }
  if (pred.element_type() != ElementType::kPred) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "Select's pred operand must have PRED element type; got %s.", ShapeText(pred)));
  }
  if (!IsScalar(pred) && !SameDimensions(pred, on_true)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "Operands to select and predicate must be the same shape; got %s and %s.",
        ShapeText(on_true), ShapeText(pred)));
  }
  Shape result = ChangeElementType(on_true, HigherPrecisionElementType(on_true, on_false));
  for (int64_t i = 0; i < result.rank(); ++i) {
    if (on_false.is_dynamic_dimension(i) || (!IsScalar(pred) && pred.is_dynamic_dimension(i))) {
      result.set_dynamic_dimension(i, true);
    }
  }
  return result;
}

absl::StatusOr<Shape> InferClampShape(const Shape& min, const Shape& operand,
                                      const Shape& max) {
  HLOVM_RETURN_IF_ERROR(ExpectArray(min, "clamp min"));
  HLOVM_RETURN_IF_ERROR(ExpectArray(operand, "clamp operand"));
  HLOVM_RETURN_IF_ERROR(ExpectArray(max, "clamp max"));
  if (!SameElementTypeIgnoringFp(min, operand) || !SameElementTypeIgnoringFp(max, operand)) {
    return absl::InvalidArgumentError(
        absl::StrFormat("Clamp with incompatible element types: %s, %s, %s.", ShapeText(min),
                        ShapeText(operand), ShapeText(max)));
  }
  if ((!IsScalar(min) && !SameDimensions(min, operand)) ||
      (!IsScalar(max) && !SameDimensions(max, operand))) {
    return absl::InvalidArgumentError(
        absl::StrFormat("Clamp with incompatible shapes: %s, %s, %s.", ShapeText(min),
                        ShapeText(operand), ShapeText(max)));
  }
  return operand;
}

absl::StatusOr<Shape> InferConvertShape(const Shape& operand, ElementType new_type) {
  // XLA's shape inference refuses these (its kernels have no rule for them).
  if (operand.IsArray() && IsComplex(operand.element_type()) && !IsComplex(new_type)) {
    return absl::InvalidArgumentError(
        absl::StrFormat("Conversion from complex to real type %s => %s is not implemented.",
                        ShapeText(operand), ElementTypeName(new_type)));
  }
  if (!operand.IsArray() || !IsArrayType(new_type)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "Convert does not allow non-arrays, so cannot convert from %s to %s.",
        ShapeText(operand), ElementTypeName(new_type)));
  }
  return ChangeElementType(operand, new_type);
}

absl::StatusOr<Shape> InferBitcastConvertShape(const Shape& operand, ElementType new_type) {
  const ElementType old_type = operand.element_type();
  if (!operand.IsArray() || !IsArrayType(new_type)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "Cannot convert from or to tuple type; requested conversion: %s => %s.",
        ShapeText(operand), ElementTypeName(new_type)));
  }
  if (IsComplex(old_type) != IsComplex(new_type)) {
    return absl::InvalidArgumentError(
        absl::StrFormat("Conversion between complex and real type %s => %s.",
                        ShapeText(operand), ElementTypeName(new_type)));
  }
  const int in_bits = BitWidth(old_type), out_bits = BitWidth(new_type);
  if (std::max(in_bits, out_bits) % std::min(in_bits, out_bits) != 0) {
    return absl::InvalidArgumentError(
        absl::StrFormat("Cannot bitcast types with undivisible bit-widths: %s => %s.",
                        ElementTypeName(old_type), ElementTypeName(new_type)));
  }
  const int ratio = std::max(in_bits, out_bits) / std::min(in_bits, out_bits);
  std::vector<int64_t> dims(operand.dimensions().begin(), operand.dimensions().end());
  std::vector<bool> dynamic = DynamicFlags(operand);
  if (in_bits > out_bits) {
    dims.push_back(ratio);
    dynamic.push_back(false);
  } else if (in_bits < out_bits) {
    if (dims.empty() || dims.back() != ratio) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "Last dimension of input shape=%d is not equal to ratio of bit-widths=%d for "
          "bitcast-convert from %s to %s",
          dims.empty() ? 0 : dims.back(), ratio, ShapeText(operand),
          ElementTypeName(new_type)));
    }
    dims.pop_back();
    dynamic.pop_back();
  }
  return MakeArrayShape(new_type, dims, dynamic);
}

absl::StatusOr<Shape> InferReducePrecisionShape(const Shape& operand, int64_t exponent_bits,
                                                int64_t mantissa_bits) {
  HLOVM_RETURN_IF_ERROR(ExpectArray(operand, "operand of reduce-precision"));
  if (!IsFloatingPoint(operand.element_type())) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "Expected element type in shape to be floating point for ReducePrecision "
        "operation; got %s.",
        ElementTypeName(operand.element_type())));
  }
  if (exponent_bits < 1) {
    return absl::InvalidArgumentError(
        absl::StrFormat("Expected exponent_bits >= 1; got %d.", exponent_bits));
  }
  if (mantissa_bits < 0) {
    return absl::InvalidArgumentError(
        absl::StrFormat("Expected non-negative mantissa_bits; got %d.", mantissa_bits));
  }
  return operand;
}

absl::StatusOr<Shape> InferStochasticConvertShape(const Shape& operand, const Shape& random,
                                                  ElementType new_type) {
  HLOVM_RETURN_IF_ERROR(ExpectArray(operand, "lhs of stochastic convert operation"));
  HLOVM_RETURN_IF_ERROR(ExpectArray(random, "rhs of stochastic convert operation"));
  if (!IsUnsignedInteger(random.element_type())) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "Random numbers for stochastic convert must be unsigned integers, but got: %s",
        ShapeText(random)));
  }
  if (!IsFloatingPoint(operand.element_type())) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "Stochastic convert supports only floating point operand conversion, but got: %s",
        ShapeText(operand)));
  }
  if (BitWidth(operand.element_type()) != BitWidth(random.element_type())) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "The random number is required to have same bits as the operand. But got random "
        "bits: %d, operand bits: %d",
        BitWidth(random.element_type()), BitWidth(operand.element_type())));
  }
  if (!SameDimensions(operand, random)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "Stochastic convert operand shape does not match random tensor shape: %s vs %s.",
        ShapeText(operand), ShapeText(random)));
  }
  return ChangeElementType(operand, new_type);
}

absl::StatusOr<Shape> InferMapShape(absl::Span<const Shape* const> operands,
                                    const ComputationSignature& to_apply,
                                    absl::Span<const int64_t> dimensions) {
  if (operands.empty()) {
    return absl::InvalidArgumentError("Map expects at least one argument.");
  }
  const Shape* arg = operands[0];
  HLOVM_RETURN_IF_ERROR(ExpectArray(*arg, "operand of map"));
  for (size_t i = 1; i < operands.size(); ++i) {
    HLOVM_RETURN_IF_ERROR(ExpectArray(*operands[i], "operand of map"));
    if (SameDimensions(*operands[i], *arg)) continue;
    std::vector<std::string> pieces;
    for (const Shape* s : operands) pieces.push_back(ShapeText(*s));
    return absl::InvalidArgumentError(absl::StrFormat(
        "Map operation requires all operands to have the same shape; got: %s.",
        absl::StrJoin(pieces, ", ")));
  }
  if (static_cast<int64_t>(dimensions.size()) != arg->rank()) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "Map applied to a subset of dimensions currently not supported: "
        "arg_dimension_size: %d, requested_map_dimensions_size: %u.",
        arg->rank(), dimensions.size()));
  }
  for (size_t i = 0; i < dimensions.size(); ++i) {
    if (dimensions[i] != static_cast<int64_t>(i)) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "Map requires monotonically increasing dimension numbers; got: %s.",
          absl::StrJoin(dimensions, ", ")));
    }
  }
  if (operands.size() != to_apply.parameters.size()) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "Map applied function arity must match number of arguments; got: arity: %d, "
        "arguments: %u.",
        to_apply.parameters.size(), operands.size()));
  }
  if (!IsScalar(to_apply.result)) {
    return absl::InvalidArgumentError(
        absl::StrFormat("Mapped computation's result has to be a scalar; got: %s.",
                        ShapeText(to_apply.result)));
  }
  for (size_t i = 0; i < to_apply.parameters.size(); ++i) {
    const Shape& p = to_apply.parameters[i];
    if (!IsScalar(p)) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "Mapped computation's parameter has to be a scalar; got parameter %d shape: %s.",
          i, ShapeText(p)));
    }
    if (!SameElementTypeIgnoringFp(p, *operands[i])) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "Mapped computation's parameter type has to match argument element type; got "
          "parameter %d shape: %s, argument shape: %s.",
          i, ShapeText(p), ShapeText(*operands[i])));
    }
  }
  return MakeArrayShape(to_apply.result.element_type(), arg->dimensions());
}

}  // namespace hlovm
