// Per-thread scratch buffers for kernels that work through a large array in
// cache-sized pieces (convolution tiles, fused-region tile registers, an
// all-reduce's staging block).
#ifndef HLOVM_CORE_THREAD_SCRATCH_H_
#define HLOVM_CORE_THREAD_SCRATCH_H_

#include <cstdint>
#include <new>

namespace hlovm {

// At least `bytes` of 64-byte aligned memory owned by the calling thread,
// kept (and grown to the largest size asked for) for its next call with the
// same `Tag`. The contents are undefined and last until that next call, so
// a caller that needs two buffers at once uses two tags, and nothing may
// run nested on the thread between getting the buffer and finishing with
// it (kernels do not spawn work).
template <class Tag>
uint8_t* ThreadScratch(int64_t bytes) {
  struct Buffer {
    uint8_t* data = nullptr;
    int64_t size = 0;
    ~Buffer() { ::operator delete(data, std::align_val_t(64)); }
  };
  thread_local Buffer buffer;
  if (buffer.size < bytes) {
    ::operator delete(buffer.data, std::align_val_t(64));
    buffer.data = nullptr;  // stays empty if the allocation throws
    buffer.size = 0;
    buffer.data =
        static_cast<uint8_t*>(::operator new(static_cast<size_t>(bytes), std::align_val_t(64)));
    buffer.size = bytes;
  }
  return buffer.data;
}

}  // namespace hlovm

#endif  // HLOVM_CORE_THREAD_SCRATCH_H_
