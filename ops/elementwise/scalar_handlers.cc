#include "ops/elementwise/scalar_handlers.h"

#include <utility>

#include "absl/container/flat_hash_map.h"
#include "ops/elementwise/elementwise_binary_ops.h"
#include "ops/elementwise/elementwise_internal.h"

namespace hlovm {
namespace vm {
namespace {

namespace ei = elementwise_internal;
using ET = ElementType;

template <BinaryKernel kKernel>
bool OneElementBinary(const Instr& instr, uint8_t* const* regs, ExecContext&) {
  kKernel(regs[instr.in[0]], regs[instr.in[1]], regs[instr.out[0]], 1);
  return true;
}

template <BinaryKernel kKernel>
bool WholeBinary(const Instr& instr, uint8_t* const* regs, ExecContext&) {
  const int64_t n = static_cast<const DirectElementwisePlan*>(instr.plan)->n;
  kKernel(regs[instr.in[0]], regs[instr.in[1]], regs[instr.out[0]], n);
  return true;
}

template <BinaryKernel kKernel>
bool OneElementPredicate(const uint8_t* lhs, const uint8_t* rhs) {
  typename ei::Traits<ET::kPred>::Storage result;
  kKernel(lhs, rhs, &result, 1);
  return result != 0;
}

using HandlerPair = std::pair<Handler, Handler>;  // one element, whole
struct BinaryTable {
  absl::flat_hash_map<BinaryKernel, HandlerPair> handlers;
  absl::flat_hash_map<Handler, ScalarPredicate> predicates;  // of compares
};

template <BinaryKernel kKernel>
void Add(BinaryTable& table) {
  table.handlers.emplace(kKernel,
                         HandlerPair{&OneElementBinary<kKernel>, &WholeBinary<kKernel>});
}

template <BinaryKernel kKernel>
void AddCompare(BinaryTable& table) {
  Add<kKernel>(table);
  table.predicates.emplace(&OneElementBinary<kKernel>, &OneElementPredicate<kKernel>);
}

template <ET kType, bool kTotal>
void AddCompares(BinaryTable& table) {
  using D = ComparisonDirection;
  AddCompare<&ei::BinaryLoop<kType, ET::kPred, ei::CompareOp<D::kEq, kTotal>>>(table);
  AddCompare<&ei::BinaryLoop<kType, ET::kPred, ei::CompareOp<D::kNe, kTotal>>>(table);
  AddCompare<&ei::BinaryLoop<kType, ET::kPred, ei::CompareOp<D::kGe, kTotal>>>(table);
  AddCompare<&ei::BinaryLoop<kType, ET::kPred, ei::CompareOp<D::kGt, kTotal>>>(table);
  AddCompare<&ei::BinaryLoop<kType, ET::kPred, ei::CompareOp<D::kLe, kTotal>>>(table);
  AddCompare<&ei::BinaryLoop<kType, ET::kPred, ei::CompareOp<D::kLt, kTotal>>>(table);
}

template <ET kType>
void AddIntOps(BinaryTable& table) {
#define HLOVM_EW_OP_(op, Op) Add<&ei::BinaryLoop<kType, kType, ei::Op>>(table);
  HLOVM_EW_INT_BINARY_OPS(HLOVM_EW_OP_)
#undef HLOVM_EW_OP_
  AddCompares<kType, false>(table);
}

// The kernels of pred, the integer types, f32 and f64 (those scalar loop
// code computes with); the narrow and complex types keep the general
// handler.
BinaryTable MakeBinaryTable() {
  BinaryTable table;
  constexpr ET kP = ET::kPred;
  Add<&ei::BinaryLoop<kP, kP, ei::MulOp>>(table);
  Add<&ei::BinaryLoop<kP, kP, ei::AddOp>>(table);
  Add<&ei::BinaryLoop<kP, kP, ei::XorOp>>(table);
  AddCompares<kP, false>(table);
#define HLOVM_EW_TYPE_(e) AddIntOps<ET::e>(table);
  HLOVM_EW_INT_TYPES(HLOVM_EW_TYPE_)
#undef HLOVM_EW_TYPE_
#define HLOVM_EW_OP_(op, Op)                   \
  Add<ei::kF32Binary<ei::Op>>(table);          \
  Add<ei::kF64Binary<ei::Op>>(table);
  HLOVM_EW_FLOAT_BINARY_OPS(HLOVM_EW_OP_)
#undef HLOVM_EW_OP_
  AddCompares<ET::kF32, false>(table);
  AddCompares<ET::kF32, true>(table);
  AddCompares<ET::kF64, false>(table);
  AddCompares<ET::kF64, true>(table);
  return table;
}

const BinaryTable& Table() {
  static const BinaryTable* const table = new BinaryTable(MakeBinaryTable());
  return *table;
}

}  // namespace

Handler DirectBinaryHandler(BinaryKernel kernel, bool one_element) {
  auto it = Table().handlers.find(kernel);
  if (it == Table().handlers.end()) return nullptr;
  return one_element ? it->second.first : it->second.second;
}

ScalarPredicate ScalarPredicateOf(Handler handler) {
  auto it = Table().predicates.find(handler);
  return it == Table().predicates.end() ? nullptr : it->second;
}

}  // namespace vm
}  // namespace hlovm
