#include "frontend/verifier.h"

#include <algorithm>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "core/status_macros.h"
#include "core/text_cursor.h"
#include "ops/collective/collective_shape.h"
#include "ops/common/common_shape.h"
#include "ops/control/control_shape.h"
#include "ops/custom/custom_call_shape.h"
#include "ops/dot/dot_conv_shape.h"
#include "ops/elementwise/elementwise_shape.h"
#include "ops/fft/fft_shape.h"
#include "ops/indexing/gather_scatter_shape.h"
#include "ops/linalg/linalg_shape.h"
#include "ops/norm/batch_norm_shape.h"
#include "ops/reduce/reduce_shape.h"
#include "ops/rng/rng_shape.h"
#include "ops/shape/shape_ops_shape.h"
#include "ops/sort/sort_shape.h"

namespace hlovm {
namespace {

absl::Status Invalid(const std::string& message) { return absl::InvalidArgumentError(message); }

// What a shape rule may consult beyond the instruction itself.
// Signatures of called computations, computed once per computation
// (references stay valid as entries are added).
using SignatureCache = std::unordered_map<const HloComputation*, ComputationSignature>;

// What a shape rule may consult beyond the instruction itself.
struct InferContext {
  int64_t replica_count = 1;
  int64_t num_partitions = 1;
  // The declared result shape, for ops whose result dimensions or element
  // type are given rather than derived. Null when inferring for the REPL.
  const Shape* declared = nullptr;
  SignatureCache* signatures = nullptr;  // never null while inferring
  // Where not null: set when the rule needed the declared shape and there
  // was none (the op's result is not derived from operands and attributes).
  bool* needed_declared = nullptr;
};

const ComputationSignature& SignatureOf(const InferContext& ctx, const HloComputation* c) {
  auto [it, inserted] = ctx.signatures->try_emplace(c);
  if (!inserted || c == nullptr) return it->second;
  ComputationSignature& sig = it->second;
  for (const HloInstruction* p : c->parameters()) {
    sig.parameters.push_back(p != nullptr ? p->shape() : Shape());
  }
  if (c->root() != nullptr) sig.result = c->root()->shape();
  return sig;
}

std::vector<const Shape*> OperandShapes(const HloInstruction& instr, int64_t begin = 0,
                                        int64_t end = -1) {
  if (end < 0) end = instr.operand_count();
  std::vector<const Shape*> shapes;
  for (int64_t i = begin; i < end && i < instr.operand_count(); ++i) {
    shapes.push_back(&instr.operand(i)->shape());
  }
  return shapes;
}

// The one dimension of attributes written `dimensions={d}`.
absl::StatusOr<int64_t> SingleDimension(const HloInstruction& instr) {
  if (instr.dimensions.size() != 1) {
    return Invalid(absl::StrFormat("%s expects dimensions={d} with one dimension, got {%s}.",
                                   HloOpcodeName(instr.opcode()),
                                   absl::StrJoin(instr.dimensions, ",")));
  }
  return instr.dimensions[0];
}

absl::Status NeedOperands(const HloInstruction& instr, int64_t n) {
  if (instr.operand_count() < n) {
    return Invalid(absl::StrFormat("%s needs at least %d operands, got %d.",
                                   HloOpcodeName(instr.opcode()), n, instr.operand_count()));
  }
  return absl::OkStatus();
}

absl::StatusOr<const HloComputation*> Called(const HloInstruction& instr, size_t i,
                                             std::string_view role) {
  if (instr.called_computations().size() <= i || instr.called_computations()[i] == nullptr) {
    return Invalid(absl::StrFormat("%s needs a %s computation.", HloOpcodeName(instr.opcode()),
                                   role));
  }
  return instr.called_computations()[i];
}

absl::StatusOr<Shape> Declared(const InferContext& ctx, const HloInstruction& instr) {
  if (ctx.declared == nullptr) {
    if (ctx.needed_declared != nullptr) *ctx.needed_declared = true;
    return Invalid(absl::StrFormat(
        "the result shape of %s cannot be inferred from its operands; write it",
        HloOpcodeName(instr.opcode())));
  }
  return *ctx.declared;
}

absl::StatusOr<ElementType> DeclaredType(const InferContext& ctx, const HloInstruction& instr) {
  HLOVM_ASSIGN_OR_RETURN(Shape s, Declared(ctx, instr));
  return s.element_type();
}

std::optional<ElementType> PreferredType(const InferContext& ctx) {
  if (ctx.declared == nullptr || !ctx.declared->IsArray()) return std::nullopt;
  return ctx.declared->element_type();
}

// The number of shards of an all-gather (`gather`) or reduce-scatter along
// dimension `d`. As XLA's verifier does, it is read off the declared shape
// and must equal the collective's group size unless that size is 1 (unknown
// replica and partition counts); without a declared shape it is the group
// size.
absl::StatusOr<int64_t> ShardCount(const HloInstruction& instr, const InferContext& ctx,
                                   bool gather, int64_t d) {
  std::optional<int64_t> group =
      CollectiveGroupSize(instr.attrs().replica_groups, instr.attrs().channel_id.has_value(),
                          /*has_global_ids_attribute=*/true, instr.attrs().use_global_device_ids,
                          ctx.replica_count, ctx.num_partitions);
  if (ctx.declared == nullptr || instr.operand_count() == 0) {
    if (!group.has_value()) return Invalid("replica_groups must all have the same size.");
    return *group;
  }
  const Shape& in = instr.operand(0)->shape();
  const Shape& out = ctx.declared->IsTuple() && ctx.declared->tuple_size() > 0
                         ? (instr.opcode() == HloOpcode::kAllGatherStart &&
                                    ctx.declared->tuple_size() == 2
                                ? ctx.declared->tuple_shape(1)
                                : ctx.declared->tuple_shape(0))
                         : *ctx.declared;
  const Shape& out_array = out.IsTuple() && out.tuple_size() > 0 ? out.tuple_shape(0) : out;
  if (!in.IsArray() || !out_array.IsArray() || d < 0 || d >= in.rank() ||
      d >= out_array.rank()) {
    return group.value_or(1);
  }
  const int64_t num = gather ? out_array.dimensions(d) : in.dimensions(d);
  const int64_t den = gather ? in.dimensions(d) : out_array.dimensions(d);
  if (den <= 0) return group.value_or(1);
  const int64_t shards = num / den + (num % den != 0 ? 1 : 0);
  if (group.has_value() && *group != 1 && *group != shards) {
    return Invalid(absl::StrFormat(
        "the shape implies %d shards along dimension %d but the replica group size is %d",
        shards, d, *group));
  }
  return shards;
}

// Checks the replica_groups or source_target_pairs of a collective.
absl::Status CheckCollectiveGroups(const HloInstruction& instr, const InferContext& ctx) {
  const HloOpcode op = instr.opcode();
  switch (op) {
    case HloOpcode::kCollectivePermute:
    case HloOpcode::kCollectivePermuteStart:
      // The in-place form (4 operands) may read or write a device twice.
      if (instr.operand_count() != 1) return absl::OkStatus();
      return CheckSourceTargetPairs(instr.attrs().source_target_pairs);
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllReduceStart:
    case HloOpcode::kAllGather:
    case HloOpcode::kAllGatherStart:
    case HloOpcode::kReduceScatter:
    case HloOpcode::kAllToAll:
    case HloOpcode::kRaggedAllToAll:
    case HloOpcode::kCollectiveBroadcast:
      break;
    default:
      return absl::OkStatus();
  }
  if (!instr.attrs().replica_groups.has_value()) return absl::OkStatus();
  const bool has_global_ids_attribute = op != HloOpcode::kAllToAll &&
                                        op != HloOpcode::kRaggedAllToAll &&
                                        op != HloOpcode::kCollectiveBroadcast;
  int64_t participants = ctx.replica_count;
  if (instr.attrs().channel_id.has_value()) {
    if (!has_global_ids_attribute) {
      participants = ctx.num_partitions;
    } else if (instr.attrs().use_global_device_ids) {
      participants = ctx.replica_count * ctx.num_partitions;
    }
  }
  const bool gather_or_scatter = op == HloOpcode::kAllGather ||
                                 op == HloOpcode::kAllGatherStart ||
                                 op == HloOpcode::kReduceScatter;
  const bool complete = gather_or_scatter || op == HloOpcode::kAllReduce ||
                        op == HloOpcode::kAllReduceStart;
  return CheckReplicaGroups(*instr.attrs().replica_groups, participants, complete,
                            /*uniform=*/gather_or_scatter);
}

// The shape rule of every opcode, by opcode.
absl::StatusOr<Shape> InferShape(const HloInstruction& instr, const InferContext& ctx) {
  const HloOpcode op = instr.opcode();
  auto operand = [&](int64_t i) -> const Shape& { return instr.operand(i)->shape(); };
  const int arity = HloOpcodeArity(op);
  if (arity != kVariadic && instr.operand_count() != arity) {
    return Invalid(absl::StrFormat("%s takes %d operand%s, got %d.", HloOpcodeName(op), arity,
                                   arity == 1 ? "" : "s", instr.operand_count()));
  }
  if (HloOpcodeFamily(op) == OpFamily::kCollective) {
    HLOVM_RETURN_IF_ERROR(CheckCollectiveGroups(instr, ctx));
  }
  switch (HloOpcodeFamily(op)) {
    case OpFamily::kUnary:
      return InferUnaryOpShape(op, operand(0));
    case OpFamily::kBinary:
      return InferBinaryOpShape(op, operand(0), operand(1));
    default:
      break;
  }
  switch (op) {
    case HloOpcode::kSelect:
      return InferSelectShape(operand(0), operand(1), operand(2));
    case HloOpcode::kClamp:
      return InferClampShape(operand(0), operand(1), operand(2));
    case HloOpcode::kConvert: {
      HLOVM_ASSIGN_OR_RETURN(ElementType t, DeclaredType(ctx, instr));
      return InferConvertShape(operand(0), t);
    }
    case HloOpcode::kBitcastConvert: {
      HLOVM_ASSIGN_OR_RETURN(ElementType t, DeclaredType(ctx, instr));
      return InferBitcastConvertShape(operand(0), t);
    }
    case HloOpcode::kStochasticConvert: {
      HLOVM_ASSIGN_OR_RETURN(ElementType t, DeclaredType(ctx, instr));
      return InferStochasticConvertShape(operand(0), operand(1), t);
    }
    case HloOpcode::kReducePrecision:
      return InferReducePrecisionShape(operand(0), instr.attrs().exponent_bits,
                                       instr.attrs().mantissa_bits);
    case HloOpcode::kMap: {
      HLOVM_RETURN_IF_ERROR(NeedOperands(instr, 1));
      HLOVM_ASSIGN_OR_RETURN(const HloComputation* f, Called(instr, 0, "to_apply"));
      std::vector<int64_t> dims = instr.dimensions;
      if (dims.empty()) {  // dimensions= omitted: every dimension
        for (int64_t i = 0; i < operand(0).rank(); ++i) dims.push_back(i);
      }
      return InferMapShape(OperandShapes(instr), SignatureOf(ctx, f), dims);
    }

    // Data movement.
    case HloOpcode::kBroadcast: {
      HLOVM_ASSIGN_OR_RETURN(Shape out, Declared(ctx, instr));
      return InferBroadcastShape(operand(0), out, instr.dimensions);
    }
    case HloOpcode::kReshape: {
      HLOVM_ASSIGN_OR_RETURN(Shape out, Declared(ctx, instr));
      return InferReshapeShape(operand(0), out);
    }
    case HloOpcode::kDynamicReshape: {
      if (instr.operand_count() == 0) {
        return Invalid("DynamicReshape requires at least one operand.");
      }
      HLOVM_ASSIGN_OR_RETURN(Shape out, Declared(ctx, instr));
      return InferDynamicReshapeShape(operand(0), OperandShapes(instr, 1), out);
    }
    case HloOpcode::kBitcast: {
      HLOVM_ASSIGN_OR_RETURN(Shape out, Declared(ctx, instr));
      return InferBitcastShape(operand(0), out);
    }
    case HloOpcode::kIota: {
      HLOVM_ASSIGN_OR_RETURN(Shape out, Declared(ctx, instr));
      return InferIotaShape(out, instr.iota_dimension);
    }
    case HloOpcode::kTranspose:
      return InferTransposeShape(operand(0), instr.dimensions);
    case HloOpcode::kSlice: {
      if (!instr.slice.has_value()) return Invalid("slice needs slice={...}.");
      return InferSliceShape(operand(0), instr.slice->starts, instr.slice->limits,
                             instr.slice->strides);
    }
    case HloOpcode::kDynamicSlice:
      HLOVM_RETURN_IF_ERROR(NeedOperands(instr, 1));
      return InferDynamicSliceShape(operand(0), OperandShapes(instr, 1),
                                    instr.attrs().dynamic_slice_sizes);
    case HloOpcode::kDynamicUpdateSlice:
      HLOVM_RETURN_IF_ERROR(NeedOperands(instr, 2));
      return InferDynamicUpdateSliceShape(operand(0), operand(1), OperandShapes(instr, 2));
    case HloOpcode::kConcatenate: {
      HLOVM_ASSIGN_OR_RETURN(int64_t d, SingleDimension(instr));
      return InferConcatenateShape(OperandShapes(instr), d);
    }
    case HloOpcode::kPad:
      if (!instr.attrs().padding.has_value()) return Invalid("pad needs padding=.");
      return InferPadShape(operand(0), operand(1), *instr.attrs().padding);
    case HloOpcode::kReverse:
      return InferReverseShape(operand(0), instr.dimensions);
    case HloOpcode::kCopy:
      return operand(0);
    case HloOpcode::kCopyStart:
      return InferCopyStartShape(operand(0));
    case HloOpcode::kCopyDone:
      return InferCopyDoneShape(operand(0));
    case HloOpcode::kGetDimensionSize: {
      HLOVM_ASSIGN_OR_RETURN(int64_t d, SingleDimension(instr));
      return InferGetDimensionSizeShape(operand(0), d);
    }
    case HloOpcode::kSetDimensionSize: {
      HLOVM_ASSIGN_OR_RETURN(int64_t d, SingleDimension(instr));
      return InferSetDimensionSizeShape(operand(0), operand(1), d);
    }
    case HloOpcode::kShuffle:
      return Declared(ctx, instr);

    // Indexing.
    case HloOpcode::kGather:
      if (!instr.attrs().gather_dimension_numbers.has_value()) {
        return Invalid("gather needs its dimension numbers.");
      }
      return InferGatherShape(operand(0), operand(1), *instr.attrs().gather_dimension_numbers,
                              instr.attrs().gather_slice_sizes);
    case HloOpcode::kScatter: {
      if (!instr.attrs().scatter_dimension_numbers.has_value()) {
        return Invalid("scatter needs its dimension numbers.");
      }
      HLOVM_RETURN_IF_ERROR(NeedOperands(instr, 3));
      HLOVM_ASSIGN_OR_RETURN(const HloComputation* f, Called(instr, 0, "to_apply"));
      return InferScatterShape(OperandShapes(instr), *instr.attrs().scatter_dimension_numbers,
                               SignatureOf(ctx, f));
    }

    // Reductions.
    case HloOpcode::kReduce: {
      HLOVM_ASSIGN_OR_RETURN(const HloComputation* f, Called(instr, 0, "to_apply"));
      return InferReduceShape(OperandShapes(instr), instr.dimensions, SignatureOf(ctx, f));
    }
    case HloOpcode::kReduceWindow: {
      HLOVM_ASSIGN_OR_RETURN(const HloComputation* f, Called(instr, 0, "to_apply"));
      return InferReduceWindowShape(OperandShapes(instr), instr.attrs().window.value_or(Window{}),
                                    SignatureOf(ctx, f));
    }
    case HloOpcode::kSelectAndScatter: {
      HLOVM_ASSIGN_OR_RETURN(const HloComputation* select, Called(instr, 0, "select"));
      HLOVM_ASSIGN_OR_RETURN(const HloComputation* scatter, Called(instr, 1, "scatter"));
      return InferSelectAndScatterShape(operand(0), SignatureOf(ctx, select),
                                        instr.attrs().window.value_or(Window{}), operand(1),
                                        operand(2), SignatureOf(ctx, scatter));
    }

    // Sorting.
    case HloOpcode::kSort: {
      HLOVM_RETURN_IF_ERROR(NeedOperands(instr, 1));
      HLOVM_ASSIGN_OR_RETURN(const HloComputation* f, Called(instr, 0, "to_apply"));
      HLOVM_ASSIGN_OR_RETURN(int64_t d, SingleDimension(instr));
      return InferSortShape(OperandShapes(instr), d, SignatureOf(ctx, f));
    }
    case HloOpcode::kTopK:
      return InferTopKShape(operand(0), instr.attrs().k);
    case HloOpcode::kScan:
      return Declared(ctx, instr);

    // Contractions.
    case HloOpcode::kDot:
      return InferDotShape(operand(0), operand(1),
                           instr.attrs().dot_dimension_numbers.value_or(DotDimensionNumbers{}),
                           PreferredType(ctx));
    case HloOpcode::kRaggedDot:
      return InferRaggedDotShape(
          operand(0), operand(1), operand(2),
          instr.attrs().dot_dimension_numbers.value_or(DotDimensionNumbers{}), PreferredType(ctx));
    case HloOpcode::kScaledDot:
      return InferScaledDotShape(
          operand(0), operand(1), operand(2), operand(3),
          instr.attrs().dot_dimension_numbers.value_or(DotDimensionNumbers{}), PreferredType(ctx));
    case HloOpcode::kConvolution:
      HLOVM_RETURN_IF_ERROR(NeedOperands(instr, 2));
      if (instr.operand_count() != 2) {
        return Invalid(absl::StrFormat("convolution takes 2 operands, got %d.",
                                       instr.operand_count()));
      }
      if (!instr.attrs().convolution_dimension_numbers.has_value()) {
        return Invalid("convolution needs dim_labels=.");
      }
      return InferConvolutionShape(
          operand(0), operand(1), instr.attrs().feature_group_count,
          instr.attrs().batch_group_count, instr.attrs().window.value_or(Window{}),
          *instr.attrs().convolution_dimension_numbers, PreferredType(ctx));

    case HloOpcode::kFft:
      return InferFftShape(operand(0), instr.attrs().fft_type, instr.attrs().fft_length);
    case HloOpcode::kCholesky:
      return InferCholeskyShape(operand(0));
    case HloOpcode::kTriangularSolve:
      return InferTriangularSolveShape(operand(0), operand(1), instr.attrs().left_side);
    case HloOpcode::kBatchNormTraining:
      return InferBatchNormTrainingShape(operand(0), operand(1), operand(2),
                                         instr.attrs().feature_index);
    case HloOpcode::kBatchNormInference:
      return InferBatchNormInferenceShape(operand(0), operand(1), operand(2), operand(3),
                                          operand(4), instr.attrs().feature_index);
    case HloOpcode::kBatchNormGrad:
      return InferBatchNormGradShape(operand(0), operand(1), operand(2), operand(3),
                                     operand(4), instr.attrs().feature_index);

    // Random numbers.
    case HloOpcode::kRng: {
      if (instr.operand_count() != 2) {
        return Invalid(absl::StrFormat("rng takes 2 operands, got %d.", instr.operand_count()));
      }
      HLOVM_ASSIGN_OR_RETURN(Shape out, Declared(ctx, instr));
      return InferRngShape(operand(0), operand(1), instr.attrs().distribution, out);
    }
    case HloOpcode::kRngBitGenerator: {
      HLOVM_ASSIGN_OR_RETURN(Shape out, Declared(ctx, instr));
      return InferRngBitGeneratorShape(operand(0), out);
    }
    case HloOpcode::kRngGetAndUpdateState:
      return InferRngGetAndUpdateStateShape();

    // Collectives.
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllReduceStart: {
      const HloComputation* f =
          instr.called_computations().empty() ? nullptr : instr.called_computations()[0];
      const ComputationSignature& sig = SignatureOf(ctx, f);
      return InferAllReduceShape(OperandShapes(instr), f != nullptr ? &sig : nullptr);
    }
    case HloOpcode::kAllReduceDone:
      return operand(0);
    case HloOpcode::kAllGather:
    case HloOpcode::kAllGatherStart: {
      HLOVM_ASSIGN_OR_RETURN(int64_t d, SingleDimension(instr));
      HLOVM_ASSIGN_OR_RETURN(int64_t shards, ShardCount(instr, ctx, /*gather=*/true, d));
      if (op == HloOpcode::kAllGather) return InferAllGatherShape(OperandShapes(instr), d, shards);
      return InferAllGatherStartShape(OperandShapes(instr), d, shards);
    }
    case HloOpcode::kAllGatherDone:
    case HloOpcode::kCollectivePermuteDone:
      return InferCollectiveDoneShape(operand(0));
    case HloOpcode::kReduceScatter: {
      HLOVM_ASSIGN_OR_RETURN(int64_t d, SingleDimension(instr));
      HLOVM_ASSIGN_OR_RETURN(int64_t shards, ShardCount(instr, ctx, /*gather=*/false, d));
      const HloComputation* f =
          instr.called_computations().empty() ? nullptr : instr.called_computations()[0];
      const ComputationSignature& sig = SignatureOf(ctx, f);
      return InferReduceScatterShape(OperandShapes(instr), d, shards,
                                     f != nullptr ? &sig : nullptr);
    }
    case HloOpcode::kAllToAll: {
      std::optional<int64_t> split_count;
      if (instr.attrs().replica_groups.has_value() &&
          !instr.attrs().replica_groups->groups.empty()) {
        split_count = static_cast<int64_t>(instr.attrs().replica_groups->groups[0].size());
      }
      if (!instr.attrs().split_dimension.has_value()) {
        // The tuple form sends operand i to the i-th member of the group: one
        // operand per member, all of one shape (XLA's verifier).
        const std::optional<int64_t> group = CollectiveGroupSize(
            instr.attrs().replica_groups, instr.attrs().channel_id.has_value(),
            /*has_global_ids_attribute=*/false, /*use_global_device_ids=*/false,
            ctx.replica_count, ctx.num_partitions);
        if (group.has_value() && instr.operand_count() != *group) {
          return Invalid(absl::StrFormat(
              "all-to-all without split_dimension takes one operand per member of its group "
              "(%d), got %d.",
              *group, instr.operand_count()));
        }
        for (int64_t i = 1; i < instr.operand_count(); ++i) {
          if (operand(0).IsArray() && operand(i).IsArray() &&
              (!SameDimensions(operand(0), operand(i)) ||
               operand(0).element_type() != operand(i).element_type())) {
            return Invalid(absl::StrFormat(
                "HLO all-to-all has operands with different shapes: the 0th operand shape %s, "
                "but the %dth operand has shape %s.",
                ShapeText(operand(0)), i, ShapeText(operand(i))));
          }
        }
      }
      HLOVM_ASSIGN_OR_RETURN(
          Shape result,
          InferAllToAllShape(OperandShapes(instr), instr.attrs().split_dimension, split_count));
      // Without split_dimension the result is always a tuple, even of one.
      if (!instr.attrs().split_dimension.has_value() && !result.IsTuple()) {
        return Shape::Tuple({result});
      }
      return result;
    }
    case HloOpcode::kRaggedAllToAll:
      return InferRaggedAllToAllShape(OperandShapes(instr));
    case HloOpcode::kCollectivePermute:
    case HloOpcode::kCollectiveBroadcast:
    case HloOpcode::kCollectiveReduce:
      if (op == HloOpcode::kCollectivePermute && instr.operand_count() == 4) {
        return operand(1);  // in-place form: (input, output, input/output offsets)
      }
      if (op == HloOpcode::kCollectiveBroadcast && instr.operand_count() == 2 &&
          instr.FindRawAttribute("has_dynamic_root").has_value()) {
        return operand(0);  // (input, root replica)
      }
      return InferCollectivePermuteShape(OperandShapes(instr));
    case HloOpcode::kCollectivePermuteStart: {
      if (instr.operand_count() == 4) return Declared(ctx, instr);
      Shape declared = ctx.declared != nullptr ? *ctx.declared : Shape();
      return InferCollectivePermuteStartShape(OperandShapes(instr), declared);
    }
    case HloOpcode::kSend:
      return InferSendShape(operand(0), operand(1));
    case HloOpcode::kSendDone:
      return InferSendDoneShape(operand(0));
    case HloOpcode::kRecv: {
      HLOVM_ASSIGN_OR_RETURN(Shape out, Declared(ctx, instr));
      return InferRecvShape(operand(0), out);
    }
    case HloOpcode::kRecvDone:
      return InferRecvDoneShape(operand(0));

    // Structure and control.
    case HloOpcode::kParameter:
      return Declared(ctx, instr);
    case HloOpcode::kCustomCall: {
      HLOVM_ASSIGN_OR_RETURN(Shape out, Declared(ctx, instr));
      return InferCustomCallShape(OperandShapes(instr), out,
                                  instr.attrs().operand_layout_constraints,
                                  instr.attrs().output_to_operand_aliasing);
    }
    case HloOpcode::kConstant:
      if (instr.literal.has_value()) return instr.literal->shape();
      return Declared(ctx, instr);
    case HloOpcode::kTuple:
      return InferTupleShape(OperandShapes(instr));
    case HloOpcode::kGetTupleElement:
      return InferGetTupleElementShape(operand(0), instr.tuple_index);
    case HloOpcode::kCall:
    case HloOpcode::kFusion: {
      HLOVM_ASSIGN_OR_RETURN(const HloComputation* f, Called(instr, 0, "called"));
      std::vector<const Shape*> operands = OperandShapes(instr);
      HLOVM_ASSIGN_OR_RETURN(Shape result,
                             InferCallShape(HloOpcodeName(op), operands, SignatureOf(ctx, f)));
      HLOVM_RETURN_IF_ERROR(
          CheckOutputOperandAliasing(result, operands, instr.attrs().output_to_operand_aliasing));
      return result;
    }
    case HloOpcode::kWhile: {
      HLOVM_ASSIGN_OR_RETURN(const HloComputation* cond, Called(instr, 0, "condition"));
      HLOVM_ASSIGN_OR_RETURN(const HloComputation* body, Called(instr, 1, "body"));
      return InferWhileShape(SignatureOf(ctx, cond), SignatureOf(ctx, body), operand(0));
    }
    case HloOpcode::kConditional: {
      HLOVM_RETURN_IF_ERROR(NeedOperands(instr, 1));
      std::vector<ComputationSignature> branches;
      for (const HloComputation* c : instr.called_computations()) {
        branches.push_back(SignatureOf(ctx, c));
      }
      return InferConditionalShape(operand(0), branches, OperandShapes(instr, 1));
    }
    case HloOpcode::kAsyncStart: {
      HLOVM_ASSIGN_OR_RETURN(const HloComputation* f, Called(instr, 0, "called"));
      Shape declared = ctx.declared != nullptr ? *ctx.declared : Shape();
      return InferAsyncStartShape(OperandShapes(instr), SignatureOf(ctx, f), declared);
    }
    case HloOpcode::kAsyncUpdate:
      HLOVM_RETURN_IF_ERROR(NeedOperands(instr, 1));
      return InferAsyncUpdateShape(operand(0));
    case HloOpcode::kAsyncDone:
      return InferAsyncDoneShape(operand(0));
    case HloOpcode::kAfterAll:
      return InferAfterAllShape(OperandShapes(instr));
    case HloOpcode::kAddDependency:
      return InferAddDependencyShape(operand(0), operand(1));
    case HloOpcode::kDomain:
    case HloOpcode::kOptimizationBarrier:
      return operand(0);
    case HloOpcode::kPartitionId:
    case HloOpcode::kReplicaId:
      return InferDeviceIdShape();
    case HloOpcode::kInfeed: {
      HLOVM_ASSIGN_OR_RETURN(Shape out, Declared(ctx, instr));
      return InferInfeedShape(operand(0), out);
    }
    case HloOpcode::kOutfeed:
      return InferOutfeedShape(operand(0), operand(1));
    default:
      break;
  }
  return absl::UnimplementedError(
      absl::StrFormat("no shape rule for %s", HloOpcodeName(op)));
}

//===----------------------------------------------------------------------===//
// The module walk.
//===----------------------------------------------------------------------===//

class Verifier {
 public:
  Verifier(const HloModule& module, const VerifyOptions& options)
      : module_(module), options_(options) {
    ctx_.replica_count = options.replica_count.value_or(module.replica_count);
    ctx_.num_partitions = options.num_partitions.value_or(module.num_partitions);
    ctx_.signatures = &signatures_;
  }

