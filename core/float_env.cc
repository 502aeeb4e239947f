#include "core/float_env.h"

#if defined(__x86_64__) || defined(_M_X64)
#include <xmmintrin.h>
#endif

namespace hlovm {
namespace {

#if defined(__x86_64__) || defined(_M_X64)
// MXCSR: flush to zero (bit 15) and denormals are zero (bit 6).
constexpr uint64_t kFlushBits = 0x8000 | 0x0040;
uint64_t ReadModes() { return _mm_getcsr(); }
void WriteModes(uint64_t modes) { _mm_setcsr(static_cast<unsigned>(modes)); }
constexpr bool kCanFlush = true;
#elif defined(__aarch64__)
// FPCR.FZ (bit 24) flushes subnormal operands and results of single and
// double precision arithmetic to zero.
constexpr uint64_t kFlushBits = uint64_t{1} << 24;
uint64_t ReadModes() {
  uint64_t fpcr;
  __asm__ __volatile__("mrs %0, fpcr" : "=r"(fpcr));
  return fpcr;
}
void WriteModes(uint64_t modes) { __asm__ __volatile__("msr fpcr, %0" : : "r"(modes)); }
constexpr bool kCanFlush = true;
#else
constexpr uint64_t kFlushBits = 0;
uint64_t ReadModes() { return 0; }
void WriteModes(uint64_t) {}
constexpr bool kCanFlush = false;
#endif

}  // namespace

bool CanFlushDenormals() { return kCanFlush; }

FlushDenormalsScope::FlushDenormalsScope(bool on) {
  if (!kCanFlush) return;
  saved_ = ReadModes();
  const uint64_t modes = on ? saved_ | kFlushBits : saved_ & ~kFlushBits;
  changed_ = modes != saved_;
  if (changed_) WriteModes(modes);
}

FlushDenormalsScope::~FlushDenormalsScope() {
  if (changed_) WriteModes(saved_);
}

}  // namespace hlovm
