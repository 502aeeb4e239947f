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
// Types NumPy lacks, as ml_dtypes saves them: NumPy writes an ml_dtypes array
// with its raw bytes, descr '<V2' (bfloat16) or '<V1'/'|V1' (float8_*,
// float6_*, float4_e2m1fn, int4, uint4, int2, uint2). 'V2' reads as bf16; 'V1'
// names no type, so it is read only as NpyReadOptions::raw_byte_type says.
// The ml_dtypes names themselves ('bfloat16', 'float8_e4m3fn', 'int4', ...)
// are read as descr too, and a one-field unnamed list descr [('', '<f4')]
// as its field's type.
//
// Malformed files (bad magic, truncated header or data, unknown dtype,
// object (pickled), string or structured arrays, sub-byte values out of
// range, sizes that overflow) give InvalidArgument naming the file and the
// reason; a shape too large to allocate gives ResourceExhausted.
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

struct NpyReadOptions {
  // The 1-byte type that raw 'V1' elements are read as (one of the types
  // NumPy lacks: f8*, f6*, f4e2m1fn, s4, u4, s2, u2); unset, a 'V1' file is
  // an error that says what it holds.
  std::optional<ElementType> raw_byte_type;
};

// Parses the bytes of a `.npy` file. `name` is used in error messages.
absl::StatusOr<Literal> ParseNpy(std::string_view bytes, std::string_view name = "<npy>",
                                 const NpyReadOptions& options = {});
// Reads and parses the file at `path`.
absl::StatusOr<Literal> ReadNpy(const std::string& path, const NpyReadOptions& options = {});

// How SerializeNpy writes element types NumPy lacks.
enum class NpyTypes {
  kWiden,     // widened exactly to a NumPy type (see above): loads anywhere
  kMlDtypes,  // bf16 as '<V2' and 1-byte types as '|V1', as ml_dtypes saves
              // them: hlovm reads them back as the same type
};

// The bytes of a `.npy` file holding the array literal `literal`.
absl::StatusOr<std::string> SerializeNpy(const Literal& literal, NpyTypes types = NpyTypes::kWiden);
// Writes `bytes` to `path` as the whole file (replacing it); the errors
// name the path.
absl::Status WriteWholeFile(const std::string& path, std::string_view bytes);
// Writes `literal` to `path` (replacing it).
absl::Status WriteNpy(const Literal& literal, const std::string& path,
                      NpyTypes types = NpyTypes::kWiden);

// The element type NumPy's type code (e.g. "<f4", "|b1", ">i8") stands for,
// or nullopt when it has none.
std::optional<ElementType> ElementTypeFromNpyDescr(std::string_view descr);
// The element type SerializeNpy writes for `type` (itself, or the widened
// type named above).
ElementType NpyStorageType(ElementType type);

}  // namespace hlovm

#endif  // HLOVM_CORE_NPY_H_
