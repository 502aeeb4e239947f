#include "ops/collective/collective_shape.h"

#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_format.h"
#include "core/status_macros.h"
#include "ops/reduce/reduce_shape.h"

namespace hlovm {
namespace {

absl::Status Invalid(const std::string& message) { return absl::InvalidArgumentError(message); }

Shape OneOrTuple(std::vector<Shape> shapes) {
  if (shapes.size() == 1) return std::move(shapes[0]);
  return Shape::Tuple(std::move(shapes));
}

absl::Status CheckReducer(absl::Span<const Shape* const> operands,
                          const ComputationSignature* to_apply) {
  if (to_apply == nullptr) return absl::OkStatus();
  for (const Shape* s : operands) {
    if (!s->IsArray()) continue;
    Shape init = ScalarShape(s->element_type());
    const Shape* init_ptr = &init;
    ElementType type = s->element_type();
    HLOVM_RETURN_IF_ERROR(VerifyReducerShape(*to_apply, {&init_ptr, 1}, {&type, 1}));
  }
  return absl::OkStatus();
}

// Applies `fn` to each operand's array shape (operands may be tuples of
// arrays in some collectives' older forms).
template <typename Fn>
absl::StatusOr<Shape> PerOperand(absl::Span<const Shape* const> operands, Fn fn) {
  std::vector<Shape> results;
  for (const Shape* s : operands) {
    HLOVM_ASSIGN_OR_RETURN(Shape r, fn(*s));
    results.push_back(std::move(r));
  }
  return OneOrTuple(std::move(results));
}

}  // namespace

std::optional<int64_t> CollectiveGroupSize(const Boxed<ReplicaGroups>& groups,
                                           bool has_channel_id, bool has_global_ids_attribute,
                                           bool use_global_device_ids, int64_t replica_count,
                                           int64_t num_partitions) {
  std::optional<int64_t> group_size;
  if (groups.has_value() && !groups->groups.empty()) {
    const size_t size = groups->groups[0].size();
    for (const auto& g : groups->groups) {
      if (g.size() != size) return std::nullopt;
    }
    group_size = static_cast<int64_t>(size);
  }
  if (!has_channel_id) return group_size.value_or(replica_count);  // cross-replica
  if (!has_global_ids_attribute) {                                   // cross-partition
    return group_size.value_or(num_partitions);
  }
  if (use_global_device_ids) {  // flattened ids
    return group_size.value_or(replica_count * num_partitions);
  }
  return group_size.value_or(replica_count) * num_partitions;  // cross replica and partition
}

absl::Status CheckReplicaGroups(const ReplicaGroups& groups, int64_t participants,
                                bool complete, bool uniform) {
  if (groups.groups.empty()) return absl::OkStatus();
  absl::flat_hash_set<int64_t> seen;
  for (const auto& g : groups.groups) {
    if (g.empty()) return Invalid("Instruction cannot have an empty replica group.");
    for (int64_t id : g) {
      if (!seen.insert(id).second) {
        return Invalid(absl::StrFormat("Replica %d is repeated in replica_groups.", id));
      }
    }
    if (uniform && g.size() != groups.groups[0].size()) {
      return Invalid("Replica groups expected to be of uniform size.");
    }
  }
  if (!complete) return absl::OkStatus();
  const int64_t n = static_cast<int64_t>(seen.size());
  for (int64_t i = 0; i < n; ++i) {
    if (!seen.contains(i)) {
      return Invalid(absl::StrFormat("Replica %d is not named in replica_groups.", i));
    }
  }
  if (participants != 1 && n != participants) {
    return Invalid(absl::StrFormat(
        "replica_groups should contain %d participants (replicas or partitions, by the "
        "op's mode), but found %d.",
        participants, n));
  }
  return absl::OkStatus();
}

absl::Status CheckSourceTargetPairs(absl::Span<const std::pair<int64_t, int64_t>> pairs) {
  absl::flat_hash_set<int64_t> sources, targets;
  for (const auto& [source, target] : pairs) {
    if (source < 0 || target < 0) {
      return Invalid(absl::StrFormat("Source-target pair {%d,%d} has a negative id.", source,
                                     target));
    }
    if (!sources.insert(source).second) {
      return Invalid(absl::StrFormat("Source %d appears more than once in source_target_pairs.",
                                     source));
    }
    if (!targets.insert(target).second) {
      return Invalid(absl::StrFormat("Target %d appears more than once in source_target_pairs.",
                                     target));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<Shape> InferAllReduceShape(absl::Span<const Shape* const> operands,
                                          const ComputationSignature* to_apply) {
  if (operands.empty()) return Invalid("all-reduce needs at least one operand.");
  for (const Shape* s : operands) {
    if (!s->IsArray() && !s->IsTuple()) {
      return Invalid(absl::StrFormat(
          "Expected array or tuple argument for all-reduce, but got %s.", ShapeText(*s)));
    }
  }
  HLOVM_RETURN_IF_ERROR(CheckReducer(operands, to_apply));
  return PerOperand(operands, [](const Shape& s) -> absl::StatusOr<Shape> { return s; });
}

absl::StatusOr<Shape> InferAllGatherShape(absl::Span<const Shape* const> operands,
                                          int64_t dimension, int64_t shard_count) {
  if (operands.empty()) return Invalid("all-gather needs at least one operand.");
  if (shard_count < 1) {
    return Invalid(absl::StrFormat("shard_count must be positive, got %d.", shard_count));
  }
  return PerOperand(operands, [&](const Shape& s) -> absl::StatusOr<Shape> {
    HLOVM_RETURN_IF_ERROR(ExpectArray(s, "operand of all-gather"));
    if (dimension < 0 || dimension >= s.rank()) {
      return Invalid(absl::StrFormat(
          "all_gather_dimension %d is out of range for operand %s.", dimension, ShapeText(s)));
    }
    std::vector<int64_t> dims(s.dimensions().begin(), s.dimensions().end());
    if (dims[dimension] != kUnboundedSize &&
        !CheckedMul(dims[dimension], shard_count, &dims[dimension])) {
      return DimensionOverflow("The gathered dimension");
    }
    return MakeArrayShape(s.element_type(), dims);
  });
}

absl::StatusOr<Shape> InferAllGatherStartShape(absl::Span<const Shape* const> operands,
                                               int64_t dimension, int64_t shard_count) {
  HLOVM_ASSIGN_OR_RETURN(Shape result, InferAllGatherShape(operands, dimension, shard_count));
  std::vector<Shape> inputs;
  for (const Shape* s : operands) inputs.push_back(*s);
  return Shape::Tuple({OneOrTuple(std::move(inputs)), std::move(result)});
}

absl::StatusOr<Shape> InferReduceScatterShape(absl::Span<const Shape* const> operands,
                                              int64_t dimension, int64_t shard_count,
                                              const ComputationSignature* to_apply) {
  if (operands.empty()) return Invalid("reduce-scatter needs at least one operand.");
  if (shard_count < 1) {
    return Invalid(absl::StrFormat("shard_count must be positive, got %d.", shard_count));
  }
  HLOVM_RETURN_IF_ERROR(CheckReducer(operands, to_apply));
  return PerOperand(operands, [&](const Shape& s) -> absl::StatusOr<Shape> {
    HLOVM_RETURN_IF_ERROR(ExpectArray(s, "operand of reduce-scatter"));
    if (dimension < 0 || dimension >= s.rank()) {
      return Invalid(absl::StrFormat(
          "scatter_dimension %d is out of range for operand %s.", dimension, ShapeText(s)));
    }
    std::vector<int64_t> dims(s.dimensions().begin(), s.dimensions().end());
    if (dims[dimension] != kUnboundedSize) {
      if (dims[dimension] % shard_count != 0) {
        return Invalid(absl::StrFormat(
            "ReduceScatter operand scatter dimension size %d must be dividable by "
            "shard_count %d.",
            dims[dimension], shard_count));
      }
      dims[dimension] /= shard_count;
    }
    return MakeArrayShape(s.element_type(), dims);
  });
}

absl::StatusOr<Shape> InferAllToAllShape(absl::Span<const Shape* const> operands,
                                         std::optional<int64_t> split_dimension,
                                         std::optional<int64_t> split_count) {
  if (operands.empty()) return Invalid("all-to-all needs at least one operand.");
  return PerOperand(operands, [&](const Shape& s) -> absl::StatusOr<Shape> {
    HLOVM_RETURN_IF_ERROR(ExpectArray(s, "operand of all-to-all"));
    if (split_dimension.has_value()) {
      const int64_t d = *split_dimension;
      if (d < 0 || d >= s.rank()) {
        return Invalid(absl::StrFormat("AllToAll split_dimension %d is out-of-bounds in %s.",
                                       d, ShapeText(s)));
      }
      if (split_count.has_value() && *split_count > 0 && s.dimensions(d) != kUnboundedSize &&
          s.dimensions(d) % *split_count != 0) {
        return Invalid(absl::StrFormat(
            "AllToAll split dimension size %d must be dividable by split_count %d.",
            s.dimensions(d), *split_count));
      }
    }
    return s;
  });
}

absl::StatusOr<Shape> InferRaggedAllToAllShape(absl::Span<const Shape* const> operands) {
  if (operands.size() != 6) {
    return Invalid(absl::StrFormat("ragged-all-to-all takes 6 operands, got %d.",
                                   operands.size()));
  }
  HLOVM_RETURN_IF_ERROR(ExpectArray(*operands[0], "input of ragged-all-to-all"));
  HLOVM_RETURN_IF_ERROR(ExpectArray(*operands[1], "output of ragged-all-to-all"));
  if (!SameElementTypeIgnoringFp(*operands[0], *operands[1])) {
    return Invalid(absl::StrFormat(
        "ragged-all-to-all input and output must have the same element type: %s vs %s.",
        ShapeText(*operands[0]), ShapeText(*operands[1])));
  }
  for (int i = 2; i < 6; ++i) {
    HLOVM_RETURN_IF_ERROR(ExpectArray(*operands[i], "offsets/sizes of ragged-all-to-all"));
    if (!IsInteger(operands[i]->element_type())) {
      return Invalid(absl::StrFormat(
          "ragged-all-to-all offsets and sizes must be integral, operand %d is %s.", i,
          ShapeText(*operands[i])));
    }
  }
  return *operands[1];
}

absl::StatusOr<Shape> InferCollectivePermuteShape(absl::Span<const Shape* const> operands) {
  if (operands.empty()) return Invalid("collective-permute needs at least one operand.");
  std::vector<Shape> results;
  for (const Shape* s : operands) results.push_back(*s);
  return OneOrTuple(std::move(results));
}

absl::StatusOr<Shape> InferCollectivePermuteStartShape(absl::Span<const Shape* const> operands,
                                                       const Shape& declared) {
  HLOVM_ASSIGN_OR_RETURN(Shape result, InferCollectivePermuteShape(operands));
  std::vector<Shape> elements;
  std::vector<Shape> inputs;
  for (const Shape* s : operands) inputs.push_back(*s);
  elements.push_back(OneOrTuple(std::move(inputs)));
  elements.push_back(std::move(result));
  if (declared.IsTuple()) {
    for (int64_t i = 2; i < declared.tuple_size(); ++i) elements.push_back(declared.tuple_shape(i));
  }
  return Shape::Tuple(std::move(elements));
}

absl::StatusOr<Shape> InferCollectiveDoneShape(const Shape& start) {
  if (start.IsTuple()) {
    if (start.tuple_size() < 2) {
      return Invalid(absl::StrFormat(
          "The operand of a collective -done must be its -start, got %s.", ShapeText(start)));
    }
    return start.tuple_shape(1);
  }
  return start;
}

}  // namespace hlovm
