#include "core/aligned_buffer.h"

#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace hlovm {
namespace {

//===----------------------------------------------------------------------===//
// Storage.
//===----------------------------------------------------------------------===//

constexpr int64_t kAlignment = 64;
// Buffers of at least this size are mapped (zero pages come for free).
constexpr int64_t kMapThreshold = int64_t{1} << 20;
// Mappings of at least this size ask for transparent huge pages.
constexpr int64_t kHugePageThreshold = int64_t{8} << 20;
// No literal may be larger than this (64 TiB) or than the machine's physical
// memory; larger requests fail early.
constexpr int64_t kMaxBytes = int64_t{1} << 46;

int64_t RoundUp(int64_t value, int64_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

// Freed mappings kept for reuse, newest last, at most kBytes in all: a
// mapping's pages are already faulted in, which for a result written once
// costs more than the write itself.
class MappingCache {
 public:
  static constexpr int64_t kBytes = int64_t{128} << 20;
  static MappingCache& Get() {
    static MappingCache* cache = new MappingCache;
    return *cache;
  }
  // A kept mapping of exactly `length` bytes, or null.
  void* Take(int64_t length) {
    std::lock_guard<std::mutex> lock(mu_);
    for (size_t i = kept_.size(); i-- > 0;) {
      if (kept_[i].length != length) continue;
      void* p = kept_[i].base;
      total_ -= length;
      kept_.erase(kept_.begin() + static_cast<std::ptrdiff_t>(i));
      return p;
    }
    return nullptr;
  }
  // Keeps the mapping, unmapping the oldest ones beyond the budget.
  void Give(void* base, int64_t length) {
    if (length > kBytes / 2) {
      munmap(base, static_cast<size_t>(length));
      return;
    }
    std::vector<Mapping> evicted;
    {
      std::lock_guard<std::mutex> lock(mu_);
      kept_.push_back(Mapping{base, length});
      total_ += length;
      while (total_ > kBytes) {
        evicted.push_back(kept_.front());
        total_ -= kept_.front().length;
        kept_.erase(kept_.begin());
      }
    }
    for (const Mapping& m : evicted) munmap(m.base, static_cast<size_t>(m.length));
  }

 private:
  struct Mapping {
    void* base;
    int64_t length;
  };
  std::mutex mu_;
  std::vector<Mapping> kept_;
  int64_t total_ = 0;
};

}  // namespace

void KeepFreedMemoryForReuse() {
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 512 << 20);
}

//===----------------------------------------------------------------------===//
// AlignedBuffer.
//===----------------------------------------------------------------------===//

// The data follows a kAlignment-byte header whose first 8 bytes hold the
// mapped length, or 0 for a block from malloc, whose start the next 8 bytes
// hold. (malloc and aligning by hand: glibc's aligned_alloc costs several
// times a malloc, and small results are allocated on every run.)
absl::StatusOr<AlignedBuffer> AlignedBuffer::Allocate(int64_t size, Init init) {
  if (size < 0) return absl::InvalidArgumentError(absl::StrCat("negative buffer size ", size));
  static const int64_t limit = [] {
    long pages = sysconf(_SC_PHYS_PAGES);
    long page_size = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page_size <= 0) return kMaxBytes;
    return std::min<int64_t>(kMaxBytes, static_cast<int64_t>(pages) * page_size);
  }();
  if (size > limit) {
    return absl::ResourceExhaustedError(
        absl::StrCat("cannot allocate ", size, " bytes (more than the limit of ", limit, ")"));
  }
  const int64_t total = size + kAlignment;
  uint8_t* base = nullptr;
  uint64_t mapped = 0;
  if (total >= kMapThreshold) {
    const int64_t length = RoundUp(total, 4096);
    void* p = MappingCache::Get().Take(length);
    if (p != nullptr) {
      if (init == kZeroed) std::memset(p, 0, static_cast<size_t>(length));
    } else {
      p = mmap(nullptr, static_cast<size_t>(length), PROT_READ | PROT_WRITE,
               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (p == MAP_FAILED) {
        return absl::ResourceExhaustedError(absl::StrCat("cannot allocate ", size, " bytes"));
      }
      // Large arrays on 2 MiB pages where the kernel offers them for the
      // asking: a fresh mapping costs one fault (and one zeroing) per 2 MiB
      // instead of per 4 KiB, which on a virtual machine was most of the
      // time spent making a large model's inputs.
      if (length >= kHugePageThreshold) madvise(p, static_cast<size_t>(length), MADV_HUGEPAGE);
    }
    base = static_cast<uint8_t*>(p);
    mapped = static_cast<uint64_t>(length);
  } else {
    // The data's kAlignment-multiple of bytes, zeroed when asked (kernels
    // may read a vector past the end), and room to align the header.
    const int64_t padded = RoundUp(size, kAlignment);
    auto* block = static_cast<uint8_t*>(std::malloc(static_cast<size_t>(padded + 2 * kAlignment)));
    if (block == nullptr) {
      return absl::ResourceExhaustedError(absl::StrCat("cannot allocate ", size, " bytes"));
    }
    const uintptr_t start = reinterpret_cast<uintptr_t>(block) + kAlignment;
    base = block + (RoundUp(static_cast<int64_t>(start), kAlignment) - static_cast<int64_t>(start));
    if (init == kZeroed) std::memset(base + kAlignment, 0, static_cast<size_t>(padded));
    std::memcpy(base + sizeof(mapped), &block, sizeof(block));
  }
  std::memcpy(base, &mapped, sizeof(mapped));
  AlignedBuffer buffer;
  buffer.data_.reset(base + kAlignment);
  buffer.size_ = size;
  return buffer;
}

AlignedBuffer AlignedBuffer::Borrow(uint8_t* data, int64_t size) {
  AlignedBuffer buffer;
  buffer.data_ = std::unique_ptr<uint8_t, Free>(data, Free(false));
  buffer.size_ = size;
  return buffer;
}

void AlignedBuffer::Free::operator()(uint8_t* p) const {
  if (p == nullptr || !owned) return;
  uint8_t* base = p - kAlignment;
  uint64_t mapped;
  std::memcpy(&mapped, base, sizeof(mapped));
  if (mapped != 0) {
    MappingCache::Get().Give(base, static_cast<int64_t>(mapped));
  } else {
    uint8_t* block;
    std::memcpy(&block, base + sizeof(mapped), sizeof(block));
    std::free(block);
  }
}

}  // namespace hlovm