  absl::Status Run() {
    CheckModule();
    if (counts_ok_) {
      for (const auto& c : module_.computations()) CheckComputation(*c);
    }
    CheckCallGraph();
    if (messages_.empty()) {
      if (options_.name_keys != nullptr) *options_.name_keys = std::move(keys_);
      return absl::OkStatus();
    }
    std::string text = absl::StrJoin(messages_, "\n");
    if (error_count_ > static_cast<int64_t>(messages_.size())) {
      absl::StrAppend(&text, "\n", error_count_ - static_cast<int64_t>(messages_.size()),
                      " more error(s) not shown");
    }
    return absl::InvalidArgumentError(text);
  }

 private:
  // Records a problem at `location`, prefixed with what it concerns.
  void Report(const SourceLocation& location, const std::string& subject,
              const std::string& message) {
    ++error_count_;
    if (static_cast<int>(messages_.size()) >= std::max(1, options_.max_errors)) return;
    std::string body = subject.empty() ? message : absl::StrCat(subject, ": ", message);
    messages_.push_back(Locate(location, body));
  }

  std::string Locate(const SourceLocation& loc, const std::string& message) const {
    const std::string* text = module_.source_text.get();
    return FormatSourceMessage(module_.source_name, loc.line, loc.column,
                               text != nullptr ? std::string_view(*text) : std::string_view(),
                               text != nullptr && loc.line > 0 ? loc.offset : std::string_view::npos,
                               message);
  }

