// The SIMD targets the elementwise Highway kernels are compiled for. Include
// before any Highway header in every file that compiles or tests them.
//
// Compile time on the project's 2-core machines matters: the kernels are built
// for AVX-512 and AVX2 (with F16C and FMA) plus Highway's portable baseline;
// SSSE3/SSE4-only CPUs run the baseline.
#ifndef HLOVM_OPS_ELEMENTWISE_ELEMENTWISE_HWY_TARGETS_H_
#define HLOVM_OPS_ELEMENTWISE_ELEMENTWISE_HWY_TARGETS_H_

#ifndef HWY_DISABLED_TARGETS
#define HWY_DISABLED_TARGETS (HWY_SSSE3 | HWY_SSE4 | HWY_AVX3_DL)
#endif

#endif  // HLOVM_OPS_ELEMENTWISE_ELEMENTWISE_HWY_TARGETS_H_
