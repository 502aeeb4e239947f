// The embedding API (vm/api.h) over the compiler and executor.
#include "vm/api.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "core/elided_fill.h"
#include "core/float_env.h"
#include "core/status_macros.h"
#include "frontend/parser.h"
#include "frontend/verifier.h"
#include "oneapi/tbb/info.h"
#include "oneapi/tbb/task_arena.h"
#include "ops/shape/strided_copy.h"
#include "passes/ir_util.h"
#include "passes/pipeline.h"
#include "vm/buffer_plan.h"
#include "vm/check_failure.h"
#include "vm/compiler.h"
#include "vm/executor.h"
#include "vm/lowering.h"

namespace hlovm {
namespace {

using vm::Frame;
using vm::Function;
using vm::Program;
using vm::Reg;

Shape WithLayout(Shape shape) {
  if (shape.IsArray() && !shape.has_layout()) shape.set_layout(Layout::RowMajor(shape.rank()));
  if (shape.IsTuple()) {
    for (int64_t i = 0; i < shape.tuple_size(); ++i) {
      *shape.mutable_tuple_shape(i) = WithLayout(shape.tuple_shape(i));
    }
  }
  return shape;
}

// Fills every elided constant of `module`; returns how many there were.
absl::StatusOr<int64_t> FillElidedConstants(HloModule& module, ElidedFill how) {
  // XLA's counters are process-wide; counters of this module's own make its
  // values those of a fresh XLA process loading the same text.
  ElidedFiller filler;
  int64_t filled = 0;
  for (const auto& computation : module.computations()) {
    for (const auto& instr : computation->instructions()) {
      if (instr->opcode() != HloOpcode::kConstant || !instr->literal.has_value() ||
          !instr->literal->elided()) {
        continue;
      }
      switch (how) {
        case ElidedFill::kError:
          return vm::AnnotateStatus(
              absl::InvalidArgumentError(
                  "has elided values ({...}); fill them with XLA's pattern or zeros"),
              instr.get());
        case ElidedFill::kZeros:
          FillElidedWithZeros(&*instr->literal);
          break;
        case ElidedFill::kXla:
          filler.FillLikeXla(&*instr->literal);
          break;
      }
      instr->literal->set_elided(false);
      ++filled;
    }
  }
  return filled;
}

class VmExecutable : public Executable {
 public:
  VmExecutable(std::unique_ptr<HloModule> module, std::unique_ptr<Program> program,
               int64_t elided, std::string pass_report, double pass_seconds)
      : module_(std::move(module)),
        program_(std::move(program)),
        elided_(elided),
        pass_report_(std::move(pass_report)),
        pass_seconds_(pass_seconds) {
    const HloComputation& entry = *module_->entry();
    for (int64_t i = 0; i < entry.parameter_count(); ++i) {
      Shape s = entry.parameter(i)->shape();
      if (module_->entry_parameter_layouts.has_value() &&
          i < static_cast<int64_t>(module_->entry_parameter_layouts->size()) &&
          (*module_->entry_parameter_layouts)[i].Compatible(s)) {
        s = (*module_->entry_parameter_layouts)[i];
      }
      parameter_shapes_.push_back(WithLayout(s));
    }
    Shape r = entry.root()->shape();
    if (module_->entry_result_layout.has_value() && module_->entry_result_layout->Compatible(r)) {
      r = *module_->entry_result_layout;
    }
    result_shape_ = WithLayout(r);
    vm::FlattenShape(result_shape_, &result_leaf_shapes_);
    const Function& fn = *program_->entry;
    for (Reg reg = 0; reg < fn.regs.size(); ++reg) {
      const vm::RegInfo& info = fn.regs[reg];
      if (info.kind == vm::RegKind::kOwned && info.slot >= 0 && info.bytes > 0 &&
          fn.ResultOfSlot(info.slot) >= 0) {
        result_bound_regs_.push_back(reg);
      }
    }
  }

  const HloModule& module() const override { return *module_; }
  const std::vector<Shape>& parameter_shapes() const override { return parameter_shapes_; }
  const Shape& result_shape() const override { return result_shape_; }
  int64_t elided_constants_filled() const override { return elided_; }
  std::string Disassemble() const override { return vm::DisassembleProgram(*program_); }
  MemoryStats memory_stats() const override;
  std::string PassReport() const override { return pass_report_; }
  double pass_seconds() const override { return pass_seconds_; }
  std::string DescribePosition(const RunPosition& position) const override;

