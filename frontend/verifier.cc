#include "frontend/verifier.h"

#include <algorithm>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "core/status_macros.h"
#include "core/text_cursor.h"

namespace hlovm {
namespace {

absl::Status Invalid(const std::string& message) { return absl::InvalidArgumentError(message); }

//===----------------------------------------------------------------------===//
// The module walk.
//===----------------------------------------------------------------------===//

class Verifier {
 public:
  Verifier(const HloModule& module, const VerifyOptions& options)
      : module_(module), options_(options) {
    ctx_.replica_count = options.replica_count.value_or(module.replica_count);
    ctx_.num_partitions = options.num_partitions.value_or(module.num_partitions);
    ctx_.signatures = &signatures_;
  }

  absl::Status Run() {
    CheckModule();
    if (counts_ok_) {
      for (const auto& c : module_.computations()) CheckComputation(*c);
    }
    CheckCallGraph();
    if (messages_.empty()) {
      if (options_.name_keys != nullptr) *options_.name_keys = std::move(keys_);
      return absl::OkStatus();
    }
    std::string text = absl::StrJoin(messages_, "\n");
    if (error_count_ > static_cast<int64_t>(messages_.size())) {
      absl::StrAppend(&text, "\n", error_count_ - static_cast<int64_t>(messages_.size()),
                      " more error(s) not shown");
    }
    return absl::InvalidArgumentError(text);
  }

 private:
  // Records a problem at `location`, prefixed with what it concerns.
  void Report(const SourceLocation& location, const std::string& subject,
              const std::string& message) {
    ++error_count_;
    if (static_cast<int>(messages_.size()) >= std::max(1, options_.max_errors)) return;
    std::string body = subject.empty() ? message : absl::StrCat(subject, ": ", message);
    messages_.push_back(Locate(location, body));
  }

  std::string Locate(const SourceLocation& loc, const std::string& message) const {
    const std::string* text = module_.source_text.get();
    return FormatSourceMessage(module_.source_name, loc.line, loc.column,
                               text != nullptr ? std::string_view(*text) : std::string_view(),
                               text != nullptr && loc.line > 0 ? loc.offset : std::string_view::npos,
                               message);
  }

  static std::string Subject(const HloInstruction& instr) {
    return absl::StrFormat("%%%s (%s)", instr.name(), HloOpcodeName(instr.opcode()));
  }

  void CheckModule() {
    const HloComputation* entry = module_.entry();
    if (entry == nullptr) {
      Report({}, "", absl::StrFormat("module %s has no entry computation", module_.name()));
      return;
    }
    keys_.ReserveFor(module_);
    if (absl::Status counts = ValidateInstanceCounts(ctx_.replica_count, ctx_.num_partitions);
        !counts.ok()) {
      // The collectives' rules multiply the counts: they are not run.
      Report({}, "", std::string(counts.message()));
      counts_ok_ = false;
    }
    CheckEntryLayoutShapes(*entry);
    absl::flat_hash_set<std::string> computation_names;
    for (const auto& c : module_.computations()) {
      keys_.Add(ModuleNameKeys::Key(c->name()));
      if (!computation_names.insert(c->name()).second) {
        Report(c->location(), "",
               absl::StrFormat("computation name %s is not unique", c->name()));
      }
    }
    if (module_.entry_parameter_layouts.has_value()) {
      const auto& params = *module_.entry_parameter_layouts;
      if (static_cast<int64_t>(params.size()) != entry->parameter_count()) {
        Report(entry->location(), "",
               absl::StrFormat("entry_computation_layout has %d parameters but the entry "
                               "computation %s has %d",
                               params.size(), entry->name(), entry->parameter_count()));
      } else {
        for (int64_t i = 0; i < entry->parameter_count(); ++i) {
          const HloInstruction* p = entry->parameter(i);
          if (p != nullptr &&
              !ShapesCompatible(params[i], p->shape(), options_.allow_mixed_precision)) {
            Report(p->location(), Subject(*p),
                   absl::StrFormat("entry_computation_layout gives parameter %d the shape %s "
                                   "but the parameter is declared %s",
                                   i, ShapeText(params[i]), ShapeText(p->shape())));
            failed_.insert(p);
          }
        }
      }
    }
    if (module_.entry_result_layout.has_value() && entry->root() != nullptr &&
        !ShapesCompatible(*module_.entry_result_layout, entry->root()->shape(),
                          options_.allow_mixed_precision)) {
      Report(entry->root()->location(), Subject(*entry->root()),
             absl::StrFormat("entry_computation_layout gives the result the shape %s but the "
                             "entry computation's root is %s",
                             ShapeText(*module_.entry_result_layout),
                             ShapeText(entry->root()->shape())));
    }
  }