  static std::string Subject(const HloInstruction& instr) {
    return absl::StrFormat("%%%s (%s)", instr.name(), HloOpcodeName(instr.opcode()));
  }

  void CheckModule() {
    const HloComputation* entry = module_.entry();
    if (entry == nullptr) {
      Report({}, "", absl::StrFormat("module %s has no entry computation", module_.name()));
      return;
    }
    keys_.ReserveFor(module_);
    if (absl::Status counts = ValidateInstanceCounts(ctx_.replica_count, ctx_.num_partitions);
        !counts.ok()) {
      // The collectives' rules multiply the counts: they are not run.
      Report({}, "", std::string(counts.message()));
      counts_ok_ = false;
    }
    CheckEntryLayoutShapes(*entry);
    absl::flat_hash_set<std::string> computation_names;
    for (const auto& c : module_.computations()) {
      keys_.Add(ModuleNameKeys::Key(c->name()));
      if (!computation_names.insert(c->name()).second) {
        Report(c->location(), "",
               absl::StrFormat("computation name %s is not unique", c->name()));
      }
    }
    if (module_.entry_parameter_layouts.has_value()) {
      const auto& params = *module_.entry_parameter_layouts;
      if (static_cast<int64_t>(params.size()) != entry->parameter_count()) {
        Report(entry->location(), "",
               absl::StrFormat("entry_computation_layout has %d parameters but the entry "
                               "computation %s has %d",
                               params.size(), entry->name(), entry->parameter_count()));
      } else {
        for (int64_t i = 0; i < entry->parameter_count(); ++i) {
          const HloInstruction* p = entry->parameter(i);
          if (p != nullptr &&
              !ShapesCompatible(params[i], p->shape(), options_.allow_mixed_precision)) {
            Report(p->location(), Subject(*p),
                   absl::StrFormat("entry_computation_layout gives parameter %d the shape %s "
                                   "but the parameter is declared %s",
                                   i, ShapeText(params[i]), ShapeText(p->shape())));
            failed_.insert(p);
          }
        }
      }
    }
    if (module_.entry_result_layout.has_value() && entry->root() != nullptr &&
        !ShapesCompatible(*module_.entry_result_layout, entry->root()->shape(),
                          options_.allow_mixed_precision)) {
      Report(entry->root()->location(), Subject(*entry->root()),
             absl::StrFormat("entry_computation_layout gives the result the shape %s but the "
                             "entry computation's root is %s",
                             ShapeText(*module_.entry_result_layout),
                             ShapeText(entry->root()->shape())));
    }
  }

