// Counter-based random bit generators of rng-bit-generator: ThreeFry-2x32
// (20 rounds) and Philox-4x32 (10 rounds), laid out exactly as XLA's CPU
// backend lays out their outputs (see rng_bits.cc for the layout rules).
// Every output block depends only on its counter, so any range of blocks can
// be produced independently (fixed chunks, any thread count, same bits).
#ifndef HLOVM_OPS_RNG_RNG_BITS_H_
#define HLOVM_OPS_RNG_RNG_BITS_H_

#include <array>
#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace hlovm {

// One block of each generator (the Random123 definitions; plain scalar code,
// the reference for the vector kernels).
std::array<uint32_t, 2> ThreeFry2x32Block(std::array<uint32_t, 2> key,
                                          std::array<uint32_t, 2> counter);
std::array<uint32_t, 4> Philox4x32Block(std::array<uint32_t, 2> key,
                                        std::array<uint32_t, 4> counter);

// Batched ThreeFry-2x32 over counters (x0[i], x1[i]), in place (Highway).
void ThreeFry2x32Batch(uint32_t k0, uint32_t k1, uint32_t* x0, uint32_t* x1, int64_t n);
// Batched Philox-4x32 over counters (x0..x3)[i], in place.
void Philox4x32Batch(uint32_t k0, uint32_t k1, uint32_t* x0, uint32_t* x1, uint32_t* x2,
                     uint32_t* x3, int64_t n);

enum class RngBitsAlgorithm { kThreeFry, kPhilox };

// How one rng-bit-generator fills its output.
struct RngBitsPlan {
  RngBitsAlgorithm algorithm = RngBitsAlgorithm::kThreeFry;
  int elem_bytes = 4;    // 1, 2, 4 or 8; narrow outputs keep the low bits of u32
  int64_t elements = 0;  // output elements
  int state_size = 2;    // u64 words of the state
  // ThreeFry with 32-bit or narrower outputs: the output is viewed as
  // [outer, dim, inner]; element (o, i, n) takes word i%2 of the block at
  // half index (o*ceil(dim/2) + i/2)*inner + n.
  int64_t outer = 1, dim = 1, inner = 1;
  int64_t blocks = 0;  // generator blocks the output needs
  int64_t blocks_per_chunk = 1;
};

// How XLA's generators pair the 32-bit outputs of a shape: the shape viewed
// as [outer, dim, inner], split along its first dimension of even size, or
// its largest one when none is even (1, 1, 1 for a scalar).
void SplitForPairs(absl::Span<const int64_t> dims, int64_t* outer, int64_t* dim, int64_t* inner);

// The plan for `dims` (row-major) and element byte width; fails for widths
// the generators do not produce.
absl::StatusOr<RngBitsPlan> MakeRngBitsPlan(RngBitsAlgorithm algorithm, int elem_bytes,
                                            absl::Span<const int64_t> dims, int state_size);

// Writes the output blocks [begin, end) of `plan` to `out` for `state`.
void RunRngBits(const RngBitsPlan& plan, const uint64_t* state, uint8_t* out, int64_t begin,
                int64_t end);
// Writes the state after the call.
void RngBitsNextState(const RngBitsPlan& plan, const uint64_t* state, uint64_t* next);

}  // namespace hlovm

#endif  // HLOVM_OPS_RNG_RNG_BITS_H_