  // The shapes of entry_computation_layout come from outside too.
  void CheckEntryLayoutShapes(const HloComputation& entry) {
    auto check = [&](const Shape& shape, const std::string& what) {
      if (absl::Status valid = ValidateShape(shape); !valid.ok()) {
        Report(entry.location(), "",
               absl::StrCat("entry_computation_layout: ", what, ": ", valid.message()));
      }
    };
    if (module_.entry_parameter_layouts.has_value()) {
      for (size_t i = 0; i < module_.entry_parameter_layouts->size(); ++i) {
        check((*module_.entry_parameter_layouts)[i], absl::StrCat("parameter ", i));
      }
    }
    if (module_.entry_result_layout.has_value()) check(*module_.entry_result_layout, "result");
  }

  void CheckLayout(const HloInstruction& instr, const Shape& shape) {
    if (shape.IsTuple()) {
      for (const Shape& s : shape.tuple_shapes()) CheckLayout(instr, s);
      return;
    }
    if (!shape.IsArray() || !shape.has_layout()) return;
    const auto& m2m = shape.layout().minor_to_major;
    if (m2m.empty() && shape.rank() > 0) return;  // `{}` is taken as "no layout"
    if (!IsPermutation(m2m, shape.rank())) {
      Report(instr.location(), Subject(instr),
             absl::StrFormat("layout %s is not valid for the shape %s: minor_to_major must "
                             "list each of its %d dimensions once",
                             shape.layout().ToString(), ShapeText(shape), shape.rank()));
    }
  }

  void CheckComputation(const HloComputation& c) {
    const int64_t errors_before = error_count_;
    if (c.root() == nullptr) {
      Report(c.location(), "", absl::StrFormat("computation %s has no ROOT instruction", c.name()));
    } else if (c.root()->parent() != &c) {
      Report(c.location(), "",
             absl::StrFormat("the ROOT of computation %s belongs to another computation",
                             c.name()));
    }
    if (c.instruction_count() == 0) {
      Report(c.location(), "", absl::StrFormat("computation %s is empty", c.name()));
    }
    // Parameters: numbers 0..n-1, each once.
    absl::flat_hash_map<int64_t, const HloInstruction*> params;
    int64_t param_count = 0;
    for (const auto& instr : c.instructions()) {
      if (instr->opcode() != HloOpcode::kParameter) continue;
      ++param_count;
      auto [it, inserted] = params.emplace(instr->parameter_number, instr.get());
      if (!inserted) {
        Report(instr->location(), Subject(*instr),
               absl::StrFormat("parameter number %d is used twice in computation %s (also by "
                               "%%%s)",
                               instr->parameter_number, c.name(), it->second->name()));
      }
    }
    for (const auto& [number, instr] : params) {
      if (number < 0 || number >= param_count) {
        Report(instr->location(), Subject(*instr),
               absl::StrFormat("parameter number %d is out of range: computation %s has %d "
                               "parameters, numbered 0 to %d",
                               number, c.name(), param_count, param_count - 1));
      }
    }
    exact_names_for_ = nullptr;
    seen_.clear();
    seen_.reserve(c.instructions().size());
    forward_reference_ = false;
    for (const auto& instr : c.instructions()) {
      CheckInstruction(c, *instr);
      seen_.insert(instr.get());
    }
    // Written order is a topological order unless something refers forward;
    // only then can there be a cycle.
    if (forward_reference_) CheckAcyclic(c);
    if (error_count_ > errors_before) failed_computations_.insert(&c);
  }

