// The one list of instruction attributes (`name=value` after an
// instruction's operands). The parser's attribute enum and name lookup, the
// "did you mean" for misspelt names, the printer's attribute names and the
// REPL's completion words all expand HLOVM_ATTRIBUTE_LIST instead of
// restating it (as core/hlo_opcode.h does for opcodes).
//
// Each row is V(id, "text name", kind, holder, member):
//   id      the AttrId enumerator;
//   name    the name as written in HLO text;
//   kind    the form of the value (AttrKind, below);
//   holder, member
//           where the parser keeps the value: `member` of the holder, one
//           of instr (the HloInstruction), attrs (its OpAttributes), dot,
//           gather, scatter (the dimension numbers in its OpAttributes).
//           attribute_table.cc checks at compile time that each names a
//           real field. Every attribute's text is also kept in
//           raw_attributes(); those stored there only are kept as text.
// The parser reads the value of the rows of the plain kinds (kInt, kBool,
// kIntList, kString, kText) from these columns alone; the others each have
// a reader of their own.
#ifndef HLOVM_FRONTEND_ATTRIBUTE_TABLE_H_
#define HLOVM_FRONTEND_ATTRIBUTE_TABLE_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

#include "core/hlo_ir.h"

namespace hlovm {

// The written form of an attribute's value.
enum class AttrKind : uint8_t {
  kText,             // any value, kept as text (at most checked for form)
  kInt,              // 3
  kIntList,          // {0,1}
  kIntListList,      // {{0,1},{2,3}}
  kBool,             // true / false
  kBoolList,         // {true,false}
  kFloat,            // 0.001
  kString,           // "text" (C escapes)
  kName,             // a bare name from a fixed set: EQ, kLoop, rng_normal
  kNameList,         // {high,default}
  kShape,            // f32[2]{0}
  kShapeList,        // {f32[2]{0}, s32[]}
  kWindow,           // {size=3 stride=2 pad=1_1}
  kPadding,          // 0_1x2_3_1
  kDimLabels,        // b01f_01io->b01f
  kSlice,            // {[0:2], [1:4:2]}
  kReplicaGroups,    // {{0,1},{2,3}} or [2,2]<=[4]
  kAliasing,         // {{0}: (1, {})}
  kLiteral,          // s32[2] {1, 2}
  kInstructionList,  // {%a, %b}
  kComputation,      // %comp or an inline {...} body
  kComputationList,  // {%a, %b}
};

// clang-format off
#define HLOVM_ATTRIBUTE_LIST(V)                                                                    \
  /* Kept as text (metadata and the like). */                                                      \
  V(kSharding, "sharding", kText, attrs, sharding)                                                 \
  V(kMetadata, "metadata", kText, instr, raw_attributes())                                         \
  V(kBackendConfig, "backend_config", kString, attrs, backend_config)                              \
  V(kFrontendAttributes, "frontend_attributes", kText, instr, raw_attributes())                    \
  V(kStatistics, "statistics", kText, instr, raw_attributes())                                     \
  V(kOrigin, "origin", kText, instr, raw_attributes())                                             \
  V(kResultAccuracy, "result_accuracy", kText, instr, raw_attributes())                            \
  V(kControlPredecessors, "control-predecessors", kInstructionList, instr, control_predecessors()) \
  V(kParameterReplication, "parameter_replication", kBoolList, attrs, parameter_replication)       \
  V(kDomain, "domain", kText, instr, raw_attributes())                                             \
  /* Typed. all-to-all also keeps its one dimension in split_dimension. */                         \
  V(kDimensions, "dimensions", kIntList, instr, dimensions)                                        \
  V(kIotaDimension, "iota_dimension", kInt, instr, iota_dimension)                                 \
  V(kIndex, "index", kInt, instr, tuple_index)                                                     \
  V(kSlice, "slice", kSlice, instr, slice)                                                         \
  V(kDynamicSliceSizes, "dynamic_slice_sizes", kIntList, attrs, dynamic_slice_sizes)               \
  V(kWindow, "window", kWindow, attrs, window)                                                     \
  V(kPadding, "padding", kPadding, attrs, padding)                                                 \
  V(kDimLabels, "dim_labels", kDimLabels, attrs, convolution_dimension_numbers)                    \
  V(kFeatureGroupCount, "feature_group_count", kInt, attrs, feature_group_count)                   \
  V(kBatchGroupCount, "batch_group_count", kInt, attrs, batch_group_count)                         \
  V(kLhsBatchDims, "lhs_batch_dims", kIntList, dot, lhs_batch_dimensions)                          \
  V(kRhsBatchDims, "rhs_batch_dims", kIntList, dot, rhs_batch_dimensions)                          \
  V(kLhsContractingDims, "lhs_contracting_dims", kIntList, dot, lhs_contracting_dimensions)        \
  V(kRhsContractingDims, "rhs_contracting_dims", kIntList, dot, rhs_contracting_dimensions)        \
  V(kLhsRaggedDims, "lhs_ragged_dims", kIntList, dot, lhs_ragged_dimensions)                       \
  V(kRhsGroupDims, "rhs_group_dims", kIntList, dot, rhs_group_dimensions)                          \
  V(kOperandPrecision, "operand_precision", kNameList, attrs, operand_precision)                   \
  /* rng-bit-generator keeps its algorithm in rng_algorithm. */                                    \
  V(kAlgorithm, "algorithm", kName, attrs, precision_algorithm)                                    \
  V(kOffsetDims, "offset_dims", kIntList, gather, offset_dims)                                     \
  V(kCollapsedSliceDims, "collapsed_slice_dims", kIntList, gather, collapsed_slice_dims)           \
  V(kStartIndexMap, "start_index_map", kIntList, gather, start_index_map)                          \
  V(kOperandBatchingDims, "operand_batching_dims", kIntList, gather, operand_batching_dims)        \
  V(kStartIndicesBatchingDims, "start_indices_batching_dims", kIntList,                            \
    gather, start_indices_batching_dims)                                                           \
  /* scatter keeps it in scatter_dimension_numbers. */                                             \
  V(kIndexVectorDim, "index_vector_dim", kInt, gather, index_vector_dim)                           \
  /* collective-permute keeps its (list of lists) in collective_slice_sizes. */                    \
  V(kSliceSizes, "slice_sizes", kIntList, attrs, gather_slice_sizes)                               \
  V(kUpdateWindowDims, "update_window_dims", kIntList, scatter, update_window_dims)                \
  V(kInsertedWindowDims, "inserted_window_dims", kIntList, scatter, inserted_window_dims)          \
  V(kScatterDimsToOperandDims, "scatter_dims_to_operand_dims", kIntList,                           \
    scatter, scatter_dims_to_operand_dims)                                                         \
  V(kInputBatchingDims, "input_batching_dims", kIntList, scatter, input_batching_dims)             \
  V(kScatterIndicesBatchingDims, "scatter_indices_batching_dims", kIntList,                        \
    scatter, scatter_indices_batching_dims)                                                        \
  V(kIndicesAreSorted, "indices_are_sorted", kBool, attrs, indices_are_sorted)                     \
  V(kUniqueIndices, "unique_indices", kBool, attrs, unique_indices)                                \
  V(kDirection, "direction", kName, instr, comparison_direction)                                   \
  V(kType, "type", kName, instr, comparison_type)                                                  \
  V(kDistribution, "distribution", kName, attrs, distribution)                                     \
  V(kExponentBits, "exponent_bits", kInt, attrs, exponent_bits)                                    \
  V(kMantissaBits, "mantissa_bits", kInt, attrs, mantissa_bits)                                    \
  V(kFftType, "fft_type", kName, attrs, fft_type)                                                  \
  V(kFftLength, "fft_length", kIntList, attrs, fft_length)                                         \
  V(kIsStable, "is_stable", kBool, attrs, is_stable)                                               \
  V(kK, "k", kInt, attrs, k)                                                                       \
  V(kLargest, "largest", kBool, attrs, largest)                                                    \
  V(kReplicaGroups, "replica_groups", kReplicaGroups, attrs, replica_groups)                       \
  V(kChannelId, "channel_id", kInt, attrs, channel_id)                                             \
  V(kUseGlobalDeviceIds, "use_global_device_ids", kBool, attrs, use_global_device_ids)             \
  V(kSourceTargetPairs, "source_target_pairs", kIntListList, attrs, source_target_pairs)           \
  V(kCustomCallTarget, "custom_call_target", kString, attrs, custom_call_target)                   \
  V(kApiVersion, "api_version", kName, attrs, custom_call_api_version)                             \
  V(kCustomCallHasSideEffect, "custom_call_has_side_effect", kBool,                                \
    attrs, custom_call_has_side_effect)                                                            \
  V(kOutputToOperandAliasing, "output_to_operand_aliasing", kAliasing,                             \
    attrs, output_to_operand_aliasing)                                                             \
  V(kOperandLayoutConstraints, "operand_layout_constraints", kShapeList,                           \
    attrs, operand_layout_constraints)                                                             \
  V(kSchedule, "schedule", kName, attrs, custom_call_schedule)                                     \
  V(kKind, "kind", kName, attrs, fusion_kind)                                                      \
  V(kAsyncExecutionThread, "async_execution_thread", kString, attrs, async_execution_thread)       \
  V(kInfeedConfig, "infeed_config", kString, attrs, infeed_config)                                 \
  V(kOutfeedConfig, "outfeed_config", kString, attrs, outfeed_config)                              \
  V(kOutfeedShape, "outfeed_shape", kShape, attrs, outfeed_shape)                                  \
  V(kIsHostTransfer, "is_host_transfer", kBool, attrs, is_host_transfer)                           \
  V(kLeftSide, "left_side", kBool, attrs, left_side)                                               \
  V(kLower, "lower", kBool, attrs, lower)                                                          \
  V(kUnitDiagonal, "unit_diagonal", kBool, attrs, unit_diagonal)                                   \
  V(kTransposeA, "transpose_a", kName, attrs, transpose_a)                                         \
  V(kEpsilon, "epsilon", kFloat, attrs, epsilon)                                                   \
  V(kFeatureIndex, "feature_index", kInt, attrs, feature_index)                                    \
  V(kConstrainLayout, "constrain_layout", kBool, attrs, constrain_layout)                          \
  V(kInferredDimension, "inferred_dimension", kInt, attrs, inferred_dimension)                     \
  V(kNumCarries, "num_carries", kInt, attrs, num_carries)                                          \
  V(kIsReverse, "is_reverse", kBool, attrs, is_reverse)                                            \
  V(kIsAssociative, "is_associative", kBool, attrs, is_associative)                                \
  V(kIsComposite, "is_composite", kBool, attrs, is_composite)                                      \
  V(kDelta, "delta", kInt, attrs, rng_delta)                                                       \
  V(kCrossProgramPrefetchIndex, "cross_program_prefetch_index", kInt,                              \
    attrs, cross_program_prefetch_index)                                                           \
  V(kLiteral, "literal", kLiteral, instr, custom_call_literal)                                     \
  /* Called computations, in called_computations() in XLA's order. */                              \
  V(kToApply, "to_apply", kComputation, instr, called_computations())                              \
  V(kCalls, "calls", kComputation, instr, called_computations())                                   \
  V(kCondition, "condition", kComputation, instr, called_computations())                           \
  V(kBody, "body", kComputation, instr, called_computations())                                     \
  V(kBranchComputations, "branch_computations", kComputationList, instr, called_computations())    \
  V(kTrueComputation, "true_computation", kComputation, instr, called_computations())              \
  V(kFalseComputation, "false_computation", kComputation, instr, called_computations())            \
  V(kSelect, "select", kComputation, instr, called_computations())                                 \
  V(kScatter, "scatter", kComputation, instr, called_computations())                               \
  V(kCalledComputations, "called_computations", kComputationList, instr, called_computations())
// clang-format on

// kUnknown: a name not in the list (kept as text, as XLA keeps attributes
// it does not know). kCount: the number of enumerators, not an attribute.
enum class AttrId : uint8_t {
  kUnknown,
#define HLOVM_DECLARE_ATTR_(id, ...) id,
  HLOVM_ATTRIBUTE_LIST(HLOVM_DECLARE_ATTR_)
#undef HLOVM_DECLARE_ATTR_
  kCount,
};

namespace attribute_table_internal {
struct Row {
  std::string_view name;
  AttrKind kind;
  std::string_view storage;
};
inline constexpr Row kRows[] = {
    {"", AttrKind::kText, ""},  // kUnknown
#define HLOVM_ATTR_HOLDER_instr ""
#define HLOVM_ATTR_HOLDER_attrs "attrs()."
#define HLOVM_ATTR_HOLDER_dot "attrs().dot_dimension_numbers->"
#define HLOVM_ATTR_HOLDER_gather "attrs().gather_dimension_numbers->"
#define HLOVM_ATTR_HOLDER_scatter "attrs().scatter_dimension_numbers->"
#define HLOVM_ATTR_ROW_(id, name, kind, holder, member) \
  {name, AttrKind::kind, HLOVM_ATTR_HOLDER_##holder #member},
    HLOVM_ATTRIBUTE_LIST(HLOVM_ATTR_ROW_)
#undef HLOVM_ATTR_ROW_
#undef HLOVM_ATTR_HOLDER_instr
#undef HLOVM_ATTR_HOLDER_attrs
#undef HLOVM_ATTR_HOLDER_dot
#undef HLOVM_ATTR_HOLDER_gather
#undef HLOVM_ATTR_HOLDER_scatter
};
static_assert(std::size(kRows) == static_cast<size_t>(AttrId::kCount));
}  // namespace attribute_table_internal

// The number of attributes in the list (AttrId values other than kUnknown
// and kCount).
constexpr int AttributeCount() { return static_cast<int>(AttrId::kCount) - 1; }
// The i-th attribute of the list, 0 <= i < AttributeCount().
constexpr AttrId AttributeAt(int i) { return static_cast<AttrId>(i + 1); }

// The attribute's name as written in HLO text ("" for kUnknown).
constexpr std::string_view AttributeName(AttrId id) {
  return attribute_table_internal::kRows[static_cast<size_t>(id)].name;
}
constexpr AttrKind AttributeKind(AttrId id) {
  return attribute_table_internal::kRows[static_cast<size_t>(id)].kind;
}
// Where the parser keeps the value, as a member path of an HloInstruction,
// e.g. "attrs().window"; "raw_attributes()" for attributes kept as text only.
constexpr std::string_view AttributeStorage(AttrId id) {
  return attribute_table_internal::kRows[static_cast<size_t>(id)].storage;
}
// Whether the parser reads the value from the row alone (see above).
constexpr bool IsPlainKind(AttrKind kind) {
  return kind == AttrKind::kText || kind == AttrKind::kInt || kind == AttrKind::kBool ||
         kind == AttrKind::kIntList || kind == AttrKind::kString;
}
// Whether the value names computations (to_apply=, calls=, ...).
constexpr bool IsComputationAttribute(AttrId id) {
  return AttributeKind(id) == AttrKind::kComputation ||
         AttributeKind(id) == AttrKind::kComputationList;
}

// The attribute named `name`, or kUnknown.
AttrId AttributeFromName(std::string_view name);

//===----------------------------------------------------------------------===//
// The value names of the attributes stored in a C++ enum (kName rows:
// direction=, type=, distribution=, algorithm= of rng-bit-generator,
// fft_type=, transpose_a=), in enumerator order; "" for an enumerator that
// is never written.
//===----------------------------------------------------------------------===//

template <typename Enum>
struct AttributeValueNames;
template <>
struct AttributeValueNames<ComparisonDirection> {
  static constexpr std::string_view kNames[] = {"EQ", "NE", "GE", "GT", "LE", "LT"};
};
template <>
struct AttributeValueNames<ComparisonType> {
  // kDefault: derived from the element type; not written.
  static constexpr std::string_view kNames[] = {"", "FLOAT", "TOTALORDER", "SIGNED", "UNSIGNED"};
};
template <>
struct AttributeValueNames<RandomDistribution> {
  static constexpr std::string_view kNames[] = {"rng_uniform", "rng_normal"};
};
template <>
struct AttributeValueNames<RngAlgorithm> {
  static constexpr std::string_view kNames[] = {"rng_default", "rng_three_fry", "rng_philox"};
};
template <>
struct AttributeValueNames<FftType> {
  static constexpr std::string_view kNames[] = {"FFT", "IFFT", "RFFT", "IRFFT"};
};
template <>
struct AttributeValueNames<TriangularSolveTranspose> {
  static constexpr std::string_view kNames[] = {"NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"};
};

// The name of `value` as written ("" for one never written).
template <typename Enum>
constexpr std::string_view AttributeValueName(Enum value) {
  return AttributeValueNames<Enum>::kNames[static_cast<size_t>(value)];
}
// The enumerator written `name`; false when there is none.
template <typename Enum>
constexpr bool AttributeValueFromName(std::string_view name, Enum* out) {
  if (name.empty()) return false;
  const auto& names = AttributeValueNames<Enum>::kNames;
  for (size_t i = 0; i < std::size(names); ++i) {
    if (names[i] == name) {
      *out = static_cast<Enum>(i);
      return true;
    }
  }
  return false;
}

}  // namespace hlovm

#endif  // HLOVM_FRONTEND_ATTRIBUTE_TABLE_H_
