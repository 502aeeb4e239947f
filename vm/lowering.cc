#include "vm/lowering.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/status_macros.h"

namespace hlovm {
namespace vm {

// Asked of the kernel once (a system call, which constant folding would
// otherwise pay for every value it folds).
int64_t MemoryLimitBytes() {
  static const int64_t limit = [] {
    const long pages = sysconf(_SC_PHYS_PAGES);
    const long page_size = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page_size <= 0) return int64_t{1} << 40;
    return static_cast<int64_t>(pages) * page_size / 4 * 3;
  }();
  return limit;
}

//===----------------------------------------------------------------------===//
// Shapes.
//===----------------------------------------------------------------------===//

void FlattenShape(const Shape& shape, std::vector<const Shape*>* leaves) {
  if (shape.IsTuple()) {
    for (const Shape& s : shape.tuple_shapes()) FlattenShape(s, leaves);
  } else {
    leaves->push_back(&shape);
  }
}

int64_t LeafCount(const Shape& shape) {
  if (!shape.IsTuple()) return 1;
  int64_t n = 0;
  for (const Shape& s : shape.tuple_shapes()) n += LeafCount(s);
  return n;
}

Shape RowMajorShape(const Shape& shape) {
  Shape s = shape;
  if (s.IsArray()) s.set_layout(Layout::RowMajor(s.rank()));
  return s;
}

bool IsEffectivelyRowMajor(const Shape& shape) {
  if (!shape.IsArray() || !shape.has_layout()) return true;
  // Walking from minor to major, dimensions of size > 1 must appear in
  // decreasing order.
  int64_t last = INT64_MAX;
  for (int64_t d : shape.layout().minor_to_major) {
    if (shape.dimensions(d) == 1) continue;
    if (d > last) return false;
    last = d;
  }
  return true;
}

//===----------------------------------------------------------------------===//
// FunctionBuilder.
//===----------------------------------------------------------------------===//

absl::StatusOr<Reg> FunctionBuilder::NewReg(RegKind kind, const Shape& shape) {
  RegInfo info;
  info.kind = kind;
  if (shape.IsToken() || shape.IsOpaque()) {
    info.kind = kind == RegKind::kParam ? RegKind::kParam : RegKind::kToken;
    info.shape = shape;
  } else if (shape.IsArray()) {
    info.shape = RowMajorShape(shape);
    int64_t count = 1;
    for (int64_t i = 0; i < shape.rank(); ++i) {
      const int64_t d = shape.dimensions(i);
      if (d < 0) {
        return absl::UnimplementedError(absl::StrCat(
            "shape ", shape.ToString(), " has an unbounded dynamic dimension"));
      }
      if (__builtin_mul_overflow(count, d, &count)) count = INT64_MAX;
    }
    int64_t bytes;
    if (__builtin_mul_overflow(count, static_cast<int64_t>(ByteWidth(shape.element_type())),
                               &bytes)) {
      bytes = INT64_MAX;
    }
    static const int64_t limit = MemoryLimitBytes();
    if (bytes > limit) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "shape ", shape.ToString(), " needs ",
          bytes == INT64_MAX ? std::string("over 2^63") : absl::StrCat(bytes),
          " bytes, more than the ", limit, " bytes this machine allows (3/4 of its memory)"));
    }
    info.bytes = bytes;
  } else {
    return absl::InternalError(absl::StrCat("NewReg on tuple shape ", shape.ToString()));
  }
  fn_->regs.push_back(std::move(info));
  return static_cast<Reg>(fn_->regs.size() - 1);
}

absl::StatusOr<ValueDesc> FunctionBuilder::NewOwnedValue(const Shape& shape) {
  std::vector<const Shape*> leaves;
  FlattenShape(shape, &leaves);
  ValueDesc desc;
  for (const Shape* leaf : leaves) {
    HLOVM_ASSIGN_OR_RETURN(Reg r, NewReg(RegKind::kOwned, *leaf));
    desc.push_back(r);
  }
  return desc;
}

int32_t FunctionBuilder::Emit(const HloInstruction* hlo, EmitSpec spec) {
  Instr instr;
  instr.handler = spec.handler;
  instr.plan = spec.plan;
  instr.num_in = static_cast<uint32_t>(spec.in.size());
  instr.num_out = static_cast<uint32_t>(spec.out.size());
  instr.cost = spec.cost;
  InstrInfo info;
  info.hlo = hlo;
  info.kind = spec.kind;
  info.variant = std::move(spec.variant);
  info.inplace_mask = spec.inplace_mask;
  info.side_effect = spec.side_effect;
  info.detail = std::move(spec.detail);
  info.fused = spec.fused;
  info.in_offset = static_cast<uint32_t>(fn_->reg_pool.size());
  fn_->reg_pool.insert(fn_->reg_pool.end(), spec.in.begin(), spec.in.end());
  info.out_offset = static_cast<uint32_t>(fn_->reg_pool.size());
  fn_->reg_pool.insert(fn_->reg_pool.end(), spec.out.begin(), spec.out.end());
  fn_->code.push_back(instr);
  fn_->info.push_back(std::move(info));
  return static_cast<int32_t>(fn_->code.size() - 1);
}

//===----------------------------------------------------------------------===//
// copy.
//===----------------------------------------------------------------------===//

namespace {

struct CopyPlan {
  int64_t bytes;
};

bool CopyHandler(const Instr& instr, uint8_t* const* regs, ExecContext& ctx) {
  const auto& p = *static_cast<const CopyPlan*>(instr.plan);
  const uint8_t* src = regs[instr.in[0]];
  uint8_t* dst = regs[instr.out[0]];
  if (src == dst) return true;
  if (p.bytes < kParallelKernelBytes) {
    std::memcpy(dst, src, p.bytes);
    return true;
  }
  ForEachChunk(ctx, p.bytes, kChunkBytes,
               [&](int64_t b, int64_t e) { std::memcpy(dst + b, src + b, e - b); });
  return true;
}

}  // namespace

void EmitCopy(FunctionBuilder& b, const HloInstruction* hlo, Reg from, Reg to,
              std::string variant) {
  const int64_t bytes = b.function().regs[to].bytes;
  FunctionBuilder::EmitSpec spec;
  spec.handler = &CopyHandler;
  spec.plan = b.program().AddPlan(CopyPlan{bytes});
  spec.in = {from};
  spec.out = {to};
  spec.cost = 2 * bytes;
  spec.kind = HandlerKind::kCopy;
  spec.variant = std::move(variant);
  b.Emit(hlo, std::move(spec));
}

}  // namespace vm
}  // namespace hlovm
