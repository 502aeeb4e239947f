// Output layout (XLA's CPU backend, which expands rng-bit-generator with the
// state's first word as the key):
//  ThreeFry: key = state[0] (low word first), counter base = state[1].
//    64-bit outputs: element k uses counter base+k and is x0 | x1 << 32.
//    32-bit and narrower: the shape is split in halves along its first even
//    dimension (else its largest, the first one on ties; a scalar counts as
//    [1]); block h of the half shape yields the pair of neighbours along that
//    dimension (see RngBitsPlan). Narrow outputs keep the low bits.
//    Next state: [key, base + blocks].
//  Philox: key = state[0]; the 128-bit counter is (state[1], state[2]) for a
//    state of 3 words and (state[1], state[0]) for 2. Block j uses counter+j;
//    32-bit element k is word k%4 of block k/4; 64-bit element k is words
//    (0,1) or (2,3) of block k/2. Next state: [key, counter+blocks] (the low
//    word only for a 2-word state).
#include "ops/rng/rng_bits.h"

#include <algorithm>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_format.h"
#include "ops/rng/rng_hwy.h"

namespace hlovm {
namespace {

inline uint32_t Rotl(uint32_t v, int r) { return (v << r) | (v >> (32 - r)); }

constexpr int kRot[8] = {13, 15, 26, 6, 17, 29, 16, 24};
constexpr uint32_t kThreeFryParity = 0x1BD11BDA;
constexpr uint32_t kPhiloxW0 = 0x9E3779B9, kPhiloxW1 = 0xBB67AE85;
constexpr uint32_t kPhiloxM0 = 0xD2511F53, kPhiloxM1 = 0xCD9E8D57;

// Blocks generated at a time into stack buffers.
constexpr int64_t kBatch = 256;

template <int R0, int R1, int R2, int R3>
inline void FourRounds(uint32_t* __restrict x0, uint32_t* __restrict x1, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    uint32_t a = x0[i], b = x1[i];
    a += b;
    b = Rotl(b, R0) ^ a;
    a += b;
    b = Rotl(b, R1) ^ a;
    a += b;
    b = Rotl(b, R2) ^ a;
    a += b;
    b = Rotl(b, R3) ^ a;
    x0[i] = a;
    x1[i] = b;
  }
}

inline void Inject(uint32_t* __restrict x0, uint32_t* __restrict x1, int64_t n, uint32_t a,
                   uint32_t b) {
  for (int64_t i = 0; i < n; ++i) {
    x0[i] += a;
    x1[i] += b;
  }
}

// Scalar definitions: the reference the vector kernels are tested against.
void ScalarThreeFry2x32(uint32_t k0, uint32_t k1, uint32_t* x0, uint32_t* x1, int64_t n) {
  const uint32_t k2 = kThreeFryParity ^ k0 ^ k1;
  const uint32_t ks[3] = {k0, k1, k2};
  Inject(x0, x1, n, ks[0], ks[1]);
  for (int s = 1; s <= 5; ++s) {
    if (s % 2 == 1) {
      FourRounds<13, 15, 26, 6>(x0, x1, n);
    } else {
      FourRounds<17, 29, 16, 24>(x0, x1, n);
    }
    Inject(x0, x1, n, ks[s % 3], ks[(s + 1) % 3] + static_cast<uint32_t>(s));
  }
}

void ScalarPhilox4x32(uint32_t k0, uint32_t k1, uint32_t* x0, uint32_t* x1, uint32_t* x2,
                      uint32_t* x3, int64_t n) {
  for (int round = 0; round < 10; ++round) {
    for (int64_t i = 0; i < n; ++i) {
      const uint64_t p0 = static_cast<uint64_t>(x0[i]) * kPhiloxM0;
      const uint64_t p1 = static_cast<uint64_t>(x2[i]) * kPhiloxM1;
      const uint32_t y0 = static_cast<uint32_t>(p1 >> 32) ^ x1[i] ^ k0;
      const uint32_t y2 = static_cast<uint32_t>(p0 >> 32) ^ x3[i] ^ k1;
      x0[i] = y0;
      x1[i] = static_cast<uint32_t>(p1);
      x2[i] = y2;
      x3[i] = static_cast<uint32_t>(p0);
    }
    k0 += kPhiloxW0;
    k1 += kPhiloxW1;
  }
}

}  // namespace