  absl::StatusOr<Literal> Execute(absl::Span<const Literal* const> arguments,
                                  const ExecuteOptions& options) const override;
  absl::StatusOr<Literal> ExecuteDonated(absl::Span<Literal> arguments,
                                         const ExecuteOptions& options) const override;
  void ReturnDonated(Literal& result, absl::Span<Literal> arguments) const override;
  absl::StatusOr<Literal> ExecuteArrays(absl::Span<const void* const> data,
                                        const ExecuteOptions& options) const override;

 private:
  // Execute and ExecuteDonated; `donated` (empty or one per argument) are
  // the literals a passed-through result leaf may take over.
  absl::StatusOr<Literal> Run(absl::Span<const Literal* const> arguments,
                              absl::Span<Literal* const> donated,
                              const ExecuteOptions& options) const;
  // The run itself, once arguments are checked: `bind(regs, scratch)`
  // points the entry's parameter registers at the arguments.
  template <typename Bind>
  absl::StatusOr<Literal> RunBound(const Bind& bind, absl::Span<Literal* const> donated,
                                   const ExecuteOptions& options) const;
  // Per result leaf, the argument leaf it returns unchanged (numbered over
  // all arguments' leaves in order), or -1.
  std::vector<int64_t> PassedThroughLeaves() const;
  // Entry frames kept between runs (their arenas stay mapped), so repeated
  // runs allocate nothing.
  std::unique_ptr<Frame> TakeFrame() const;
  void ReturnFrame(std::unique_ptr<Frame> frame) const;

