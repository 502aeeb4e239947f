#include "ops/fft/fft_shape.h"

#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "core/status_macros.h"
#include "ops/common/common_shape.h"

namespace hlovm {
namespace {

absl::Status Invalid(const std::string& message) { return absl::InvalidArgumentError(message); }

const char* FftName(FftType t) {
  switch (t) {
    case FftType::kFft: return "FFT";
    case FftType::kIfft: return "IFFT";
    case FftType::kRfft: return "RFFT";
    case FftType::kIrfft: return "IRFFT";
  }
  return "?";
}

}  // namespace

absl::StatusOr<Shape> InferFftShape(const Shape& operand, FftType type,
                                    absl::Span<const int64_t> fft_length) {
  HLOVM_RETURN_IF_ERROR(ExpectArray(operand, "operand of fft"));
  const int64_t n = static_cast<int64_t>(fft_length.size());
  if (n < 1 || n > 3) {
    return Invalid(absl::StrFormat("%s only supports ranks 1-3; got %d.", FftName(type), n));
  }
  if (operand.rank() < n) {
    return Invalid(absl::StrFormat(
        "%s requires input of at least same rank as fft_length, got %s and fft_length {%s}.",
        FftName(type), ShapeText(operand), absl::StrJoin(fft_length, ",")));
  }
  for (const int64_t length : fft_length) {
    // XLA's shape inference lets these through but its evaluator refuses
    // them; nothing can run them, so they fail here.
    if (length < 0) {
      return Invalid(absl::StrFormat("%s needs non-negative fft_length, got {%s}.",
                                     FftName(type), absl::StrJoin(fft_length, ",")));
    }
  }
  const ElementType t = operand.element_type();
  std::vector<int64_t> dims(operand.dimensions().begin(), operand.dimensions().end());
  const int64_t first = operand.rank() - n;
  auto check_dims = [&](int64_t count) -> absl::Status {
    for (int64_t i = 0; i < count; ++i) {
      if (dims[first + i] != fft_length[i] && dims[first + i] != kUnboundedSize) {
        return Invalid(absl::StrFormat(
            "%s requires innermost dimensions match fft_length but dimension %d is %d and "
            "should be %d.",
            FftName(type), first + i, dims[first + i], fft_length[i]));
      }
    }
    return absl::OkStatus();
  };
  switch (type) {
    case FftType::kFft:
    case FftType::kIfft:
      if (!IsComplex(t)) {
        return Invalid(absl::StrFormat("%s requires complex input type, found %s.",
                                       FftName(type), ElementTypeName(t)));
      }
      // Only RFFT and IRFFT tie the operand's dimensions to fft_length; the
      // complex transforms pad or truncate their input to it (XLA).
      return operand;
    case FftType::kRfft: {
      if (t != ElementType::kF32 && t != ElementType::kF64) {
        return Invalid(absl::StrFormat("RFFT requires F32 or F64 input type, found %s.",
                                       ElementTypeName(t)));
      }
      HLOVM_RETURN_IF_ERROR(check_dims(n));
      dims[operand.rank() - 1] = fft_length[n - 1] == 0 ? 0 : fft_length[n - 1] / 2 + 1;
      return MakeArrayShape(t == ElementType::kF32 ? ElementType::kC64 : ElementType::kC128,
                            dims);
    }
    case FftType::kIrfft: {
      if (!IsComplex(t)) {
        return Invalid(absl::StrFormat("IRFFT requires complex input type, found %s.",
                                       ElementTypeName(t)));
      }
      HLOVM_RETURN_IF_ERROR(check_dims(n - 1));
      // fft_length[-1] / 2 + 1 values, or none at all when fft_length[-1]
      // is 0 (XLA keeps zero-sized dimensions).
      const int64_t last = dims[operand.rank() - 1];
      const int64_t expected_last = fft_length[n - 1] / 2 + 1;
      if ((last != 0 || fft_length[n - 1] != 0) && last != expected_last &&
          last != kUnboundedSize) {
        return Invalid(absl::StrFormat(
            "IRFFT requires innermost dimension to be fft_length[-1] / 2 + 1 = %d, found %d.",
            expected_last, last));
      }
      dims[operand.rank() - 1] = fft_length[n - 1];
      return MakeArrayShape(ComplexComponentType(t), dims);
    }
  }
  return Invalid("Unknown FFT type.");
}

}  // namespace hlovm