void ThreeFry2x32Batch(uint32_t k0, uint32_t k1, uint32_t* x0, uint32_t* x1, int64_t n) {
  rng_internal::HwyThreeFry2x32(k0, k1, x0, x1, n);
}

void Philox4x32Batch(uint32_t k0, uint32_t k1, uint32_t* x0, uint32_t* x1, uint32_t* x2,
                     uint32_t* x3, int64_t n) {
  rng_internal::HwyPhilox4x32(k0, k1, x0, x1, x2, x3, n);
}

std::array<uint32_t, 2> ThreeFry2x32Block(std::array<uint32_t, 2> key,
                                          std::array<uint32_t, 2> counter) {
  ScalarThreeFry2x32(key[0], key[1], &counter[0], &counter[1], 1);
  return counter;
}

std::array<uint32_t, 4> Philox4x32Block(std::array<uint32_t, 2> key,
                                        std::array<uint32_t, 4> counter) {
  ScalarPhilox4x32(key[0], key[1], &counter[0], &counter[1], &counter[2], &counter[3], 1);
  return counter;
}

void SplitForPairs(absl::Span<const int64_t> dims, int64_t* outer, int64_t* dim, int64_t* inner) {
  *outer = *dim = *inner = 1;
  int split = -1;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] % 2 == 0) {
      split = static_cast<int>(i);
      break;
    }
  }
  if (split < 0) {
    for (size_t i = 0; i < dims.size(); ++i) {
      if (split < 0 || dims[i] > dims[split]) split = static_cast<int>(i);
    }
  }
  if (split < 0) return;
  *dim = dims[split];
  for (int i = 0; i < split; ++i) *outer *= dims[i];
  for (size_t i = split + 1; i < dims.size(); ++i) *inner *= dims[i];
}

absl::StatusOr<RngBitsPlan> MakeRngBitsPlan(RngBitsAlgorithm algorithm, int elem_bytes,
                                            absl::Span<const int64_t> dims, int state_size) {
  if (elem_bytes != 1 && elem_bytes != 2 && elem_bytes != 4 && elem_bytes != 8) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "rng-bit-generator produces elements of 8, 16, 32 or 64 bits, not %d bytes.", elem_bytes));
  }
  const bool threefry = algorithm == RngBitsAlgorithm::kThreeFry;
  if (threefry ? state_size != 2 : (state_size != 2 && state_size != 3)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "rng-bit-generator with %s needs a u64 state of %s words, got %d.",
        threefry ? "rng_three_fry" : "rng_philox", threefry ? "2" : "2 or 3", state_size));
  }
  RngBitsPlan p;
  p.algorithm = algorithm;
  p.elem_bytes = elem_bytes;
  p.state_size = state_size;
  p.elements = 1;
  for (int64_t d : dims) p.elements *= d;
  if (threefry) {
    if (elem_bytes == 8) {
      p.blocks = p.elements;
    } else {
      SplitForPairs(dims, &p.outer, &p.dim, &p.inner);
      p.blocks = p.outer * ((p.dim + 1) / 2) * p.inner;
    }
  } else {
    const int64_t words = elem_bytes == 8 ? 2 * p.elements : p.elements;
    p.blocks = (words + 3) / 4;
  }
  const int64_t block_bytes = threefry ? 8 : 16;
  p.blocks_per_chunk = std::max<int64_t>(kBatch, (64 * 1024) / block_bytes);
  return p;
}

