// Lowering and handlers of the structural and control-flow opcodes:
// parameter (in the compiler), constant, tuple, get-tuple-element, call and
// fusion (inlined), while, conditional, replica-id and partition-id, and the
// aliases copy, copy-start/-done, optimization-barrier, add-dependency and
// domain, and after-all. The copy instruction itself is the builder's
// (EmitCopy, vm/lowering.h); reshape and bitcast are the shape family's
// (ops/shape/shape_lower.cc).
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "ops/elementwise/scalar_handlers.h"
#include "ops/lowerings.h"
#include "ops/shape/strided_copy.h"
#include "vm/api.h"
#include "vm/executor.h"
#include "vm/lowering.h"
#include "vm/profiler.h"

namespace hlovm {
namespace vm {
namespace {

//===----------------------------------------------------------------------===//
// Values without code.
//===----------------------------------------------------------------------===//

absl::Status LowerAlias(FunctionBuilder& b, const HloInstruction& instr,
                        absl::Span<const ValueDesc* const> ops, ValueDesc* result) {
  if (ops.empty()) return absl::InvalidArgumentError("expects an operand");
  if (LeafCount(instr.shape()) != static_cast<int64_t>(ops[0]->size()) &&
      instr.opcode() != HloOpcode::kAddDependency) {
    return absl::InvalidArgumentError(absl::StrCat("result shape ", instr.shape().ToString(),
                                                   " does not match its operand"));
  }
  *result = *ops[0];
  return absl::OkStatus();
}

absl::Status LowerTuple(FunctionBuilder& b, const HloInstruction& instr,
                        absl::Span<const ValueDesc* const> ops, ValueDesc* result) {
  for (const ValueDesc* op : ops) result->insert(result->end(), op->begin(), op->end());
  return absl::OkStatus();
}

absl::Status LowerGetTupleElement(FunctionBuilder& b, const HloInstruction& instr,
                                  absl::Span<const ValueDesc* const> ops, ValueDesc* result) {
  const Shape& tuple = instr.operand(0)->shape();
  if (!tuple.IsTuple() || instr.tuple_index < 0 || instr.tuple_index >= tuple.tuple_size()) {
    return absl::InvalidArgumentError(absl::StrCat("index ", instr.tuple_index,
                                                   " out of range for ", tuple.ToString()));
  }
  int64_t begin = 0;
  for (int64_t i = 0; i < instr.tuple_index; ++i) begin += LeafCount(tuple.tuple_shape(i));
  const int64_t count = LeafCount(tuple.tuple_shape(instr.tuple_index));
  result->assign(ops[0]->begin() + begin, ops[0]->begin() + begin + count);
  return absl::OkStatus();
}

absl::Status LowerAfterAll(FunctionBuilder& b, const HloInstruction& instr,
                           absl::Span<const ValueDesc* const> ops, ValueDesc* result) {
  HLOVM_ASSIGN_OR_RETURN(Reg r, b.NewReg(RegKind::kToken, Shape::Token()));
  result->push_back(r);
  return absl::OkStatus();
}

//===----------------------------------------------------------------------===//
// constant.
//===----------------------------------------------------------------------===//

absl::Status AddConstantLeaf(FunctionBuilder& b, const Literal& lit, const Shape& shape,
                             ValueDesc* result) {
  if (shape.IsTuple()) {
    if (!lit.shape().IsTuple() || lit.tuple_elements().size() != shape.tuple_shapes().size()) {
      return absl::InvalidArgumentError("constant literal does not match its tuple shape");
    }
    for (size_t i = 0; i < shape.tuple_shapes().size(); ++i) {
      HLOVM_RETURN_IF_ERROR(
          AddConstantLeaf(b, lit.tuple_elements()[i], shape.tuple_shape(i), result));
    }
    return absl::OkStatus();
  }
  if (shape.IsToken()) {
    HLOVM_ASSIGN_OR_RETURN(Reg r, b.NewReg(RegKind::kToken, shape));
    result->push_back(r);
    return absl::OkStatus();
  }
  if (!lit.shape().IsArray() || !lit.shape().Compatible(RowMajorShape(shape))) {
    return absl::InvalidArgumentError(absl::StrCat("constant literal of shape ",
                                                   lit.shape().ToString(),
                                                   " does not match ", shape.ToString()));
  }
  HLOVM_ASSIGN_OR_RETURN(Reg r, b.NewReg(RegKind::kConst, shape));
  RegInfo& info = b.function().regs[r];
  b.program().constant_bytes += info.bytes;
  if (IsEffectivelyRowMajor(lit.shape())) {
    // The module outlives its program: read the literal where it is (one
    // copy of every weight, not two).
    info.const_data = lit.untyped_data();
    result->push_back(r);
    return absl::OkStatus();
  }
  HLOVM_ASSIGN_OR_RETURN(AlignedBuffer buffer, AlignedBuffer::Allocate(info.bytes));
  StridedCopyPlan plan = MakeToRowMajorPlan(ByteWidth(shape.element_type()),
                                            lit.shape().dimensions(), lit.shape().minor_to_major());
  RunStridedCopy(plan, lit.untyped_data(), buffer.data(), 0, plan.rows());
  info.const_data = buffer.data();
  b.program().constants.push_back(std::move(buffer));
  result->push_back(r);
  return absl::OkStatus();
}

absl::Status LowerConstant(FunctionBuilder& b, const HloInstruction& instr,
                           absl::Span<const ValueDesc* const> ops, ValueDesc* result) {
  if (!instr.literal.has_value()) {
    return absl::InvalidArgumentError("constant has no literal");
  }
  return AddConstantLeaf(b, *instr.literal, instr.shape(), result);
}

//===----------------------------------------------------------------------===//
// call and fusion: inlined.
//===----------------------------------------------------------------------===//

absl::Status LowerInline(FunctionBuilder& b, const HloInstruction& instr,
                         absl::Span<const ValueDesc* const> ops, ValueDesc* result) {
  if (instr.called_computations().size() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "expects one called computation, has ", instr.called_computations().size()));
  }
  std::vector<ValueDesc> args;
  for (const ValueDesc* op : ops) args.push_back(*op);
  return b.compiler().LowerComputation(b, *instr.called_computations()[0], args, result);
}

//===----------------------------------------------------------------------===//
// while.
//===----------------------------------------------------------------------===//

// The buffer in the caller's arena that holds the frames of the functions an
// instruction calls, appended to its outputs (RegInfo::frames); -1 when they
// need no bytes.
absl::StatusOr<int32_t> AddFramesBuffer(FunctionBuilder& b, int64_t bytes, std::vector<Reg>& outs) {
  if (bytes == 0) return -1;
  HLOVM_ASSIGN_OR_RETURN(Reg r, b.NewReg(RegKind::kOwned, Shape(ElementType::kU8, {bytes})));
  b.function().regs[r].frames = true;
  outs.push_back(r);
  return static_cast<int32_t>(outs.size() - 1);
}

struct WhilePlan {
  const Function* cond;
  const Function* body;
  std::vector<int32_t> out_of_leaf;  // result register index per leaf, -1: alias
  std::vector<int64_t> leaf_bytes;
  const HloInstruction* hlo = nullptr;  // the loop, for the profiler
  // The frames buffer (output index, -1: none): one arena the condition and
  // the body take turns in (the condition's result is read before the body
  // runs), then two regions of body results the iterations alternate.
  int32_t frames_out = -1;
  int64_t results_offset[2] = {0, 0};
  // A condition that is one compare of scalars: the loop evaluates it in
  // place and branches on the result (no call into the condition, no
  // predicate stored and read back) when nothing observes the run.
  ScalarPredicate cond_predicate = nullptr;
  Reg cond_lhs = 0, cond_rhs = 0;  // the compare's operands, in the condition's registers
};

// A while loop's entry in RunPosition (when the run publishes one): its
// level while it runs, and the iteration it is in.
class PublishedLoop {
 public:
  PublishedLoop(RunPosition* position, const HloInstruction* loop) : position_(position) {
    if (position_ == nullptr) return;
    level_ = position_->loops.fetch_add(1, std::memory_order_relaxed);
    if (level_ >= RunPosition::kMaxLoops) return;
    position_->iteration[level_].store(0, std::memory_order_relaxed);
    position_->loop[level_].store(loop, std::memory_order_relaxed);
  }
  ~PublishedLoop() {
    if (position_ != nullptr) position_->loops.fetch_sub(1, std::memory_order_relaxed);
  }
  void Iteration(int64_t iteration) {
    if (position_ != nullptr && level_ < RunPosition::kMaxLoops) {
      position_->iteration[level_].store(iteration, std::memory_order_relaxed);
    }
  }

