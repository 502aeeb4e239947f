// Inputs of an entry computation given on the command line (`hlovm run`,
// `hlovm bench`, the REPL's `:run`): HLO literals, bare values that take the
// parameter's shape, .npy files, or deterministic random values.
#ifndef HLOVM_REPL_INPUTS_H_
#define HLOVM_REPL_INPUTS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/literal.h"
#include "core/shape.h"

namespace hlovm {

// Fills `literal` (tuples too) with deterministic small random values from
// `seed` (SplitMix64): integers in [-8, 8] (or the type's range), floats in
// [-1, 1) on a 2^-23 grid, predicates true or false.
absl::Status FillRandom(Literal* literal, uint64_t seed);

// The seed `hlovm run --random --seed=SEED` uses for parameter `index`.
uint64_t RandomSeedForParameter(uint64_t seed, int64_t index);

// One input for a parameter of shape `parameter`: a `.npy` path (converted to
// types NumPy lacks: bf16 and 8-bit floats from float files, s4/u4... from
// 8-bit integer files), an HLO literal (`f32[2] {1, 2}`), or a bare value
// (`{1, 2}`, `3.5`) that takes the parameter's shape.
absl::StatusOr<Literal> ParseInput(const std::string& arg, const Shape& parameter);

// The arguments of an entry computation: with `random`, every parameter
// filled by FillRandom (and `inputs` must be empty); otherwise one input per
// parameter, each checked against its parameter's shape. Errors are
// InvalidArgument with a message naming the input (`what` names the module
// in the count mismatch message).
absl::StatusOr<std::vector<Literal>> MakeArguments(const std::vector<Shape>& parameters,
                                                   const std::vector<std::string>& inputs,
                                                   bool random, uint64_t seed,
                                                   const std::string& what);

}  // namespace hlovm

#endif  // HLOVM_REPL_INPUTS_H_
