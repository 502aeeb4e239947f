#include "core/slab_pool.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <thread>
#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace hlovm {
namespace {

// A pool of the test's own (id 0 serves the IR).
SlabPool pool(SlabPool::kMaxPools - 1);

struct Block {
  char* p;
  size_t bytes;
};

TEST(SlabPoolTest, BlocksAreAlignedDistinctAndInOrder) {
  std::mt19937 rng(3);
  std::vector<Block> blocks;
  for (int k = 0; k < 20000; ++k) {
    const size_t bytes = 1 + rng() % 600;
    auto* p = static_cast<char*>(pool.Allocate(bytes));
    ASSERT_EQ(reinterpret_cast<uintptr_t>(p) % SlabPool::kAlignment, 0u);
    std::memset(p, k & 0xff, bytes);
    blocks.push_back({p, bytes});
  }
  // Within a slab, each block starts after the one before it ends.
  int64_t slabs = 1;
  for (size_t k = 1; k < blocks.size(); ++k) {
    if (blocks[k].p < blocks[k - 1].p + blocks[k - 1].bytes) {
      ++slabs;
      EXPECT_NE(reinterpret_cast<uintptr_t>(blocks[k].p) / SlabPool::kSlabBytes,
                reinterpret_cast<uintptr_t>(blocks[k - 1].p) / SlabPool::kSlabBytes);
    }
  }
  EXPECT_LT(slabs, 30);  // about 6 MB in 256 KiB slabs
  for (size_t k = 0; k < blocks.size(); ++k) {
    EXPECT_EQ(blocks[k].p[0], static_cast<char>(k & 0xff));
    EXPECT_EQ(blocks[k].p[blocks[k].bytes - 1], static_cast<char>(k & 0xff));
  }
  for (const Block& b : blocks) SlabPool::Free(b.p);
}

TEST(SlabPoolTest, EmptiedSlabsAreCarvedAgainFromTheirStart) {
  std::vector<void*> first;
  for (int k = 0; k < 3000; ++k) first.push_back(pool.Allocate(256));
  std::vector<uintptr_t> slabs;
  for (void* p : first) slabs.push_back(reinterpret_cast<uintptr_t>(p) / SlabPool::kSlabBytes);
  std::sort(slabs.begin(), slabs.end());
  slabs.erase(std::unique(slabs.begin(), slabs.end()), slabs.end());
  // Freed in a random order, half of them on another thread.
  std::shuffle(first.begin(), first.end(), std::mt19937(5));
  std::vector<void*> half(first.begin() + 1500, first.end());
  first.resize(1500);
  std::thread other([&] {
    for (void* p : half) SlabPool::Free(p);
  });
  for (void* p : first) SlabPool::Free(p);
  other.join();
  // The same amount again fits in slabs the pool already had (all but the
  // one still being carved went back whole), in address order.
  std::vector<void*> next;
  for (int k = 0; k < 3000; ++k) next.push_back(pool.Allocate(256));
  int64_t backwards = 0, reused = 0;
  for (size_t k = 0; k < next.size(); ++k) {
    const uintptr_t slab = reinterpret_cast<uintptr_t>(next[k]) / SlabPool::kSlabBytes;
    reused += std::binary_search(slabs.begin(), slabs.end(), slab);
    if (k > 0) backwards += next[k] < next[k - 1];
  }
  EXPECT_GT(reused, 2000);
  EXPECT_LT(backwards, 6);
  for (void* p : next) SlabPool::Free(p);
}

}  // namespace
}  // namespace hlovm
