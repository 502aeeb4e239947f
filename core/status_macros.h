// Status propagation macros. The Abseil in Debian 12 (LTS 20220623) predates
// absl/status/status_macros.h, so hlovm defines the two it needs here.
#ifndef HLOVM_CORE_STATUS_MACROS_H_
#define HLOVM_CORE_STATUS_MACROS_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define HLOVM_CONCAT_INNER_(a, b) a##b
#define HLOVM_CONCAT_(a, b) HLOVM_CONCAT_INNER_(a, b)

// Returns from the enclosing function when `expr` yields a non-OK status.
#define HLOVM_RETURN_IF_ERROR(expr)                  \
  do {                                               \
    ::absl::Status hlovm_status_ = (expr);           \
    if (!hlovm_status_.ok()) return hlovm_status_;   \
  } while (0)

// Evaluates `rexpr` (a StatusOr); on error returns its status, else moves the
// value into `lhs` (which may be a declaration such as `auto x`).
#define HLOVM_ASSIGN_OR_RETURN(lhs, rexpr) \
  HLOVM_ASSIGN_OR_RETURN_IMPL_(HLOVM_CONCAT_(hlovm_statusor_, __LINE__), lhs, rexpr)

#define HLOVM_ASSIGN_OR_RETURN_IMPL_(statusor, lhs, rexpr) \
  auto statusor = (rexpr);                                 \
  if (!statusor.ok()) return std::move(statusor).status(); \
  lhs = std::move(statusor).value()

#endif  // HLOVM_CORE_STATUS_MACROS_H_
