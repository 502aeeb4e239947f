#include "frontend/printer.h"

#include <algorithm>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "frontend/attribute_table.h"

namespace hlovm {
namespace {

using Attr = std::pair<std::string, std::string>;

// Debian's Abseil has its own string_view type.
absl::string_view Av(std::string_view s) { return absl::string_view(s.data(), s.size()); }

using A = AttrId;

// An attribute's name from the table (frontend/attribute_table.h), as the
// name of a printed attribute.
std::string Key(AttrId id) { return std::string(AttributeName(id)); }

// Attributes whose values name computations.
bool IsComputationReference(std::string_view name) {
  return IsComputationAttribute(AttributeFromName(name));
}

bool IsIdentifierChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.' || c == '-';
}

// Rewrites every name in a reference list (`%a`, `{%a, b}`) with or without
// the `%` prefix.
std::string RewriteReferences(std::string_view value, bool percent) {
  std::string out;
  out.reserve(value.size() + 4);
  size_t i = 0;
  while (i < value.size()) {
    char c = value[i];
    if (c == '"') {  // copy string literals untouched
      size_t j = i + 1;
      while (j < value.size() && value[j] != '"') j += value[j] == '\\' ? 2 : 1;
      j = std::min(j + 1, value.size());
      out.append(value.substr(i, j - i));
      i = j;
      continue;
    }
    if (c == '%' || IsIdentifierChar(c)) {
      size_t j = c == '%' ? i + 1 : i;
      size_t start = j;
      while (j < value.size() && IsIdentifierChar(value[j])) ++j;
      if (j > start) {
        if (percent) out.push_back('%');
        out.append(value.substr(start, j - start));
      } else {
        out.push_back(c);
        j = i + 1;
      }
      i = j;
      continue;
    }
    out.push_back(c);
    ++i;
  }
  return out;
}

std::string Name(std::string_view name, const PrintOptions& options) {
  return options.print_percent ? absl::StrCat("%", Av(name)) : std::string(name);
}

std::string JoinInts(const std::vector<int64_t>& values) { return absl::StrJoin(values, ","); }

std::string Braced(const std::vector<int64_t>& values) {
  return absl::StrCat("{", JoinInts(values), "}");
}

std::string WindowToString(const Window& window) {
  std::string out;
  auto field = [&](std::string_view heading, auto format) {
    if (!out.empty()) out.push_back(' ');
    absl::StrAppend(&out, Av(heading), "=");
    for (size_t i = 0; i < window.size(); ++i) {
      if (i > 0) out.push_back('x');
      absl::StrAppend(&out, format(window[i]));
    }
  };
  auto any = [&](auto pred) { return std::any_of(window.begin(), window.end(), pred); };
  if (!window.empty()) field("size", [](const WindowDimension& d) { return absl::StrCat(d.size); });
  if (any([](const WindowDimension& d) { return d.stride != 1; })) {
    field("stride", [](const WindowDimension& d) { return absl::StrCat(d.stride); });
  }
  if (any([](const WindowDimension& d) { return d.padding_low != 0 || d.padding_high != 0; })) {
    field("pad", [](const WindowDimension& d) {
      return absl::StrCat(d.padding_low, "_", d.padding_high);
    });
  }
  if (any([](const WindowDimension& d) { return d.base_dilation != 1; })) {
    field("lhs_dilate", [](const WindowDimension& d) { return absl::StrCat(d.base_dilation); });
  }
  if (any([](const WindowDimension& d) { return d.window_dilation != 1; })) {
    field("rhs_dilate", [](const WindowDimension& d) { return absl::StrCat(d.window_dilation); });
  }
  if (any([](const WindowDimension& d) { return d.window_reversal; })) {
    field("rhs_reversal", [](const WindowDimension& d) { return d.window_reversal ? "1" : "0"; });
  }
  return out;
}

std::string PaddingToString(const PaddingConfig& padding) {
  bool interior = std::any_of(padding.begin(), padding.end(),
                              [](const PaddingDimension& d) { return d.interior != 0; });
  std::string out;
  for (size_t i = 0; i < padding.size(); ++i) {
    if (i > 0) out.push_back('x');
    absl::StrAppend(&out, padding[i].low, "_", padding[i].high);
    if (interior) absl::StrAppend(&out, "_", padding[i].interior);
  }
  return out;
}

std::string DimLabels(const ConvolutionDimensionNumbers& d) {
  auto side = [](int64_t batch, int64_t feature, const std::vector<int64_t>& spatial, char b,
                 char f) {
    std::string s(2 + spatial.size(), '?');
    if (batch >= 0 && batch < static_cast<int64_t>(s.size())) s[batch] = b;
    if (feature >= 0 && feature < static_cast<int64_t>(s.size())) s[feature] = f;
    for (size_t i = 0; i < spatial.size(); ++i) {
      if (spatial[i] >= 0 && spatial[i] < static_cast<int64_t>(s.size())) {
        s[spatial[i]] = static_cast<char>('0' + i);
      }
    }
    return s;
  };
  return absl::StrCat(side(d.input_batch_dimension, d.input_feature_dimension,
                           d.input_spatial_dimensions, 'b', 'f'),
                      "_",
                      side(d.kernel_input_feature_dimension, d.kernel_output_feature_dimension,
                           d.kernel_spatial_dimensions, 'i', 'o'),
                      "->",
                      side(d.output_batch_dimension, d.output_feature_dimension,
                           d.output_spatial_dimensions, 'b', 'f'));
}

std::string ReplicaGroupsToString(const ReplicaGroups& groups) {
  if (!groups.iota_text.empty()) return groups.iota_text;
  std::string out = "{";
  for (size_t i = 0; i < groups.groups.size(); ++i) {
    if (i > 0) out.push_back(',');
    absl::StrAppend(&out, Braced(groups.groups[i]));
  }
  out.push_back('}');
  return out;
}

void AddPrecision(const HloInstruction& instr, std::vector<Attr>& attrs) {
  bool non_default =
      std::any_of(instr.attrs().operand_precision.begin(), instr.attrs().operand_precision.end(),
                  [](const std::string& p) { return p != "default"; });
  if (non_default) {
    attrs.push_back({Key(A::kOperandPrecision),
                     absl::StrCat("{", absl::StrJoin(instr.attrs().operand_precision, ","), "}")});
  }
}

void AddDotDims(const DotDimensionNumbers& d, std::vector<Attr>& attrs) {
  if (!d.lhs_batch_dimensions.empty())
    attrs.push_back({Key(A::kLhsBatchDims), Braced(d.lhs_batch_dimensions)});
  attrs.push_back({Key(A::kLhsContractingDims), Braced(d.lhs_contracting_dimensions)});
  if (!d.rhs_batch_dimensions.empty())
    attrs.push_back({Key(A::kRhsBatchDims), Braced(d.rhs_batch_dimensions)});
  attrs.push_back({Key(A::kRhsContractingDims), Braced(d.rhs_contracting_dimensions)});
  if (!d.lhs_ragged_dimensions.empty())
    attrs.push_back({Key(A::kLhsRaggedDims), Braced(d.lhs_ragged_dimensions)});
  if (!d.rhs_group_dimensions.empty())
    attrs.push_back({Key(A::kRhsGroupDims), Braced(d.rhs_group_dimensions)});
}

void AddConvolution(const HloInstruction& instr, std::vector<Attr>& attrs) {
  if (instr.attrs().window.has_value() && !instr.attrs().window->empty()) {
    attrs.push_back(
        {Key(A::kWindow), absl::StrCat("{", WindowToString(*instr.attrs().window), "}")});
  }
  if (instr.attrs().convolution_dimension_numbers.has_value()) {
    attrs.push_back({Key(A::kDimLabels), DimLabels(*instr.attrs().convolution_dimension_numbers)});
  }
  if (instr.attrs().feature_group_count != 1) {
    attrs.push_back({Key(A::kFeatureGroupCount), absl::StrCat(instr.attrs().feature_group_count)});
  }
  if (instr.attrs().batch_group_count != 1) {
    attrs.push_back({Key(A::kBatchGroupCount), absl::StrCat(instr.attrs().batch_group_count)});
  }
}

void AddCollective(const HloInstruction& instr, std::vector<Attr>& attrs) {
  if (instr.attrs().channel_id.has_value())
    attrs.push_back({Key(A::kChannelId), absl::StrCat(*instr.attrs().channel_id)});
  attrs.push_back(
      {Key(A::kReplicaGroups), instr.attrs().replica_groups.has_value()
                                   ? ReplicaGroupsToString(*instr.attrs().replica_groups)
                                   : std::string("{}")});
}

// A literal with its shape on one line: `s32[2]{0} {1, 2}`, tuples as
// `( s32[] 1, f32[] 2 )`.
std::string LiteralWithShape(const Literal& literal) {
  if (literal.shape().IsTuple()) {
    std::vector<std::string> parts;
    for (const Literal& element : literal.tuple_elements())
      parts.push_back(LiteralWithShape(element));
    return absl::StrCat("( ", absl::StrJoin(parts, ", "), " )");
  }
  return absl::StrCat(PrintShape(literal.shape()), " ", literal.ValueToString());
}

// output_to_operand_aliasing={{0}: (1, {}), {1}: (0, {0})}
void AddAliasing(const HloInstruction& instr, std::vector<Attr>& attrs) {
  if (instr.attrs().output_to_operand_aliasing.empty()) return;
  std::vector<std::string> pairs;
  for (const OutputOperandAlias& a : instr.attrs().output_to_operand_aliasing) {
    pairs.push_back(absl::StrCat("{", JoinInts(a.output_index), "}: (", a.operand, ", {",
                                 JoinInts(a.operand_index), "})"));
  }
  attrs.push_back(
      {Key(A::kOutputToOperandAliasing), absl::StrCat("{", absl::StrJoin(pairs, ", "), "}")});
}

// The opcode-specific attributes of `instr` from its typed fields, in XLA's
// order (called computations, sharding and the like are not included).
std::vector<Attr> TypedAttributes(const HloInstruction& instr) {
  std::vector<Attr> attrs;
  switch (instr.opcode()) {
    case HloOpcode::kGetTupleElement:
      attrs.push_back({Key(A::kIndex), absl::StrCat(instr.tuple_index)});
      break;
    case HloOpcode::kBroadcast:
    case HloOpcode::kTranspose:
    case HloOpcode::kReverse:
    case HloOpcode::kReduce:
    case HloOpcode::kMap:
    case HloOpcode::kConcatenate:
      attrs.push_back({Key(A::kDimensions), Braced(instr.dimensions)});
      break;
    case HloOpcode::kSort:
      attrs.push_back({Key(A::kDimensions), Braced(instr.dimensions)});
      if (instr.attrs().is_stable) attrs.push_back({Key(A::kIsStable), "true"});
      break;
    case HloOpcode::kIota:
      attrs.push_back({Key(A::kIotaDimension), absl::StrCat(instr.iota_dimension)});
      break;
    case HloOpcode::kSlice:
      if (instr.slice.has_value()) {
        const SliceAttr& s = *instr.slice;
        // Strides are printed for every dimension or for none (all 1).
        const bool strided = std::any_of(s.strides.begin(), s.strides.end(),
                                         [](int64_t stride) { return stride != 1; });
        std::vector<std::string> parts;
        for (size_t i = 0; i < s.starts.size(); ++i) {
          int64_t stride = i < s.strides.size() ? s.strides[i] : 1;
          int64_t limit = i < s.limits.size() ? s.limits[i] : 0;
          parts.push_back(strided ? absl::StrCat("[", s.starts[i], ":", limit, ":", stride, "]")
                                  : absl::StrCat("[", s.starts[i], ":", limit, "]"));
        }
        attrs.push_back({Key(A::kSlice), absl::StrCat("{", absl::StrJoin(parts, ", "), "}")});
      }
      break;
    case HloOpcode::kDynamicSlice:
      attrs.push_back({Key(A::kDynamicSliceSizes), Braced(instr.attrs().dynamic_slice_sizes)});
      break;
    case HloOpcode::kPad:
      if (instr.attrs().padding.has_value())
        attrs.push_back({Key(A::kPadding), PaddingToString(*instr.attrs().padding)});
      break;
    case HloOpcode::kConvolution:
      AddConvolution(instr, attrs);
      AddPrecision(instr, attrs);
      if (!instr.attrs().precision_algorithm.empty())
        attrs.push_back({Key(A::kAlgorithm), instr.attrs().precision_algorithm});
      break;
    case HloOpcode::kReduceWindow:
    case HloOpcode::kSelectAndScatter:
      if (instr.attrs().window.has_value() && !instr.attrs().window->empty()) {
        attrs.push_back(
            {Key(A::kWindow), absl::StrCat("{", WindowToString(*instr.attrs().window), "}")});
      }
      break;
    case HloOpcode::kDot:
    case HloOpcode::kRaggedDot:
    case HloOpcode::kScaledDot:
      if (instr.attrs().dot_dimension_numbers.has_value())
        AddDotDims(*instr.attrs().dot_dimension_numbers, attrs);
      AddPrecision(instr, attrs);
      if (!instr.attrs().precision_algorithm.empty())
        attrs.push_back({Key(A::kAlgorithm), instr.attrs().precision_algorithm});
      break;
    case HloOpcode::kCompare:
      attrs.push_back(
          {Key(A::kDirection), std::string(AttributeValueName(instr.comparison_direction))});
      if (instr.comparison_type != ComparisonType::kDefault) {
        attrs.push_back({Key(A::kType), std::string(AttributeValueName(instr.comparison_type))});
      }
      break;
    case HloOpcode::kRng:
      attrs.push_back(
          {Key(A::kDistribution), std::string(AttributeValueName(instr.attrs().distribution))});
      break;
    case HloOpcode::kRngBitGenerator:
      attrs.push_back(
          {Key(A::kAlgorithm), std::string(AttributeValueName(instr.attrs().rng_algorithm))});
      break;
    case HloOpcode::kReducePrecision:
      attrs.push_back({Key(A::kExponentBits), absl::StrCat(instr.attrs().exponent_bits)});
      attrs.push_back({Key(A::kMantissaBits), absl::StrCat(instr.attrs().mantissa_bits)});
      break;
    case HloOpcode::kFft:
      attrs.push_back({Key(A::kFftType), std::string(AttributeValueName(instr.attrs().fft_type))});
      attrs.push_back({Key(A::kFftLength), Braced(instr.attrs().fft_length)});
      break;
    case HloOpcode::kTopK:
      attrs.push_back({Key(A::kK), absl::StrCat(instr.attrs().k)});
      attrs.push_back({Key(A::kLargest), instr.attrs().largest ? "true" : "false"});
      attrs.push_back({Key(A::kIsStable), instr.attrs().is_stable ? "true" : "false"});
      break;
    case HloOpcode::kGather:
      if (instr.attrs().gather_dimension_numbers.has_value()) {
        const GatherDimensionNumbers& g = *instr.attrs().gather_dimension_numbers;
        attrs.push_back({Key(A::kOffsetDims), Braced(g.offset_dims)});
        attrs.push_back({Key(A::kCollapsedSliceDims), Braced(g.collapsed_slice_dims)});
        attrs.push_back({Key(A::kStartIndexMap), Braced(g.start_index_map)});
        if (!g.operand_batching_dims.empty()) {
          attrs.push_back({Key(A::kOperandBatchingDims), Braced(g.operand_batching_dims)});
        }
        if (!g.start_indices_batching_dims.empty()) {
          attrs.push_back(
              {Key(A::kStartIndicesBatchingDims), Braced(g.start_indices_batching_dims)});
        }
        attrs.push_back({Key(A::kIndexVectorDim), absl::StrCat(g.index_vector_dim)});
      }
      attrs.push_back({Key(A::kSliceSizes), Braced(instr.attrs().gather_slice_sizes)});
      if (instr.attrs().indices_are_sorted) attrs.push_back({Key(A::kIndicesAreSorted), "true"});
      break;
    case HloOpcode::kScatter:
      if (instr.attrs().scatter_dimension_numbers.has_value()) {
        const ScatterDimensionNumbers& s = *instr.attrs().scatter_dimension_numbers;
        attrs.push_back({Key(A::kUpdateWindowDims), Braced(s.update_window_dims)});
        attrs.push_back({Key(A::kInsertedWindowDims), Braced(s.inserted_window_dims)});
        attrs.push_back(
            {Key(A::kScatterDimsToOperandDims), Braced(s.scatter_dims_to_operand_dims)});
        if (!s.input_batching_dims.empty()) {
          attrs.push_back({Key(A::kInputBatchingDims), Braced(s.input_batching_dims)});
        }
        if (!s.scatter_indices_batching_dims.empty()) {
          attrs.push_back(
              {Key(A::kScatterIndicesBatchingDims), Braced(s.scatter_indices_batching_dims)});
        }
        attrs.push_back({Key(A::kIndexVectorDim), absl::StrCat(s.index_vector_dim)});
      }
      if (instr.attrs().indices_are_sorted) attrs.push_back({Key(A::kIndicesAreSorted), "true"});
      if (instr.attrs().unique_indices) attrs.push_back({Key(A::kUniqueIndices), "true"});
      break;
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllReduceStart:
    case HloOpcode::kReduceScatter:
    case HloOpcode::kAllGather:
    case HloOpcode::kAllGatherStart:
      AddCollective(instr, attrs);
      if (instr.attrs().constrain_layout) attrs.push_back({Key(A::kConstrainLayout), "true"});
      if (instr.opcode() == HloOpcode::kAllGather || instr.opcode() == HloOpcode::kAllGatherStart ||
          instr.opcode() == HloOpcode::kReduceScatter) {
        attrs.push_back({Key(A::kDimensions), Braced(instr.dimensions)});
      }
      if (instr.attrs().use_global_device_ids)
        attrs.push_back({Key(A::kUseGlobalDeviceIds), "true"});
      break;
    case HloOpcode::kAllToAll:
    case HloOpcode::kRaggedAllToAll:
    case HloOpcode::kCollectiveBroadcast:
      AddCollective(instr, attrs);
      if (instr.attrs().constrain_layout) attrs.push_back({Key(A::kConstrainLayout), "true"});
      if (instr.attrs().split_dimension.has_value()) {
        attrs.push_back(
            {Key(A::kDimensions), absl::StrCat("{", *instr.attrs().split_dimension, "}")});
      }
      break;
    case HloOpcode::kCollectivePermute:
    case HloOpcode::kCollectivePermuteStart: {
      if (instr.attrs().channel_id.has_value())
        attrs.push_back({Key(A::kChannelId), absl::StrCat(*instr.attrs().channel_id)});
      std::vector<std::string> pairs;
      for (const auto& [a, b] : instr.attrs().source_target_pairs)
        pairs.push_back(absl::StrCat("{", a, ",", b, "}"));
      attrs.push_back(
          {Key(A::kSourceTargetPairs), absl::StrCat("{", absl::StrJoin(pairs, ","), "}")});
      if (!instr.attrs().collective_slice_sizes.empty()) {
        std::vector<std::string> sizes;
        for (const auto& v : instr.attrs().collective_slice_sizes) sizes.push_back(Braced(v));
        attrs.push_back({Key(A::kSliceSizes), absl::StrCat("{", absl::StrJoin(sizes, ","), "}")});
      }
      break;
    }
    case HloOpcode::kSend:
    case HloOpcode::kRecv:
    case HloOpcode::kSendDone:
    case HloOpcode::kRecvDone:
      if (instr.attrs().channel_id.has_value())
        attrs.push_back({Key(A::kChannelId), absl::StrCat(*instr.attrs().channel_id)});
      if (instr.attrs().is_host_transfer) attrs.push_back({Key(A::kIsHostTransfer), "true"});
      break;
    case HloOpcode::kCustomCall:
      AddConvolution(instr, attrs);  // a convolution custom call's window and dimensions
      AddPrecision(instr, attrs);
      attrs.push_back({Key(A::kCustomCallTarget),
                       absl::StrCat("\"", absl::CEscape(instr.attrs().custom_call_target), "\"")});
      if (instr.attrs().operand_layout_constraints.has_value()) {
        std::vector<std::string> shapes;
        for (const Shape& shape : *instr.attrs().operand_layout_constraints)
          shapes.push_back(PrintShape(shape));
        attrs.push_back({Key(A::kOperandLayoutConstraints),
                         absl::StrCat("{", absl::StrJoin(shapes, ", "), "}")});
      }
      if (instr.attrs().custom_call_has_side_effect)
        attrs.push_back({Key(A::kCustomCallHasSideEffect), "true"});
      if (instr.custom_call_literal.has_value()) {
        attrs.push_back({Key(A::kLiteral), LiteralWithShape(*instr.custom_call_literal)});
      }
      AddAliasing(instr, attrs);
      if (!instr.attrs().custom_call_schedule.empty())
        attrs.push_back({Key(A::kSchedule), instr.attrs().custom_call_schedule});
      if (!instr.attrs().custom_call_api_version.empty()) {
        attrs.push_back({Key(A::kApiVersion), instr.attrs().custom_call_api_version});
      }
      break;
    case HloOpcode::kFusion:
      if (!instr.attrs().fusion_kind.empty())
        attrs.push_back({Key(A::kKind), instr.attrs().fusion_kind});
      AddAliasing(instr, attrs);
      break;
    case HloOpcode::kAsyncStart:
      if (!instr.attrs().async_execution_thread.empty() &&
          instr.attrs().async_execution_thread != "main") {
        attrs.push_back(
            {Key(A::kAsyncExecutionThread),
             absl::StrCat("\"", absl::CEscape(instr.attrs().async_execution_thread), "\"")});
      }
      AddAliasing(instr, attrs);
      break;
    case HloOpcode::kParameter:
      if (!instr.attrs().parameter_replication.empty()) {
        std::vector<std::string> flags;
        for (bool b : instr.attrs().parameter_replication) flags.push_back(b ? "true" : "false");
        attrs.push_back(
            {Key(A::kParameterReplication), absl::StrCat("{", absl::StrJoin(flags, ","), "}")});
      }
      break;
    case HloOpcode::kCopyStart:
      if (instr.attrs().cross_program_prefetch_index.has_value()) {
        attrs.push_back({Key(A::kCrossProgramPrefetchIndex),
                         absl::StrCat(*instr.attrs().cross_program_prefetch_index)});
      }
      break;
    case HloOpcode::kRngGetAndUpdateState:
      attrs.push_back({Key(A::kDelta), absl::StrCat(instr.attrs().rng_delta)});
      break;
    case HloOpcode::kReshape:
      if (instr.attrs().inferred_dimension.has_value()) {
        attrs.push_back(
            {Key(A::kInferredDimension), absl::StrCat(*instr.attrs().inferred_dimension)});
      }
      break;
    case HloOpcode::kScan:
      attrs.push_back({Key(A::kDimensions), Braced(instr.dimensions)});
      attrs.push_back({Key(A::kNumCarries), absl::StrCat(instr.attrs().num_carries)});
      if (instr.attrs().is_reverse) attrs.push_back({Key(A::kIsReverse), "true"});
      if (instr.attrs().is_associative) attrs.push_back({Key(A::kIsAssociative), "true"});
      break;
    case HloOpcode::kInfeed:
      if (!instr.attrs().infeed_config.empty()) {
        attrs.push_back({Key(A::kInfeedConfig),
                         absl::StrCat("\"", absl::CEscape(instr.attrs().infeed_config), "\"")});
      }
      break;
    case HloOpcode::kOutfeed:
      if (instr.attrs().outfeed_shape.has_value())
        attrs.push_back({Key(A::kOutfeedShape), PrintShape(*instr.attrs().outfeed_shape)});
      if (!instr.attrs().outfeed_config.empty()) {
        attrs.push_back({Key(A::kOutfeedConfig),
                         absl::StrCat("\"", absl::CEscape(instr.attrs().outfeed_config), "\"")});
      }
      break;
    case HloOpcode::kTriangularSolve:
      if (instr.attrs().left_side) attrs.push_back({Key(A::kLeftSide), "true"});
      if (instr.attrs().lower) attrs.push_back({Key(A::kLower), "true"});
      if (instr.attrs().unit_diagonal) attrs.push_back({Key(A::kUnitDiagonal), "true"});
      attrs.push_back(
          {Key(A::kTransposeA), std::string(AttributeValueName(instr.attrs().transpose_a))});
      break;
    case HloOpcode::kCholesky:
      if (instr.attrs().lower) attrs.push_back({Key(A::kLower), "true"});
      break;
    case HloOpcode::kBatchNormTraining:
    case HloOpcode::kBatchNormInference:
    case HloOpcode::kBatchNormGrad:
      attrs.push_back({Key(A::kEpsilon), absl::StrCat(instr.attrs().epsilon)});
      attrs.push_back({Key(A::kFeatureIndex), absl::StrCat(instr.attrs().feature_index)});
      break;
    default:
      break;
  }
  return attrs;
}

bool IsAsync(HloOpcode op);

// True when `c` holds parameters and one other instruction, its root, whose
// operands are the parameters in order (XLA prints such async ops sugared).
const HloInstruction* SingleWrappedInstruction(const HloComputation* c) {
  if (c == nullptr || c->root() == nullptr) return nullptr;
  const HloInstruction* root = c->root();
  if (root->opcode() == HloOpcode::kParameter) return nullptr;
  if (c->instruction_count() != c->parameter_count() + 1) return nullptr;
  if (root->operand_count() != c->parameter_count()) return nullptr;
  for (int64_t i = 0; i < root->operand_count(); ++i) {
    if (root->operand(i) != c->parameter(i)) return nullptr;
  }
  return root;
}

// For an async op printed in the `op-start(...)` shorthand, the instruction
// it wraps; nullptr when it prints in the long form. The shorthand is used
// when the wrapped computation holds a single instruction taking the
// start's operands, and (for update/done) the op consumes its start
// directly, so that the text alone rebuilds the same chain.
const HloInstruction* SugarWrapped(const HloInstruction& instr) {
  if (!IsAsync(instr.opcode())) return nullptr;
  const HloInstruction* start = &instr;
  for (int depth = 0; start->opcode() != HloOpcode::kAsyncStart; ++depth) {
    if (depth > 100000 || start->operand_count() == 0) return nullptr;
    const HloInstruction* next = start->operand(0);
    if (next == nullptr ||
        (next->opcode() != HloOpcode::kAsyncStart && next->opcode() != HloOpcode::kAsyncUpdate)) {
      return nullptr;
    }
    start = next;
  }
  if (start->called_computations().size() != 1) return nullptr;
  const HloComputation* wrapped = start->called_computations()[0];
  if (wrapped == nullptr) return nullptr;
  for (const HloComputation* c : instr.called_computations()) {
    if (c != wrapped) return nullptr;
  }
  if (start->operand_count() != wrapped->parameter_count()) return nullptr;
  const HloInstruction* root = SingleWrappedInstruction(wrapped);
  // The shorthand gives the wrapped instruction the start's result shape.
  if (root == nullptr || !start->shape().IsTuple() || start->shape().tuple_size() < 2 ||
      PrintShape(start->shape().tuple_shape(1)) != PrintShape(root->shape())) {
    return nullptr;
  }
  return root;
}

bool IsAsync(HloOpcode op) {
  return op == HloOpcode::kAsyncStart || op == HloOpcode::kAsyncUpdate ||
         op == HloOpcode::kAsyncDone;
}

// The instructions of `c` in the order the printer writes them. Post order
// as XLA computes it: a depth-first walk from every instruction nothing uses
// (in written order), visiting control predecessors and then operands (first
// operand first), emitting each instruction after its inputs.
std::vector<const HloInstruction*> InstructionOrder(const HloComputation& c, bool post_order) {
  std::vector<const HloInstruction*> order;
  order.reserve(c.instructions().size());
  if (!post_order) {
    for (const auto& instr : c.instructions()) order.push_back(instr.get());
    return order;
  }
  absl::flat_hash_set<const HloInstruction*> used, in_computation;
  used.reserve(c.instructions().size());
  in_computation.reserve(c.instructions().size());
  for (const auto& instr : c.instructions()) {
    in_computation.insert(instr.get());
    for (const HloInstruction* operand : instr->operands()) used.insert(operand);
  }
  enum State : uint8_t { kVisiting, kVisited };
  absl::flat_hash_map<const HloInstruction*, State> state;
  state.reserve(c.instructions().size());
  std::vector<const HloInstruction*> stack;
  auto walk = [&](const HloInstruction* root) {
    stack.push_back(root);
    while (!stack.empty()) {
      const HloInstruction* current = stack.back();
      auto [it, inserted] = state.try_emplace(current, kVisiting);
      if (!inserted) {
        stack.pop_back();
        if (it->second != kVisited) {
          it->second = kVisited;
          order.push_back(current);
        }
        continue;
      }
      const auto& operands = current->operands();
      for (auto op = operands.rbegin(); op != operands.rend(); ++op) {
        if (in_computation.contains(*op)) stack.push_back(*op);
      }
      for (const HloInstruction* pred : current->control_predecessors()) {
        if (in_computation.contains(pred)) stack.push_back(pred);
      }
    }
  };
  for (const auto& instr : c.instructions()) {
    if (!used.contains(instr.get()) && !state.contains(instr.get())) walk(instr.get());
  }
  // Anything left (only possible in a cyclic, invalid graph) in written order.
  for (const auto& instr : c.instructions()) {
    if (!state.contains(instr.get())) order.push_back(instr.get());
  }
  return order;
}

// The computations `instr` calls, in the order XLA keeps them (a while
// loop's body comes before its condition there).
std::vector<const HloComputation*> XlaCalledOrder(const HloInstruction& instr) {
  std::vector<const HloComputation*> called(instr.called_computations().begin(),
                                            instr.called_computations().end());
  if (instr.opcode() == HloOpcode::kWhile && called.size() == 2) std::swap(called[0], called[1]);
  return called;
}

// The computations of `module` in the order the printer writes them: XLA's
// post order (each computation not called by another, in written order,
// after the computations it calls, found by walking instructions in written
// order), or the written order.
template <typename OrderFn>
std::vector<const HloComputation*> ComputationOrder(const HloModule& module, bool post_order,
                                                    OrderFn&& order_of) {
  std::vector<const HloComputation*> order;
  order.reserve(module.computations().size());
  if (!post_order) {
    for (const auto& c : module.computations()) order.push_back(c.get());
    return order;
  }
  absl::flat_hash_set<const HloComputation*> called, added, in_module;
  for (const auto& c : module.computations()) {
    in_module.insert(c.get());
    for (const auto& instr : c->instructions()) {
      for (const HloComputation* callee : instr->called_computations()) called.insert(callee);
    }
  }
  auto emit = [&](const HloComputation* c) {
    if (added.insert(c).second) order.push_back(c);
  };
  struct Frame {
    const HloComputation* computation;
    size_t next;
  };
  // Like XLA, a callee is marked visited when pushed, and the callees of one
  // instruction are pushed last-first so that the first is walked first.
  auto embedded = [&](const HloComputation* root) {
    absl::flat_hash_set<const HloComputation*> visited;
    std::vector<Frame> stack;
    auto push_called = [&](const HloInstruction& instr) {
      std::vector<const HloComputation*> callees = XlaCalledOrder(instr);
      for (auto it = callees.rbegin(); it != callees.rend(); ++it) {
        if (in_module.contains(*it) && visited.insert(*it).second) stack.push_back({*it, 0});
      }
    };
    // Instructions are walked in post order (XLA walks its instruction list,
    // which is the post order for modules it printed); this keeps printing a
    // fixed point.
    for (const HloInstruction* instr : order_of(root)) {
      push_called(*instr);
      while (!stack.empty()) {
        Frame& top = stack.back();
        const auto& instrs = order_of(top.computation);
        if (top.next == instrs.size()) {
          const HloComputation* done = top.computation;
          stack.pop_back();
          emit(done);
          continue;
        }
        const HloInstruction& next = *instrs[top.next++];
        push_called(next);
      }
    }
    emit(root);
  };
  for (const auto& c : module.computations()) {
    if (!called.contains(c.get())) embedded(c.get());
  }
  // Computations only reachable through a cycle of calls, as written.
  for (const auto& c : module.computations()) {
    if (!added.contains(c.get())) embedded(c.get());
  }
  return order;
}

// Maps instruction names to tmp_N in first-use order (Canonical form).
class CanonicalNames {
 public:
  const std::string& Lookup(const HloInstruction* instr) {
    auto [it, inserted] = names_.try_emplace(instr);
    if (inserted) it->second = absl::StrCat("tmp_", names_.size() - 1);
    return it->second;
  }

