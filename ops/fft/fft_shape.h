// Shape rule of fft (FFT, IFFT, RFFT, IRFFT).
#ifndef HLOVM_OPS_FFT_FFT_SHAPE_H_
#define HLOVM_OPS_FFT_FFT_SHAPE_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/hlo_ir.h"
#include "core/shape.h"

namespace hlovm {

absl::StatusOr<Shape> InferFftShape(const Shape& operand, FftType type,
                                    absl::Span<const int64_t> fft_length);

}  // namespace hlovm

#endif  // HLOVM_OPS_FFT_FFT_SHAPE_H_
