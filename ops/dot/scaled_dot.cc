#include "ops/dot/scaled_dot.h"

#include <cstring>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "ops/common/common_shape.h"

namespace hlovm {
namespace {

// The type both an operand and its scale are converted to.
ElementType TargetType(ElementType a, ElementType b) {
  const int wa = BitWidth(a), wb = BitWidth(b);
  if (wa < 16 && wb < 16) return ElementType::kBF16;
  if (a == b) return a;
  if (wa == wb) return ElementType::kF32;
  return wa > wb ? a : b;
}

absl::StatusOr<DequantizePlan> MakeDequantize(const Shape& operand, const Shape& scale,
                                              const char* side) {
  DequantizePlan p;
  if (scale.rank() == 0) return p;
  p.active = true;
  p.type = TargetType(operand.element_type(), scale.element_type());
  if (scale.rank() != operand.rank()) {
    return absl::InvalidArgumentError(absl::StrCat("scaled-dot: ", side, " operand and scale ranks differ"));
  }
  for (int64_t i = 0; i < operand.rank(); ++i) {
    const int64_t d = operand.dimensions(i), s = scale.dimensions(i);
    if (s == 0 ? d != 0 : d % s != 0) {
      return absl::InvalidArgumentError(absl::StrCat("scaled-dot: ", side, " scale dimension ", i, " (", s,
                                                     ") does not divide the operand's (", d, ")"));
    }
    p.dims.push_back(d);
    p.scale_dims.push_back(s);
  }
  p.elements = operand.element_count();
  p.scale_elements = scale.element_count();
  if (operand.element_type() != p.type) {
    HLOVM_ASSIGN_OR_RETURN(p.convert_operand, SelectConvertKernel(operand.element_type(), p.type));
  }
  if (scale.element_type() != p.type) {
    HLOVM_ASSIGN_OR_RETURN(p.convert_scale, SelectConvertKernel(scale.element_type(), p.type));
  }
  HLOVM_ASSIGN_OR_RETURN(p.multiply, SelectBinaryKernel(HloOpcode::kMultiply, p.type, p.type));
  return p;
}

// dst (operand-shaped) = each scale element repeated over its block.
template <typename E>
void ExpandBlocks(const DequantizePlan& p, const E* scale, E* dst) {
  const int64_t rank = static_cast<int64_t>(p.dims.size());
  const int64_t inner = p.dims.back(), inner_block = p.scale_dims.back() == 0 ? 1 : inner / p.scale_dims.back();
  const int64_t rows = inner == 0 ? 0 : p.elements / inner;
  std::vector<int64_t> coord(rank, 0);
  for (int64_t row = 0; row < rows; ++row) {
    // The scale row of this operand row.
    int64_t srow = 0;
    for (int64_t i = 0; i + 1 < rank; ++i) {
      srow = srow * p.scale_dims[i] + coord[i] / (p.dims[i] / p.scale_dims[i]);
    }
    const E* s = scale + srow * p.scale_dims.back();
    E* d = dst + row * inner;
    for (int64_t j = 0; j < inner; ++j) d[j] = s[j / inner_block];
    for (int64_t i = rank - 2; i >= 0; --i) {  // next row
      if (++coord[i] < p.dims[i]) break;
      coord[i] = 0;
    }
  }
}

// The dequantised operand in `buf`; returns where the dot reads it.
const void* Dequantize(const DequantizePlan& p, const void* operand, const void* scale,
                       std::vector<uint8_t>& buf) {
  if (!p.active) return operand;
  const int width = ByteWidth(p.type);
  buf.resize(p.elements * width * 2 + p.scale_elements * width);
  uint8_t* x = buf.data();
  uint8_t* expanded = x + p.elements * width;
  uint8_t* s = expanded + p.elements * width;
  if (p.convert_operand != nullptr) {
    p.convert_operand(operand, x, p.elements);
  } else if (p.elements > 0) {
    std::memcpy(x, operand, p.elements * width);
  }
  const void* scale_t = scale;
  if (p.convert_scale != nullptr) {
    p.convert_scale(scale, s, p.scale_elements);
    scale_t = s;
  }
  switch (width) {
    case 2: ExpandBlocks(p, static_cast<const uint16_t*>(scale_t), reinterpret_cast<uint16_t*>(expanded)); break;
    case 4: ExpandBlocks(p, static_cast<const uint32_t*>(scale_t), reinterpret_cast<uint32_t*>(expanded)); break;
    case 8: ExpandBlocks(p, static_cast<const uint64_t*>(scale_t), reinterpret_cast<uint64_t*>(expanded)); break;
    case 16: {
      struct E16 { uint64_t lo, hi; };
      ExpandBlocks(p, static_cast<const E16*>(scale_t), reinterpret_cast<E16*>(expanded));
      break;
    }
    default: break;
  }
  p.multiply(x, expanded, x, p.elements);
  return x;
}

}  // namespace

absl::StatusOr<ScaledDotPlan> MakeScaledDotPlan(const Shape& lhs, const Shape& rhs,
                                                const Shape& lhs_scale, const Shape& rhs_scale,
                                                const Shape& result, const DotDimensionNumbers& dnums) {
  ScaledDotPlan p;
  HLOVM_ASSIGN_OR_RETURN(p.lhs, MakeDequantize(lhs, lhs_scale, "lhs"));
  HLOVM_ASSIGN_OR_RETURN(p.rhs, MakeDequantize(rhs, rhs_scale, "rhs"));
  const Shape l = p.lhs.active ? ChangeElementType(lhs, p.lhs.type) : lhs;
  const Shape r = p.rhs.active ? ChangeElementType(rhs, p.rhs.type) : rhs;
  HLOVM_ASSIGN_OR_RETURN(p.dot, MakeDotPlan(l, r, result, dnums));
  return p;
}

void RunScaledDot(const ScaledDotPlan& p, const void* lhs, const void* rhs, const void* lhs_scale,
                  const void* rhs_scale, void* out) {
  std::vector<uint8_t> lbuf, rbuf;
  const void* l = Dequantize(p.lhs, lhs, lhs_scale, lbuf);
  const void* r = Dequantize(p.rhs, rhs, rhs_scale, rbuf);
  std::vector<double> scratch(p.dot.scratch_bytes / sizeof(double) + 2);
  RunDot(p.dot, l, r, out, scratch.data());
}

}  // namespace hlovm