 private:
  absl::flat_hash_map<const HloInstruction*, std::string> names_;
};

class Printer {
 public:
  explicit Printer(const PrintOptions& options) : options_(options) {}

  void Module(const HloModule& module, std::string& out);
  // `indent` is XLA's indent_amount; `nested` means printed inline as a
  // called computation body.
  void Computation(const HloComputation& c, int indent, bool nested, bool entry_keyword,
                   std::string& out);
  void Instruction(const HloInstruction& instr, int indent, bool nested, CanonicalNames* names,
                   std::string& out);

 private:
  void Operands(const HloInstruction& instr, bool nested, CanonicalNames* names, std::string& out);
  std::vector<Attr> Attributes(const HloInstruction& instr, int indent);
  std::string ReferenceValue(const HloInstruction& instr, std::string_view name,
                             const std::string& raw, int indent);
  std::string Body(const HloComputation* c, int indent);
  std::string ControlPredecessors(const HloInstruction& instr);
  bool IsCompactGte(const HloInstruction& instr) const;
  std::string OperandName(const HloInstruction* operand) const;

  // The printed shape of `instr`'s result, computed once (operands repeat
  // their producers' shapes).
  const std::string& ShapeText(const HloInstruction* instr) {
    auto [it, inserted] = shape_text_.try_emplace(instr);
    if (inserted) it->second = PrintShape(instr->shape(), options_.include_layout_in_shapes);
    return it->second;
  }

