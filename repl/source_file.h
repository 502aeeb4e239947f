// Reading the HLO files named on the command line, shared by every command.
#ifndef HLOVM_REPL_SOURCE_FILE_H_
#define HLOVM_REPL_SOURCE_FILE_H_

#include <string>

#include "absl/status/statusor.h"

namespace hlovm {

// Returns the whole contents of `path`. Fails with InvalidArgument naming
// the path and the reason ("is a directory", the system's error text).
absl::StatusOr<std::string> ReadSourceFile(const std::string& path);

}  // namespace hlovm

#endif  // HLOVM_REPL_SOURCE_FILE_H_