  // The shapes of entry_computation_layout come from outside too.
  void CheckEntryLayoutShapes(const HloComputation& entry) {
    auto check = [&](const Shape& shape, const std::string& what) {
      if (absl::Status valid = ValidateShape(shape); !valid.ok()) {
        Report(entry.location(), "",
               absl::StrCat("entry_computation_layout: ", what, ": ", valid.message()));
      }
    };
    if (module_.entry_parameter_layouts.has_value()) {
      for (size_t i = 0; i < module_.entry_parameter_layouts->size(); ++i) {
        check((*module_.entry_parameter_layouts)[i], absl::StrCat("parameter ", i));
      }
    }
    if (module_.entry_result_layout.has_value()) check(*module_.entry_result_layout, "result");
  }

  void CheckLayout(const HloInstruction& instr, const Shape& shape) {
    if (shape.IsTuple()) {
      for (const Shape& s : shape.tuple_shapes()) CheckLayout(instr, s);
      return;
    }
    if (!shape.IsArray() || !shape.has_layout()) return;
    const auto& m2m = shape.layout().minor_to_major;
    if (m2m.empty() && shape.rank() > 0) return;  // `{}` is taken as "no layout"
    if (!IsPermutation(m2m, shape.rank())) {
      Report(instr.location(), Subject(instr),
             absl::StrFormat("layout %s is not valid for the shape %s: minor_to_major must "
                             "list each of its %d dimensions once",
                             shape.layout().ToString(), ShapeText(shape), shape.rank()));
    }
  }

