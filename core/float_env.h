// The floating-point environment a run computes in. By default hlovm
// computes with IEEE 754 subnormals, as the StableHLO specification and
// XLA's reference interpreter do. XLA's CPU backend instead runs every
// executable with the processor's flush-to-zero and denormals-are-zero modes
// on (the convention of TensorFlow's thread pools): arithmetic reads a
// subnormal operand as zero and writes zero where the exact result would be
// subnormal. ExecuteOptions::flush_denormals runs a module that way, for
// the bits XLA:CPU gives; the scope below is how: the calling thread holds
// it for the whole run, and the run's task arena, started inside it, hands
// the modes to its worker threads for the run's tasks only.
#ifndef HLOVM_CORE_FLOAT_ENV_H_
#define HLOVM_CORE_FLOAT_ENV_H_

#include <cstdint>

namespace hlovm {

// Whether this processor's modes can be set (x86-64 and AArch64).
bool CanFlushDenormals();

// While it lives, the calling thread flushes subnormals (results and
// operands) when `on` and keeps them when not, whatever its modes were
// (a caller that runs with flushing on still gets IEEE results by default);
// the thread's previous modes come back when it ends.
class FlushDenormalsScope {
 public:
  explicit FlushDenormalsScope(bool on);
  ~FlushDenormalsScope();
  FlushDenormalsScope(const FlushDenormalsScope&) = delete;
  FlushDenormalsScope& operator=(const FlushDenormalsScope&) = delete;

 private:
  uint64_t saved_ = 0;
  bool changed_ = false;
};

}  // namespace hlovm

#endif  // HLOVM_CORE_FLOAT_ENV_H_