 private:
  RunPosition* position_;
  int32_t level_ = 0;
};

bool WhileHandler(const Instr& instr, uint8_t* const* regs, ExecContext& ctx) {
  const auto& p = *static_cast<const WhilePlan*>(instr.plan);
  const Function& cond = *p.cond;
  const Function& body = *p.body;
  uint8_t* frames = p.frames_out >= 0 ? regs[instr.out[p.frames_out]] : nullptr;
  auto at = [&](int64_t offset) { return frames == nullptr ? nullptr : frames + offset; };
  std::optional<PooledFrame> cond_frame;
  cond_frame.emplace(PooledFrame::Acquire(cond, at(0)));
  std::optional<PooledFrame> body_frames[2];
  for (int k = 0; k < 2; ++k) {
    body_frames[k].emplace(PooledFrame::Acquire(body, at(0), at(p.results_offset[k])));
  }
  const uint32_t n = instr.num_in;
  absl::InlinedVector<uint8_t*, 16> state(n);
  for (uint32_t i = 0; i < n; ++i) {
    state[i] = regs[instr.in[i]];
    if (body.param_mutated.empty() || !body.param_mutated[i]) continue;
    // The body writes this leaf in place: it starts as the loop's own copy
    // (the result buffer), so the operand is never written.
    uint8_t* own = regs[instr.out[p.out_of_leaf[i]]];
    if (own != state[i] && p.leaf_bytes[i] > 0) std::memcpy(own, state[i], p.leaf_bytes[i]);
    state[i] = own;
  }
  uint8_t** cr = cond_frame->regs();
  const Reg* cond_params = cond.param_regs.data();
  const Reg* body_params = body.param_regs.data();
  const Reg* body_results = body.result_regs.data();
  const Reg pred_reg = cond.result_regs[0];
  if (ctx.observer != nullptr) ++ctx.depth;
  PublishedLoop published(ctx.position, p.hlo);
  // Without hooks the condition and the body run in the plain dispatch loop
  // inlined here, not through RunFunction.
  const Dispatch cond_dispatch = ChooseDispatch(cond, ctx, /*cancel_checked=*/true);
  const Dispatch body_dispatch = ChooseDispatch(body, ctx);
  const bool inline_cond = p.cond_predicate != nullptr && cond_dispatch != Dispatch::kGeneral;
  // The leaves the body computes anew (the others pass through).
  absl::InlinedVector<uint32_t, 16> changed;
  for (uint32_t i = 0; i < n; ++i) {
    if (!body.result_passthrough[i]) changed.push_back(i);
  }
  // Parameters the condition and each body frame read are set once; after
  // that only the changed leaves are set again.
  for (uint32_t i = 0; i < n; ++i) cr[cond_params[i]] = state[i];
  for (int k = 0; k < 2; ++k) {
    uint8_t** br = body_frames[k]->regs();
    for (uint32_t i = 0; i < n; ++i) br[body_params[i]] = state[i];
  }
  int64_t iteration = 0;
  for (int k = 0;; k ^= 1) {
    // The loop's back-edge: cancellation and failures elsewhere stop it.
    if (ctx.failed.load(std::memory_order_relaxed)) return false;
    if (ctx.cancelled()) return ctx.Fail(ctx.CancelledError());
    published.Iteration(iteration);
    const int64_t begin_ns = ctx.profiler != nullptr ? Profiler::NowNs() : 0;
    if (inline_cond) {
      if (cond_dispatch == Dispatch::kPublished) {
        ctx.position->instruction.store(cond.code.data(), std::memory_order_relaxed);
      }
      if (!p.cond_predicate(cr[p.cond_lhs], cr[p.cond_rhs])) break;
    } else {
      if (!RunFunctionAs(cond_dispatch, cond, cr, ctx)) return false;
      if (*cr[pred_reg] == 0) break;
    }
    uint8_t** br = body_frames[k]->regs();
    if (!RunFunctionAs(body_dispatch, body, br, ctx)) return false;
    uint8_t** next = body_frames[k ^ 1]->regs();
    for (const uint32_t i : changed) {
      uint8_t* value = br[body_results[i]];
      state[i] = value;
      cr[cond_params[i]] = value;
      next[body_params[i]] = value;
    }
    if (ctx.profiler != nullptr) {
      ProfileEvent event;
      event.kind = ProfileEvent::Kind::kIteration;
      event.hlo = p.hlo;
      event.computation = body.computation;
      event.iteration = iteration;
      event.instance = ctx.instance;
      event.begin_ns = begin_ns;
      event.end_ns = Profiler::NowNs();
      ctx.profiler->Record(event);
    }
    ++iteration;
  }
  if (ctx.observer != nullptr) --ctx.depth;
  for (uint32_t i = 0; i < n; ++i) {
    const int32_t o = p.out_of_leaf[i];
    if (o >= 0 && p.leaf_bytes[i] > 0 && regs[instr.out[o]] != state[i]) {
      std::memcpy(regs[instr.out[o]], state[i], p.leaf_bytes[i]);
    }
  }
  return true;
}

absl::Status LowerWhile(FunctionBuilder& b, const HloInstruction& instr,
                        absl::Span<const ValueDesc* const> ops, ValueDesc* result) {
  if (instr.called_computations().size() != 2 || ops.size() != 1) {
    return absl::InvalidArgumentError("while expects one operand, a condition and a body");
  }
  HLOVM_ASSIGN_OR_RETURN(const Function* cond,
                         b.compiler().CompileFunction(*instr.called_computations()[0], false));
  HLOVM_ASSIGN_OR_RETURN(const Function* body,
                         b.compiler().CompileFunction(*instr.called_computations()[1], true));
  const ValueDesc& state = *ops[0];
  if (cond->param_regs.size() != state.size() || body->param_regs.size() != state.size() ||
      cond->result_regs.size() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "while state has ", state.size(), " arrays; condition takes ", cond->param_regs.size(),
        ", body takes ", body->param_regs.size()));
  }
  const RegInfo& pred = cond->regs[cond->result_regs[0]];
  if (pred.shape.element_type() != ElementType::kPred || pred.shape.element_count() != 1) {
    return absl::InvalidArgumentError("while condition must return pred[]");
  }
  WhilePlan plan{cond, body, {}, {}, &instr};
  if (cond->code.size() == 1 && cond->code[0].num_in == 2 && cond->code[0].num_out == 1 &&
      cond->code[0].out[0] == cond->result_regs[0]) {
    plan.cond_predicate = ScalarPredicateOf(cond->code[0].handler);
    plan.cond_lhs = cond->code[0].in[0];
    plan.cond_rhs = cond->code[0].in[1];
  }
  // Arenas and result regions are whole 64-byte lines, so the pieces stay
  // aligned.
  plan.results_offset[0] = std::max(cond->arena_bytes, body->arena_bytes);
  plan.results_offset[1] = plan.results_offset[0] + body->result_region_bytes;
  const int64_t frames_bytes = plan.results_offset[1] + body->result_region_bytes;
  std::vector<Reg> outs;
  for (size_t i = 0; i < state.size(); ++i) {
    const RegInfo& in = b.function().regs[state[i]];
    plan.leaf_bytes.push_back(in.bytes);
    const bool mutated = i < body->param_mutated.size() && body->param_mutated[i];
    if (!mutated && (body->result_passthrough[i] || in.kind == RegKind::kToken ||
                     body->regs[body->result_regs[i]].kind == RegKind::kToken)) {
      plan.out_of_leaf.push_back(-1);
      result->push_back(state[i]);
      continue;
    }
    HLOVM_ASSIGN_OR_RETURN(Reg r, b.NewReg(RegKind::kOwned, in.shape));
    plan.out_of_leaf.push_back(static_cast<int32_t>(outs.size()));
    outs.push_back(r);
    result->push_back(r);
  }
  HLOVM_ASSIGN_OR_RETURN(plan.frames_out, AddFramesBuffer(b, frames_bytes, outs));
  FunctionBuilder::EmitSpec spec;
  spec.handler = &WhileHandler;
  const WhilePlan* plan_ref = b.program().AddPlan(std::move(plan));
  spec.plan = plan_ref;
  spec.in = state;
  spec.out = outs;
  spec.cost = INT64_MAX / 4;  // unknown trip count: always worth a task
  spec.kind = HandlerKind::kWhile;
  spec.variant = absl::StrCat("cond=%", cond->name, " body=%", body->name,
                              plan_ref->cond_predicate != nullptr ? " cond-inline" : "");
  b.Emit(&instr, std::move(spec));
  return absl::OkStatus();
}