  void CheckComputation(const HloComputation& c) {
    const int64_t errors_before = error_count_;
    if (c.root() == nullptr) {
      Report(c.location(), "", absl::StrFormat("computation %s has no ROOT instruction", c.name()));
    } else if (c.root()->parent() != &c) {
      Report(c.location(), "",
             absl::StrFormat("the ROOT of computation %s belongs to another computation",
                             c.name()));
    }
    if (c.instruction_count() == 0) {
      Report(c.location(), "", absl::StrFormat("computation %s is empty", c.name()));
    }
    // Parameters: numbers 0..n-1, each once.
    absl::flat_hash_map<int64_t, const HloInstruction*> params;
    int64_t param_count = 0;
    for (const auto& instr : c.instructions()) {
      if (instr->opcode() != HloOpcode::kParameter) continue;
      ++param_count;
      auto [it, inserted] = params.emplace(instr->parameter_number, instr.get());
      if (!inserted) {
        Report(instr->location(), Subject(*instr),
               absl::StrFormat("parameter number %d is used twice in computation %s (also by "
                               "%%%s)",
                               instr->parameter_number, c.name(), it->second->name()));
      }
    }
    for (const auto& [number, instr] : params) {
      if (number < 0 || number >= param_count) {
        Report(instr->location(), Subject(*instr),
               absl::StrFormat("parameter number %d is out of range: computation %s has %d "
                               "parameters, numbered 0 to %d",
                               number, c.name(), param_count, param_count - 1));
      }
    }
    exact_names_for_ = nullptr;
    seen_.clear();
    seen_.reserve(c.instructions().size());
    forward_reference_ = false;
    for (const auto& instr : c.instructions()) {
      CheckInstruction(c, *instr);
      seen_.insert(instr.get());
    }
    // Written order is a topological order unless something refers forward;
    // only then can there be a cycle.
    if (forward_reference_) CheckAcyclic(c);
    if (error_count_ > errors_before) failed_computations_.insert(&c);
  }

