// Binary kernels of f32, f64 and the narrow float types (through f32), and
// the complex(real, imag) constructor.
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "ops/elementwise/elementwise_binary_ops.h"
#include "ops/elementwise/elementwise_internal.h"

namespace hlovm {
namespace elementwise_internal {
namespace {

absl::Status NoKernel(HloOpcode opcode, ElementType type) {
  return absl::UnimplementedError(absl::StrCat("No ", OpName(opcode), " kernel for ",
                                               TypeName(type)));
}

template <ET kType>
absl::StatusOr<BinaryKernel> SelectNarrow(HloOpcode opcode) {
  switch (opcode) {
#define HLOVM_EW_CASE_(op, Op) \
  case HloOpcode::op:          \
    return &WidenBinary<kType, kF32Binary<Op>>;
    HLOVM_EW_FLOAT_BINARY_OPS(HLOVM_EW_CASE_)
#undef HLOVM_EW_CASE_
    default:
      return NoKernel(opcode, kType);
  }
}

}  // namespace

absl::StatusOr<BinaryKernel> SelectBinaryFloat(HloOpcode opcode, ElementType type) {
  if (type == ET::kF32) {
    switch (opcode) {
#define HLOVM_EW_CASE_(op, Op) \
  case HloOpcode::op:          \
    return kF32Binary<Op>;
      HLOVM_EW_FLOAT_BINARY_OPS(HLOVM_EW_CASE_)
#undef HLOVM_EW_CASE_
      default:
        return NoKernel(opcode, type);
    }
  }
  if (type == ET::kF64) {
    switch (opcode) {
#define HLOVM_EW_CASE_(op, Op) \
  case HloOpcode::op:          \
    return kF64Binary<Op>;
      HLOVM_EW_FLOAT_BINARY_OPS(HLOVM_EW_CASE_)
#undef HLOVM_EW_CASE_
      default:
        return NoKernel(opcode, type);
    }
  }
  switch (type) {
#define HLOVM_EW_TYPE_(e) \
  case ET::e:             \
    return SelectNarrow<ET::e>(opcode);
    HLOVM_EW_NARROW_FLOAT_TYPES(HLOVM_EW_TYPE_)
#undef HLOVM_EW_TYPE_
    default:
      return NoKernel(opcode, type);
  }
}

absl::StatusOr<BinaryKernel> SelectComplexConstruct(ElementType component) {
  if (component == ET::kF32) return &BinaryLoop<ET::kF32, ET::kC64, ComplexOp>;
  if (component == ET::kF64) return &BinaryLoop<ET::kF64, ET::kC128, ComplexOp>;
  return NoKernel(HloOpcode::kComplex, component);
}

}  // namespace elementwise_internal
}  // namespace hlovm
