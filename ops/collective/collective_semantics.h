// The semantics of the collectives, apart from how their data moves: what
// each member of a group computes from the members' contributions (group
// order, packing by split/concat dimension, ragged rows, in-place permute
// slices, the reduction in rank order with the module's reducer).
//
// A transport (a CollectiveBus, vm/collective_bus.h) brings the members'
// contributions together (CollectiveBus::Meet); ComputeCollective writes
// this instance's results from them; CollectiveBus::Leave ends the meeting.
// RunCollective does the three. The same contributions give the same bits
// whatever the transport: every reduction folds the members' values left to
// right in rank order.
#ifndef HLOVM_OPS_COLLECTIVE_COLLECTIVE_SEMANTICS_H_
#define HLOVM_OPS_COLLECTIVE_COLLECTIVE_SEMANTICS_H_

#include <cstdint>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "vm/collective_bus.h"

namespace hlovm {

// Runs instance `rank`'s part of a collective; `peers` are the members'
// contributions by rank (their `in` buffers hold what each brings). With
// `shared_results` the members' `out` buffers may be written too: a large
// all-reduce then reduces one slice per member and writes it to every
// member's result; otherwise every member reduces the whole array.
absl::Status ComputeCollective(absl::Span<const CollectiveOp* const> peers, int64_t rank,
                               bool shared_results);

// Runs `op` when the group is this instance alone (no bus needed).
absl::Status RunCollectiveAlone(const CollectiveOp& op);

// Meets the group of `op` on `bus` as instance `self`, computes this
// instance's results, and leaves the meeting.
absl::Status RunCollective(CollectiveBus& bus, int64_t self, const CollectiveOp& op);

}  // namespace hlovm

#endif  // HLOVM_OPS_COLLECTIVE_COLLECTIVE_SEMANTICS_H_
