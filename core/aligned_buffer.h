// 64-byte aligned byte storage for literals and the VM's arrays, with a
// cache of recently freed large mappings (core/aligned_buffer.cc).
#ifndef HLOVM_CORE_ALIGNED_BUFFER_H_
#define HLOVM_CORE_ALIGNED_BUFFER_H_

#include <cstdint>
#include <memory>

#include "absl/status/statusor.h"

namespace hlovm {

// Tells malloc to keep freed blocks below 32 MiB for reuse instead of
// handing them back to the kernel (a fixed mmap threshold and a high trim
// threshold). By default glibc maps blocks of 128 KiB and more afresh, and
// trims its heaps, so a module run again and again (or a collective's
// messages) faults in and zeroes new pages for each run: an 8-instance
// all-reduce of 640 KB over 4 processes took 4.3 ms a run that way and
// 2.3 ms with the blocks kept. For programs that run modules (hlovm's
// main); a library's host keeps its own policy.
void KeepFreedMemoryForReuse();

// 64-byte aligned byte storage, zero-initialised unless asked otherwise, or
// a borrowed view of the caller's memory (Borrow). Large buffers are mapped; recently freed mappings (128 MiB at most)
// are kept for reuse, so that a module run again and again does not fault
// in fresh pages for its results each time.
class AlignedBuffer {
 public:
  enum Init { kZeroed, kUninitialized };
  AlignedBuffer() = default;
  // Returns ResourceExhausted instead of throwing when `size` cannot be had.
  static absl::StatusOr<AlignedBuffer> Allocate(int64_t size, Init init = kZeroed);
  // `size` bytes at `data`, not owned: nothing is freed, and the caller keeps
  // the memory valid while the buffer (or anything it is moved into) lives.
  // Its alignment is whatever `data` has.
  static AlignedBuffer Borrow(uint8_t* data, int64_t size);
  uint8_t* data() { return data_.get(); }
  const uint8_t* data() const { return data_.get(); }
  int64_t size() const { return size_; }
  bool owned() const { return data_.get_deleter().owned; }

 private:
  struct Free {
    Free() noexcept : owned(true) {}
    explicit Free(bool owns) noexcept : owned(owns) {}
    bool owned;
    void operator()(uint8_t* p) const;
  };
  std::unique_ptr<uint8_t, Free> data_;
  int64_t size_ = 0;
};

}  // namespace hlovm

#endif  // HLOVM_CORE_ALIGNED_BUFFER_H_
