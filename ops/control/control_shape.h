// Shape rules of the structural ops: tuple, get-tuple-element, call, fusion,
// while, conditional, async-start/-update/-done, after-all, add-dependency,
// opt-barrier, partition-id, replica-id, infeed/outfeed and send/recv.
#ifndef HLOVM_OPS_CONTROL_CONTROL_SHAPE_H_
#define HLOVM_OPS_CONTROL_CONTROL_SHAPE_H_

#include <cstdint>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/shape.h"
#include "ops/common/common_shape.h"

namespace hlovm {

absl::StatusOr<Shape> InferTupleShape(absl::Span<const Shape* const> operands);
absl::StatusOr<Shape> InferGetTupleElementShape(const Shape& tuple, int64_t index);
// call/fusion/async computations: operands must fit the callee's parameters;
// the result is the callee's. `op` names the caller in messages.
absl::StatusOr<Shape> InferCallShape(std::string_view op,
                                     absl::Span<const Shape* const> operands,
                                     const ComputationSignature& callee);
absl::StatusOr<Shape> InferWhileShape(const ComputationSignature& condition,
                                      const ComputationSignature& body, const Shape& init);
// conditional(branch_index, operands...): one operand per branch.
absl::StatusOr<Shape> InferConditionalShape(
    const Shape& branch_index, absl::Span<const ComputationSignature> branches,
    absl::Span<const Shape* const> branch_operands);
// async-start -> ((operands...), callee result, contexts...). The contexts
// come from `declared` (they are implementation state, not inferable).
absl::StatusOr<Shape> InferAsyncStartShape(absl::Span<const Shape* const> operands,
                                           const ComputationSignature& callee,
                                           const Shape& declared);
// async-update(start) -> start.
absl::StatusOr<Shape> InferAsyncUpdateShape(const Shape& start);
// async-done(start) -> element 1 of the start's tuple.
absl::StatusOr<Shape> InferAsyncDoneShape(const Shape& start);
// after-all(operands...) -> token[]. Operands of any shape are allowed (they
// only order the token after themselves).
absl::StatusOr<Shape> InferAfterAllShape(absl::Span<const Shape* const> operands);
absl::StatusOr<Shape> InferAddDependencyShape(const Shape& operand, const Shape& token);
// partition-id and replica-id: u32[].
Shape InferDeviceIdShape();
// infeed(token) -> (data, token); the data shape comes from `declared`.
absl::StatusOr<Shape> InferInfeedShape(const Shape& token, const Shape& declared);
// outfeed(data, token) -> token.
absl::StatusOr<Shape> InferOutfeedShape(const Shape& data, const Shape& token);
// send(data, token) -> (data, u32[], token); send-done(send) -> token.
absl::StatusOr<Shape> InferSendShape(const Shape& data, const Shape& token);
absl::StatusOr<Shape> InferSendDoneShape(const Shape& send);
// recv(token) -> (data, u32[], token), data from `declared`;
// recv-done(recv) -> (data, token).
absl::StatusOr<Shape> InferRecvShape(const Shape& token, const Shape& declared);
absl::StatusOr<Shape> InferRecvDoneShape(const Shape& recv);

}  // namespace hlovm

#endif  // HLOVM_OPS_CONTROL_CONTROL_SHAPE_H_
