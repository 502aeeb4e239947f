// The shape rule of every opcode, in one place: the verifier checks each
// declared result shape against it, and the parser (and the REPL) fill in a
// shape the text leaves out with it. Each rule itself is an op family's
// function in ops/*_shape.h; this file says which one applies to an
// instruction and what it reads from the instruction's operands,
// attributes and called computations.
#ifndef HLOVM_FRONTEND_SHAPE_INFERENCE_H_
#define HLOVM_FRONTEND_SHAPE_INFERENCE_H_

#include <cstdint>
#include <unordered_map>

#include "absl/status/statusor.h"
#include "core/hlo_ir.h"
#include "core/shape.h"
#include "ops/common/common_shape.h"

namespace hlovm {

// Signatures of called computations, computed once per computation
// (references stay valid as entries are added).
using ComputationSignatureCache = std::unordered_map<const HloComputation*, ComputationSignature>;

// What a shape rule may consult beyond the instruction itself.
struct ShapeInferenceContext {
  int64_t replica_count = 1;
  int64_t num_partitions = 1;
  // The declared result shape, for ops whose result dimensions or element
  // type are given rather than derived. Null when inferring a shape the
  // text left out.
  const Shape* declared = nullptr;
  ComputationSignatureCache* signatures = nullptr;  // never null while inferring
  // Where not null: set when the rule needed the declared shape and there
  // was none (the op's result is not derived from operands and attributes).
  bool* needed_declared = nullptr;
};

// The result shape of `instr` by its opcode's rule, or the rule's error.
// Checks the operand count against the opcode list's arity and, for
// collectives, the replica groups against the context's counts.
absl::StatusOr<Shape> InferShape(const HloInstruction& instr, const ShapeInferenceContext& ctx);

// Infers the result shape of `instruction` from its operands' shapes and its
// attributes (the shape the REPL fills in when a line omits it). Fails for
// ops whose result cannot be derived from operands (parameter, broadcast,
// reshape, iota, convert, custom-call, ...) and when the op's rule rejects
// the operands.
absl::StatusOr<Shape> InferInstructionShape(const HloInstruction& instruction);
// The same, for an instruction not yet added to `module` (the parser's, where
// the text leaves the shape out): the module gives the replica and
// partition counts. *needs_declared_shape is set when the op's result is not
// derived from its operands and attributes at all (the text must write it).
absl::StatusOr<Shape> InferInstructionShape(const HloInstruction& instruction,
                                            const HloModule& module, bool* needs_declared_shape);

}  // namespace hlovm

#endif  // HLOVM_FRONTEND_SHAPE_INFERENCE_H_
