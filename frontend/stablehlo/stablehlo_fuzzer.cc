// libFuzzer target: the StableHLO frontend on arbitrary text, then the
// verifier on what it accepts. Any input must give a module or an error
// status, never a crash, hang or sanitizer report.
// Build and run: see frontend/CMakeLists.txt.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "frontend/stablehlo/stablehlo_parser.h"
#include "frontend/verifier.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  hlovm::ParseOptions options;
  options.file_name = "fuzz.mlir";
  auto module = hlovm::ParseStableHloModule(text, options);
  if (module.ok()) {
    absl::Status verified = hlovm::VerifyModule(**module);
    (void)verified;
  }
  return 0;
}
