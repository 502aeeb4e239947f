// The StableHLO frontend: turns StableHLO MLIR text (what JAX prints with
// `jax.jit(f).lower(x).as_text()`, and the `.mlir` programs of the StableHLO
// project) into the same HloModule IR the HLO text parser builds, so that
// the verifier, passes, compiler and kernels are shared.
//
// Accepted: a `module @name attributes {...} { ... }` or bare `func.func`
// definitions; pretty and generic op forms of the `stablehlo`, `chlo` and
// `func` dialects; regions with block arguments; `dense<...>` literals in
// every form; `tensor<...>` types of every StableHLO element type;
// `#stablehlo.*` attributes. Each `func.func` becomes a computation (`main`,
// else the only or last public function, is the entry); `func.call` becomes
// `call`; ops with several results produce a tuple read back with
// get-tuple-element; `chlo` ops become the HLO ops XLA lowers them to.
// Quantized and dynamic forms are refused with an error naming them.
//
// Errors are InvalidArgument statuses reading `file:line:col: error: message`
// followed by the source line and a caret, as the HLO parser's.
#ifndef HLOVM_FRONTEND_STABLEHLO_STABLEHLO_PARSER_H_
#define HLOVM_FRONTEND_STABLEHLO_STABLEHLO_PARSER_H_

#include <memory>
#include <string_view>

#include "absl/status/statusor.h"
#include "core/hlo_ir.h"
#include "frontend/parser.h"

namespace hlovm {

// Parses StableHLO MLIR text. Reads `file_name`, `first_line`,
// `max_recursion_depth` and `keep_source` from `options`.
absl::StatusOr<std::unique_ptr<HloModule>> ParseStableHloModule(std::string_view text,
                                                                const ParseOptions& options = {});

// True when `file_name` ends in `.mlir`, or when the first token of `text`
// after comments is `module` followed by `@`, `attributes` or `{`, or is
// `func.func`: text the HLO parser would not accept as a module.
bool LooksLikeStableHlo(std::string_view text, std::string_view file_name = {});

}  // namespace hlovm

#endif  // HLOVM_FRONTEND_STABLEHLO_STABLEHLO_PARSER_H_