  void CheckInstruction(const HloComputation& c, const HloInstruction& instr) {
    if (!UniqueInComputation(c, instr)) {
      Report(instr.location(), Subject(instr),
             absl::StrFormat("instruction name %s is not unique in computation %s",
                             instr.name(), c.name()));
    }
    bool operands_ok = true;
    for (int64_t i = 0; i < instr.operand_count(); ++i) {
      const HloInstruction* o = instr.operand(i);
      if (o == nullptr) {
        Report(instr.location(), Subject(instr), absl::StrFormat("operand %d is missing", i));
        operands_ok = false;
      } else if (o->parent() != &c) {
        Report(instr.location(), Subject(instr),
               absl::StrFormat("operand %d (%%%s) is not in computation %s", i, o->name(),
                               c.name()));
        operands_ok = false;
      } else if (!seen_.contains(o)) {
        forward_reference_ = true;
      }
    }
    for (const HloInstruction* p : instr.control_predecessors()) {
      if (p == nullptr || p->parent() != &c) {
        Report(instr.location(), Subject(instr),
               "a control predecessor is not in the same computation");
      } else if (!seen_.contains(p)) {
        forward_reference_ = true;
      }
    }
    for (const HloComputation* called : instr.called_computations()) {
      if (called != nullptr && failed_computations_.contains(called)) {
        operands_ok = false;  // its errors are reported; its signature is in doubt
      }
      if (called == nullptr) {
        Report(instr.location(), Subject(instr), "a called computation is missing");
        operands_ok = false;
      } else if (called == module_.entry()) {
        Report(instr.location(), Subject(instr),
               absl::StrFormat("calls the entry computation %s", called->name()));
      }
    }
    CheckLayout(instr, instr.shape());
    // Shape rules (and the compiler's plans) may multiply the dimensions
    // of valid shapes freely; with an invalid one, only it is reported.
    absl::Status valid = ValidateShape(instr.shape());
    if (valid.ok() && !options_.allow_unbounded_dynamic) {
      valid = CheckNoUnboundedDimension(instr.shape());
    }
    if (!valid.ok()) {
      Report(instr.location(), Subject(instr), std::string(valid.message()));
      failed_.insert(&instr);
      return;
    }
    for (const HloInstruction* o : instr.operands()) {
      if (o != nullptr && !ValidateShape(o->shape()).ok()) operands_ok = false;
      // An operand already reported: what its users would say about its
      // shape follows from that one error.
      if (o != nullptr && failed_.contains(o)) operands_ok = false;
    }
    if (!operands_ok) {
      failed_.insert(&instr);
      return;
    }

    ShapeInferenceContext ctx = ctx_;
    ctx.declared = &instr.shape();
    absl::StatusOr<Shape> inferred = InferShape(instr, ctx);
    if (!inferred.ok()) {
      Report(instr.location(), Subject(instr), std::string(inferred.status().message()));
      failed_.insert(&instr);
      return;
    }
    if (!options_.allow_mixed_precision) {
      if (std::string mixed = MixedPrecisionOperands(instr); !mixed.empty()) {
        Report(instr.location(), Subject(instr), mixed);
        failed_.insert(&instr);
        return;
      }
    }
    const bool fp = options_.allow_mixed_precision;
    bool same = ShapesCompatible(*inferred, instr.shape(), fp);
    if (same && options_.layout_sensitive) same = LayoutsMatch(*inferred, instr.shape());
    if (!same) {
      failed_.insert(&instr);
      Report(instr.location(), Subject(instr),
             absl::StrFormat(
                 "inferred shape %s does not match the declared shape %s",
                 options_.layout_sensitive ? inferred->ToString() : ShapeText(*inferred),
                 options_.layout_sensitive ? instr.shape().ToString() : ShapeText(instr.shape())));
    }
  }

