// Handlers for elementwise instructions whose kernel runs whole on the
// calling thread (scalars and other small arrays, the bulk of a loop's
// bookkeeping): the kernel is the handler's template argument, so the call
// through the plan's kernel pointer disappears and, for one element, the
// kernel's loop is inlined to a single operation. The handler runs the very
// kernel the general handler would call, so results are identical.
#ifndef HLOVM_OPS_ELEMENTWISE_SCALAR_HANDLERS_H_
#define HLOVM_OPS_ELEMENTWISE_SCALAR_HANDLERS_H_

#include <cstdint>

#include "ops/elementwise/elementwise.h"
#include "vm/bytecode.h"

namespace hlovm {
namespace vm {

// The plan the handlers below read: the element count.
struct DirectElementwisePlan {
  int64_t n;
};

// A handler that computes `kernel` over the instruction's operands with no
// chunking: for one element (`n` == 1, plan unused) or for `n` elements read
// from a DirectElementwisePlan. Null when `kernel` is not one of the
// kernels with such a handler (the caller keeps the general handler).
Handler DirectBinaryHandler(BinaryKernel kernel, bool one_element);

// A compare of one element of each operand, returning its result: what the
// one-element compare handler stores, for a caller that branches on it at
// once (a while loop evaluating its condition in place).
using ScalarPredicate = bool (*)(const uint8_t* lhs, const uint8_t* rhs);
// The predicate `handler` computes, when it is a one-element compare handler
// from DirectBinaryHandler; else null.
ScalarPredicate ScalarPredicateOf(Handler handler);

}  // namespace vm
}  // namespace hlovm

#endif  // HLOVM_OPS_ELEMENTWISE_SCALAR_HANDLERS_H_
