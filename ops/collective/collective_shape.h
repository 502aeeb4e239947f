// Shape rules of the collectives: all-reduce, all-gather, reduce-scatter,
// all-to-all, ragged-all-to-all, collective-permute, collective-broadcast
// and their -start/-done forms.
#ifndef HLOVM_OPS_COLLECTIVE_COLLECTIVE_SHAPE_H_
#define HLOVM_OPS_COLLECTIVE_COLLECTIVE_SHAPE_H_

#include <cstdint>
#include <optional>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/hlo_ir.h"
#include "core/shape.h"
#include "ops/common/common_shape.h"

namespace hlovm {

// How many participants each group of a collective has, by XLA's group
// modes: without channel_id the groups hold replicas (none: all replicas);
// with channel_id and use_global_device_ids=false they hold replicas and each
// spans every partition; with use_global_device_ids=true they hold flattened
// device ids; ops that have no use_global_device_ids attribute
// (`has_global_ids_attribute` false) group partitions when they have a
// channel_id. Returns nullopt when groups differ in size.
std::optional<int64_t> CollectiveGroupSize(const Boxed<ReplicaGroups>& groups,
                                           bool has_channel_id, bool has_global_ids_attribute,
                                           bool use_global_device_ids, int64_t replica_count,
                                           int64_t num_partitions);

// Checks replica_groups: no empty group and no id twice. With `complete`,
// also as XLA's verifier does for all-reduce, all-gather and reduce-scatter:
// every id 0..n-1 named, and n equal to `participants` (the replica count,
// the partition count or their product, by the op's group mode) unless that
// is 1 (unknown). With `uniform`, all groups have one size.
absl::Status CheckReplicaGroups(const ReplicaGroups& groups, int64_t participants,
                                bool complete, bool uniform);
// Checks source_target_pairs: ids non-negative, no source or target twice.
absl::Status CheckSourceTargetPairs(
    absl::Span<const std::pair<int64_t, int64_t>> pairs);

// all-reduce(operands...), to_apply=(T,T)->T: the operands' shapes.
absl::StatusOr<Shape> InferAllReduceShape(absl::Span<const Shape* const> operands,
                                          const ComputationSignature* to_apply);
// all-gather(operands...), dimensions={d}: dimension d grows `shard_count`
// times.
absl::StatusOr<Shape> InferAllGatherShape(absl::Span<const Shape* const> operands,
                                          int64_t dimension, int64_t shard_count);
// all-gather-start -> (operand(s), result(s)).
absl::StatusOr<Shape> InferAllGatherStartShape(absl::Span<const Shape* const> operands,
                                               int64_t dimension, int64_t shard_count);
// reduce-scatter(operands...), dimensions={d}: dimension d shrinks
// `shard_count` times.
absl::StatusOr<Shape> InferReduceScatterShape(absl::Span<const Shape* const> operands,
                                              int64_t dimension, int64_t shard_count,
                                              const ComputationSignature* to_apply);
// all-to-all(operands...), split_dimension= (array form): same shapes.
absl::StatusOr<Shape> InferAllToAllShape(absl::Span<const Shape* const> operands,
                                         std::optional<int64_t> split_dimension,
                                         std::optional<int64_t> split_count);
// ragged-all-to-all(input, output, input_offsets, send_sizes, output_offsets,
// recv_sizes) -> output.
absl::StatusOr<Shape> InferRaggedAllToAllShape(absl::Span<const Shape* const> operands);
// collective-permute / collective-broadcast of one or more operands.
absl::StatusOr<Shape> InferCollectivePermuteShape(absl::Span<const Shape* const> operands);
// collective-permute-start(operand) -> (operand, result, u32[], u32[]...);
// extra context elements come from `declared`.
absl::StatusOr<Shape> InferCollectivePermuteStartShape(absl::Span<const Shape* const> operands,
                                                       const Shape& declared);
// The -done of an asynchronous collective: element 1 of the start's tuple,
// or the start itself when it is not a tuple (all-reduce-start).
absl::StatusOr<Shape> InferCollectiveDoneShape(const Shape& start);

}  // namespace hlovm

#endif  // HLOVM_OPS_COLLECTIVE_COLLECTIVE_SHAPE_H_
