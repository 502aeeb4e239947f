// The attributes of a typed-FFI custom call (api_version=
// API_VERSION_TYPED_FFI). XLA keeps them as an MLIR dictionary attribute and
// prints it as the backend_config, unquoted:
//   backend_config={mode = 86 : ui8, uplo = 76 : ui8}
//   backend_config={high = 4 : i32, low = 1 : i32}
// (or quoted, `backend_config="{...}"`; the parser stores the text either
// way). Values are integers with an optional `: type` suffix (i1..i64,
// ui8..ui64, si..), floats, `true`/`false` and strings. A JSON object of the
// same names (`{"uplo": 76}`) reads the same, so hand-written modules may use
// either form.
#ifndef HLOVM_OPS_CUSTOM_FFI_ATTRIBUTES_H_
#define HLOVM_OPS_CUSTOM_FFI_ATTRIBUTES_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace hlovm {

struct FfiAttribute {
  enum class Kind { kInteger, kFloat, kBool, kString };
  Kind kind = Kind::kInteger;
  int64_t integer = 0;  // kInteger and kBool (0 or 1)
  double number = 0;    // kFloat
  std::string text;     // kString; for integers the type suffix ("ui8"), if any
};

class FfiAttributes {
 public:
  // Parses `backend_config` (empty text: no attributes).
  static absl::StatusOr<FfiAttributes> Parse(std::string_view backend_config);

  bool Has(std::string_view name) const { return values_.count(std::string(name)) > 0; }
  // The integer attribute `name` (a bool reads as 0/1); an error naming the
  // attribute when it is missing or not an integer.
  absl::StatusOr<int64_t> Integer(std::string_view name) const;
  // An integer attribute that holds an ASCII character code (how jaxlib
  // passes LAPACK's 'L'/'U', 'N'/'T'/'C', 'V', 'A'/'S'/'N' flags), checked
  // against `allowed`.
  absl::StatusOr<char> Char(std::string_view name, std::string_view allowed) const;
  const std::map<std::string, FfiAttribute>& values() const { return values_; }

 private:
  std::map<std::string, FfiAttribute> values_;
};

}  // namespace hlovm

#endif  // HLOVM_OPS_CUSTOM_FFI_ATTRIBUTES_H_