  // XLA's post order of `c`'s instructions, computed once.
  const std::vector<const HloInstruction*>& PostOrder(const HloComputation& c) {
    auto it = post_order_.find(&c);
    if (it == post_order_.end()) it = post_order_.emplace(&c, InstructionOrder(c, true)).first;
    return it->second;
  }

  const PrintOptions& options_;
  absl::flat_hash_map<const HloInstruction*, std::string> shape_text_;
  // Node-based, so references stay valid as it grows.
  std::map<const HloComputation*, std::vector<const HloInstruction*>> post_order_;
};

bool Printer::IsCompactGte(const HloInstruction& instr) const {
  return options_.compact_gte && instr.opcode() == HloOpcode::kGetTupleElement &&
         instr.operand_count() == 1 && instr.operand(0) != nullptr &&
         (instr.parent() == nullptr || instr.parent()->root() != &instr);
}

std::string Printer::OperandName(const HloInstruction* operand) const {
  std::string suffix;
  for (int depth = 0; depth < 10000 && IsCompactGte(*operand); ++depth) {
    suffix = absl::StrCat("#", operand->tuple_index, suffix);
    operand = operand->operand(0);
  }
  return absl::StrCat(Name(operand->name(), options_), suffix);
}

std::string Printer::Body(const HloComputation* c, int indent) {
  std::string s;
  if (c != nullptr) Computation(*c, indent, /*nested=*/true, /*entry_keyword=*/false, s);
  return s;
}

std::string Printer::ControlPredecessors(const HloInstruction& instr) {
  std::vector<std::string> names;
  for (const HloInstruction* p : instr.control_predecessors()) {
    if (p != nullptr) names.push_back(Name(p->name(), options_));
  }
  return absl::StrCat("{", absl::StrJoin(names, ", "), "}");
}

// The value of a computation-reference attribute: names (with or without %)
// or, in the Canonical form, the bodies.
std::string Printer::ReferenceValue(const HloInstruction& instr, std::string_view name,
                                    const std::string& raw, int indent) {
  const auto& called = instr.called_computations();
  auto at = [&](size_t i) -> const HloComputation* {
    return i < called.size() ? called[i] : nullptr;
  };
  if (!options_.print_subcomputation_bodies) {
    // A body written inline (`to_apply={...}`) became a computation of the
    // module; refer to it by name.
    if (raw.find_first_of("=(") == std::string::npos) {
      return RewriteReferences(raw, options_.print_percent);
    }
    auto name_of = [&](const HloComputation* c) {
      return c == nullptr ? std::string() : Name(c->name(), options_);
    };
    if (name == AttributeName(A::kBody) || name == AttributeName(A::kScatter) ||
        name == AttributeName(A::kFalseComputation))
      return name_of(at(1));
    if (name == AttributeName(A::kBranchComputations) ||
        name == AttributeName(A::kCalledComputations) || name == AttributeName(A::kCalls)) {
      std::vector<std::string> names;
      for (const HloComputation* c : called) names.push_back(name_of(c));
      std::string joined = absl::StrJoin(names, ", ");
      return name == AttributeName(A::kCalls) ? joined : absl::StrCat("{", joined, "}");
    }
    return name_of(at(0));
  }
  if (name == AttributeName(A::kBody) || name == AttributeName(A::kScatter) ||
      name == AttributeName(A::kFalseComputation)) {
    return absl::StrCat("\n", Body(at(1), indent));
  }
  if (name == AttributeName(A::kBranchComputations) ||
      name == AttributeName(A::kCalledComputations)) {
    std::vector<std::string> bodies;
    for (const HloComputation* c : called) bodies.push_back(Body(c, indent));
    return absl::StrCat("{\n", absl::StrJoin(bodies, ",\n"), "\n}");
  }
  if (name == AttributeName(A::kCalls)) {
    std::vector<std::string> bodies;
    for (const HloComputation* c : called) bodies.push_back(Body(c, indent));
    return absl::StrCat("\n", absl::StrJoin(bodies, ", "));
  }
  return absl::StrCat("\n", Body(at(0), indent));
}

void Printer::Operands(const HloInstruction& instr, bool nested, CanonicalNames* names,
                       std::string& out) {
  if (instr.opcode() == HloOpcode::kParameter) {
    absl::StrAppend(&out, instr.parameter_number);
    return;
  }
  if (instr.opcode() == HloOpcode::kConstant) {
    const Boxed<Literal>& lit = instr.literal;
    bool small = instr.shape().IsArray() && instr.shape().element_count() <= 10;
    if (lit.has_value() && !lit->elided() && (small || options_.print_large_constants)) {
      out.append(lit->ValueToString());
    } else {
      out.append("{...}");
    }
    return;
  }
  const int interval = options_.operand_index_annotation_interval;
  for (int64_t i = 0; i < instr.operand_count(); ++i) {
    const HloInstruction* operand = instr.operand(i);
    if (i > 0) {
      out.append(", ");
      if (interval != 0 && i % interval == 0) absl::StrAppend(&out, "/*index=", i, "*/");
    }
    if (operand == nullptr) {  // as XLA prints a removed operand
      out.append("null ");
      continue;
    }
    bool need_space = false;
    if (options_.print_operand_shape) {
      out.append(ShapeText(operand));
      need_space = true;
    }
    if (options_.canonicalize_instruction_names) {
      if (nested && names != nullptr) {
        if (need_space) out.push_back(' ');
        out.append(names->Lookup(operand));
      }
    } else if (options_.print_operand_names) {
      if (need_space) out.push_back(' ');
      out.append(OperandName(operand));
    }
  }
}

std::vector<Attr> Printer::Attributes(const HloInstruction& instr, int indent) {
  std::vector<Attr> typed = TypedAttributes(instr);
  const auto& raw = instr.raw_attributes();
  const bool from_text = !raw.empty() || instr.location().line > 0;
  std::vector<Attr> out;
  auto emit = [&](std::string_view name, std::string_view value) {
    out.emplace_back(std::string(name), std::string(value));
  };
  if (from_text) {
    absl::flat_hash_set<std::string_view> seen;
    bool printed_control = false;
    for (const auto& [name, value] : raw) {
      seen.insert(name);
      if (name == AttributeName(A::kMetadata) && !options_.print_metadata) continue;
      if (name == AttributeName(A::kBackendConfig) && !options_.print_backend_config) continue;
      if (name == AttributeName(A::kControlPredecessors)) {
        if (options_.print_control_dependencies && !instr.control_predecessors().empty()) {
          emit(name, ControlPredecessors(instr));
          printed_control = true;
        }
        continue;
      }
      // backend_config is an opaque string that XLA prints back verbatim.
      std::string normalized = name == AttributeName(A::kBackendConfig)
                                   ? std::string(value)
                                   : NormalizeAttributeValue(value);
      if (IsComputationReference(name)) {
        emit(name, ReferenceValue(instr, name, normalized, indent));
      } else {
        emit(name, normalized);
      }
    }
    // Attributes XLA always prints that the text left out go where XLA puts
    // them: before the first written attribute XLA prints after them.
    // (Not `type`: whether a comparison type is the default one for the
    // element type is for the verifier to know.)
    auto typed_rank = [&](std::string_view name) -> int {
      for (size_t j = 0; j < typed.size(); ++j) {
        if (typed[j].first == name) return static_cast<int>(j);
      }
      return -1;
    };
    for (size_t k = 0; k < typed.size(); ++k) {
      const auto& [name, value] = typed[k];
      if (seen.contains(name) || name == AttributeName(A::kType)) continue;
      size_t pos = out.size();
      int last_before = -1;
      for (size_t e = 0; e < out.size(); ++e) {
        int rank = typed_rank(out[e].first);
        if (rank > static_cast<int>(k)) {
          pos = e;
          break;
        }
        if (rank >= 0) last_before = static_cast<int>(e);
      }
      if (pos == out.size()) pos = last_before + 1;
      out.insert(out.begin() + pos, {name, value});
    }
    if (!printed_control && options_.print_control_dependencies &&
        !instr.control_predecessors().empty() &&
        !seen.contains(AttributeName(A::kControlPredecessors))) {
      emit(AttributeName(A::kControlPredecessors), ControlPredecessors(instr));
    }
    return out;
  }

  // Built in code: typed fields in XLA's order.
  for (const auto& [name, value] : typed) emit(name, value);
  const auto& called = instr.called_computations();
  if (!called.empty()) {
    auto names = [&](size_t from, size_t to) {
      std::vector<std::string> v;
      for (size_t i = from; i < to && i < called.size(); ++i) {
        if (called[i] != nullptr) v.push_back(Name(called[i]->name(), options_));
      }
      return absl::StrJoin(v, ", ");
    };
    auto ref = [&](const std::string& name, const std::string& value) {
      emit(name, ReferenceValue(instr, name, value, indent));
    };
    switch (instr.opcode()) {
      case HloOpcode::kWhile:
        ref(Key(A::kCondition), names(0, 1));
        ref(Key(A::kBody), names(1, 2));
        break;
      case HloOpcode::kSelectAndScatter:
        ref(Key(A::kSelect), names(0, 1));
        ref(Key(A::kScatter), names(1, 2));
        break;
      case HloOpcode::kConditional:
        if (instr.operand_count() > 0 &&
            instr.operand(0)->shape().element_type() == ElementType::kPred) {
          ref(Key(A::kTrueComputation), names(0, 1));
          ref(Key(A::kFalseComputation), names(1, 2));
        } else {
          ref(Key(A::kBranchComputations), absl::StrCat("{", names(0, called.size()), "}"));
        }
        break;
      case HloOpcode::kCall:
      case HloOpcode::kMap:
      case HloOpcode::kReduceWindow:
      case HloOpcode::kReduce:
      case HloOpcode::kAllReduce:
      case HloOpcode::kReduceScatter:
      case HloOpcode::kAllReduceStart:
      case HloOpcode::kScatter:
      case HloOpcode::kSort:
      case HloOpcode::kScan:
        ref(Key(A::kToApply), names(0, 1));
        break;
      case HloOpcode::kCustomCall:
        ref(Key(A::kCalledComputations), absl::StrCat("{", names(0, called.size()), "}"));
        break;
      case HloOpcode::kAsyncUpdate:
      case HloOpcode::kAsyncDone:
        break;  // implied by the start they consume
      default:
        ref(Key(A::kCalls), names(0, called.size()));
        break;
    }
  }
  if (instr.attrs().is_composite) emit(AttributeName(A::kIsComposite), "true");
  if (!instr.attrs().sharding.empty()) emit(AttributeName(A::kSharding), instr.attrs().sharding);
  if (options_.print_control_dependencies && !instr.control_predecessors().empty()) {
    emit(AttributeName(A::kControlPredecessors), ControlPredecessors(instr));
  }
  if (options_.print_backend_config && !instr.attrs().backend_config.empty()) {
    std::string_view config = instr.attrs().backend_config;
    if (config.front() == '{' && config.back() == '}') {
      emit(AttributeName(A::kBackendConfig), config);
    } else {
      emit(AttributeName(A::kBackendConfig), absl::StrCat("\"", absl::CEscape(Av(config)), "\""));
    }
  }
  return out;
}

void Printer::Instruction(const HloInstruction& instr, int indent, bool nested,
                          CanonicalNames* names, std::string& out) {
  if (options_.canonicalize_instruction_names) {
    if (nested && names != nullptr) absl::StrAppend(&out, names->Lookup(&instr), " = ");
  } else {
    absl::StrAppend(&out, Name(instr.name(), options_), " = ");
  }
  absl::StrAppend(&out, ShapeText(&instr), " ");

  const HloInstruction* wrapped = options_.syntax_sugar_async_ops ? SugarWrapped(instr) : nullptr;
  if (wrapped != nullptr) {
    std::string_view suffix = instr.opcode() == HloOpcode::kAsyncStart    ? "-start"
                              : instr.opcode() == HloOpcode::kAsyncUpdate ? "-update"
                                                                          : "-done";
    absl::StrAppend(&out, Av(HloOpcodeName(wrapped->opcode())), Av(suffix), "(");
  } else {
    absl::StrAppend(&out, Av(HloOpcodeName(instr.opcode())), "(");
  }
  Operands(instr, nested, names, out);
  out.push_back(')');

  if (wrapped != nullptr) {
    // The start prints its execution thread, then the wrapped instruction's
    // attributes, then its own remaining ones (metadata and the like);
    // `calls` is implied.
    std::vector<Attr> own = Attributes(instr, indent);
    absl::flat_hash_set<std::string> printed = {Key(A::kControlPredecessors)};
    for (const auto& [name, value] : own) {
      if (name == AttributeName(A::kAsyncExecutionThread)) {
        absl::StrAppend(&out, ", ", name, "=", value);
        printed.insert(name);
      }
    }
    if (instr.opcode() == HloOpcode::kAsyncStart) {
      for (const auto& [name, value] : Attributes(*wrapped, indent)) {
        if (!printed.insert(name).second) continue;
        absl::StrAppend(&out, ", ", name, "=", value);
      }
    }
    for (const auto& [name, value] : own) {
      if (name == AttributeName(A::kCalls) || !printed.insert(name).second) continue;
      absl::StrAppend(&out, ", ", name, "=", value);
    }
    if (options_.print_control_dependencies && !instr.control_predecessors().empty()) {
      absl::StrAppend(&out, ", ", Av(AttributeName(A::kControlPredecessors)), "=",
                      ControlPredecessors(instr));
    }
    return;
  }
  for (const auto& [name, value] : Attributes(instr, indent)) {
    absl::StrAppend(&out, ", ", name, "=", value);
  }
}

void Printer::Computation(const HloComputation& c, int indent, bool nested, bool entry_keyword,
                          std::string& out) {
  const std::string tab(2 * indent, ' ');
  const SourceComments* comments = options_.comments;
  if (comments != nullptr && !nested) comments->AppendLeading(&c, tab, out);
  out.append(tab);
  if (!nested) {
    if (entry_keyword && c.is_entry()) out.append("ENTRY ");
    absl::StrAppend(&out, Name(c.name(), options_), " ");
  }
  if (options_.print_program_shape) {
    out.push_back('(');
    for (int64_t i = 0; i < c.parameter_count(); ++i) {
      if (i > 0) out.append(", ");
      const HloInstruction* p = c.parameter(i);
      if (p == nullptr) continue;
      absl::StrAppend(&out, p->name(), ": ", PrintShape(p->shape(), /*with_layout=*/false));
    }
    out.append(") -> ");
    if (c.root() != nullptr) out.append(PrintShape(c.root()->shape(), /*with_layout=*/false));
    out.push_back(' ');
  }
  out.append("{");
  if (comments != nullptr && !nested) comments->AppendTrailing(&c, out);
  out.append("\n");
  CanonicalNames names;
  const bool scheduled = c.parent() != nullptr && c.parent()->is_scheduled;
  const std::vector<const HloInstruction*> written =
      options_.post_order && !scheduled ? std::vector<const HloInstruction*>()
                                        : InstructionOrder(c, /*post_order=*/false);
  for (const HloInstruction* instr : options_.post_order && !scheduled ? PostOrder(c) : written) {
    if (IsCompactGte(*instr)) continue;
    if (comments != nullptr) comments->AppendLeading(instr, absl::StrCat(tab, "  "), out);
    absl::StrAppend(&out, tab, "  ");
    if (instr == c.root()) out.append("ROOT ");
    Instruction(*instr, indent + 1, /*nested=*/true, &names, out);
    if (comments != nullptr) comments->AppendTrailing(instr, out);
    out.push_back('\n');
  }
  absl::StrAppend(&out, tab, "}");
  if (!c.execution_thread.empty() && c.execution_thread != "main") {
    absl::StrAppend(&out, ", execution_thread=\"", absl::CEscape(c.execution_thread), "\"");
  }
  if (options_.print_name_after_closing_brace && c.instruction_count() > 5) {
    absl::StrAppend(&out, " // ", c.name());
  }
}

// Header attributes XLA prints, in its order.
constexpr std::string_view kHeaderOrder[] = {
    "is_scheduled",
    "input_output_alias",
    "buffer_donor",
    "alias_passthrough_params",
    "entry_computation_layout",
    "allow_spmd_sharding_propagation_to_parameters",
    "allow_spmd_sharding_propagation_to_output",
    "replica_count",
    "num_partitions",
    "frontend_attributes",
};

std::string EntryLayout(const HloModule& module) {
  std::vector<Shape> params;
  Shape result;
  if (module.entry_parameter_layouts.has_value() && module.entry_result_layout.has_value()) {
    params = *module.entry_parameter_layouts;
    result = *module.entry_result_layout;
  } else if (const HloComputation* entry = module.entry(); entry != nullptr) {
    for (const HloInstruction* p : entry->parameters()) {
      if (p != nullptr) params.push_back(p->shape());
    }
    if (entry->root() != nullptr) result = entry->root()->shape();
  }
  std::string out = "{(";
  for (size_t i = 0; i < params.size(); ++i) {
    if (i > 0) out.append(", ");
    if (i > 0 && i % 5 == 0) absl::StrAppend(&out, "/*index=", i, "*/");
    out.append(PrintShape(params[i]));
  }
  absl::StrAppend(&out, ")->", PrintShape(result), "}");
  return out;
}

void Printer::Module(const HloModule& module, std::string& out) {
  if (options_.comments != nullptr) options_.comments->AppendHeader(out);
  absl::StrAppend(&out, "HloModule ", module.name());
  auto find = [&](std::string_view name) -> const std::string* {
    for (const auto& [n, v] : module.raw_attributes) {
      if (n == name) return &v;
    }
    return nullptr;
  };
  for (std::string_view name : kHeaderOrder) {
    if (name == "entry_computation_layout") {
      if (module.entry() != nullptr || find(name) != nullptr) {
        absl::StrAppend(&out, ", entry_computation_layout=",
                        module.entry() != nullptr || module.entry_result_layout.has_value()
                            ? EntryLayout(module)
                            : NormalizeAttributeValue(*find(name)));
      }
      continue;
    }
    if (name == "replica_count") {
      if (module.replica_count != 1)
        absl::StrAppend(&out, ", replica_count=", module.replica_count);
      continue;
    }
    if (name == "is_scheduled" && module.is_scheduled && find(name) == nullptr) {
      out.append(", is_scheduled=true");
      continue;
    }
    if (name == "alias_passthrough_params" && module.alias_passthrough_params &&
        find(name) == nullptr) {
      out.append(", alias_passthrough_params=true");
      continue;
    }
    if (name == "num_partitions") {
      if (module.num_partitions != 1)
        absl::StrAppend(&out, ", num_partitions=", module.num_partitions);
      continue;
    }
    if (const std::string* v = find(name)) {
      absl::StrAppend(&out, ", ", Av(name), "=", NormalizeAttributeValue(*v));
    }
  }
  for (const auto& [name, value] : module.raw_attributes) {
    if (std::find(std::begin(kHeaderOrder), std::end(kHeaderOrder), name) !=
        std::end(kHeaderOrder)) {
      continue;
    }
    // XLA writes these two multi-line tables on lines of their own.
    if (name == "origin_recovery_table") {
      absl::StrAppend(&out, ", ", name, "=", value, "\n");
    } else if (name == "debug_attributes") {
      absl::StrAppend(&out, ",\n", name, "=", value);
    } else {
      absl::StrAppend(&out, ", ", name, "=", NormalizeAttributeValue(value));
    }
  }
  if (module.stack_frame_index.has_value() && !module.stack_frame_index->file_names.empty() &&
      options_.print_metadata) {
    const StackFrameIndex& index = *module.stack_frame_index;
    out.append("\n\nFileNames\n");
    for (size_t i = 0; i < index.file_names.size(); ++i) {
      absl::StrAppend(&out, i + 1, " \"", absl::CEscape(index.file_names[i]), "\"\n");
    }
    out.append("\nFunctionNames\n");
    for (size_t i = 0; i < index.function_names.size(); ++i) {
      absl::StrAppend(&out, i + 1, " \"", absl::CEscape(index.function_names[i]), "\"\n");
    }
    out.append("\nFileLocations\n");
    for (size_t i = 0; i < index.file_locations.size(); ++i) {
      const StackFrameIndex::FileLocation& l = index.file_locations[i];
      absl::StrAppend(&out, i + 1, " {file_name_id=", l.file_name_id,
                      " function_name_id=", l.function_name_id, " line=", l.line,
                      " end_line=", l.end_line, " column=", l.column, " end_column=", l.end_column,
                      "}\n");
    }
    out.append("\nStackFrames\n");
    for (size_t i = 0; i < index.stack_frames.size(); ++i) {
      const StackFrameIndex::Frame& f = index.stack_frames[i];
      absl::StrAppend(&out, i + 1, " {file_location_id=", f.file_location_id,
                      " parent_frame_id=", f.parent_frame_id, "}\n");
    }
  }
  out.append("\n\n");

  // Computations wrapped by sugared async ops are not printed, unless
  // something else names them.
  absl::flat_hash_set<const HloComputation*> hidden, named;
  if (options_.syntax_sugar_async_ops) {
    for (const auto& c : module.computations()) {
      for (const auto& instr : c->instructions()) {
        bool sugared = SugarWrapped(*instr) != nullptr;
        for (const HloComputation* callee : instr->called_computations()) {
          (sugared ? hidden : named).insert(callee);
        }
      }
    }
    for (const HloComputation* c : named) hidden.erase(c);
  }
  auto order_of = [this](const HloComputation* c) -> const std::vector<const HloInstruction*>& {
    return PostOrder(*c);
  };
  for (const HloComputation* c : ComputationOrder(module, options_.post_order, order_of)) {
    if (hidden.contains(c)) continue;
    Computation(*c, 0, /*nested=*/false, /*entry_keyword=*/true, out);
    out.append("\n\n");
  }
  if (options_.comments != nullptr) options_.comments->AppendFooter(out);
}

void AppendShape(const Shape& shape, bool with_layout, std::string& out) {
  if (shape.IsTuple()) {
    // XLA marks every fifth tuple element with its index.
    out.push_back('(');
    for (int64_t i = 0; i < shape.tuple_size(); ++i) {
      if (i > 0) out.append(", ");
      if (i > 0 && i % 5 == 0) absl::StrAppend(&out, "/*index=", i, "*/");
      AppendShape(shape.tuple_shape(i), with_layout, out);
    }
    out.push_back(')');
    return;
  }
  if (with_layout && shape.IsArray() && !shape.has_layout()) {
    Shape copy = shape;
    copy.set_layout(Layout::RowMajor(shape.rank()));
    out.append(copy.ToString(true));
    return;
  }
  out.append(shape.ToString(with_layout));
}

}  // namespace

