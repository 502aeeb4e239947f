// Reading and writing NumPy `.npz` archives: zip files holding one `.npy`
// file per array, named NAME.npy, as `np.savez` (entries stored) and
// `np.savez_compressed` (entries deflated, read with zlib) write them. Zip64
// records (which `np.savez` writes for every entry) are read; CRC-32s are
// checked.
//
// Reading returns each entry's `.npy` bytes, for ParseNpy (core/npy.h), so
// that the caller can read raw ml_dtypes entries as the type it expects.
// Malformed archives (no end record, truncated or inconsistent entries, a bad
// CRC, encryption, a compression method other than stored and deflate, an
// entry that is not an `.npy` file) give InvalidArgument naming the file.
//
// Writing stores the entries uncompressed (as `np.savez` does), with fixed
// timestamps, so the same arrays always give the same bytes.
#ifndef HLOVM_CORE_NPZ_H_
#define HLOVM_CORE_NPZ_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/literal.h"
#include "core/npy.h"

namespace hlovm {

struct NpzEntry {
  std::string name;  // the entry's file name without ".npy"
  std::string npy;   // the bytes of its .npy file
};

// The entries of the archive `bytes`, in archive order. `name` is used in
// error messages.
absl::StatusOr<std::vector<NpzEntry>> ParseNpz(std::string_view bytes, std::string_view name);
// Reads and parses the archive at `path`.
absl::StatusOr<std::vector<NpzEntry>> ReadNpz(const std::string& path);

// The bytes of an archive holding `arrays` (name, array literal) in order,
// each stored as NAME.npy. Names must be distinct and non-empty.
absl::StatusOr<std::string> SerializeNpz(
    const std::vector<std::pair<std::string, const Literal*>>& arrays,
    NpyTypes types = NpyTypes::kWiden);
// Writes the archive to `path` (replacing it).
absl::Status WriteNpz(const std::vector<std::pair<std::string, const Literal*>>& arrays,
                      const std::string& path, NpyTypes types = NpyTypes::kWiden);

}  // namespace hlovm

#endif  // HLOVM_CORE_NPZ_H_