  // The two float types an instruction's operands mix, as a message; empty
  // when they do not. Ops that pass values through or group them (XLA's
  // list), and the contractions whose kernels take mixed inputs, may mix.
  static std::string MixedPrecisionOperands(const HloInstruction& instr) {
    switch (instr.opcode()) {
      case HloOpcode::kCall: case HloOpcode::kConditional: case HloOpcode::kConstant:
      case HloOpcode::kConvolution: case HloOpcode::kDot: case HloOpcode::kRaggedDot:
      case HloOpcode::kScaledDot: case HloOpcode::kAllReduce: case HloOpcode::kAllReduceStart:
      case HloOpcode::kAllReduceDone: case HloOpcode::kAsyncDone: case HloOpcode::kAsyncUpdate:
      case HloOpcode::kAsyncStart: case HloOpcode::kCopyDone: case HloOpcode::kCopyStart:
      case HloOpcode::kCustomCall: case HloOpcode::kDomain: case HloOpcode::kFusion:
      case HloOpcode::kGetTupleElement: case HloOpcode::kOptimizationBarrier:
      case HloOpcode::kInfeed: case HloOpcode::kOutfeed: case HloOpcode::kParameter:
      case HloOpcode::kRecv: case HloOpcode::kRecvDone: case HloOpcode::kReducePrecision:
      case HloOpcode::kSend: case HloOpcode::kSendDone: case HloOpcode::kSort:
      case HloOpcode::kTuple: case HloOpcode::kWhile: case HloOpcode::kConvert:
      case HloOpcode::kBitcastConvert: case HloOpcode::kStochasticConvert:
      case HloOpcode::kAddDependency: case HloOpcode::kAfterAll:
        return "";
      default:
        break;
    }
    std::optional<ElementType> seen;
    std::string found;
    std::function<void(const Shape&)> visit = [&](const Shape& s) {
      if (!found.empty()) return;
      if (s.IsTuple()) {
        for (const Shape& e : s.tuple_shapes()) visit(e);
        return;
      }
      if (!s.IsArray() || !IsFloatingPoint(s.element_type())) return;
      if (!seen.has_value()) {
        seen = s.element_type();
      } else if (*seen != s.element_type()) {
        found = absl::StrFormat(
            "operands mix the floating-point types %s and %s; hlovm computes %s in one type "
            "(convert an operand first)",
            ElementTypeName(*seen), ElementTypeName(s.element_type()),
            HloOpcodeName(instr.opcode()));
      }
    };
    for (const HloInstruction* o : instr.operands()) visit(o->shape());
    return found;
  }

  static bool LayoutsMatch(const Shape& a, const Shape& b) {
    if (a.IsTuple()) {
      for (int64_t i = 0; i < a.tuple_size(); ++i) {
        if (!LayoutsMatch(a.tuple_shape(i), b.tuple_shape(i))) return false;
      }
      return true;
    }
    if (!a.IsArray() || !a.has_layout() || !b.has_layout()) return true;
    return a.layout().minor_to_major == b.layout().minor_to_major;
  }

  // Operands and control predecessors must form a DAG.
  void CheckAcyclic(const HloComputation& c) {
    enum class Mark : uint8_t { kNone, kActive, kDone };
    absl::flat_hash_map<const HloInstruction*, Mark> mark;
    for (const auto& start : c.instructions()) {
      if (mark[start.get()] != Mark::kNone) continue;
      // Iterative DFS: (instruction, next edge index).
      std::vector<std::pair<const HloInstruction*, size_t>> stack;
      stack.push_back({start.get(), 0});
      mark[start.get()] = Mark::kActive;
      while (!stack.empty()) {
        auto& [node, next] = stack.back();
        const size_t n_ops = node->operands().size();
        const size_t n_edges = n_ops + node->control_predecessors().size();
        if (next >= n_edges) {
          mark[node] = Mark::kDone;
          stack.pop_back();
          continue;
        }
        const HloInstruction* succ = next < n_ops ? node->operands()[next]
                                                  : node->control_predecessors()[next - n_ops];
        ++next;
        if (succ == nullptr || succ->parent() != &c) continue;
        Mark& m = mark[succ];
        if (m == Mark::kActive) {
          Report(succ->location(), Subject(*succ),
                 absl::StrFormat("is part of a cycle in computation %s", c.name()));
          return;
        }
        if (m == Mark::kNone) {
          m = Mark::kActive;
          stack.push_back({succ, 0});
        }
      }
    }
  }