namespace {

template <typename T>
inline void Put(uint8_t* out, int64_t index, uint32_t v) {
  const T t = static_cast<T>(v);
  std::memcpy(out + index * static_cast<int64_t>(sizeof(T)), &t, sizeof(T));
}

template <typename T>
void ThreeFryNarrow(const RngBitsPlan& p, uint32_t k0, uint32_t k1, uint64_t base, uint8_t* out,
                    int64_t begin, int64_t end) {
  alignas(64) uint32_t x0[kBatch], x1[kBatch];
  const int64_t half = (p.dim + 1) / 2;
  for (int64_t b = begin; b < end; b += kBatch) {
    const int64_t n = std::min(kBatch, end - b);
    for (int64_t i = 0; i < n; ++i) {
      const uint64_t c = base + static_cast<uint64_t>(b + i);
      x0[i] = static_cast<uint32_t>(c);
      x1[i] = static_cast<uint32_t>(c >> 32);
    }
    ThreeFry2x32Batch(k0, k1, x0, x1, n);
    if (p.inner == 1 && p.dim % 2 == 0) {
      // Neighbours along the last dimension: element 2h and 2h + 1.
      T* dst = reinterpret_cast<T*>(out) + 2 * b;
      for (int64_t i = 0; i < n; ++i) {
        dst[2 * i] = static_cast<T>(x0[i]);
        dst[2 * i + 1] = static_cast<T>(x1[i]);
      }
      continue;
    }
    // Position of block b in the half shape [outer, half, inner]; runs of
    // consecutive n go to two contiguous row segments.
    int64_t nn = b % p.inner;
    int64_t j = (b / p.inner) % half;
    int64_t o = b / (p.inner * half);
    for (int64_t i = 0; i < n;) {
      const int64_t len = std::min(n - i, p.inner - nn);
      T* row0 = reinterpret_cast<T*>(out) + (o * p.dim + 2 * j) * p.inner + nn;
      for (int64_t t = 0; t < len; ++t) row0[t] = static_cast<T>(x0[i + t]);
      if (2 * j + 1 < p.dim) {
        T* row1 = row0 + p.inner;
        for (int64_t t = 0; t < len; ++t) row1[t] = static_cast<T>(x1[i + t]);
      }
      i += len;
      nn += len;
      if (nn == p.inner) {
        nn = 0;
        if (++j == half) {
          j = 0;
          ++o;
        }
      }
    }
  }
}

void ThreeFryWide(uint32_t k0, uint32_t k1, uint64_t base, uint8_t* out, int64_t begin,
                  int64_t end) {
  alignas(64) uint32_t x0[kBatch], x1[kBatch];
  for (int64_t b = begin; b < end; b += kBatch) {
    const int64_t n = std::min(kBatch, end - b);
    for (int64_t i = 0; i < n; ++i) {
      const uint64_t c = base + static_cast<uint64_t>(b + i);
      x0[i] = static_cast<uint32_t>(c);
      x1[i] = static_cast<uint32_t>(c >> 32);
    }
    ThreeFry2x32Batch(k0, k1, x0, x1, n);
    uint64_t* dst = reinterpret_cast<uint64_t*>(out) + b;
    for (int64_t i = 0; i < n; ++i) {
      const uint64_t v = static_cast<uint64_t>(x0[i]) | (static_cast<uint64_t>(x1[i]) << 32);
      std::memcpy(dst + i, &v, sizeof(v));
    }
  }
}

// Adds `delta` to the 128-bit counter (lo, hi).
inline void Add128(uint64_t lo, uint64_t hi, uint64_t delta, uint64_t* rlo, uint64_t* rhi) {
  *rlo = lo + delta;
  *rhi = hi + (*rlo < lo ? 1 : 0);
}

template <typename T>
void PhiloxRun(const RngBitsPlan& p, uint32_t k0, uint32_t k1, uint64_t lo, uint64_t hi,
               uint8_t* out, int64_t begin, int64_t end) {
  alignas(64) uint32_t x[4][kBatch];
  const int64_t words_total = sizeof(T) == 8 ? 2 * p.elements : p.elements;
  for (int64_t b = begin; b < end; b += kBatch) {
    const int64_t n = std::min(kBatch, end - b);
    for (int64_t i = 0; i < n; ++i) {
      uint64_t clo, chi;
      Add128(lo, hi, static_cast<uint64_t>(b + i), &clo, &chi);
      x[0][i] = static_cast<uint32_t>(clo);
      x[1][i] = static_cast<uint32_t>(clo >> 32);
      x[2][i] = static_cast<uint32_t>(chi);
      x[3][i] = static_cast<uint32_t>(chi >> 32);
    }
    Philox4x32Batch(k0, k1, x[0], x[1], x[2], x[3], n);
    if constexpr (sizeof(T) == 8) {
      uint64_t* dst = reinterpret_cast<uint64_t*>(out);
      for (int64_t i = 0; i < n; ++i) {
        const int64_t e = 2 * (b + i);
        const uint64_t v0 = static_cast<uint64_t>(x[0][i]) | (static_cast<uint64_t>(x[1][i]) << 32);
        std::memcpy(dst + e, &v0, 8);
        if (e + 1 < p.elements) {
          const uint64_t v1 =
              static_cast<uint64_t>(x[2][i]) | (static_cast<uint64_t>(x[3][i]) << 32);
          std::memcpy(dst + e + 1, &v1, 8);
        }
      }
    } else {
      const int64_t full = std::min<int64_t>(n, words_total / 4 - b);
      T* dst = reinterpret_cast<T*>(out) + 4 * b;
      for (int64_t i = 0; i < full; ++i) {
        dst[4 * i] = static_cast<T>(x[0][i]);
        dst[4 * i + 1] = static_cast<T>(x[1][i]);
        dst[4 * i + 2] = static_cast<T>(x[2][i]);
        dst[4 * i + 3] = static_cast<T>(x[3][i]);
      }
      for (int64_t i = std::max<int64_t>(full, 0); i < n; ++i) {
        const int64_t e = 4 * (b + i);
        const int64_t m = std::min<int64_t>(4, words_total - e);
        for (int64_t w = 0; w < m; ++w) Put<T>(out, e + w, x[w][i]);
      }
    }
  }
}

}  // namespace