//===----------------------------------------------------------------------===//
// conditional.
//===----------------------------------------------------------------------===//

struct ConditionalPlan {
  bool pred_form;
  std::vector<const Function*> branches;
  std::vector<uint32_t> operand_begin;  // first input register of branch i's operand
  std::vector<int64_t> out_bytes;       // per result leaf (0: token)
  int32_t frames_out = -1;              // the branch's arena (output index, -1: none)
};

bool ConditionalHandler(const Instr& instr, uint8_t* const* regs, ExecContext& ctx) {
  const auto& p = *static_cast<const ConditionalPlan*>(instr.plan);
  const uint8_t* selector = regs[instr.in[0]];
  const int64_t n = static_cast<int64_t>(p.branches.size());
  int64_t index;
  if (p.pred_form) {
    index = *selector != 0 ? 0 : 1;
  } else {
    int32_t v;
    std::memcpy(&v, selector, sizeof(v));
    index = (v < 0 || v >= n) ? n - 1 : v;
  }
  const Function& fn = *p.branches[index];
  PooledFrame frame =
      PooledFrame::Acquire(fn, p.frames_out >= 0 ? regs[instr.out[p.frames_out]] : nullptr);
  uint8_t** br = frame.regs();
  const uint32_t begin = p.operand_begin[index];
  for (size_t i = 0; i < fn.param_regs.size(); ++i) br[fn.param_regs[i]] = regs[instr.in[begin + i]];
  if (ctx.observer != nullptr) ++ctx.depth;
  if (!RunFunction(fn, br, ctx)) return false;
  if (ctx.observer != nullptr) --ctx.depth;
  for (size_t i = 0; i < p.out_bytes.size(); ++i) {
    if (p.out_bytes[i] > 0) std::memcpy(regs[instr.out[i]], br[fn.result_regs[i]], p.out_bytes[i]);
  }
  return true;
}

