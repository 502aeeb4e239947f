// The shape rule of every opcode (see shape_inference.h): which rule of
// ops/*_shape.h applies to an instruction, and what it reads from the
// instruction's operands, attributes and called computations.
#include "frontend/shape_inference.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "core/hlo_ir.h"
#include "core/hlo_opcode.h"
#include "core/shape.h"
#include "core/status_macros.h"
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

const ComputationSignature& SignatureOf(const ShapeInferenceContext& ctx, const HloComputation* c) {
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
    return Invalid(
        absl::StrFormat("%s needs a %s computation.", HloOpcodeName(instr.opcode()), role));
  }
  return instr.called_computations()[i];
}

absl::StatusOr<Shape> Declared(const ShapeInferenceContext& ctx, const HloInstruction& instr) {
  if (ctx.declared == nullptr) {
    if (ctx.needed_declared != nullptr) *ctx.needed_declared = true;
    return Invalid(
        absl::StrFormat("the result shape of %s cannot be inferred from its operands; write it",
                        HloOpcodeName(instr.opcode())));
  }
  return *ctx.declared;
}

absl::StatusOr<ElementType> DeclaredType(const ShapeInferenceContext& ctx,
                                         const HloInstruction& instr) {
  HLOVM_ASSIGN_OR_RETURN(Shape s, Declared(ctx, instr));
  return s.element_type();
}

std::optional<ElementType> PreferredType(const ShapeInferenceContext& ctx) {
  if (ctx.declared == nullptr || !ctx.declared->IsArray()) return std::nullopt;
  return ctx.declared->element_type();
}

// The number of shards of an all-gather (`gather`) or reduce-scatter along
// dimension `d`. As XLA's verifier does, it is read off the declared shape
// and must equal the collective's group size unless that size is 1 (unknown
// replica and partition counts); without a declared shape it is the group
// size.
absl::StatusOr<int64_t> ShardCount(const HloInstruction& instr, const ShapeInferenceContext& ctx,
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
  const Shape& out =
      ctx.declared->IsTuple() && ctx.declared->tuple_size() > 0
          ? (instr.opcode() == HloOpcode::kAllGatherStart && ctx.declared->tuple_size() == 2
                 ? ctx.declared->tuple_shape(1)
                 : ctx.declared->tuple_shape(0))
          : *ctx.declared;
  const Shape& out_array = out.IsTuple() && out.tuple_size() > 0 ? out.tuple_shape(0) : out;
  if (!in.IsArray() || !out_array.IsArray() || d < 0 || d >= in.rank() || d >= out_array.rank()) {
    return group.value_or(1);
  }
  const int64_t num = gather ? out_array.dimensions(d) : in.dimensions(d);
  const int64_t den = gather ? in.dimensions(d) : out_array.dimensions(d);
  if (den <= 0) return group.value_or(1);
  const int64_t shards = num / den + (num % den != 0 ? 1 : 0);
  if (group.has_value() && *group != 1 && *group != shards) {
    return Invalid(absl::StrFormat(
        "the shape implies %d shards along dimension %d but the replica group size is %d", shards,
        d, *group));
  }
  return shards;
}

// Checks the replica_groups or source_target_pairs of a collective.
absl::Status CheckCollectiveGroups(const HloInstruction& instr, const ShapeInferenceContext& ctx) {
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
  const bool gather_or_scatter = op == HloOpcode::kAllGather || op == HloOpcode::kAllGatherStart ||
                                 op == HloOpcode::kReduceScatter;
  const bool complete =
      gather_or_scatter || op == HloOpcode::kAllReduce || op == HloOpcode::kAllReduceStart;
  return CheckReplicaGroups(*instr.attrs().replica_groups, participants, complete,
                            /*uniform=*/gather_or_scatter);
}

}  // namespace

// The shape rule of every opcode, by opcode.
absl::StatusOr<Shape> InferShape(const HloInstruction& instr, const ShapeInferenceContext& ctx) {
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
        return Invalid(
            absl::StrFormat("convolution takes 2 operands, got %d.", instr.operand_count()));
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
      return InferBatchNormGradShape(operand(0), operand(1), operand(2), operand(3), operand(4),
                                     instr.attrs().feature_index);

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
        const std::optional<int64_t> group =
            CollectiveGroupSize(instr.attrs().replica_groups, instr.attrs().channel_id.has_value(),
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
  return absl::UnimplementedError(absl::StrFormat("no shape rule for %s", HloOpcodeName(op)));
}

namespace {

absl::StatusOr<Shape> InferWithCounts(const HloInstruction& instruction, int64_t replica_count,
                                      int64_t num_partitions, bool* needed_declared) {
  ComputationSignatureCache signatures;
  ShapeInferenceContext ctx;
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