void RunRngBits(const RngBitsPlan& p, const uint64_t* state, uint8_t* out, int64_t begin,
                int64_t end) {
  if (begin >= end) return;
  const uint32_t k0 = static_cast<uint32_t>(state[0]);
  const uint32_t k1 = static_cast<uint32_t>(state[0] >> 32);
  if (p.algorithm == RngBitsAlgorithm::kThreeFry) {
    switch (p.elem_bytes) {
      case 1:
        return ThreeFryNarrow<uint8_t>(p, k0, k1, state[1], out, begin, end);
      case 2:
        return ThreeFryNarrow<uint16_t>(p, k0, k1, state[1], out, begin, end);
      case 4:
        return ThreeFryNarrow<uint32_t>(p, k0, k1, state[1], out, begin, end);
      default:
        return ThreeFryWide(k0, k1, state[1], out, begin, end);
    }
  }
  const uint64_t lo = state[1];
  const uint64_t hi = p.state_size >= 3 ? state[2] : state[0];
  switch (p.elem_bytes) {
    case 1:
      return PhiloxRun<uint8_t>(p, k0, k1, lo, hi, out, begin, end);
    case 2:
      return PhiloxRun<uint16_t>(p, k0, k1, lo, hi, out, begin, end);
    case 4:
      return PhiloxRun<uint32_t>(p, k0, k1, lo, hi, out, begin, end);
    default:
      return PhiloxRun<uint64_t>(p, k0, k1, lo, hi, out, begin, end);
  }
}

void RngBitsNextState(const RngBitsPlan& p, const uint64_t* state, uint64_t* next) {
  const uint64_t key = state[0];
  if (p.algorithm == RngBitsAlgorithm::kThreeFry) {
    const uint64_t base = state[1];
    next[0] = key;
    next[1] = base + static_cast<uint64_t>(p.blocks);
    return;
  }
  const uint64_t hi = p.state_size >= 3 ? state[2] : state[0];
  uint64_t lo2, hi2;
  Add128(state[1], hi, static_cast<uint64_t>(p.blocks), &lo2, &hi2);
  next[0] = key;
  next[1] = lo2;
  if (p.state_size >= 3) next[2] = hi2;
}

}  // namespace hlovm