absl::Status LowerConditional(FunctionBuilder& b, const HloInstruction& instr,
                              absl::Span<const ValueDesc* const> ops, ValueDesc* result) {
  const auto& called = instr.called_computations();
  if (called.empty() || ops.size() != called.size() + 1) {
    return absl::InvalidArgumentError(absl::StrCat("conditional with ", called.size(),
                                                   " branches needs ", called.size() + 1,
                                                   " operands, has ", ops.size()));
  }
  const Shape& selector = instr.operand(0)->shape();
  ConditionalPlan plan;
  plan.pred_form = selector.element_type() == ElementType::kPred;
  if (!(plan.pred_form || selector.element_type() == ElementType::kS32) || selector.rank() != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "conditional selector must be pred[] or s32[], is ", selector.ToString()));
  }
  if (plan.pred_form && called.size() != 2) {
    return absl::InvalidArgumentError("a pred conditional needs exactly two branches");
  }
  std::vector<Reg> in{(*ops[0])[0]};
  HLOVM_ASSIGN_OR_RETURN(*result, b.NewOwnedValue(instr.shape()));
  for (size_t i = 0; i < called.size(); ++i) {
    HLOVM_ASSIGN_OR_RETURN(const Function* fn, b.compiler().CompileFunction(*called[i], false));
    if (fn->param_regs.size() != ops[i + 1]->size() ||
        fn->result_regs.size() != result->size()) {
      return absl::InvalidArgumentError(absl::StrCat("branch %", fn->name,
                                                     " does not match its operand or result"));
    }
    plan.branches.push_back(fn);
    plan.operand_begin.push_back(static_cast<uint32_t>(in.size()));
    in.insert(in.end(), ops[i + 1]->begin(), ops[i + 1]->end());
  }
  std::vector<Reg> outs;
  for (Reg r : *result) {
    const RegInfo& info = b.function().regs[r];
    plan.out_bytes.push_back(info.kind == RegKind::kToken ? 0 : info.bytes);
    outs.push_back(r);
  }
  int64_t frames_bytes = 0;
  for (const Function* fn : plan.branches) frames_bytes = std::max(frames_bytes, fn->arena_bytes);
  HLOVM_ASSIGN_OR_RETURN(plan.frames_out, AddFramesBuffer(b, frames_bytes, outs));
  FunctionBuilder::EmitSpec spec;
  spec.handler = &ConditionalHandler;
  spec.plan = b.program().AddPlan(std::move(plan));
  spec.in = std::move(in);
  spec.out = std::move(outs);
  spec.cost = INT64_MAX / 4;
  spec.kind = HandlerKind::kCond;
  std::string names;
  for (const HloComputation* c : called) absl::StrAppend(&names, names.empty() ? "" : ",", "%", c->name());
  spec.variant = absl::StrCat(spec.plan && static_cast<const ConditionalPlan*>(spec.plan)->pred_form
                                  ? "pred "
                                  : "index ",
                              names);
  b.Emit(&instr, std::move(spec));
  return absl::OkStatus();
}