  void CheckInstruction(const HloComputation& c, const HloInstruction& instr) {
    if (!UniqueInComputation(c, instr)) {
      Report(instr.location(), Subject(instr),
             absl::StrFormat("instruction name %s is not unique in computation %s",
                             instr.name(), c.name()));
    }
    bool operands_ok = true;
    for (int64_t i = 0; i < instr.operand_count(); ++i) {
      const HloInstruction* o = instr.operand(i);
      if (o == nullptr) {
        Report(instr.location(), Subject(instr), absl::StrFormat("operand %d is missing", i));
        operands_ok = false;
      } else if (o->parent() != &c) {
        Report(instr.location(), Subject(instr),
               absl::StrFormat("operand %d (%%%s) is not in computation %s", i, o->name(),
                               c.name()));
        operands_ok = false;
      } else if (!seen_.contains(o)) {
        forward_reference_ = true;
      }
    }
    for (const HloInstruction* p : instr.control_predecessors()) {
      if (p == nullptr || p->parent() != &c) {
        Report(instr.location(), Subject(instr),
               "a control predecessor is not in the same computation");
      } else if (!seen_.contains(p)) {
        forward_reference_ = true;
      }
    }
    for (const HloComputation* called : instr.called_computations()) {
      if (called != nullptr && failed_computations_.contains(called)) {
        operands_ok = false;  // its errors are reported; its signature is in doubt
      }
      if (called == nullptr) {
        Report(instr.location(), Subject(instr), "a called computation is missing");
        operands_ok = false;
      } else if (called == module_.entry()) {
        Report(instr.location(), Subject(instr),
               absl::StrFormat("calls the entry computation %s", called->name()));
      }
    }
    CheckLayout(instr, instr.shape());
    // Shape rules (and the compiler's plans) may multiply the dimensions
    // of valid shapes freely; with an invalid one, only it is reported.
    absl::Status valid = ValidateShape(instr.shape());
    if (valid.ok() && !options_.allow_unbounded_dynamic) {
      valid = CheckNoUnboundedDimension(instr.shape());
    }
    if (!valid.ok()) {
      Report(instr.location(), Subject(instr), std::string(valid.message()));
      failed_.insert(&instr);
      return;
    }
    for (const HloInstruction* o : instr.operands()) {
      if (o != nullptr && !ValidateShape(o->shape()).ok()) operands_ok = false;
      // An operand already reported: what its users would say about its
      // shape follows from that one error.
      if (o != nullptr && failed_.contains(o)) operands_ok = false;
    }
    if (!operands_ok) {
      failed_.insert(&instr);
      return;
    }

    InferContext ctx = ctx_;
    ctx.declared = &instr.shape();
    absl::StatusOr<Shape> inferred = InferShape(instr, ctx);
    if (!inferred.ok()) {
      Report(instr.location(), Subject(instr), std::string(inferred.status().message()));
      failed_.insert(&instr);
      return;
    }
    if (!options_.allow_mixed_precision) {
      if (std::string mixed = MixedPrecisionOperands(instr); !mixed.empty()) {
        Report(instr.location(), Subject(instr), mixed);
        failed_.insert(&instr);
        return;
      }
    }
    const bool fp = options_.allow_mixed_precision;
    bool same = ShapesCompatible(*inferred, instr.shape(), fp);
    if (same && options_.layout_sensitive) same = LayoutsMatch(*inferred, instr.shape());
    if (!same) {
      failed_.insert(&instr);
      Report(instr.location(), Subject(instr),
             absl::StrFormat(
                 "inferred shape %s does not match the declared shape %s",
                 options_.layout_sensitive ? inferred->ToString() : ShapeText(*inferred),
                 options_.layout_sensitive ? instr.shape().ToString() : ShapeText(instr.shape())));
    }
  }