//===----------------------------------------------------------------------===//
// Comments of the source text.
//===----------------------------------------------------------------------===//

namespace {

bool IsBlankRun(std::string_view s) {
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; });
}

// Whether `text` between two positions holds a blank line (two line breaks
// with only spaces between them).
bool HasBlankLine(std::string_view gap) {
  int breaks = 0;
  for (char c : gap) {
    if (c == '\n') {
      if (++breaks >= 2) return true;
    } else if (c != ' ' && c != '\t' && c != '\r') {
      breaks = 0;
    }
  }
  return false;
}

// `/*index=N*/` (operands, tuple shapes) and `/*iK=N*/` (literals): the
// printer writes its own.
bool IsIndexAnnotation(std::string_view comment) {
  if (comment.size() < 7 || comment.substr(0, 2) != "/*" ||
      comment.substr(comment.size() - 2) != "*/") {
    return false;
  }
  std::string_view body = comment.substr(2, comment.size() - 4);
  const size_t eq = body.find('=');
  if (eq == std::string_view::npos) return false;
  auto digits = [](std::string_view d) {
    return !d.empty() && std::all_of(d.begin(), d.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  std::string_view name = body.substr(0, eq);
  const bool known = name == "index" || (name.size() > 1 && name[0] == 'i' && digits(name.substr(1)));
  return known && digits(body.substr(eq + 1));
}

}  // namespace

SourceComments::SourceComments(std::string_view text, const HloModule& module) {
  // What comments can belong to, by offset in the text: computations (not
  // the wrapped ones of async ops, which share their op's place) and
  // instructions; the first one at an offset wins.
  std::vector<std::pair<size_t, const void*>> anchors;
  for (const auto& c : module.computations()) {
    if (c->is_async_wrapped || c->location().line <= 0) continue;
    anchors.push_back({c->location().offset, c.get()});
  }
  for (const auto& c : module.computations()) {
    if (c->is_async_wrapped) continue;
    for (const auto& instr : c->instructions()) {
      if (instr->location().line > 0) anchors.push_back({instr->location().offset, instr.get()});
    }
  }
  std::stable_sort(anchors.begin(), anchors.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  anchors.erase(std::unique(anchors.begin(), anchors.end(),
                            [](const auto& a, const auto& b) { return a.first == b.first; }),
                anchors.end());

  // The comments, in order; `code_end` is where the code before each ends.
  struct Found {
    size_t begin, end;
    bool trailing;  // code before it on its line
  };
  std::vector<Found> found;
  size_t first_code = std::string_view::npos;  // the module's first token
  for (size_t p = 0; p < text.size();) {
    const char c = text[p];
    if (c == '"') {
      ++p;
      while (p < text.size() && text[p] != '"') p += text[p] == '\\' ? 2 : 1;
      ++p;
      continue;
    }
    if (c == '/' && p + 1 < text.size() && (text[p + 1] == '/' || text[p + 1] == '*')) {
      size_t end;
      if (text[p + 1] == '/') {
        end = text.find('\n', p);
        if (end == std::string_view::npos) end = text.size();
        while (end > p && text[end - 1] == '\r') --end;
      } else {
        end = text.find("*/", p + 2);
        end = end == std::string_view::npos ? text.size() : end + 2;
      }
      size_t line_start = text.rfind('\n', p);
      line_start = line_start == std::string_view::npos ? 0 : line_start + 1;
      std::string_view before = text.substr(line_start, p - line_start);
      bool trailing = !IsBlankRun(before);
      if (trailing && !found.empty() && found.back().end > line_start) {
        // After another comment on the same line: only comments before it.
        std::string_view gap = text.substr(found.back().end, p - found.back().end);
        size_t prior_start = text.rfind('\n', found.back().begin);
        prior_start = prior_start == std::string_view::npos ? 0 : prior_start + 1;
        trailing = found.back().trailing ||
                   !IsBlankRun(text.substr(prior_start, found.back().begin - prior_start)) ||
                   !IsBlankRun(gap);
      }
      if (!IsIndexAnnotation(text.substr(p, end - p))) found.push_back({p, end, trailing});
      p = end;
      continue;
    }
    if (c != ' ' && c != '\t' && c != '\r' && c != '\n' && first_code == std::string_view::npos) {
      first_code = p;
    }
    ++p;
  }
  count_ = static_cast<int64_t>(found.size());

  // The anchor before and after an offset.
  auto next_anchor = [&](size_t offset) -> const void* {
    auto it = std::upper_bound(anchors.begin(), anchors.end(), offset,
                               [](size_t o, const auto& a) { return o < a.first; });
    return it == anchors.end() ? nullptr : it->second;
  };
  auto previous_anchor = [&](size_t offset) -> const void* {
    auto it = std::upper_bound(anchors.begin(), anchors.end(), offset,
                               [](size_t o, const auto& a) { return o < a.first; });
    return it == anchors.begin() ? nullptr : std::prev(it)->second;
  };
  auto next_anchor_offset = [&](size_t offset) -> size_t {
    auto it = std::upper_bound(anchors.begin(), anchors.end(), offset,
                               [](size_t o, const auto& a) { return o < a.first; });
    return it == anchors.end() ? text.size() : it->first;
  };
  Leading* group = nullptr;
  size_t previous_end = 0;
  for (const Found& f : found) {
    std::string comment(text.substr(f.begin, f.end - f.begin));
    const void* before = previous_anchor(f.begin);
    if (f.trailing && before != nullptr) {
      std::string& line = trailing_[before];
      if (!line.empty()) line.push_back(' ');
      line.append(comment);
      ++trailing_count_[before];
      group = nullptr;
      continue;
    }
    Leading* target;
    if (f.begin < first_code || (f.trailing && before == nullptr)) {
      target = &header_;
    } else if (const void* after = next_anchor(f.begin)) {
      target = &leading_[after];
    } else {
      target = &footer_;
    }
    const bool blank = target == group && HasBlankLine(text.substr(previous_end, f.begin - previous_end));
    target->comments.push_back({std::move(comment), blank});
    const size_t follows = target == &header_ && first_code != std::string_view::npos
                               ? std::max(first_code, f.end)
                               : next_anchor_offset(f.begin);
    // Text between this comment and the next thing: a blank line there?
    size_t next_start = follows;
    target->blank_after = follows >= f.end && HasBlankLine(text.substr(f.end, next_start - f.end));
    group = target;
    previous_end = f.end;
  }
}

void SourceComments::AppendGroup(const Leading& group, std::string_view indent,
                                 std::string& out) const {
  for (const Comment& c : group.comments) {
    if (c.blank_before) out.push_back('\n');
    absl::StrAppend(&out, Av(indent), c.text, "\n");
    ++placed_;
  }
  if (!group.comments.empty() && group.blank_after) out.push_back('\n');
}

void SourceComments::AppendLeading(const void* anchor, std::string_view indent,
                                   std::string& out) const {
  auto it = leading_.find(anchor);
  if (it != leading_.end()) AppendGroup(it->second, indent, out);
}

void SourceComments::AppendTrailing(const void* anchor, std::string& out) const {
  auto it = trailing_.find(anchor);
  if (it == trailing_.end()) return;
  absl::StrAppend(&out, " ", it->second);
  placed_ += trailing_count_.at(anchor);
}

void SourceComments::AppendHeader(std::string& out) const { AppendGroup(header_, "", out); }

void SourceComments::AppendFooter(std::string& out) const { AppendGroup(footer_, "", out); }


PrintOptions PrintOptions::ShortParsable() {
  PrintOptions o;
  o.print_large_constants = true;
  o.print_metadata = false;
  o.print_backend_config = false;
  o.print_operand_shape = false;
  o.operand_index_annotation_interval = 0;
  o.print_program_shape = false;
  o.print_percent = false;
  o.print_control_dependencies = false;
  return o;
}

PrintOptions PrintOptions::Canonical() {
  PrintOptions o;
  o.print_subcomputation_bodies = true;
  o.print_metadata = false;
  o.print_backend_config = false;
  o.print_name_after_closing_brace = true;
  o.print_operand_names = false;
  o.print_operand_shape = true;
  o.operand_index_annotation_interval = 0;
  o.print_program_shape = false;
  o.print_percent = false;
  o.print_control_dependencies = false;
  o.canonicalize_instruction_names = true;
  return o;
}

std::string PrintShape(const Shape& shape, bool with_layout) {
  std::string out;
  AppendShape(shape, with_layout, out);
  return out;
}

std::string NormalizeAttributeValue(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  bool pending_space = false;
  size_t i = 0;
  while (i < value.size()) {
    char c = value[i];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      pending_space = !out.empty();
      ++i;
      continue;
    }
    if (pending_space) {
      out.push_back(' ');
      pending_space = false;
    }
    if (c == '"') {
      size_t j = i + 1;
      while (j < value.size() && value[j] != '"') j += value[j] == '\\' ? 2 : 1;
      j = std::min(j + 1, value.size());
      out.append(value.substr(i, j - i));
      i = j;
      continue;
    }
    if (c == '/' && i + 1 < value.size() && value[i + 1] == '/') {
      // A line comment would swallow the rest once lines are joined.
      while (i < value.size() && value[i] != '\n' && value[i] != '\r') ++i;
      pending_space = !out.empty();
      continue;
    }
    out.push_back(c);
    ++i;
  }
  return out;
}

std::string PrintModule(const HloModule& module, const PrintOptions& options) {
  std::string out;
  size_t instructions = 0;
  for (const auto& c : module.computations()) instructions += c->instructions().size();
  out.reserve(instructions * 120 + 256);
  Printer(options).Module(module, out);
  return out;
}

std::string PrintComputation(const HloComputation& computation, const PrintOptions& options,
                             bool with_entry_keyword) {
  std::string out;
  Printer(options).Computation(computation, 0, /*nested=*/false, with_entry_keyword, out);
  return out;
}

std::string PrintInstruction(const HloInstruction& instruction, const PrintOptions& options) {
  std::string out;
  Printer(options).Instruction(instruction, 0, /*nested=*/false, nullptr, out);
  return out;
}

}  // namespace hlovm