// replica-id and partition-id: the device's numbers as u32 scalars.
template <bool kReplica>
bool DeviceIdHandler(const Instr& instr, uint8_t* const* regs, ExecContext& ctx) {
  const uint32_t id = static_cast<uint32_t>(kReplica ? ctx.replica_id : ctx.partition_id);
  std::memcpy(regs[instr.out[0]], &id, sizeof(id));
  return true;
}

template <bool kReplica>
absl::Status LowerDeviceId(FunctionBuilder& b, const HloInstruction& instr,
                           absl::Span<const ValueDesc* const> ops, ValueDesc* result) {
  const Shape& shape = instr.shape();
  if (!shape.IsArray() || shape.rank() != 0 || shape.element_type() != ElementType::kU32) {
    return absl::InvalidArgumentError(
        absl::StrCat(std::string(HloOpcodeName(instr.opcode())), " must produce u32[], not ",
                     shape.ToString()));
  }
  HLOVM_ASSIGN_OR_RETURN(Reg out, b.NewReg(RegKind::kOwned, shape));
  FunctionBuilder::EmitSpec spec;
  spec.handler = &DeviceIdHandler<kReplica>;
  spec.out = {out};
  spec.cost = 4;
  spec.kind = HandlerKind::kDeviceId;
  b.Emit(&instr, std::move(spec));
  result->push_back(out);
  return absl::OkStatus();
}

