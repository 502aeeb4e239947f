// The per-opcode rows of op_spec.h.
#include "frontend/op_spec.h"

#include <array>
#include <cstddef>

#include "absl/types/span.h"
#include "core/hlo_opcode.h"
#include "frontend/attribute_table.h"

namespace hlovm {
namespace {

using A = AttrId;
using O = HloOpcode;
using R = OperandRule;

// One row per opcode (and form) that the text says more of than its
// operands; opcodes not listed take no required or restricted attribute.
constexpr OpSpec kRows[] = {
    // Elementwise ops with an accuracy setting.
    {.opcode = O::kAcos, .allowed = {A::kResultAccuracy}},
    {.opcode = O::kAcosh, .allowed = {A::kResultAccuracy}},
    {.opcode = O::kAsin, .allowed = {A::kResultAccuracy}},
    {.opcode = O::kAsinh, .allowed = {A::kResultAccuracy}},
    {.opcode = O::kAtanh, .allowed = {A::kResultAccuracy}},
    {.opcode = O::kCbrt, .allowed = {A::kResultAccuracy}},
    {.opcode = O::kCos, .allowed = {A::kResultAccuracy}},
    {.opcode = O::kCosh, .allowed = {A::kResultAccuracy}},
    {.opcode = O::kErf, .allowed = {A::kResultAccuracy}},
    {.opcode = O::kExp, .allowed = {A::kResultAccuracy}},
    {.opcode = O::kExpm1, .allowed = {A::kResultAccuracy}},
    {.opcode = O::kLog, .allowed = {A::kResultAccuracy}},
    {.opcode = O::kLog1p, .allowed = {A::kResultAccuracy}},
    {.opcode = O::kLogistic, .allowed = {A::kResultAccuracy}},
    {.opcode = O::kRsqrt, .allowed = {A::kResultAccuracy}},
    {.opcode = O::kSin, .allowed = {A::kResultAccuracy}},
    {.opcode = O::kSinh, .allowed = {A::kResultAccuracy}},
    {.opcode = O::kSqrt, .allowed = {A::kResultAccuracy}},
    {.opcode = O::kTan, .allowed = {A::kResultAccuracy}},
    {.opcode = O::kTanh, .allowed = {A::kResultAccuracy}},

    // Shape and indexing.
    {.opcode = O::kBroadcast, .required = {A::kDimensions}},
    {.opcode = O::kBroadcast, .form = OpForm::kScalarOperand},
    {.opcode = O::kConcatenate, .required = {A::kDimensions}, .one_dimension = true},
    {.opcode = O::kDynamicReshape, .operands = R::kOnePerResultDimension},
    {.opcode = O::kDynamicSlice, .required = {A::kDynamicSliceSizes}, .operands = R::kAtLeastOne},
    {.opcode = O::kDynamicUpdateSlice, .operands = R::kAtLeastTwo},
    {.opcode = O::kGetDimensionSize, .required = {A::kDimensions}, .one_dimension = true},
    {.opcode = O::kSetDimensionSize, .required = {A::kDimensions}, .one_dimension = true},
    {.opcode = O::kGetTupleElement, .required = {A::kIndex}},
    {.opcode = O::kIota, .required = {A::kIotaDimension}},
    {.opcode = O::kPad, .required = {A::kPadding}},
    {.opcode = O::kReverse, .required = {A::kDimensions}},
    {.opcode = O::kSlice, .required = {A::kSlice}},
    {.opcode = O::kTranspose, .required = {A::kDimensions}},
    {.opcode = O::kGather,
     .required = {A::kOffsetDims, A::kCollapsedSliceDims, A::kStartIndexMap, A::kIndexVectorDim,
                  A::kSliceSizes}},
    {.opcode = O::kScatter,
     .required = {A::kUpdateWindowDims, A::kInsertedWindowDims, A::kScatterDimsToOperandDims,
                  A::kIndexVectorDim, A::kToApply},
     .computations = {A::kToApply},
     .operands = R::kOperandsIndicesUpdates},
    {.opcode = O::kMap, .required = {A::kToApply}, .computations = {A::kToApply}},

    // Reductions, sorting and scans.
    {.opcode = O::kReduce,
     .required = {A::kToApply, A::kDimensions},
     .computations = {A::kToApply},
     .operands = R::kInputsAndInits},
    {.opcode = O::kReduceWindow,
     .required = {A::kToApply},
     .computations = {A::kToApply},
     .operands = R::kInputsAndInits},
    {.opcode = O::kSelectAndScatter,
     .required = {A::kSelect, A::kScatter},
     .computations = {A::kSelect, A::kScatter}},
    {.opcode = O::kSort,
     .required = {A::kDimensions, A::kToApply},
     .computations = {A::kToApply},
     .one_dimension = true},
    {.opcode = O::kScan,
     .required = {A::kToApply, A::kDimensions, A::kNumCarries},
     .computations = {A::kToApply},
     .one_dimension = true},
    {.opcode = O::kTopK, .required = {A::kK}},

    // Dot, convolution, FFT, normalization, RNG, precision.
    {.opcode = O::kConvolution, .required = {A::kDimLabels}},
    {.opcode = O::kFft, .required = {A::kFftType, A::kFftLength}},
    {.opcode = O::kBatchNormTraining, .required = {A::kEpsilon, A::kFeatureIndex}},
    {.opcode = O::kBatchNormInference, .required = {A::kEpsilon, A::kFeatureIndex}},
    {.opcode = O::kBatchNormGrad, .required = {A::kEpsilon, A::kFeatureIndex}},
    {.opcode = O::kRng, .required = {A::kDistribution}},
    {.opcode = O::kRngGetAndUpdateState, .required = {A::kDelta}},
    {.opcode = O::kRngBitGenerator, .required = {A::kAlgorithm}},
    {.opcode = O::kReducePrecision, .required = {A::kExponentBits, A::kMantissaBits}},
    {.opcode = O::kCompare, .required = {A::kDirection}},

    // Collectives.
    {.opcode = O::kAllGather, .required = {A::kDimensions}, .one_dimension = true},
    {.opcode = O::kAllGatherStart, .required = {A::kDimensions}, .one_dimension = true},
    {.opcode = O::kAllReduce, .required = {A::kToApply}, .computations = {A::kToApply}},
    {.opcode = O::kAllReduceStart, .required = {A::kToApply}, .computations = {A::kToApply}},
    {.opcode = O::kReduceScatter,
     .required = {A::kToApply, A::kDimensions},
     .computations = {A::kToApply},
     .one_dimension = true},
    {.opcode = O::kCollectiveReduce, .computations = {A::kToApply}},
    {.opcode = O::kCollectivePermute,
     .required = {A::kSourceTargetPairs},
     .operands = R::kFourWithSliceSizes},
    {.opcode = O::kCollectivePermuteStart,
     .required = {A::kSourceTargetPairs},
     .operands = R::kFourWithSliceSizes},

    // Control flow, calls, fusion, async and custom calls.
    {.opcode = O::kCall, .required = {A::kToApply}, .computations = {A::kToApply, A::kCalls}},
    {.opcode = O::kWhile,
     .required = {A::kCondition, A::kBody},
     .computations = {A::kCondition, A::kBody}},
    {.opcode = O::kConditional,
     .required = {A::kBranchComputations},
     .computations = {A::kBranchComputations},
     .operands = R::kIndexAndBranches},
    {.opcode = O::kConditional,
     .form = OpForm::kPredicate,
     .required = {A::kTrueComputation, A::kFalseComputation},
     .computations = {A::kTrueComputation, A::kFalseComputation},
     .operands = R::kIndexAndBranches},
    {.opcode = O::kFusion, .required = {A::kCalls, A::kKind}, .computations = {A::kCalls}},
    {.opcode = O::kAsyncStart,
     .required = {A::kCalls},
     .computations = {A::kCalls},
     .allowed = {A::kAsyncExecutionThread}},
    {.opcode = O::kAsyncStart,
     .form = OpForm::kShorthand,
     .computations = {A::kCalls},
     .allowed = {A::kAsyncExecutionThread}},
    {.opcode = O::kAsyncUpdate,
     .computations = {A::kCalls},
     .allowed = {A::kAsyncExecutionThread},
     .operands = R::kAny},
    {.opcode = O::kAsyncDone,
     .computations = {A::kCalls},
     .allowed = {A::kAsyncExecutionThread},
     .operands = R::kAny},
    {.opcode = O::kCustomCall,
     .required = {A::kCustomCallTarget},
     .computations = {A::kToApply, A::kCalls, A::kCalledComputations}},
    {.opcode = O::kDomain, .required = {A::kDomain}},
};

// Row indices by opcode and form (-1: none), built once.
struct Index {
  static constexpr int kForms = 4;
  std::array<std::array<int, kForms>, HloOpcodeCount()> rows;
};

const Index& GetIndex() {
  static const Index* index = [] {
    auto* ix = new Index;
    for (auto& forms : ix->rows) forms.fill(-1);
    for (size_t i = 0; i < std::size(kRows); ++i) {
      ix->rows[static_cast<size_t>(kRows[i].opcode)][static_cast<size_t>(kRows[i].form)] =
          static_cast<int>(i);
    }
    return ix;
  }();
  return *index;
}

}  // namespace

const OpSpec& GetOpSpec(HloOpcode opcode, OpForm form) {
  const auto& forms = GetIndex().rows[static_cast<size_t>(opcode)];
  int row = forms[static_cast<size_t>(form)];
  if (row < 0) row = forms[static_cast<size_t>(OpForm::kDefault)];
  if (row < 0) {
    // An empty row naming the opcode.
    static const auto* empty = [] {
      auto* rows = new std::array<OpSpec, HloOpcodeCount()>();
      for (int i = 0; i < HloOpcodeCount(); ++i) (*rows)[i].opcode = static_cast<HloOpcode>(i);
      return rows;
    }();
    return (*empty)[static_cast<size_t>(opcode)];
  }
  return kRows[row];
}

absl::Span<const OpSpec> OpSpecRows() { return absl::MakeConstSpan(kRows); }

}  // namespace hlovm