  std::unique_ptr<HloModule> module_;
  std::unique_ptr<Program> program_;
  int64_t elided_;
  std::string pass_report_;
  double pass_seconds_ = 0;
  mutable absl::Mutex frames_mu_;
  mutable std::vector<std::unique_ptr<Frame>> frames_ ABSL_GUARDED_BY(frames_mu_);
  std::vector<Shape> parameter_shapes_;
  Shape result_shape_;
  std::vector<const Shape*> result_leaf_shapes_;  // into result_shape_
  // Entry registers whose slot is a result's storage (Function::slot_result).
  std::vector<Reg> result_bound_regs_;
};

// Points parameter register `r` at an array of `shape` whose elements lie
// at `data`, relaying it into `scratch` when its layout is not row-major.
absl::Status BindArray(const Shape& shape, const void* data, const Function& fn, Reg r,
                       uint8_t** regs, std::vector<AlignedBuffer>& scratch) {
  if (vm::IsEffectivelyRowMajor(shape)) {
    regs[r] = static_cast<uint8_t*>(const_cast<void*>(data));
    static uint8_t empty[64];
    if (regs[r] == nullptr) regs[r] = empty;
    return absl::OkStatus();
  }
  HLOVM_ASSIGN_OR_RETURN(AlignedBuffer buffer, AlignedBuffer::Allocate(fn.regs[r].bytes));
  StridedCopyPlan plan = MakeToRowMajorPlan(ByteWidth(shape.element_type()), shape.dimensions(),
                                            shape.minor_to_major());
  RunStridedCopy(plan, static_cast<const uint8_t*>(data), buffer.data(), 0, plan.rows());
  regs[r] = buffer.data();
  scratch.push_back(std::move(buffer));
  return absl::OkStatus();
}

// Points parameter registers at the leaves of `arg`, relaying leaves whose
// layout is not row-major into `scratch`.
absl::Status BindArgument(const Literal& arg, const Function& fn, const Reg*& leaf, uint8_t** regs,
                          std::vector<AlignedBuffer>& scratch) {
  const Shape& shape = arg.shape();
  if (shape.IsTuple()) {
    for (const Literal& e : arg.tuple_elements()) {
      HLOVM_RETURN_IF_ERROR(BindArgument(e, fn, leaf, regs, scratch));
    }
    return absl::OkStatus();
  }
  const Reg r = *leaf++;
  if (!shape.IsArray()) {
    static uint8_t token_byte = 0;
    regs[r] = &token_byte;
    return absl::OkStatus();
  }
  return BindArray(shape, arg.untyped_data(), fn, r, regs, scratch);
}

// The leaves of `literal` where `shape` has them (a leaf a result took over
// is an empty tuple now, still one leaf).
void CollectLeaves(const Shape& shape, Literal& literal, std::vector<Literal*>& leaves) {
  if (!shape.IsTuple()) {
    leaves.push_back(&literal);
    return;
  }
  for (size_t i = 0; i < shape.tuple_shapes().size(); ++i) {
    if (i < literal.tuple_elements().size()) {
      CollectLeaves(shape.tuple_shapes()[i], literal.tuple_elements()[i], leaves);
    }
  }
}

// Literals holding a register's storage (results computed in place,
// donated arguments), by register; few, so a vector searched in order (the
// first entry of a register is the one used).
using Takeable = absl::InlinedVector<std::pair<Reg, Literal*>, 4>;

// Builds the result literal of `shape` from the registers. A result leaf
// takes over the literal `takeable` holds for its register instead of a
// copy; those taken leave the list.
absl::StatusOr<Literal> MakeResult(const Shape& shape, const Reg*& leaf, uint8_t* const* regs,
                                   const Function& fn,
                                   Takeable& takeable) {
  if (shape.IsTuple()) {
    std::vector<Literal> elements;
    for (const Shape& s : shape.tuple_shapes()) {
      HLOVM_ASSIGN_OR_RETURN(Literal e, MakeResult(s, leaf, regs, fn, takeable));
      elements.push_back(std::move(e));
    }
    return Literal::Tuple(std::move(elements));
  }
  const Reg r = *leaf++;
  if (!shape.IsArray()) {
    auto token = Literal::Create(shape);
    if (token.ok()) return std::move(*token);
    return Literal();
  }
  if (auto it = std::find_if(takeable.begin(), takeable.end(),
                             [r](const auto& entry) { return entry.first == r; });
      it != takeable.end()) {
    Literal* own = it->second;
    // Only storage the run used directly (not a relaid copy) and laid out
    // as the result wants.
    if (own->shape() == shape && own->untyped_data() == regs[r] && own->size_bytes() > 0) {
      Literal taken = std::move(*own);
      *own = Literal();
      takeable.erase(it);
      return taken;
    }
  }
  HLOVM_ASSIGN_OR_RETURN(Literal lit, Literal::CreateUninitialized(shape));
  const int64_t bytes = fn.regs[r].bytes;
  if (bytes == 0) return lit;
  if (vm::IsEffectivelyRowMajor(shape)) {
    std::memcpy(lit.untyped_data(), regs[r], bytes);
  } else {
    StridedCopyPlan plan = MakeFromRowMajorPlan(ByteWidth(shape.element_type()),
                                                shape.dimensions(), shape.minor_to_major());
    RunStridedCopy(plan, regs[r], lit.untyped_data(), 0, plan.rows());
  }
  return lit;
}

absl::StatusOr<Literal> VmExecutable::Execute(absl::Span<const Literal* const> arguments,
                                              const ExecuteOptions& options) const {
  return Run(arguments, {}, options);
}

absl::StatusOr<Literal> VmExecutable::ExecuteDonated(absl::Span<Literal> arguments,
                                                     const ExecuteOptions& options) const {
  std::vector<const Literal*> pointers;
  std::vector<Literal*> donated;
  for (Literal& a : arguments) {
    pointers.push_back(&a);
    donated.push_back(&a);
  }
  return Run(pointers, donated, options);
}

std::vector<int64_t> VmExecutable::PassedThroughLeaves() const {
  const Function& fn = *program_->entry;
  absl::flat_hash_map<Reg, int64_t> param_leaf;
  for (size_t j = 0; j < fn.param_regs.size(); ++j) param_leaf.emplace(fn.param_regs[j], j);
  std::vector<int64_t> out;
  for (Reg r : fn.result_regs) {
    auto it = param_leaf.find(r);
    out.push_back(it == param_leaf.end() ? -1 : it->second);
  }
  return out;
}

void VmExecutable::ReturnDonated(Literal& result, absl::Span<Literal> arguments) const {
  std::vector<Literal*> result_leaves, argument_leaves;
  CollectLeaves(result_shape_, result, result_leaves);
  for (size_t i = 0; i < arguments.size() && i < parameter_shapes_.size(); ++i) {
    CollectLeaves(parameter_shapes_[i], arguments[i], argument_leaves);
  }
  const std::vector<int64_t> from = PassedThroughLeaves();
  for (size_t k = 0; k < from.size() && k < result_leaves.size(); ++k) {
    if (from[k] < 0 || from[k] >= static_cast<int64_t>(argument_leaves.size())) continue;
    Literal* arg = argument_leaves[from[k]];
    // Taken leaves were left empty tuples; a leaf of the argument's own
    // shape is still there.
    if (!arg->shape().IsTuple() || result_leaves[k]->shape().IsTuple()) continue;
    *arg = std::move(*result_leaves[k]);
    *result_leaves[k] = Literal();
  }
}

absl::StatusOr<Literal> VmExecutable::Run(absl::Span<const Literal* const> arguments,
                                          absl::Span<Literal* const> donated,
                                          const ExecuteOptions& options) const {
  if (options.flush_denormals && !CanFlushDenormals()) {
    return absl::UnimplementedError("flushing subnormals to zero: this processor has no such mode");
  }
  if (arguments.size() != parameter_shapes_.size()) {
    return absl::InvalidArgumentError(absl::StrCat("the entry computation takes ",
                                                   parameter_shapes_.size(), " arguments, got ",
                                                   arguments.size()));
  }
  for (size_t i = 0; i < arguments.size(); ++i) {
    if (arguments[i] == nullptr || !arguments[i]->shape().Compatible(parameter_shapes_[i])) {
      return absl::InvalidArgumentError(absl::StrCat(
          "argument ", i, " must be ", parameter_shapes_[i].ToString(), ", got ",
          arguments[i] == nullptr ? std::string("nothing") : arguments[i]->shape().ToString()));
    }
  }
  const Function& fn = *program_->entry;
  auto bind = [&](uint8_t** regs, std::vector<AlignedBuffer>& scratch) -> absl::Status {
    const Reg* leaf = fn.param_regs.data();
    for (const Literal* arg : arguments) {
      HLOVM_RETURN_IF_ERROR(BindArgument(*arg, fn, leaf, regs, scratch));
    }
    return absl::OkStatus();
  };
  return RunBound(bind, donated, options);
}

absl::StatusOr<Literal> VmExecutable::ExecuteArrays(absl::Span<const void* const> data,
                                                    const ExecuteOptions& options) const {
  if (data.size() != parameter_shapes_.size()) {
    return absl::InvalidArgumentError(absl::StrCat("the entry computation takes ",
                                                   parameter_shapes_.size(), " arguments, got ",
                                                   data.size()));
  }
  for (size_t i = 0; i < parameter_shapes_.size(); ++i) {
    if (!parameter_shapes_[i].IsArray()) {
      return absl::InvalidArgumentError(absl::StrCat("parameter ", i, " is ",
                                                     parameter_shapes_[i].ToString(),
                                                     ", not an array: pass it as a literal"));
    }
  }
  if (options.flush_denormals && !CanFlushDenormals()) {
    return absl::UnimplementedError("flushing subnormals to zero: this processor has no such mode");
  }
  const Function& fn = *program_->entry;
  auto bind = [&](uint8_t** regs, std::vector<AlignedBuffer>& scratch) -> absl::Status {
    for (size_t i = 0; i < data.size(); ++i) {
      HLOVM_RETURN_IF_ERROR(
          BindArray(parameter_shapes_[i], data[i], fn, fn.param_regs[i], regs, scratch));
    }
    return absl::OkStatus();
  };
  return RunBound(bind, {}, options);
}

template <typename Bind>
absl::StatusOr<Literal> VmExecutable::RunBound(const Bind& bind,
                                               absl::Span<Literal* const> donated,
                                               const ExecuteOptions& options) const {
  const Function& fn = *program_->entry;
  std::unique_ptr<Frame> frame = TakeFrame();
  if (frame == nullptr) {
    HLOVM_ASSIGN_OR_RETURN(frame, Frame::Create(fn));
  }
  struct Returner {
    const VmExecutable* exe;
    std::unique_ptr<Frame>* frame;
    ~Returner() { exe->ReturnFrame(std::move(*frame)); }
  } returner{this, &frame};
  uint8_t** regs = frame->regs();
  std::vector<AlignedBuffer> scratch;
  HLOVM_RETURN_IF_ERROR(bind(regs, scratch));
  // Results are computed where the caller gets them: each result slot is
  // its leaf's literal (a leaf not laid out row-major gets a row-major
  // buffer, relaid at the end).
  // Few: at most one per result leaf.
  absl::InlinedVector<Literal, 2> outputs;
  absl::InlinedVector<Reg, 2> output_regs;  // the result register of each output
  absl::InlinedVector<std::pair<int32_t, uint8_t*>, 2> slot_storage;
  if (!result_bound_regs_.empty()) {
    outputs.reserve(fn.result_regs.size());
    for (size_t k = 0; k < fn.result_regs.size(); ++k) {
      const vm::RegInfo& info = fn.regs[fn.result_regs[k]];
      if (info.kind != vm::RegKind::kOwned || info.slot < 0 || info.bytes == 0 ||
          fn.ResultOfSlot(info.slot) != static_cast<int32_t>(k)) {
        continue;
      }
      const Shape& shape = *result_leaf_shapes_[k];
      if (vm::IsEffectivelyRowMajor(shape)) {
        HLOVM_ASSIGN_OR_RETURN(Literal lit, Literal::CreateUninitialized(shape));
        outputs.push_back(std::move(lit));
        output_regs.push_back(fn.result_regs[k]);
        slot_storage.emplace_back(info.slot, outputs.back().untyped_data());
      } else {
        HLOVM_ASSIGN_OR_RETURN(AlignedBuffer buffer,
                               AlignedBuffer::Allocate(info.bytes, AlignedBuffer::kUninitialized));
        slot_storage.emplace_back(info.slot, buffer.data());
        scratch.push_back(std::move(buffer));
      }
    }
    for (Reg r : result_bound_regs_) {
      const int32_t slot = fn.regs[r].slot;
      auto it = std::find_if(slot_storage.begin(), slot_storage.end(),
                             [slot](const auto& entry) { return entry.first == slot; });
      if (it == slot_storage.end()) {
        return absl::InternalError(absl::StrCat("result slot ", slot, " has no storage"));
      }
      regs[r] = it->second;
    }
  }

  vm::ExecContext ctx;
  ctx.threads = options.threads > 0 ? options.threads : tbb::info::default_concurrency();
  ctx.cancel = options.cancel;
  ctx.cancel_cause = options.cancel_cause;
  ctx.observer = options.observer;
  ctx.profiler = options.profiler;
  ctx.replica_id = options.replica_id;
  ctx.partition_id = options.partition_id;
  ctx.instance = options.instance;
  ctx.bus = options.bus;
  ctx.feeds = options.feeds;
  ctx.position = options.position;
  ctx.sequential = options.bus != nullptr;
  if (ctx.observer != nullptr) ctx.threads = 1;
  // More threads than cores only adds contention (and TBB refuses them).
  ctx.threads = std::min(ctx.threads, std::max(1, tbb::info::default_concurrency()));
  // The arena takes the calling thread's floating-point modes when it starts
  // and its worker threads run every task under them (oneTBB's documented
  // behaviour), so this scope covers the whole run.
  const FlushDenormalsScope flush(options.flush_denormals);
  // A run on as many threads as the caller's arena has (every core, the
  // default) runs in that arena: making one costs about as much as a small
  // module's whole run. Flushing subnormals needs an arena of its own.
  if (ctx.threads > 1 && (options.flush_denormals ||
                          ctx.threads != tbb::this_task_arena::max_concurrency())) {
    tbb::task_arena arena(ctx.threads);
    arena.execute([&] { vm::RunFunction(fn, regs, ctx); });
  } else {
    vm::RunFunction(fn, regs, ctx);
  }
  HLOVM_RETURN_IF_ERROR(ctx.Result());
  // Literals a result leaf takes instead of a copy: its own, computed in
  // place, and donated arguments passed through.
  Takeable takeable;
  takeable.reserve(outputs.size());
  for (size_t i = 0; i < outputs.size(); ++i) takeable.emplace_back(output_regs[i], &outputs[i]);
  if (!donated.empty()) {
    std::vector<Literal*> leaves;
    for (size_t i = 0; i < donated.size(); ++i) {
      CollectLeaves(parameter_shapes_[i], *donated[i], leaves);
    }
    for (size_t j = 0; j < leaves.size() && j < fn.param_regs.size(); ++j) {
      takeable.emplace_back(fn.param_regs[j], leaves[j]);
    }
  }
  const Reg* result_leaf = fn.result_regs.data();
  return MakeResult(result_shape_, result_leaf, regs, fn, takeable);
}

// The largest live set of `fn` (see MemoryStats::live_set_bytes): a sweep
// over instructions; values sharing a slot while both live (an in-place
// result and the operand it overwrites) count once. An instruction that
// calls functions (a loop body, a branch, a reducer) adds the largest live
// set among them while it runs (for a loop body, with the state it reads),
// instead of the size of the buffer that holds their frames. `callees` maps
// computations to their functions; `memo` holds what was found for each
// function.
int64_t LiveSetBytes(const vm::Function& fn,
                     const absl::flat_hash_map<const HloComputation*, std::vector<const vm::Function*>>&
                         callees,
                     absl::flat_hash_map<const vm::Function*, int64_t>& memo) {
  if (auto it = memo.find(&fn); it != memo.end()) return it->second;
  memo[&fn] = 0;  // a call cycle cannot happen; stop one anyway
  const int32_t n = static_cast<int32_t>(fn.code.size());
  std::vector<std::vector<int32_t>> born(n + 1), dies(n + 1);
  for (int32_t r = 0; r < static_cast<int32_t>(fn.regs.size()); ++r) {
    const vm::RegInfo& info = fn.regs[r];
    // A frames buffer is counted as the largest live set of the functions
    // it holds (below), not its size.
    if (info.kind != vm::RegKind::kOwned || info.def < 0 || info.slot < 0 || info.frames) continue;
    const int32_t end = info.is_result ? n : std::max(info.def, info.last_use);
    // Results have buffers of their own for the whole run (the literals
    // returned; a loop body's result regions), as XLA gives live-out values
    // allocations apart from its temporaries.
    born[fn.ResultOfSlot(info.slot) >= 0 ? 0 : info.def].push_back(r);
    dies[std::min(end, n)].push_back(r);
  }
  std::vector<int32_t> count(fn.slot_size.size(), 0);
  std::vector<int64_t> held(fn.slot_size.size(), 0);
  int64_t live = 0, peak = 0;
  for (int32_t t = 0; t <= n; ++t) {
    for (int32_t r : born[t]) {
      const vm::RegInfo& info = fn.regs[r];
      if (count[info.slot]++ == 0 || info.bytes > held[info.slot]) {
        live += info.bytes - held[info.slot];
        held[info.slot] = info.bytes;
      }
    }
    int64_t nested = 0;
    if (t < n && fn.info[t].hlo != nullptr) {
      for (const HloComputation* c : fn.info[t].hlo->called_computations()) {
        auto it = callees.find(c);
        if (it == callees.end()) continue;
        for (const vm::Function* callee : it->second) {
          // A loop body also needs the state it reads: the last iteration's
          // results, held apart from its own.
          nested = std::max(nested,
                            LiveSetBytes(*callee, callees, memo) + callee->ResultSlotBytes());
        }
      }
    }
    peak = std::max(peak, live + nested);
    for (int32_t r : dies[t]) {
      const int32_t slot = fn.regs[r].slot;
      if (--count[slot] == 0) {
        live -= held[slot];
        held[slot] = 0;
      }
    }
  }
  memo[&fn] = peak;
  return peak;
}

namespace {

std::string NameAndLine(const HloInstruction& hlo) {
  std::string text = absl::StrCat("%", hlo.name());
  if (hlo.location().line > 0) absl::StrAppend(&text, " (line ", hlo.location().line, ")");
  return text;
}

}  // namespace

std::string VmExecutable::DescribePosition(const RunPosition& position) const {
  std::string text;
  const auto* instr = static_cast<const vm::Instr*>(
      position.instruction.load(std::memory_order_relaxed));
  for (const auto& fn : program_->functions) {
    if (instr == nullptr) break;
    if (fn->code.empty() || instr < fn->code.data() || instr >= fn->code.data() + fn->code.size()) {
      continue;
    }
    const HloInstruction* hlo = fn->info[instr - fn->code.data()].hlo;
    if (hlo != nullptr) text = NameAndLine(*hlo);
    break;
  }
  const int32_t loops = std::min<int32_t>(position.loops.load(std::memory_order_relaxed),
                                          RunPosition::kMaxLoops);
  for (int32_t level = 0; level < loops; ++level) {
    const HloInstruction* loop = position.loop[level].load(std::memory_order_relaxed);
    if (loop == nullptr) continue;
    absl::StrAppend(&text, text.empty() ? "" : ", ", level == 0 ? "in while " : "while ",
                    NameAndLine(*loop), " iteration ",
                    position.iteration[level].load(std::memory_order_relaxed) + 1);
  }
  return text;
}

Executable::MemoryStats VmExecutable::memory_stats() const {
  MemoryStats stats;
  absl::flat_hash_map<const HloComputation*, std::vector<const vm::Function*>> callees;
  for (const auto& fn : program_->functions) {
    if (fn->computation != nullptr) callees[fn->computation].push_back(fn.get());
  }
  // Loop and branch frames are counted in their caller's arena.
  const absl::flat_hash_set<const vm::Function*> in_caller =
      vm::FunctionsInCallerArenas(*program_);
  for (const auto& fn : program_->functions) {
    if (fn.get() == program_->entry) {
      stats.entry_arena_bytes += fn->arena_bytes;
      stats.result_bytes += fn->ResultSlotBytes();
    } else if (!in_caller.contains(fn.get())) {
      stats.nested_arena_bytes += fn->arena_bytes;
    }
    for (const vm::RegInfo& r : fn->regs) {
      if (r.kind == vm::RegKind::kOwned && !r.frames) stats.value_bytes += r.bytes;
    }
  }
  absl::flat_hash_map<const vm::Function*, int64_t> memo;
  stats.live_set_bytes = LiveSetBytes(*program_->entry, callees, memo);
  stats.constant_bytes = program_->constant_bytes;
  for (const Shape& s : parameter_shapes_) {
    std::vector<const Shape*> leaves;
    vm::FlattenShape(s, &leaves);
    for (const Shape* leaf : leaves) {
      if (leaf->IsArray()) stats.parameter_bytes += std::max<int64_t>(0, leaf->byte_size());
    }
  }
  return stats;
}

std::unique_ptr<Frame> VmExecutable::TakeFrame() const {
  absl::MutexLock lock(&frames_mu_);
  if (frames_.empty()) return nullptr;
  std::unique_ptr<Frame> frame = std::move(frames_.back());
  frames_.pop_back();
  return frame;
}

void VmExecutable::ReturnFrame(std::unique_ptr<Frame> frame) const {
  if (frame == nullptr) return;
  absl::MutexLock lock(&frames_mu_);
  // Keep a frame per instance of a multi-device run (they execute at once).
  const size_t keep = static_cast<size_t>(std::max<int64_t>(
      4, std::min<int64_t>(64, module_->replica_count * module_->num_partitions)));
  if (frames_.size() < keep) frames_.push_back(std::move(frame));
}

// The pipeline's constant evaluator: compiles `instr` (all operands
// constants) as a module of its own and runs it, so folded values are the
// bits this VM computes at run time.
absl::StatusOr<Literal> EvaluateConstantInstruction(const HloInstruction& instr) {
  // A reshape or bitcast between row-major layouts keeps the bytes as they
  // are: the folded value is the operand's bytes under the new shape (most
  // of what real modules fold, which would otherwise each compile a module).
  if ((instr.opcode() == HloOpcode::kReshape || instr.opcode() == HloOpcode::kBitcast) &&
      instr.operand_count() == 1 && instr.operand(0)->literal.has_value()) {
    const Literal& from = *instr.operand(0)->literal;
    const Shape& shape = instr.shape();
    if (shape.IsArray() && from.shape().IsArray() &&
        shape.element_type() == from.shape().element_type() &&
        shape.element_count() == from.shape().element_count() && vm::IsEffectivelyRowMajor(shape) &&
        vm::IsEffectivelyRowMajor(from.shape())) {
      HLOVM_ASSIGN_OR_RETURN(Literal value, Literal::CreateUninitialized(shape));
      const size_t bytes =
          static_cast<size_t>(shape.element_count()) * ByteWidth(shape.element_type());
      if (bytes > 0) std::memcpy(value.untyped_data(), from.untyped_data(), bytes);
      return value;
    }
  }
  auto module = std::make_unique<HloModule>("fold");
  auto computation = std::make_unique<HloComputation>("fold.entry");
  computation->set_is_entry(true);
  auto root = passes::CloneInstruction(instr, "fold.root");
  for (int64_t k = 0; k < instr.operand_count(); ++k) {
    HloInstruction* op = computation->AddInstruction(
        passes::CloneInstruction(*instr.operand(k), absl::StrCat("fold.operand.", k)));
    root->ReplaceOperand(k, op);
  }
  computation->set_root(computation->AddInstruction(std::move(root)));
  module->set_entry(module->AddComputation(std::move(computation)));
  CompileOptions options;
  options.passes = "none";
  options.fusion = false;
  HLOVM_ASSIGN_OR_RETURN(std::unique_ptr<Executable> exe,
                         Executable::FromModule(std::move(module), options));
  ExecuteOptions execute;
  execute.threads = 1;
  return exe->Execute({}, execute);
}

}  // namespace

absl::StatusOr<std::unique_ptr<Executable>> Executable::FromText(std::string_view text,
                                                                 const CompileOptions& options) {
  ParseOptions parse_options;
  parse_options.file_name = options.file_name;
  // Later stages quote the source line of an error as the parser does.
  parse_options.keep_source = true;
  HLOVM_ASSIGN_OR_RETURN(std::unique_ptr<HloModule> module, ParseHloModule(text, parse_options));
  return FromModule(std::move(module), options);
}

namespace {

// Abseil records every Mutex acquisition in a global lock-order graph unless
// it was built with NDEBUG (Debian's build was not): a lookup on each lock
// and an update when a Mutex dies, a tenth of a small run's cost. Release
// builds of hlovm turn it off once; debug and sanitizer builds keep it.
void IgnoreMutexDeadlockChecksInRelease() {
#ifdef NDEBUG
  static const bool done = [] {
    absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
    return true;
  }();
  (void)done;
#endif
}

}  // namespace

absl::StatusOr<std::unique_ptr<Executable>> Executable::FromModule(
    std::unique_ptr<HloModule> module, const CompileOptions& options) {
  IgnoreMutexDeadlockChecksInRelease();
  if (module == nullptr || module->entry() == nullptr) {
    return absl::InvalidArgumentError("the module has no ENTRY computation");
  }
  if (options.replica_count < 0 || options.num_partitions < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "replica and partition counts must be positive (0: the module's own), not ",
        options.replica_count < 0 ? options.replica_count : options.num_partitions));
  }
  if (options.replica_count > 0) module->replica_count = options.replica_count;
  if (options.num_partitions > 0) module->num_partitions = options.num_partitions;
  // Checked here too, for callers that turn the verifier off.
  HLOVM_RETURN_IF_ERROR(vm::AnnotateStatus(
      ValidateInstanceCounts(module->replica_count, module->num_partitions), *module));
  HLOVM_ASSIGN_OR_RETURN(int64_t elided, FillElidedConstants(*module, options.elided));
  // The verifier's hashes of the module's names serve the passes' uniquer.
  ModuleNameKeys names;
  if (options.verify) {
    VerifyOptions verify;
    verify.name_keys = &names;
    HLOVM_RETURN_IF_ERROR(VerifyModule(*module, verify));
  }
  std::string pass_report = "// passes: none\n";
  double pass_seconds = 0;
  if (!options.passes.empty() && options.passes != "none") {
    absl::StatusOr<passes::PipelineReport> report =
        passes::RunPipeline(*module, options.passes,
                            {.evaluate = &EvaluateConstantInstruction,
                             .name_keys = options.verify ? &names : nullptr});
    if (!report.ok()) return vm::AnnotateStatus(report.status(), *module);
    pass_report = report->ToString();
    pass_seconds = report->seconds;
  }
  absl::StatusOr<std::unique_ptr<Program>> program =
      vm::CompileModule(*module, {.fusion = options.fusion, .fft_plan = options.fft_plan});
  // Errors of the compiler name the instruction or computation they are
  // about; the rest at least the file.
  if (!program.ok()) return vm::AnnotateStatus(program.status(), *module);
  return std::unique_ptr<Executable>(
      new VmExecutable(std::move(module), *std::move(program), elided, std::move(pass_report),
                       pass_seconds));
}

absl::StatusOr<Literal> Executable::ExecuteViews(absl::Span<const ArgumentView> arguments,
                                                 const ExecuteOptions& options) const {
  std::vector<Literal> views;
  views.reserve(arguments.size());
  for (size_t i = 0; i < arguments.size(); ++i) {
    absl::StatusOr<Literal> view =
        Literal::View(arguments[i].shape, const_cast<void*>(arguments[i].data));
    if (!view.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("argument ", i, ": ", view.status().message()));
    }
    views.push_back(std::move(view).value());
  }
  std::vector<const Literal*> pointers;
  pointers.reserve(views.size());
  for (const Literal& view : views) pointers.push_back(&view);
  return Execute(pointers, options);
}

bool IsCheckFailure(const absl::Status& status) {
  return !status.ok() && GetCheckFailure(status).has_value();
}

int ExitCodeForStatus(const absl::Status& status) {
  if (status.ok()) return 0;
  switch (status.code()) {
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kUnimplemented:
    case absl::StatusCode::kResourceExhausted:
    case absl::StatusCode::kNotFound:
      return 2;
    default:
      return 1;
  }
}

}  // namespace hlovm
