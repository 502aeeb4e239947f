// rng (distribution=rng_uniform / rng_normal) as XLA's CPU backend expands
// it (RngExpander): Philox-4x32 bits with a 64-bit key and a 128-bit counter
// taken from the program's generator state (rng-get-and-update-state), then
//  - uniform floats: the top mantissa-width bits as an integer, times
//    2^-mantissa, times (b - a), plus a (f16/bf16 computed in f32, then
//    rounded to the type);
//  - uniform integers (32/64-bit): d = bits % (b - a) in the unsigned type
//    (bits when b == a), a + d/2 + (d - d/2), wrapping;
//  - normal floats: uniform [0, 1) values for the shape split in halves
//    along its first even dimension (else its first largest), Box-Muller on
//    each pair (u1 = max(x0, 1e-7), sin and cos of 2*pi*x1 times
//    sqrt(-2 log u1)), then a + b * value.
#ifndef HLOVM_OPS_RNG_RNG_DIST_H_
#define HLOVM_OPS_RNG_RNG_DIST_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/element_type.h"
#include "core/hlo_ir.h"

namespace hlovm {

struct RngDistPlan {
  RandomDistribution distribution = RandomDistribution::kUniform;
  ElementType type = ElementType::kF32;  // the result's element type
  int64_t elements = 0;
  // Normal: the result viewed as [outer, dim, inner], split along dim.
  int64_t outer = 1, dim = 1, inner = 1;
  // 32-bit units the call reserves from the generator state (XLA's delta).
  uint64_t delta = 0;
};

absl::StatusOr<RngDistPlan> MakeRngDistPlan(RandomDistribution distribution, ElementType type,
                                            absl::Span<const int64_t> dims);

// Fills elements [begin, end) of `out` (row-major, plan.type) from key, the
// 128-bit counter (lo, hi) of the whole call and the scalar parameters a and
// b (plan.type). `begin` must be a multiple of kRngDistAlign; rng_normal
// always fills the whole output.
inline constexpr int64_t kRngDistAlign = 4;
void RunRngDist(const RngDistPlan& plan, uint64_t key, uint64_t lo, uint64_t hi, const uint8_t* a,
                const uint8_t* b, uint8_t* out, int64_t begin, int64_t end);

}  // namespace hlovm

#endif  // HLOVM_OPS_RNG_RNG_DIST_H_
