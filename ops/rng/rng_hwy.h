// Highway kernels of the counter-based generators (dispatched at run time).
// Integer-only, so every SIMD target gives the same bits.
#ifndef HLOVM_OPS_RNG_RNG_HWY_H_
#define HLOVM_OPS_RNG_RNG_HWY_H_

#include <cstdint>

namespace hlovm {
namespace rng_internal {

// ThreeFry-2x32 (20 rounds) over counters (x0[i], x1[i]), in place.
void HwyThreeFry2x32(uint32_t k0, uint32_t k1, uint32_t* x0, uint32_t* x1, int64_t n);
// Philox-4x32 (10 rounds) over counters (x0..x3)[i], in place.
void HwyPhilox4x32(uint32_t k0, uint32_t k1, uint32_t* x0, uint32_t* x1, uint32_t* x2, uint32_t* x3,
                   int64_t n);
const char* HwyRngTarget();

}  // namespace rng_internal
}  // namespace hlovm

#endif  // HLOVM_OPS_RNG_RNG_HWY_H_
