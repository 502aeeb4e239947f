// Reading and writing NumPy `.npy` files (format versions 1.0, 2.0, 3.0).
//
// Every array dtype NumPy has a standard code for maps to an element type:
//   |b1 -> pred, i1 i2 i4 i8 -> s8 s16 s32 s64, u1 u2 u4 u8 -> u8 u16 u32 u64,
//   f2 f4 f8 -> f16 f32 f64, c8 c16 -> c64 c128,
// in either byte order (`<`, `>`, `=`, `|`); big-endian data is swapped on
// reading. A Fortran-ordered file becomes a literal with the column-major
// layout {0,1,...,n-1} (no copy); C-ordered files get the row-major layout.
//
// Writing always produces little-endian, C-ordered version 1.0 files (2.0 when
// the header would not fit). Element types NumPy cannot express are widened
// exactly: bf16 and the 8-, 6- and 4-bit floats to f4 (every value of theirs
// is a binary32 number), s2/s4 to i1 and u2/u4 to u1.
//
// Malformed files (bad magic, truncated header or data, unknown dtype,
// object or structured arrays, sizes that overflow) give InvalidArgument
// naming the file; a shape too large to allocate gives ResourceExhausted.
#ifndef HLOVM_CORE_NPY_H_
#define HLOVM_CORE_NPY_H_

#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/element_type.h"
#include "core/literal.h"

namespace hlovm {

// Parses the bytes of a `.npy` file. `name` is used in error messages.
absl::StatusOr<Literal> ParseNpy(std::string_view bytes, std::string_view name = "<npy>");
// Reads and parses the file at `path`.
absl::StatusOr<Literal> ReadNpy(const std::string& path);

// The bytes of a `.npy` file holding the array literal `literal`.
absl::StatusOr<std::string> SerializeNpy(const Literal& literal);
// Writes `literal` to `path` (replacing it).
absl::Status WriteNpy(const Literal& literal, const std::string& path);

// The element type NumPy's type code (e.g. "<f4", "|b1", ">i8") stands for,
// or nullopt when it has none.
std::optional<ElementType> ElementTypeFromNpyDescr(std::string_view descr);
// The element type SerializeNpy writes for `type` (itself, or the widened
// type named above).
ElementType NpyStorageType(ElementType type);

}  // namespace hlovm

#endif  // HLOVM_CORE_NPY_H_
