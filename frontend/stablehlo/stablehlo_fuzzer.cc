// libFuzzer target: the StableHLO frontend on arbitrary text, then the
// verifier on what it accepts. Any input must give a module or an error
// status, never a crash, hang or sanitizer report.
// Build and run (clang; see frontend/CMakeLists.txt):
//   CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DHLOVM_FUZZ=ON \
//       -DHLOVM_SANITIZE=address \
//       "-DCMAKE_CXX_FLAGS=-fsanitize=fuzzer-no-link -fsized-deallocation"
// (clang needs -fsized-deallocation for core/hlo_ir.cc's sized delete).
//   cmake --build build-fuzz --target stablehlo_fuzzer
//   mkdir -p /tmp/shlo-corpus && build-fuzz/frontend/stablehlo_fuzzer -max_len=65536 \
//       -max_total_time=900 /tmp/shlo-corpus ../shared/conformance/stablehlo-mlir
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
