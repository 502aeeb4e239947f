// The options that shape how a module compiles to bytecode, as the compiler
// (vm/compiler.h) and the lowerings of every op family (through
// LoweringContext::options(), vm/lowering.h) read them. Values only, no
// process-wide state: two modules compiled with different options in one
// process each get their own.
#ifndef HLOVM_VM_COMPILE_OPTIONS_H_
#define HLOVM_VM_COMPILE_OPTIONS_H_

#include <cstdint>

namespace hlovm {

// How FFT plans are made (ops/fft/fft.h): kEstimate (FFTW_ESTIMATE, the
// default: instant) or kMeasure (FFTW_MEASURE: slow the first time, then kept
// as FFTW wisdom in a per-user cache file, $XDG_CACHE_HOME/hlovm/ or
// ~/.cache/hlovm/).
enum class FftPlanMode : uint8_t { kEstimate, kMeasure };

namespace vm {

struct CompilerOptions {
  bool fusion = true;                             // fuse elementwise regions (vm/fusion.h)
  FftPlanMode fft_plan = FftPlanMode::kEstimate;  // how fft lowerings plan (ops/fft/fft.h)
};

}  // namespace vm
}  // namespace hlovm

#endif  // HLOVM_VM_COMPILE_OPTIONS_H_
