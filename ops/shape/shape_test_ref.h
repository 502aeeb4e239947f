// Slow, obvious reference helpers for the ops/shape kernel tests: row-major
// index arithmetic and random byte buffers.
#ifndef HLOVM_OPS_SHAPE_SHAPE_TEST_REF_H_
#define HLOVM_OPS_SHAPE_SHAPE_TEST_REF_H_

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

namespace hlovm {
namespace shape_test {

inline int64_t Count(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

// Multi-index of row-major position `i` in `dims`.
inline std::vector<int64_t> Unravel(int64_t i, const std::vector<int64_t>& dims) {
  std::vector<int64_t> idx(dims.size());
  for (int64_t d = static_cast<int64_t>(dims.size()) - 1; d >= 0; --d) {
    idx[d] = i % dims[d];
    i /= dims[d];
  }
  return idx;
}

inline int64_t Ravel(const std::vector<int64_t>& idx, const std::vector<int64_t>& dims) {
  int64_t i = 0;
  for (size_t d = 0; d < dims.size(); ++d) i = i * dims[d] + idx[d];
  return i;
}

inline std::vector<uint8_t> RandomBytes(int64_t n, std::mt19937_64& rng) {
  std::vector<uint8_t> v(n);
  for (auto& b : v) b = static_cast<uint8_t>(rng());
  return v;
}

// Copies element `from` of `src` to element `to` of `dst`.
inline void CopyElem(const std::vector<uint8_t>& src, int64_t from, std::vector<uint8_t>& dst,
                     int64_t to, int es) {
  std::memcpy(dst.data() + to * es, src.data() + from * es, es);
}

}  // namespace shape_test
}  // namespace hlovm

#endif  // HLOVM_OPS_SHAPE_SHAPE_TEST_REF_H_
