// Inputs of an entry computation given on the command line (`hlovm run`,
// `hlovm bench`, the REPL's `:run`): HLO literals, bare values that take the
// parameter's shape, .npy files and .npz archives as NumPy writes them, or
// deterministic random values. No input is padded, truncated or converted
// unless asked: every element must be given, and an element type that
// differs from the parameter's needs --convert-inputs.
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

// How the inputs of a run are made and checked.
struct InputOptions {
  // Every parameter filled by FillRandom from RandomSeedForParameter(seed, i)
  // (--random, --seed); no inputs may be given then.
  bool random = false;
  uint64_t seed = 0;
  // --convert-inputs: an input whose element type differs from its
  // parameter's is converted (ConvertElementType). Without it such an input
  // is an error that names both types and this flag.
  bool convert = false;
  // Say the seed of random inputs on stderr (off in the processes of an
  // mpirun job other than rank 0, which prints what one process would).
  bool announce = true;
};

// One input for a parameter of shape `parameter`, read and checked:
//   - a `.npy` file (raw 1-byte ml_dtypes files read as the parameter's type
//     when it is one of those);
//   - an HLO literal (`f32[2] {1, 2}`);
//   - a bare value that takes the parameter's shape (`{1, 2}`, `3.5`);
//   - `fill(VALUE)`: every element of an array parameter VALUE.
// Every element must be written: a single value for an array, or `{...}`,
// is an error (nothing is padded). The input's dimensions must be the
// parameter's; its element type too, unless `convert`. Errors are
// InvalidArgument and say what was given and what the parameter is.
absl::StatusOr<Literal> ParseInput(const std::string& arg, const Shape& parameter,
                                   bool convert = false);

// `input` converted to element type `to` (arrays; tuples element by
// element): floats round to nearest even (as NumPy's astype and XLA's
// convert do; too large values become infinities), integers and booleans
// convert exactly, a float becomes an integer only when it is one and fits,
// an integer must fit its new type, and complex values do not become real
// ones. InvalidArgument names the first element that cannot be converted.
absl::StatusOr<Literal> ConvertElementType(const Literal& input, ElementType to);

// The arguments of an entry computation with parameters `parameters` (named
// `names`; names may be empty): with `options.random`, every parameter
// filled by FillRandom (and `inputs` must be empty); otherwise one input per
// parameter (see ParseInput). A `.npz` archive stands for its arrays in
// archive order; when it is the only input and every parameter's name is
// the name of one of its arrays, the arrays are matched by name instead.
// Errors are InvalidArgument with a message naming the input and the
// parameter (`what` names the module in the count mismatch message).
absl::StatusOr<std::vector<Literal>> MakeArguments(const std::vector<Shape>& parameters,
                                                   const std::vector<std::string>& names,
                                                   const std::vector<std::string>& inputs,
                                                   const InputOptions& options,
                                                   const std::string& what);

// Writes `arguments` (named `names`, which may repeat or be empty) for a
// later run: into `path` as FILE.npz with one array per parameter (entries
// named after the parameters, so that `hlovm run` matches them by name), or
// into the directory `path` (created when its parent exists) as
// NN_NAME.npy files that sort in parameter order. Types NumPy lacks are
// written as ml_dtypes writes them, so that they read back exactly. Returns
// the files written.
absl::StatusOr<std::vector<std::string>> SaveInputs(const std::vector<Literal>& arguments,
                                                    const std::vector<std::string>& names,
                                                    const std::string& path);

// MakeArguments as `hlovm run` and `hlovm bench` use it: with
// `options.random` it prints the seed on stderr ("hlovm: random inputs,
// --seed=N"), so that the run can be repeated; with `save_path` it saves the
// arguments there (SaveInputs) and lists the files on stderr.
absl::StatusOr<std::vector<Literal>> PrepareArguments(const std::vector<Shape>& parameters,
                                                      const std::vector<std::string>& names,
                                                      const std::vector<std::string>& inputs,
                                                      const InputOptions& options,
                                                      const std::string& save_path,
                                                      const std::string& what);

}  // namespace hlovm

#endif  // HLOVM_REPL_INPUTS_H_