// copy-start: (destination, source, u32[] context). Values never change once
// written, so both arrays are the operand's registers; the context, which
// means nothing outside an asynchronous schedule, is 0 (as in XLA's
// evaluator).
bool ZeroContextHandler(const Instr& instr, uint8_t* const* regs, ExecContext& ctx) {
  const uint32_t zero = 0;
  std::memcpy(regs[instr.out[0]], &zero, sizeof(zero));
  return true;
}

absl::Status LowerCopyStart(FunctionBuilder& b, const HloInstruction& instr,
                            absl::Span<const ValueDesc* const> ops, ValueDesc* result) {
  const Shape& shape = instr.shape();
  const Shape u32(ElementType::kU32, {});
  if (ops.size() != 1 || !shape.IsTuple() || shape.tuple_size() != 3 ||
      LeafCount(shape.tuple_shape(0)) != static_cast<int64_t>(ops[0]->size()) ||
      !shape.tuple_shape(2).IsArray() || shape.tuple_shape(2).rank() != 0 ||
      shape.tuple_shape(2).element_type() != ElementType::kU32) {
    return absl::InvalidArgumentError(absl::StrCat("copy-start must produce (operand, operand, "
                                                   "u32[]), not ", shape.ToString()));
  }
  HLOVM_ASSIGN_OR_RETURN(Reg context, b.NewReg(RegKind::kOwned, u32));
  FunctionBuilder::EmitSpec spec;
  spec.handler = &ZeroContextHandler;
  spec.out = {context};
  spec.cost = 4;
  spec.kind = HandlerKind::kCopyStart;
  b.Emit(&instr, std::move(spec));
  *result = *ops[0];
  result->insert(result->end(), ops[0]->begin(), ops[0]->end());
  result->push_back(context);
  return absl::OkStatus();
}

