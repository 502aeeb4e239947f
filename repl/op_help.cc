// `:help OPCODE`: each op's operands, attributes and a one-line meaning,
// written from the operation semantics the project implements.
#include <string>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "core/hlo_opcode.h"
#include "repl/session.h"

namespace hlovm {
namespace repl {
namespace {

struct OpHelp {
  absl::string_view name;
  absl::string_view operands;
  absl::string_view attributes;
  absl::string_view meaning;
};

constexpr OpHelp kOps[] = {
    {"abs", "x", "", "|x| elementwise (for complex: the modulus, a real result)"},
    {"add", "x, y", "", "x + y elementwise (same shapes; broadcast explicitly)"},
    {"after-all", "tokens...", "", "a token ordered after all operand tokens"},
    {"all-gather", "x...", "dimensions, replica_groups", "concatenates each replica's x along a dimension"},
    {"all-reduce", "x...", "to_apply, replica_groups", "combines x across replicas with the reducer"},
    {"all-to-all", "x...", "dimensions, replica_groups", "splits x and exchanges the pieces across replicas"},
    {"and", "x, y", "", "bitwise/logical and elementwise"},
    {"atan2", "y, x", "", "the angle of (x, y) elementwise"},
    {"batch-norm-grad", "operand, scale, mean, variance, grad_output", "epsilon, feature_index",
     "gradients of batch normalization"},
    {"batch-norm-inference", "operand, scale, offset, mean, variance", "epsilon, feature_index",
     "normalizes with given mean and variance"},
    {"batch-norm-training", "operand, scale, offset", "epsilon, feature_index",
     "normalizes over all but feature_index; returns (output, mean, variance)"},
    {"bitcast-convert", "x", "", "reinterprets the bits of x as another element type"},
    {"broadcast", "x", "dimensions", "copies x into a larger shape; dimensions maps x's dims into it"},
    {"call", "args...", "to_apply", "calls a computation"},
    {"cbrt", "x", "", "cube root elementwise"},
    {"ceil", "x", "", "rounds up elementwise"},
    {"cholesky", "a", "lower", "Cholesky factor of a symmetric positive definite matrix"},
    {"clamp", "min, x, max", "", "min(max(x, min), max) elementwise"},
    {"clz", "x", "", "count of leading zero bits"},
    {"compare", "x, y", "direction=EQ|NE|LT|LE|GT|GE, type", "pred result of comparing elementwise"},
    {"complex", "re, im", "", "builds complex numbers"},
    {"concatenate", "x...", "dimensions", "joins arrays along one dimension"},
    {"conditional", "index_or_pred, args...", "branch_computations | true/false_computation",
     "runs one branch computation on its argument"},
    {"constant", "literal", "", "a literal value: f32[2] constant({1, 2})"},
    {"convert", "x", "", "converts elements to the result's type (write the result shape)"},
    {"convolution", "lhs, rhs", "window, dim_labels, feature_group_count, batch_group_count",
     "N-d convolution (cross-correlation) of lhs with kernel rhs"},
    {"copy", "x", "", "x itself (possibly with another layout)"},
    {"cosine", "x", "", "cos(x) elementwise"},
    {"custom-call", "args...", "custom_call_target, backend_config", "calls a named target"},
    {"divide", "x, y", "", "x / y elementwise (integers truncate)"},
    {"dot", "lhs, rhs", "lhs/rhs_contracting_dims, lhs/rhs_batch_dims",
     "generalized matrix product: batch dims, then lhs free, then rhs free dims"},
    {"dynamic-slice", "x, starts...", "dynamic_slice_sizes", "a slice at run-time start indices (clamped)"},
    {"dynamic-update-slice", "x, update, starts...", "", "x with update written at run-time start indices"},
    {"erf", "x", "", "the error function elementwise"},
    {"exponential", "x", "", "e^x elementwise"},
    {"exponential-minus-one", "x", "", "e^x - 1 elementwise, exact near 0"},
    {"fft", "x", "fft_type=FFT|IFFT|RFFT|IRFFT, fft_length", "fast Fourier transform over the last dims"},
    {"floor", "x", "", "rounds down elementwise"},
    {"gather", "x, indices",
     "offset_dims, collapsed_slice_dims, start_index_map, index_vector_dim, slice_sizes",
     "collects slices of x starting at the indices"},
    {"get-tuple-element", "t", "index", "element `index` of tuple t"},
    {"imag", "z", "", "imaginary part elementwise"},
    {"iota", "", "iota_dimension", "0, 1, 2, ... along a dimension (write the result shape)"},
    {"is-finite", "x", "", "pred: x is neither Inf nor NaN"},
    {"log", "x", "", "natural logarithm elementwise"},
    {"log-plus-one", "x", "", "log(1 + x) elementwise, exact near 0"},
    {"logistic", "x", "", "1 / (1 + e^-x) elementwise"},
    {"map", "x...", "dimensions, to_apply", "applies a scalar computation elementwise"},
    {"maximum", "x, y", "", "max(x, y) elementwise (NaN wins)"},
    {"minimum", "x, y", "", "min(x, y) elementwise (NaN wins)"},
    {"multiply", "x, y", "", "x * y elementwise"},
    {"negate", "x", "", "-x elementwise"},
    {"not", "x", "", "bitwise/logical not"},
    {"optimization-barrier", "x", "", "x unchanged; stops reordering across it"},
    {"or", "x, y", "", "bitwise/logical or elementwise"},
    {"pad", "x, value", "padding=lo_hi_interior x ...", "pads each dimension (negative trims)"},
    {"parameter", "N", "", "the N-th argument of a computation"},
    {"popcnt", "x", "", "count of set bits"},
    {"power", "x, y", "", "x^y elementwise"},
    {"real", "z", "", "real part elementwise"},
    {"reduce", "x..., init...", "dimensions, to_apply", "folds x over dimensions with the reducer"},
    {"reduce-precision", "x", "exponent_bits, mantissa_bits", "rounds floats to a narrower format"},
    {"reduce-window", "x..., init...", "window, to_apply", "folds each window of x (pooling)"},
    {"remainder", "x, y", "", "x - trunc(x / y) * y elementwise (sign of x)"},
    {"replica-id", "", "", "this replica's number (u32[])"},
    {"reshape", "x", "", "the same elements in another shape (write the result shape)"},
    {"reverse", "x", "dimensions", "reverses the order along dimensions"},
    {"rng", "a, b", "distribution=rng_uniform|rng_normal", "random numbers (write the result shape)"},
    {"rng-bit-generator", "state", "algorithm", "random bits and the next state"},
    {"round-nearest-afz", "x", "", "rounds to nearest, ties away from zero"},
    {"round-nearest-even", "x", "", "rounds to nearest, ties to even"},
    {"rsqrt", "x", "", "1 / sqrt(x) elementwise"},
    {"scatter", "x..., indices, updates...", "update_window_dims, inserted_window_dims, "
     "scatter_dims_to_operand_dims, index_vector_dim, to_apply", "combines updates into x at the indices"},
    {"select", "pred, on_true, on_false", "", "on_true where pred, else on_false"},
    {"select-and-scatter", "x, source, init", "window, select, scatter",
     "scatters source to the selected element of each window (max-pool gradient)"},
    {"shift-left", "x, n", "", "x << n elementwise"},
    {"shift-right-arithmetic", "x, n", "", "x >> n with sign fill"},
    {"shift-right-logical", "x, n", "", "x >> n with zero fill"},
    {"sign", "x", "", "-1, 0 or 1 (NaN stays NaN)"},
    {"sine", "x", "", "sin(x) elementwise"},
    {"slice", "x", "slice={[start:limit:stride], ...}", "a strided box of x"},
    {"sort", "x...", "dimensions, is_stable, to_apply (comparator)", "sorts along a dimension"},
    {"sqrt", "x", "", "square root elementwise"},
    {"subtract", "x, y", "", "x - y elementwise"},
    {"tan", "x", "", "tan(x) elementwise"},
    {"tanh", "x", "", "hyperbolic tangent elementwise"},
    {"topk", "x", "k, largest", "the k largest (or smallest) values of the last dimension and their indices"},
    {"transpose", "x", "dimensions", "permutes dimensions: result dim i is x's dimensions[i]"},
    {"triangular-solve", "a, b", "left_side, lower, unit_diagonal, transpose_a", "solves a triangular system"},
    {"tuple", "x...", "", "groups values into a tuple"},
    {"while", "init", "condition, body", "repeats body while condition holds on the loop state"},
    {"xor", "x, y", "", "bitwise/logical exclusive or"},
};

}  // namespace

std::string Session::OpcodeHelp(absl::string_view opcode) {
  if (!opcode.empty() && opcode[0] == '%') opcode.remove_prefix(1);
  for (const OpHelp& op : kOps) {
    if (op.name != opcode) continue;
    std::string text = absl::StrCat(op.name, "(", op.operands, ")");
    if (!op.attributes.empty()) absl::StrAppend(&text, ", ", op.attributes);
    absl::StrAppend(&text, "\n  ", op.meaning);
    return text;
  }
  if (std::optional<HloOpcode> known = HloOpcodeFromName(std::string(opcode))) {
    const int arity = HloOpcodeArity(*known);
    return absl::StrCat(opcode, ": ", arity < 0 ? std::string("any number of") : absl::StrCat(arity),
                        " operand", arity == 1 ? "" : "s", " (no summary written for it yet)");
  }
  return "";
}

}  // namespace repl
}  // namespace hlovm
