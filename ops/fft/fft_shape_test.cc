#include "ops/fft/fft_shape.h"

#include "ops/common/shape_test_util.h"

namespace hlovm {
namespace {

TEST(FftShapeTest, AllTypes) {
  using testing::S;
  HLOVM_EXPECT_SHAPE(InferFftShape(S("c64[2,8]"), FftType::kFft, {8}), "c64[2,8]");
  HLOVM_EXPECT_SHAPE(InferFftShape(S("c64[4,8]"), FftType::kIfft, {4, 8}), "c64[4,8]");
  HLOVM_EXPECT_SHAPE(InferFftShape(S("f32[2,8]"), FftType::kRfft, {8}), "c64[2,5]");
  HLOVM_EXPECT_SHAPE(InferFftShape(S("f64[8]"), FftType::kRfft, {8}), "c128[5]");
  HLOVM_EXPECT_SHAPE(InferFftShape(S("c64[2,5]"), FftType::kIrfft, {8}), "f32[2,8]");
  HLOVM_EXPECT_ERROR(InferFftShape(S("f32[8]"), FftType::kFft, {8}), "FFT requires complex input");
  HLOVM_EXPECT_ERROR(InferFftShape(S("c64[8]"), FftType::kRfft, {8}), "RFFT requires F32 or F64");
  HLOVM_EXPECT_ERROR(InferFftShape(S("c64[2,6]"), FftType::kIrfft, {8}),
                     "IRFFT requires innermost dimension to be fft_length[-1] / 2 + 1 = 5");
  // FFT and IFFT pad or truncate to fft_length; RFFT and IRFFT do not.
  HLOVM_EXPECT_SHAPE(InferFftShape(S("c64[8]"), FftType::kFft, {4}), "c64[8]");
  HLOVM_EXPECT_SHAPE(InferFftShape(S("c128[3,2]"), FftType::kIfft, {0, 5}), "c128[3,2]");
  HLOVM_EXPECT_ERROR(InferFftShape(S("c64[3]"), FftType::kFft, {-2}), "non-negative fft_length");
  HLOVM_EXPECT_ERROR(InferFftShape(S("f32[8]"), FftType::kRfft, {4}),
                     "requires innermost dimensions match fft_length");
  HLOVM_EXPECT_ERROR(InferFftShape(S("c64[3,5]"), FftType::kIrfft, {4, 8}),
                     "requires innermost dimensions match fft_length");
  // Zero-sized transforms keep their zero-sized dimensions.
  HLOVM_EXPECT_SHAPE(InferFftShape(S("f32[2,0]"), FftType::kRfft, {0}), "c64[2,0]");
  HLOVM_EXPECT_SHAPE(InferFftShape(S("c64[2,0]"), FftType::kIrfft, {0}), "f32[2,0]");
  HLOVM_EXPECT_SHAPE(InferFftShape(S("c64[2,1]"), FftType::kIrfft, {0}), "f32[2,0]");
  HLOVM_EXPECT_ERROR(InferFftShape(S("c64[2,0]"), FftType::kIrfft, {4}),
                     "fft_length[-1] / 2 + 1 = 3");
  HLOVM_EXPECT_ERROR(InferFftShape(S("c64[2,2,2,2]"), FftType::kFft, {2, 2, 2, 2}),
                     "only supports ranks 1-3");
}

}  // namespace
}  // namespace hlovm
