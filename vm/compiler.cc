#include "vm/compiler.h"

#include <algorithm>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "ops/lowerings.h"
#include "vm/buffer_plan.h"
#include "vm/executor.h"
#include "vm/fusion.h"

namespace hlovm {
namespace vm {
namespace {

const LoweringTable& Lowerings() {
  static const LoweringTable* table = [] {
    auto* t = new LoweringTable();
    t->fill(nullptr);
    RegisterControlLowerings(*t);
    RegisterElementwiseLowerings(*t);
    RegisterShapeLowerings(*t);
    RegisterShapeOpLowerings(*t);
    RegisterIndexingLowerings(*t);
    RegisterSortLowerings(*t);
    RegisterReduceLowerings(*t);
    RegisterDotLowerings(*t);
    RegisterConvLowerings(*t);
    RegisterCustomCallLowering(*t);
    RegisterFftLowerings(*t);
    RegisterNormLowerings(*t);
    RegisterCollectiveLowerings(*t);
    RegisterRngLowerings(*t);
    RegisterLinalgLowerings(*t);
    return t;
  }();
  return *table;
}

bool HasSideEffect(const HloInstruction& instr) {
  if (HloOpcodeHasSideEffect(instr.opcode())) return true;
  return instr.opcode() == HloOpcode::kCustomCall &&
         (instr.attrs().custom_call_has_side_effect ||
          instr.attrs().custom_call_target.rfind("check.", 0) == 0);
}

}  // namespace

//===----------------------------------------------------------------------===//
// Scheduling.
//===----------------------------------------------------------------------===//

absl::StatusOr<std::vector<const HloInstruction*>> ScheduleComputation(
    const HloComputation& computation) {
  absl::flat_hash_set<const HloInstruction*> needed;
  std::vector<const HloInstruction*> stack;
  auto want = [&](const HloInstruction* i) {
    if (i != nullptr && needed.insert(i).second) stack.push_back(i);
  };
  want(computation.root());
  for (const auto& i : computation.instructions()) {
    if (HasSideEffect(*i)) want(i.get());
  }
  while (!stack.empty()) {
    const HloInstruction* i = stack.back();
    stack.pop_back();
    for (const HloInstruction* o : i->operands()) want(o);
    for (const HloInstruction* p : i->control_predecessors()) want(p);
  }

  // Side-effecting instructions keep their written order: each depends on
  // the previous one.
  absl::flat_hash_map<const HloInstruction*, const HloInstruction*> previous_effect;
  const HloInstruction* last_effect = nullptr;
  for (const auto& i : computation.instructions()) {
    if (needed.contains(i.get()) && HasSideEffect(*i)) {
      if (last_effect != nullptr) previous_effect[i.get()] = last_effect;
      last_effect = i.get();
    }
  }

  // Depth-first post-order, visiting roots in written order.
  std::vector<const HloInstruction*> order;
  absl::flat_hash_map<const HloInstruction*, int> state;  // 1 visiting, 2 done
  struct Frame {
    const HloInstruction* instr;
    size_t next;
  };
  auto deps = [&](const HloInstruction* i, size_t k) -> const HloInstruction* {
    const size_t n_ops = i->operands().size();
    if (k < n_ops) return i->operand(k);
    k -= n_ops;
    if (k < i->control_predecessors().size()) return i->control_predecessors()[k];
    k -= i->control_predecessors().size();
    if (k == 0) {
      auto it = previous_effect.find(i);
      return it == previous_effect.end() ? nullptr : it->second;
    }
    return reinterpret_cast<const HloInstruction*>(-1);  // end marker
  };
  const HloInstruction* kEnd = reinterpret_cast<const HloInstruction*>(-1);
  for (const auto& root : computation.instructions()) {
    if (!needed.contains(root.get()) || state[root.get()] == 2) continue;
    std::vector<Frame> dfs{{root.get(), 0}};
    state[root.get()] = 1;
    while (!dfs.empty()) {
      Frame& f = dfs.back();
      const HloInstruction* d = deps(f.instr, f.next++);
      if (d == kEnd) {
        state[f.instr] = 2;
        order.push_back(f.instr);
        dfs.pop_back();
        continue;
      }
      if (d == nullptr) continue;
      int& s = state[d];
      if (s == 2) continue;
      if (s == 1) {
        return AnnotateStatus(absl::InvalidArgumentError(absl::StrCat(
                                  "is part of a dependency cycle in computation %",
                                  computation.name())),
                              d);
      }
      s = 1;
      dfs.push_back({d, 0});
    }
  }
  return order;
}

//===----------------------------------------------------------------------===//
// Compiler.
//===----------------------------------------------------------------------===//

Compiler::Compiler(const HloModule& module, const CompilerOptions& options)
    : module_(module), options_(options) {}

absl::Status Compiler::LowerComputation(FunctionBuilder& b, const HloComputation& computation,
                                        absl::Span<const ValueDesc> args, ValueDesc* result) {
  if (args.size() != static_cast<size_t>(computation.parameter_count())) {
    return AnnotateStatus(absl::InvalidArgumentError(absl::StrCat(
                              "computation %", computation.name(), " takes ",
                              computation.parameter_count(), " parameters but is called with ",
                              args.size())),
                          &computation);
  }
  if (computation.root() == nullptr) {
    return AnnotateStatus(absl::InvalidArgumentError(
                              absl::StrCat("computation %", computation.name(), " has no ROOT")),
                          &computation);
  }
  if (++inline_depth_ > 64) {
    --inline_depth_;
    return AnnotateStatus(absl::InvalidArgumentError(absl::StrCat(
                              "calls nest deeper than 64 levels at %", computation.name())),
                          &computation);
  }
  HLOVM_ASSIGN_OR_RETURN(std::vector<const HloInstruction*> order,
                         ScheduleComputation(computation));
  absl::flat_hash_map<const HloInstruction*, ValueDesc> values;
  // Bytecode range emitted for each instruction (control edges).
  absl::flat_hash_map<const HloInstruction*, std::pair<int32_t, int32_t>> ranges;
  const LoweringTable& table = Lowerings();
  Function& fn = b.function();
  FusionPlan fusion;
  if (options_.fusion) fusion = PlanFusion(order, computation);
  absl::Status status;
  for (const HloInstruction* instr : order) {
    // The verifier refuses these shapes; checked again for callers that
    // skip it, so that no plan multiplies past int64 or reads a `?`.
    status = ValidateShape(instr->shape());
    if (status.ok()) status = CheckNoUnboundedDimension(instr->shape());
    if (!status.ok()) {
      status = AnnotateStatus(status, instr);
      break;
    }
    ValueDesc desc;
    const int32_t first = static_cast<int32_t>(fn.code.size());
    if (fusion.elided.contains(instr)) continue;  // recomputed in the regions reading it
    if (auto region = fusion.region_of.find(instr); region != fusion.region_of.end()) {
      // A fused region is emitted whole at the last of its members.
      const FusedRegion& r = fusion.regions[region->second];
      if (instr != r.emit_at()) continue;
      status = LowerFusedRegion(b, r, &values);
      if (!status.ok()) {
        status = AnnotateStatus(status, instr);
        break;
      }
      desc = values.at(instr);
      for (const HloInstruction* o : r.outputs) {
        if (o != instr && !fn.values.contains(o)) fn.values[o] = values.at(o);
      }
    } else if (instr->opcode() == HloOpcode::kParameter) {
      if (instr->parameter_number < 0 ||
          instr->parameter_number >= static_cast<int64_t>(args.size())) {
        status = AnnotateStatus(absl::InvalidArgumentError(absl::StrCat(
                                    "parameter number ", instr->parameter_number,
                                    " out of range")),
                                instr);
        break;
      }
      desc = args[instr->parameter_number];
    } else {
      std::vector<const ValueDesc*> operands;
      for (const HloInstruction* o : instr->operands()) operands.push_back(&values.at(o));
      LowerFn lower = table[static_cast<int>(instr->opcode())];
      if (lower == nullptr) {
        status = AnnotateStatus(
            absl::UnimplementedError(absl::StrCat(
                "opcode '", std::string(HloOpcodeName(instr->opcode())), "' is not implemented yet")),
            instr);
        break;
      }
      status = lower(b, *instr, operands, &desc);
      if (!status.ok()) {
        status = AnnotateStatus(status, instr);
        break;
      }
    }
    const int32_t last = static_cast<int32_t>(fn.code.size());
    ranges[instr] = {first, last};
    for (const HloInstruction* pred : instr->control_predecessors()) {
      auto it = ranges.find(pred);
      if (it == ranges.end()) continue;
      for (int32_t a = it->second.first; a < it->second.second; ++a) {
        for (int32_t c = first; c < last; ++c) b.AddControlEdge(a, c);
      }
    }
    if (!fn.values.contains(instr)) fn.values[instr] = desc;
    values[instr] = std::move(desc);
  }
  --inline_depth_;
  HLOVM_RETURN_IF_ERROR(status);
  *result = values.at(computation.root());
  return absl::OkStatus();
}

absl::StatusOr<const Function*> Compiler::CompileFunction(const HloComputation& computation,
                                                          bool while_body) {
  auto key = std::make_pair(&computation, while_body);
  if (auto it = compiled_.find(key); it != compiled_.end()) {
    if (it->second == nullptr) {
      return AnnotateStatus(absl::InvalidArgumentError(
                                absl::StrCat("computation %", computation.name(), " calls itself")),
                            &computation);
    }
    return it->second;
  }
  compiled_[key] = nullptr;
  auto fn = std::make_unique<Function>();
  fn->frame_pool = NewFramePool();
  fn->name = computation.name();
  fn->computation = &computation;
  FunctionBuilder b(this, program_.get(), fn.get());

  // Parameters: one register per leaf.
  std::vector<ValueDesc> args;
  fn->param_begin.push_back(0);
  for (const HloInstruction* p : computation.parameters()) {
    if (p == nullptr) {
      return AnnotateStatus(absl::InvalidArgumentError(absl::StrCat(
                                "computation %", computation.name(),
                                " has a gap in its parameter numbers")),
                            &computation);
    }
    std::vector<const Shape*> leaves;
    FlattenShape(p->shape(), &leaves);
    ValueDesc desc;
    for (const Shape* leaf : leaves) {
      absl::StatusOr<Reg> reg = b.NewReg(RegKind::kParam, *leaf);
      if (!reg.ok()) return AnnotateStatus(reg.status(), p);
      const Reg r = *reg;
      desc.push_back(r);
      fn->param_regs.push_back(r);
    }
    fn->param_begin.push_back(static_cast<uint32_t>(fn->param_regs.size()));
    args.push_back(std::move(desc));
  }

  ValueDesc result;
  absl::Status status = LowerComputation(b, computation, args, &result);
  HLOVM_RETURN_IF_ERROR(status);

  if (while_body) {
    // A loop carries its state by pointer: a leaf that changes must live in
    // this function's arena and belong to one leaf only.
    if (result.size() != fn->param_regs.size()) {
      return AnnotateStatus(absl::InvalidArgumentError(absl::StrCat(
                                "while body %", computation.name(), " returns ", result.size(),
                                " arrays but its state has ", fn->param_regs.size())),
                            &computation);
    }
    absl::flat_hash_set<Reg> seen;
    fn->result_passthrough.assign(result.size(), false);
    for (size_t i = 0; i < result.size(); ++i) {
      Reg r = result[i];
      if (r == fn->param_regs[i]) {
        fn->result_passthrough[i] = true;
        continue;
      }
      if (fn->regs[r].kind == RegKind::kToken) continue;
      if (fn->regs[r].kind != RegKind::kOwned || !seen.insert(r).second) {
        absl::StatusOr<Reg> reg = b.NewReg(RegKind::kOwned, fn->regs[r].shape);
        if (!reg.ok()) return AnnotateStatus(reg.status(), computation.root());
        const Reg copy = *reg;
        EmitCopy(b, computation.root(), r, copy, "loop state");
        seen.insert(copy);
        result[i] = copy;
      }
    }
  }
  fn->result_regs = result;
  for (Reg r : result) fn->regs[r].is_result = true;
  HLOVM_RETURN_IF_ERROR(
      AnnotateStatus(PlanFunction(fn.get(), b.control_edges(), while_body,
                                  /*results_outside=*/while_body || &computation == module_.entry()),
                     &computation));
  const Function* raw = fn.get();
  program_->functions.push_back(std::move(fn));
  compiled_[key] = raw;
  return raw;
}

absl::StatusOr<std::unique_ptr<Program>> Compiler::Compile() {
  if (module_.entry() == nullptr) {
    return AnnotateStatus(
        absl::InvalidArgumentError(absl::StrCat("module ", module_.name(), " has no ENTRY")),
        module_);
  }
  program_ = std::make_unique<Program>();
  HLOVM_ASSIGN_OR_RETURN(program_->entry, CompileFunction(*module_.entry(), false));
  // Every activation of every function could be live at once in the worst
  // case (nested loops); refuse plans that cannot fit in memory.
  int64_t total = program_->constant_bytes;
  for (const auto& fn : program_->functions) {
    total += fn->arena_bytes + fn->ResultSlotBytes();
  }
  if (total > MemoryLimitBytes()) {
    return AnnotateStatus(
        absl::ResourceExhaustedError(absl::StrCat(
            "module ", module_.name(), " needs ", total,
            " bytes of buffers, more than this machine's ", MemoryLimitBytes(), " bytes of memory")),
        module_.entry());
  }
  return std::move(program_);
}

absl::StatusOr<std::unique_ptr<Program>> CompileModule(const HloModule& module,
                                                       const CompilerOptions& options) {
  Compiler compiler(module, options);
  return compiler.Compile();
}

std::vector<std::string> Mnemonics(const Function& fn) {
  std::vector<std::string> out;
  for (const InstrInfo& info : fn.info) out.push_back(InstrMnemonic(info));
  return out;
}

}  // namespace vm
}  // namespace hlovm