  // No computation may (transitively) call itself.
  void CheckCallGraph() {
    enum class Mark : uint8_t { kNone, kActive, kDone };
    absl::flat_hash_map<const HloComputation*, Mark> mark;
    for (const auto& start : module_.computations()) {
      if (mark[start.get()] != Mark::kNone) continue;
      std::vector<std::pair<const HloComputation*, std::vector<const HloComputation*>>> stack;
      auto callees = [](const HloComputation* c) {
        std::vector<const HloComputation*> out;
        for (const auto& i : c->instructions()) {
          for (const HloComputation* callee : i->called_computations()) {
            if (callee != nullptr) out.push_back(callee);
          }
        }
        return out;
      };
      stack.push_back({start.get(), callees(start.get())});
      mark[start.get()] = Mark::kActive;
      while (!stack.empty()) {
        auto& [comp, pending] = stack.back();
        if (pending.empty()) {
          mark[comp] = Mark::kDone;
          stack.pop_back();
          continue;
        }
        const HloComputation* next = pending.back();
        pending.pop_back();
        Mark& m = mark[next];
        if (m == Mark::kActive) {
          Report(next->location(), "",
                 absl::StrFormat("computation %s calls itself (recursion is not allowed)",
                                 next->name()));
          return;
        }
        if (m == Mark::kNone) {
          m = Mark::kActive;
          stack.push_back({next, callees(next)});
        }
      }
    }
  }

  // Whether no instruction of `c` before `instr` has its name. Every name
  // goes into the module's keys; only where a key was there already (the
  // name is in another computation too, or repeats in this one, or rarely
  // shares its hash) are `c`'s names looked at one by one, from then on.
  bool UniqueInComputation(const HloComputation& c, const HloInstruction& instr) {
    const bool new_key = keys_.Add(ModuleNameKeys::Key(instr.name()));
    if (new_key && exact_names_for_ != &c) return true;
    if (exact_names_for_ != &c) {
      exact_names_for_ = &c;
      names_.clear();
      for (const auto& before : c.instructions()) {
        if (before.get() == &instr) break;
        names_.insert(before->name());
      }
    }
    return names_.insert(instr.name()).second;
  }

  const HloModule& module_;
  const VerifyOptions& options_;
  ShapeInferenceContext ctx_;
  ComputationSignatureCache signatures_;
  // The module's names; per computation being checked: its instruction
  // names where they are looked at one by one (UniqueInComputation), the
  // instructions before the current one, and whether an operand or control
  // predecessor referred forward.
  ModuleNameKeys keys_;
  const HloComputation* exact_names_for_ = nullptr;
  absl::flat_hash_set<std::string_view> names_;
  absl::flat_hash_set<const HloInstruction*> seen_;
  bool forward_reference_ = false;
  // Instructions reported (or skipped for an operand that was): their users
  // are not checked against them, so one mistake is one error.
  absl::flat_hash_set<const HloInstruction*> failed_;
  // Computations with an error: instructions calling them are not checked
  // against their signature.
  absl::flat_hash_set<const HloComputation*> failed_computations_;
  bool counts_ok_ = true;  // replica and partition counts
  std::vector<std::string> messages_;
  int64_t error_count_ = 0;
};

}  // namespace

absl::Status VerifyModule(const HloModule& module, const VerifyOptions& options) {
  return Verifier(module, options).Run();
}

}  // namespace hlovm