// copy-done: element 0 of its copy-start's tuple.
absl::Status LowerCopyDone(FunctionBuilder& b, const HloInstruction& instr,
                           absl::Span<const ValueDesc* const> ops, ValueDesc* result) {
  const int64_t count = LeafCount(instr.shape());
  if (ops.size() != 1 || static_cast<int64_t>(ops[0]->size()) < count) {
    return absl::InvalidArgumentError("copy-done expects the tuple of a copy-start");
  }
  result->assign(ops[0]->begin(), ops[0]->begin() + count);
  return absl::OkStatus();
}

}  // namespace

void RegisterControlLowerings(LoweringTable& table) {
  auto set = [&](HloOpcode op, LowerFn fn) { table[static_cast<int>(op)] = fn; };
  set(HloOpcode::kConstant, &LowerConstant);
  set(HloOpcode::kTuple, &LowerTuple);
  set(HloOpcode::kGetTupleElement, &LowerGetTupleElement);
  set(HloOpcode::kCall, &LowerInline);
  set(HloOpcode::kFusion, &LowerInline);
  set(HloOpcode::kWhile, &LowerWhile);
  set(HloOpcode::kConditional, &LowerConditional);
  set(HloOpcode::kCopy, &LowerAlias);
  set(HloOpcode::kCopyStart, &LowerCopyStart);
  set(HloOpcode::kCopyDone, &LowerCopyDone);
  set(HloOpcode::kOptimizationBarrier, &LowerAlias);
  set(HloOpcode::kDomain, &LowerAlias);
  set(HloOpcode::kAddDependency, &LowerAlias);
  set(HloOpcode::kAfterAll, &LowerAfterAll);
  set(HloOpcode::kReplicaId, &LowerDeviceId<true>);
  set(HloOpcode::kPartitionId, &LowerDeviceId<false>);
}

}  // namespace vm
}  // namespace hlovm
