// Internal to ops/dot/: the handler body shared by the kernels that split one
// instruction into fixed work units over a scratch buffer (dot,
// convolution): allocate the scratch, prepare, run the units (across threads
// above a size), finish. The units never depend on the thread count.
#ifndef HLOVM_OPS_DOT_UNIT_KERNEL_H_
#define HLOVM_OPS_DOT_UNIT_KERNEL_H_

#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "hwy/aligned_allocator.h"
#include "vm/lowering.h"

namespace hlovm {
namespace vm {

// `plan` has scratch_bytes, units and flops(); prepare(scratch) returns the
// buffers that units(buffers, begin, end) and finish(buffers) take.
template <typename Plan, typename Prepare, typename Units, typename Finish>
bool RunUnitKernel(ExecContext& ctx, const Plan& plan, const char* what, int64_t parallel_flops,
                   Prepare&& prepare, Units&& units, Finish&& finish) {
  hwy::AlignedFreeUniquePtr<uint8_t[]> scratch;
  if (plan.scratch_bytes > 0) {
    scratch = hwy::AllocateAligned<uint8_t>(static_cast<size_t>(plan.scratch_bytes));
    if (scratch == nullptr) {
      return ctx.Fail(absl::ResourceExhaustedError(
          absl::StrCat(what, ": cannot allocate ", plan.scratch_bytes, " bytes of scratch")));
    }
  }
  const auto buffers = prepare(scratch.get());
  if (plan.flops() < parallel_flops) {
    units(buffers, int64_t{0}, plan.units);
  } else {
    ForEachChunk(ctx, plan.units, 1, [&](int64_t b, int64_t e) { units(buffers, b, e); });
  }
  finish(buffers);
  return true;
}

}  // namespace vm
}  // namespace hlovm

#endif  // HLOVM_OPS_DOT_UNIT_KERNEL_H_