  // The two float types an instruction's operands mix, as a message; empty
  // when they do not. Ops that pass values through or group them (XLA's
  // list), and the contractions whose kernels take mixed inputs, may mix.
  static std::string MixedPrecisionOperands(const HloInstruction& instr) {
    switch (instr.opcode()) {
      case HloOpcode::kCall: case HloOpcode::kConditional: case HloOpcode::kConstant:
      case HloOpcode::kConvolution: case HloOpcode::kDot: case HloOpcode::kRaggedDot:
      case HloOpcode::kScaledDot: case HloOpcode::kAllReduce: case HloOpcode::kAllReduceStart:
      case HloOpcode::kAllReduceDone: case HloOpcode::kAsyncDone: case HloOpcode::kAsyncUpdate:
      case HloOpcode::kAsyncStart: case HloOpcode::kCopyDone: case HloOpcode::kCopyStart:
      case HloOpcode::kCustomCall: case HloOpcode::kDomain: case HloOpcode::kFusion:
      case HloOpcode::kGetTupleElement: case HloOpcode::kOptimizationBarrier:
      case HloOpcode::kInfeed: case HloOpcode::kOutfeed: case HloOpcode::kParameter:
      case HloOpcode::kRecv: case HloOpcode::kRecvDone: case HloOpcode::kReducePrecision:
      case HloOpcode::kSend: case HloOpcode::kSendDone: case HloOpcode::kSort:
      case HloOpcode::kTuple: case HloOpcode::kWhile: case HloOpcode::kConvert:
      case HloOpcode::kBitcastConvert: case HloOpcode::kStochasticConvert:
      case HloOpcode::kAddDependency: case HloOpcode::kAfterAll:
        return "";
      default:
        break;
    }
    std::optional<ElementType> seen;
    std::string found;
    std::function<void(const Shape&)> visit = [&](const Shape& s) {
      if (!found.empty()) return;
      if (s.IsTuple()) {
        for (const Shape& e : s.tuple_shapes()) visit(e);
        return;
      }
      if (!s.IsArray() || !IsFloatingPoint(s.element_type())) return;
      if (!seen.has_value()) {
        seen = s.element_type();
      } else if (*seen != s.element_type()) {
        found = absl::StrFormat(
            "operands mix the floating-point types %s and %s; hlovm computes %s in one type "
            "(convert an operand first)",
            ElementTypeName(*seen), ElementTypeName(s.element_type()),
            HloOpcodeName(instr.opcode()));
      }
    };
    for (const HloInstruction* o : instr.operands()) visit(o->shape());
    return found;
  }

  static bool LayoutsMatch(const Shape& a, const Shape& b) {
    if (a.IsTuple()) {
      for (int64_t i = 0; i < a.tuple_size(); ++i) {
        if (!LayoutsMatch(a.tuple_shape(i), b.tuple_shape(i))) return false;
      }
      return true;
    }
    if (!a.IsArray() || !a.has_layout() || !b.has_layout()) return true;
    return a.layout().minor_to_major == b.layout().minor_to_major;
  }

