// FFT kernels (FFT, IFFT, RFFT, IRFFT over the 1-3 innermost dimensions),
// computed with FFTW, with XLA's CPU semantics:
//   - FFT is unnormalised; IFFT and IRFFT are scaled by 1/N, N the product
//     of fft_length (the scale is 1.0/N in double, rounded to the element
//     type);
//   - RFFT keeps the fft_length[-1]/2+1 non-negative frequencies of the last
//     dimension;
//   - IRFFT first runs inverse complex transforms over the leading fft
//     dimensions and then a complex-to-real transform over the last one, which
//     reads only the real parts of its DC bin and (for an even length) of its
//     Nyquist bin, as XLA's runtime does.
//
// A FftKernel is made at compile time: it creates (or takes from a process-wide
// cache) the FFTW plans it needs, so no planning ever happens while a program
// runs. The batch of transforms is split into chunks of a fixed number of
// transforms that depends only on the shape, never on the thread count; each
// chunk runs the same plan, so results are bitwise identical for any number
// of threads. Buffers are expected 16-byte aligned (the VM's are 64-byte
// aligned); a misaligned buffer is staged through aligned scratch so that it
// runs the very same plan.
#ifndef HLOVM_OPS_FFT_FFT_H_
#define HLOVM_OPS_FFT_FFT_H_

#include <array>
#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/hlo_ir.h"
#include "vm/compile_options.h"

namespace hlovm {

// How plans are made: FftPlanMode (vm/compile_options.h). Each kernel is
// planned with the mode of its spec (a module's compile options give it);
// the process-wide plan cache keeps plans of the two modes apart.
// Parses "estimate" or "measure".
absl::StatusOr<FftPlanMode> ParseFftPlanMode(const std::string& text);
// The wisdom file for double (false) or single (true) precision; empty when
// no cache directory can be determined.
std::string FftWisdomPath(bool single);

struct FftKernelSpec {
  FftType type = FftType::kFft;
  bool single = true;                 // c64/f32 (true) or c128/f64 (false)
  std::array<int64_t, 3> length{};    // fft_length
  int rank = 1;                       // 1..3
  int64_t batch = 1;                  // number of transforms
  FftPlanMode plan_mode = FftPlanMode::kEstimate;  // how its plans are made
};

class FftKernel {
 public:
  // Validates the spec and creates the plans.
  static absl::StatusOr<std::unique_ptr<FftKernel>> Create(const FftKernelSpec& spec);
  ~FftKernel();
  FftKernel(const FftKernel&) = delete;
  FftKernel& operator=(const FftKernel&) = delete;

  const FftKernelSpec& spec() const { return spec_; }
  // Elements of the input / output element type per transform (a complex
  // number is one element).
  int64_t in_elems() const { return in_elems_; }
  int64_t out_elems() const { return out_elems_; }
  // Fixed split of the batch: transforms per chunk and chunk count.
  int64_t chunk() const { return chunk_; }
  int64_t chunks() const { return chunk_ == 0 ? 0 : (spec_.batch + chunk_ - 1) / chunk_; }
  // Bytes of input plus output per transform.
  int64_t transform_bytes() const;
  std::string Describe() const;

  // Runs chunks [first, last) of the batch: `in` and `out` are the whole
  // input and output arrays (row-major). Thread safe. False only when
  // scratch memory could not be allocated.
  bool RunChunks(const void* in, void* out, int64_t first, int64_t last) const;
  // Runs the whole batch on the calling thread.
  bool Run(const void* in, void* out) const { return RunChunks(in, out, 0, chunks()); }

 private:
  explicit FftKernel(const FftKernelSpec& spec) : spec_(spec) {}
  absl::Status MakePlans();
  // Runs `count` transforms (a whole chunk or the tail) with aligned buffers.
  bool RunAligned(const void* in, void* out, int64_t count) const;
  void* PlanFor(int64_t count, int which) const;

  FftKernelSpec spec_;
  int64_t n_total_ = 1;   // product of fft_length
  int64_t in_elems_ = 0, out_elems_ = 0;
  int64_t chunk_ = 0;
  double scale_ = 1;      // 1/N for IFFT and IRFFT
  // Plans owned by the process-wide cache: [0] main (FFT/IFFT c2c, RFFT r2c,
  // IRFFT c2c over the leading dimensions), [1] IRFFT c2r over the last
  // dimension; for a full chunk and for the tail.
  void* chunk_plan_[2] = {nullptr, nullptr};
  void* tail_plan_[2] = {nullptr, nullptr};
};

}  // namespace hlovm

#endif  // HLOVM_OPS_FFT_FFT_H_
