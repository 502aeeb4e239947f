#include "vm/computation_call.h"

namespace hlovm {
namespace vm {

absl::StatusOr<ComputationCall> ComputationCall::Create(const Function& fn) {
  ComputationCall call;
  call.fn_ = &fn;
  auto frame = Frame::Create(fn);
  if (!frame.ok()) return frame.status();
  call.frame_ = std::move(frame).value();
  return call;
}

namespace {

bool IsCommutative(HloOpcode opcode) {
  switch (opcode) {
    case HloOpcode::kAdd:
    case HloOpcode::kMultiply:
    case HloOpcode::kMaximum:
    case HloOpcode::kMinimum:
    case HloOpcode::kAnd:
    case HloOpcode::kOr:
    case HloOpcode::kXor:
      return true;
    default:
      return false;
  }
}

ComparisonDirection Swapped(ComparisonDirection d) {
  switch (d) {
    case ComparisonDirection::kLt:
      return ComparisonDirection::kGt;
    case ComparisonDirection::kGt:
      return ComparisonDirection::kLt;
    case ComparisonDirection::kLe:
      return ComparisonDirection::kGe;
    case ComparisonDirection::kGe:
      return ComparisonDirection::kLe;
    default:
      return d;
  }
}

bool IsScalarParameter(const HloInstruction* i, int64_t number) {
  return i->opcode() == HloOpcode::kParameter && i->parameter_number == number &&
         i->shape().IsArray() && i->shape().rank() == 0;
}

}  // namespace

std::optional<HloOpcode> MatchBinaryReducer(const HloComputation& computation) {
  const HloInstruction* root = computation.root();
  if (root == nullptr || computation.parameter_count() != 2) return std::nullopt;
  if (HloOpcodeFamily(root->opcode()) != OpFamily::kBinary || root->operand_count() != 2 ||
      root->opcode() == HloOpcode::kCompare) {
    return std::nullopt;
  }
  const HloInstruction* a = root->operand(0);
  const HloInstruction* b = root->operand(1);
  if (IsScalarParameter(a, 0) && IsScalarParameter(b, 1)) return root->opcode();
  if (IsCommutative(root->opcode()) && IsScalarParameter(a, 1) && IsScalarParameter(b, 0)) {
    return root->opcode();
  }
  return std::nullopt;
}

std::optional<SimpleComparator> MatchComparator(const HloComputation& computation) {
  const HloInstruction* root = computation.root();
  if (root == nullptr || root->opcode() != HloOpcode::kCompare) return std::nullopt;
  const HloInstruction* a = root->operand(0);
  const HloInstruction* b = root->operand(1);
  if (a->opcode() != HloOpcode::kParameter || b->opcode() != HloOpcode::kParameter) {
    return std::nullopt;
  }
  const int64_t pa = a->parameter_number, pb = b->parameter_number;
  if (!IsScalarParameter(a, pa) || !IsScalarParameter(b, pb) || pa / 2 != pb / 2 || pa == pb) {
    return std::nullopt;
  }
  SimpleComparator out;
  out.operand = static_cast<int>(pa / 2);
  out.type = root->comparison_type;
  out.direction = pa % 2 == 0 ? root->comparison_direction : Swapped(root->comparison_direction);
  return out;
}

}  // namespace vm
}  // namespace hlovm