  // Operands and control predecessors must form a DAG.
  void CheckAcyclic(const HloComputation& c) {
    enum class Mark : uint8_t { kNone, kActive, kDone };
    absl::flat_hash_map<const HloInstruction*, Mark> mark;
    for (const auto& start : c.instructions()) {
      if (mark[start.get()] != Mark::kNone) continue;
      // Iterative DFS: (instruction, next edge index).
      std::vector<std::pair<const HloInstruction*, size_t>> stack;
      stack.push_back({start.get(), 0});
      mark[start.get()] = Mark::kActive;
      while (!stack.empty()) {
        auto& [node, next] = stack.back();
        const size_t n_ops = node->operands().size();
        const size_t n_edges = n_ops + node->control_predecessors().size();
        if (next >= n_edges) {
          mark[node] = Mark::kDone;
          stack.pop_back();
          continue;
        }
        const HloInstruction* succ = next < n_ops ? node->operands()[next]
                                                  : node->control_predecessors()[next - n_ops];
        ++next;
        if (succ == nullptr || succ->parent() != &c) continue;
        Mark& m = mark[succ];
        if (m == Mark::kActive) {
          Report(succ->location(), Subject(*succ),
                 absl::StrFormat("is part of a cycle in computation %s", c.name()));
          return;
        }
        if (m == Mark::kNone) {
          m = Mark::kActive;
          stack.push_back({succ, 0});
        }
      }
    }
  }

  // No computation may (transitively) call itself.
  void CheckCallGraph() {
    enum class Mark : uint8_t { kNone, kActive, kDone };
    absl::flat_hash_map<const HloComputation*, Mark> mark;
    for (const auto& start : module_.computations()) {
      if (mark[start.get()] != Mark::kNone) continue;
      std::vector<std::pair<const HloComputation*, std::vector<const HloComputation*>>> stack;
      auto callees = [](const HloComputation* c) {
        std::vector<const HloComputation*> out;
        for (const auto& i : c->instructions()) {
          for (const HloComputation* callee : i->called_computations()) {
            if (callee != nullptr) out.push_back(callee);
          }
        }
        return out;
      };
      stack.push_back({start.get(), callees(start.get())});
      mark[start.get()] = Mark::kActive;
      while (!stack.empty()) {
        auto& [comp, pending] = stack.back();
        if (pending.empty()) {
          mark[comp] = Mark::kDone;
          stack.pop_back();
          continue;
        }
        const HloComputation* next = pending.back();
        pending.pop_back();
        Mark& m = mark[next];
        if (m == Mark::kActive) {
          Report(next->location(), "",
                 absl::StrFormat("computation %s calls itself (recursion is not allowed)",
                                 next->name()));
          return;
        }
        if (m == Mark::kNone) {
          m = Mark::kActive;
          stack.push_back({next, callees(next)});
        }
      }
    }
  }

  // Whether no instruction of `c` before `instr` has its name. Every name
  // goes into the module's keys; only where a key was there already (the
  // name is in another computation too, or repeats in this one, or rarely
  // shares its hash) are `c`'s names looked at one by one, from then on.
  bool UniqueInComputation(const HloComputation& c, const HloInstruction& instr) {
    const bool new_key = keys_.Add(ModuleNameKeys::Key(instr.name()));
    if (new_key && exact_names_for_ != &c) return true;
    if (exact_names_for_ != &c) {
      exact_names_for_ = &c;
      names_.clear();
      for (const auto& before : c.instructions()) {
        if (before.get() == &instr) break;
        names_.insert(before->name());
      }
    }
    return names_.insert(instr.name()).second;
  }

  const HloModule& module_;
  const VerifyOptions& options_;
  InferContext ctx_;
  SignatureCache signatures_;
  // The module's names; per computation being checked: its instruction
  // names where they are looked at one by one (UniqueInComputation), the
  // instructions before the current one, and whether an operand or control
  // predecessor referred forward.
  ModuleNameKeys keys_;
  const HloComputation* exact_names_for_ = nullptr;
  absl::flat_hash_set<std::string_view> names_;
  absl::flat_hash_set<const HloInstruction*> seen_;
  bool forward_reference_ = false;
  // Instructions reported (or skipped for an operand that was): their users
  // are not checked against them, so one mistake is one error.
  absl::flat_hash_set<const HloInstruction*> failed_;
  // Computations with an error: instructions calling them are not checked
  // against their signature.
  absl::flat_hash_set<const HloComputation*> failed_computations_;
  bool counts_ok_ = true;  // replica and partition counts
  std::vector<std::string> messages_;
  int64_t error_count_ = 0;
};

}  // namespace

absl::Status VerifyModule(const HloModule& module, const VerifyOptions& options) {
  return Verifier(module, options).Run();
}

namespace {

absl::StatusOr<Shape> InferWithCounts(const HloInstruction& instruction, int64_t replica_count,
                                      int64_t num_partitions, bool* needed_declared) {
  SignatureCache signatures;
  InferContext ctx;
  ctx.signatures = &signatures;
  ctx.replica_count = replica_count;
  ctx.num_partitions = num_partitions;
  ctx.needed_declared = needed_declared;
  for (const HloInstruction* o : instruction.operands()) {
    if (o == nullptr) return Invalid("an operand is missing");
    HLOVM_RETURN_IF_ERROR(ValidateShape(o->shape()));
  }
  HLOVM_ASSIGN_OR_RETURN(Shape inferred, InferShape(instruction, ctx));
  HLOVM_RETURN_IF_ERROR(ValidateShape(inferred));
  return inferred;
}

}  // namespace

absl::StatusOr<Shape> InferInstructionShape(const HloInstruction& instruction) {
  int64_t replica_count = 1, num_partitions = 1;
  if (instruction.parent() != nullptr && instruction.parent()->parent() != nullptr) {
    replica_count = instruction.parent()->parent()->replica_count;
    num_partitions = instruction.parent()->parent()->num_partitions;
  }
  return InferWithCounts(instruction, replica_count, num_partitions, nullptr);
}

absl::StatusOr<Shape> InferInstructionShape(const HloInstruction& instruction,
                                            const HloModule& module, bool* needs_declared_shape) {
  *needs_declared_shape = false;
  return InferWithCounts(instruction, module.replica_count, module.num_partitions,
                         needs_declared_shape);
}

}  // namespace hlovm
