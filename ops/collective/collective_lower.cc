// Lowering and handler of the collectives: all-reduce, all-gather,
// reduce-scatter, all-to-all, collective-permute, collective-broadcast, their
// -start/-done forms and async-start/-update/-done wrapping one of them.
//
// Groups are resolved at compile time for every instance of the module's
// replica_count x num_partitions, by XLA's group modes (see
// vm/COLLECTIVES.md); the handler picks its instance's group and runs the
// op's semantics (collective_semantics.h) over the ExecContext's collective
// bus.
#include <algorithm>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/element_type.h"
#include "core/status_macros.h"
#include "ops/elementwise/elementwise.h"
#include "ops/lowerings.h"
#include "ops/collective/collective_semantics.h"
#include "vm/api.h"
#include "vm/async_exchange.h"
#include "vm/collective_bus.h"
#include "vm/computation_call.h"
#include "vm/executor.h"
#include "vm/lowering.h"

namespace hlovm {
namespace vm {
namespace {

enum class GroupMode { kCrossReplica, kCrossPartition, kCrossReplicaAndPartition, kFlattenedId };

struct CollectivePlan {
  CollectiveKind kind = CollectiveKind::kAllReduce;
  const HloInstruction* hlo = nullptr;
  std::vector<Shape> in_shapes, out_shapes;
  std::vector<const Shape*> in_ptrs, out_ptrs;
  int64_t dimension = -1;
  bool tuple_form = false;
  CollectiveReducer reducer;
  int64_t replicas = 1, partitions = 1;
  // Per instance id: its group (instance ids in rank order), rank, and the
  // permute source; `in_group` false when no replica group names it.
  std::vector<std::vector<int64_t>> groups;
  std::vector<int64_t> ranks, sources;
  std::vector<char> in_group;
  // collective-permute, per instance: the instances that receive from it.
  std::vector<std::vector<int64_t>> targets;
  // The in-place collective-permute (in_place.groups > 0), and per instance
  // what it receives: (pair group, source instance) in pair order.
  InPlacePermute in_place;
  std::vector<std::vector<std::pair<int64_t, int64_t>>> receives;
};

int64_t ctx_bytes(const Shape& s) {
  int64_t n = ByteWidth(s.element_type());
  for (int64_t i = 0; i < s.rank(); ++i) n *= s.dimensions(i);
  return n;
}

// One instance's part of a collective: the op it brings (the buffers its
// registers point to), owning the pointer arrays the op refers to.
struct PreparedCollective {
  CollectiveOp op;
  absl::InlinedVector<uint8_t*, 8> in, out;
  int64_t instance = 0;
};

// Fills `prepared` for `instr` at this instance; returns false (after
// writing the results) when this instance takes no part, and fails `ctx`
// when the instance lies outside the module.
bool PrepareCollective(const Instr& instr, uint8_t* const* regs, ExecContext& ctx,
                       PreparedCollective& prepared, bool* ok) {
  const auto& p = *static_cast<const CollectivePlan*>(instr.plan);
  *ok = true;
  const int64_t instance = ctx.replica_id * p.partitions + ctx.partition_id;
  if (ctx.replica_id < 0 || ctx.replica_id >= p.replicas || ctx.partition_id < 0 ||
      ctx.partition_id >= p.partitions) {
    *ok = ctx.Fail(absl::InvalidArgumentError(absl::StrCat(
        "replica ", ctx.replica_id, " partition ", ctx.partition_id, " is outside the module's ",
        p.replicas, " replicas x ", p.partitions, " partitions")));
    return false;
  }
  prepared.instance = instance;
  prepared.in.assign(instr.num_in, nullptr);
  prepared.out.assign(instr.num_out, nullptr);
  for (uint32_t i = 0; i < instr.num_in; ++i) prepared.in[i] = regs[instr.in[i]];
  for (uint32_t i = 0; i < instr.num_out; ++i) prepared.out[i] = regs[instr.out[i]];
  if (!p.in_group[instance] && p.kind == CollectiveKind::kCollectiveBroadcast) {
    for (uint32_t i = 0; i < instr.num_out; ++i) {
      std::memset(prepared.out[i], 0, ctx_bytes(p.out_shapes[i]));
    }
    return false;
  }
  CollectiveOp& op = prepared.op;
  op.kind = p.kind;
  op.hlo = p.hlo;
  op.group = p.groups[instance];
  op.rank = p.ranks[instance];
  op.in_shapes = p.in_ptrs;
  op.out_shapes = p.out_ptrs;
  op.in = prepared.in.data();
  op.out = prepared.out.data();
  op.dimension = p.dimension;
  op.tuple_form = p.tuple_form;
  op.source = p.sources[instance];
  if (p.in_place.groups > 0) {
    op.in_place = &p.in_place;
    op.receives = p.receives[instance];
  }
  op.reducer = &p.reducer;
  if (!p.targets.empty()) op.targets = p.targets[instance];
  return true;
}

// Why the collective cannot meet its group on the context's bus (OK: it
// can, or it needs none).
absl::Status CheckBus(const CollectivePlan& p, const CollectiveOp& op, const ExecContext& ctx) {
  if (op.group.size() <= 1) return absl::OkStatus();
  if (ctx.bus == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat(
        "this collective needs ", op.group.size(),
        " instances on a collective bus; run the module with its replicas and partitions"));
  }
  if (ctx.bus->replica_count() != p.replicas || ctx.bus->partition_count() != p.partitions) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the module is compiled for ", p.replicas, " replicas x ", p.partitions,
        " partitions but runs on a bus of ", ctx.bus->replica_count(), " x ",
        ctx.bus->partition_count()));
  }
  return absl::OkStatus();
}

// The whole collective at once: the synchronous forms, and a -start that
// cannot run asynchronously (its group is this instance alone, or the run
// has no bus).
bool CollectiveHandler(const Instr& instr, uint8_t* const* regs, ExecContext& ctx) {
  const auto& p = *static_cast<const CollectivePlan*>(instr.plan);
  PreparedCollective prepared;
  bool ok = true;
  if (!PrepareCollective(instr, regs, ctx, prepared, &ok)) return ok;
  const CollectiveOp& op = prepared.op;
  absl::Status status = CheckBus(p, op, ctx);
  if (status.ok()) {
    if (op.group.size() <= 1) {
      status = RunCollectiveAlone(op);
    } else {
      // The exchanges begun before this collective end first: an instance
      // meets its collectives in program order.
      if (ThreadBeganExchanges()) QuiesceExchanges(ctx);
      status = RunCollective(*ctx.bus, prepared.instance, op);
    }
  }
  if (!status.ok()) return ctx.Fail(std::move(status));
  return true;
}

// A -start: begins the exchange on the run's exchange thread
// (vm/async_exchange.h) and returns; the -done waits for it. Without a bus
// (a group of one) or outside a sequential run it runs at once.
bool CollectiveStartHandler(const Instr& instr, uint8_t* const* regs, ExecContext& ctx) {
  const auto& p = *static_cast<const CollectivePlan*>(instr.plan);
  if (ctx.bus == nullptr || !ctx.sequential) return CollectiveHandler(instr, regs, ctx);
  auto prepared = std::make_shared<PreparedCollective>();
  bool ok = true;
  if (!PrepareCollective(instr, regs, ctx, *prepared, &ok)) return ok;
  if (prepared->op.group.size() <= 1) return CollectiveHandler(instr, regs, ctx);
  absl::Status status = CheckBus(p, prepared->op, ctx);
  if (!status.ok()) return ctx.Fail(std::move(status));
  CollectiveBus* bus = ctx.bus;
  BeginExchange(ctx, &p, [bus, prepared]() {
    return RunCollective(*bus, prepared->instance, prepared->op);
  });
  return true;
}

// A -done: waits for the exchange its -start began; its errors name the
// start, as when the start ran the whole exchange.
bool CollectiveDoneHandler(const Instr& instr, uint8_t* const* regs, ExecContext& ctx) {
  const auto& p = *static_cast<const CollectivePlan*>(instr.plan);
  bool found = false;
  absl::Status status = AwaitExchange(ctx, &p, &found);
  if (!status.ok()) return ctx.Fail(AnnotateStatus(status, p.hlo));
  return true;
}

bool HasGlobalIdsAttribute(HloOpcode op) {
  switch (op) {
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllReduceStart:
    case HloOpcode::kAllGather:
    case HloOpcode::kAllGatherStart:
    case HloOpcode::kReduceScatter:
      return true;
    default:
      return false;
  }
}

absl::StatusOr<GroupMode> ModeOf(const HloInstruction& instr) {
  const bool channel = instr.attrs().channel_id.has_value();
  if (HasGlobalIdsAttribute(instr.opcode())) {
    if (!channel) {
      if (instr.attrs().use_global_device_ids) {
        return absl::InvalidArgumentError(
            "use_global_device_ids=true needs a channel_id");
      }
      return GroupMode::kCrossReplica;
    }
    return instr.attrs().use_global_device_ids ? GroupMode::kFlattenedId
                                       : GroupMode::kCrossReplicaAndPartition;
  }
  return channel ? GroupMode::kCrossPartition : GroupMode::kCrossReplica;
}

// "there is only 1 replica", "there are only 4 replicas".
std::string OnlyCount(int64_t n, const char* noun) {
  return n == 1 ? absl::StrCat("there is only 1 ", noun)
                : absl::StrCat("there are only ", n, " ", noun, "s");
}

// Resolves every instance's group for `instr` into `plan`.
absl::Status ResolveGroups(const HloInstruction& instr, CollectivePlan& plan) {
  HLOVM_ASSIGN_OR_RETURN(GroupMode mode, ModeOf(instr));
  HLOVM_RETURN_IF_ERROR(ValidateInstanceCounts(plan.replicas, plan.partitions));
  const int64_t R = plan.replicas, P = plan.partitions, N = R * P;
  plan.groups.assign(N, {});
  plan.ranks.assign(N, 0);
  plan.sources.assign(N, -1);
  plan.in_group.assign(N, 0);
  plan.receives.assign(N, {});
  // The ids the groups name, and how many there are.
  const int64_t id_space = mode == GroupMode::kCrossPartition ? P
                           : mode == GroupMode::kFlattenedId ? N
                                                             : R;
  std::vector<std::vector<int64_t>> groups;
  if (instr.attrs().replica_groups.has_value()) groups = instr.attrs().replica_groups->groups;
  for (const auto& g : groups) {
    for (int64_t id : g) {
      if (id < 0 || id >= id_space) {
        return absl::InvalidArgumentError(absl::StrCat(
            "replica_groups names id ", id, " but ",
            OnlyCount(id_space, mode == GroupMode::kCrossPartition ? "partition"
                                : mode == GroupMode::kFlattenedId  ? "device"
                                                                   : "replica")));
      }
    }
  }
  const bool permute = plan.kind == CollectiveKind::kCollectivePermute;
  if (groups.empty() || permute) {
    std::vector<int64_t> all(id_space);
    for (int64_t i = 0; i < id_space; ++i) all[i] = i;
    groups = {all};
  }
  for (int64_t self = 0; self < N; ++self) {
    const int64_t r = self / P, p = self % P;
    const int64_t my_id = mode == GroupMode::kCrossPartition ? p
                          : mode == GroupMode::kFlattenedId  ? self
                                                             : r;
    const std::vector<int64_t>* mine = nullptr;
    for (const auto& g : groups) {
      if (std::find(g.begin(), g.end(), my_id) != g.end()) mine = &g;
    }
    std::vector<int64_t> members;
    if (mine == nullptr) {
      members = {self};
    } else {
      plan.in_group[self] = 1;
      if (mode == GroupMode::kCrossReplicaAndPartition) {
        // Partition-major, as XLA orders the participants.
        for (int64_t q = 0; q < P; ++q) {
          for (int64_t id : *mine) members.push_back(id * P + q);
        }
      }
      for (int64_t id : *mine) {
        switch (mode) {
          case GroupMode::kCrossReplica:
            members.push_back(id * P + p);
            break;
          case GroupMode::kCrossPartition:
            members.push_back(r * P + id);
            break;
          case GroupMode::kCrossReplicaAndPartition:
            break;
          case GroupMode::kFlattenedId:
            members.push_back(id);
            break;
        }
      }
    }
    plan.ranks[self] = std::find(members.begin(), members.end(), self) - members.begin();
    if (permute) {
      const auto& pairs = instr.attrs().source_target_pairs;
      const int64_t per_group =
          plan.in_place.groups > 0
              ? static_cast<int64_t>(pairs.size()) / plan.in_place.groups : 1;
      for (size_t i = 0; i < pairs.size(); ++i) {
        const auto [s, t] = pairs[i];
        if (s < 0 || t < 0 || s >= id_space || t >= id_space) {
          return absl::InvalidArgumentError(absl::StrCat(
              "source_target_pairs names {", s, ",", t, "} but ",
              OnlyCount(id_space, mode == GroupMode::kCrossPartition ? "partition" : "replica")));
        }
        if (t == my_id) {
          const int64_t source = mode == GroupMode::kCrossPartition ? r * P + s : s * P + p;
          plan.sources[self] = source;
          if (plan.in_place.groups > 0) {
            plan.receives[self].push_back({static_cast<int64_t>(i) / per_group, source});
          }
        }
      }
    }
    plan.groups[self] = std::move(members);
  }
  if (permute) {
    plan.targets.assign(N, {});
    for (int64_t self = 0; self < N; ++self) {
      std::vector<int64_t> from;
      if (plan.sources[self] >= 0) from.push_back(plan.sources[self]);
      for (const auto& [group, source] : plan.receives[self]) from.push_back(source);
      std::sort(from.begin(), from.end());
      from.erase(std::unique(from.begin(), from.end()), from.end());
      for (int64_t s : from) plan.targets[s].push_back(self);
    }
  }
  return absl::OkStatus();
}

absl::Status BuildReducer(FunctionBuilder& b, const HloInstruction& instr, ElementType type,
                          CollectiveReducer& reducer) {
  const HloComputation* computation = instr.to_apply();
  if (computation == nullptr) {
    return absl::InvalidArgumentError("the collective has no to_apply computation");
  }
  std::optional<HloOpcode> op = MatchBinaryReducer(*computation);
  if (op.has_value() && computation->root()->shape().element_type() == type) {
    auto kernel = SelectBinaryKernel(*op, type, type);
    if (kernel.ok()) {
      reducer.kernel = *kernel;
      return absl::OkStatus();
    }
  }
  HLOVM_ASSIGN_OR_RETURN(reducer.fn, b.compiler().CompileFunction(*computation, false));
  return absl::OkStatus();
}

// The in-place form of collective-permute: (inputs, outputs, input
// offsets, output offsets) with one slice size list per array and pair
// group; see InPlacePermute.
absl::Status BuildInPlacePermute(const HloInstruction& instr, CollectivePlan& plan) {
  auto invalid = [](auto&&... parts) {
    return absl::InvalidArgumentError(
        absl::StrCat("in-place collective-permute: ", std::forward<decltype(parts)>(parts)...));
  };
  if (instr.operand_count() != 4) return invalid("takes 4 operands, got ", instr.operand_count());
  const int64_t arrays = LeafCount(instr.operand(0)->shape());
  if (arrays == 0 || LeafCount(instr.operand(1)->shape()) != arrays ||
      static_cast<int64_t>(plan.out_shapes.size()) != arrays) {
    return invalid("the inputs, outputs and results must be as many arrays");
  }
  const int64_t entries = static_cast<int64_t>(instr.attrs().collective_slice_sizes.size());
  if (entries % arrays != 0) {
    return invalid(entries, " slice sizes do not divide among ", arrays, " arrays");
  }
  const int64_t groups = entries / arrays;
  const int64_t pairs = static_cast<int64_t>(instr.attrs().source_target_pairs.size());
  if (pairs % groups != 0) {
    return invalid(pairs, " source_target_pairs do not divide into ", groups,
                   " groups (one a slice size per array)");
  }
  InPlacePermute& form = plan.in_place;
  form.arrays = arrays;
  form.groups = groups;
  form.sizes = instr.attrs().collective_slice_sizes;
  int64_t offsets = 0;
  for (int64_t t = 0; t < arrays; ++t) {
    const Shape& in = plan.in_shapes[t];
    const Shape& out = plan.out_shapes[t];
    if (in.element_type() != out.element_type() || in.rank() != out.rank() ||
        !(plan.in_shapes[arrays + t] == out)) {
      return invalid("input ", in.ToString(), ", output ", plan.in_shapes[arrays + t].ToString(),
                     " and result ", out.ToString(), " do not match");
    }
    for (int64_t k = 0; k < groups; ++k) {
      const std::vector<int64_t>& sizes = form.sizes[t * groups + k];
      if (static_cast<int64_t>(sizes.size()) != in.rank()) {
        return invalid("slice sizes {", absl::StrJoin(sizes, ","), "} for ", in.ToString());
      }
      for (int64_t d = 0; d < in.rank(); ++d) {
        if (sizes[d] < 0 || sizes[d] > in.dimensions(d) || sizes[d] > out.dimensions(d)) {
          return invalid("slice sizes {", absl::StrJoin(sizes, ","), "} do not fit ",
                         in.ToString(), " and ", out.ToString());
        }
      }
    }
    offsets += groups * in.rank();
  }
  const int64_t first = 2 * arrays;
  if (static_cast<int64_t>(plan.in_shapes.size()) != first + 2 * offsets) {
    return invalid("expects ", offsets, " input and ", offsets,
                   " output offset scalars (one a dimension, array and group)");
  }
  for (int64_t i = first; i < first + 2 * offsets; ++i) {
    const Shape& s = plan.in_shapes[i];
    if (s.rank() != 0 || !IsInteger(s.element_type())) {
      return invalid("offsets must be integer scalars, got ", s.ToString());
    }
  }
  int64_t at = 0;
  for (int64_t t = 0; t < arrays; ++t) {
    for (int64_t k = 0; k < groups; ++k) {
      form.in_offsets.push_back(first + at);
      form.out_offsets.push_back(first + offsets + at);
      at += plan.in_shapes[t].rank();
    }
  }
  return absl::OkStatus();
}

// Emits the collective `kind` of `instr` over the leaves `in` into new
// registers, appended to `out_desc`.
// The handler kind that runs `kind` (the disassembly names it by the
// collective, as CollectiveKindName does).
HandlerKind CollectiveHandlerKind(CollectiveKind kind) {
  switch (kind) {
    case CollectiveKind::kAllReduce: return HandlerKind::kAllReduce;
    case CollectiveKind::kAllGather: return HandlerKind::kAllGather;
    case CollectiveKind::kReduceScatter: return HandlerKind::kReduceScatter;
    case CollectiveKind::kAllToAll: return HandlerKind::kAllToAll;
    case CollectiveKind::kCollectivePermute: return HandlerKind::kCollectivePermute;
    case CollectiveKind::kCollectiveBroadcast: return HandlerKind::kCollectiveBroadcast;
    case CollectiveKind::kRaggedAllToAll: return HandlerKind::kRaggedAllToAll;
  }
  return HandlerKind::kAllReduce;
}

absl::Status EmitCollective(FunctionBuilder& b, const HloInstruction& instr, CollectiveKind kind,
                            const ValueDesc& in, const std::vector<const Shape*>& out_leaves,
                            ValueDesc* out_desc, bool start = false) {
  CollectivePlan plan;
  plan.kind = kind;
  plan.hlo = &instr;
  const HloModule* module = &b.compiler().module();
  plan.replicas = std::max<int64_t>(1, module->replica_count);
  plan.partitions = std::max<int64_t>(1, module->num_partitions);
  if (in.size() > 64 || out_leaves.size() > 64) {
    return absl::UnimplementedError("collectives of more than 64 arrays");
  }
  // Registers may hold aliases (reshape): the shapes come from the HLO.
  std::vector<const Shape*> in_leaves;
  for (const HloInstruction* o : instr.operands()) FlattenShape(o->shape(), &in_leaves);
  if (in_leaves.size() != in.size()) {
    return absl::InternalError("collective operand leaves do not match their registers");
  }
  for (const Shape* s : in_leaves) {
    if (!s->IsArray()) return absl::InvalidArgumentError("collective operands must be arrays");
    plan.in_shapes.push_back(RowMajorShape(*s));
  }
  for (const Shape* s : out_leaves) {
    if (!s->IsArray()) return absl::InvalidArgumentError("collective results must be arrays");
    plan.out_shapes.push_back(RowMajorShape(*s));
  }
  if (!instr.dimensions.empty()) plan.dimension = instr.dimensions[0];
  if (kind == CollectiveKind::kAllToAll && instr.dimensions.empty()) plan.tuple_form = true;
  if (kind == CollectiveKind::kRaggedAllToAll) {
    if (plan.in_shapes.size() != 6 || plan.out_shapes.size() != 1 ||
        plan.in_shapes[0].rank() < 1 || plan.in_shapes[1].rank() < 1) {
      return absl::InvalidArgumentError(
          "ragged-all-to-all takes (input, output, input_offsets, send_sizes, output_offsets, "
          "recv_sizes) and returns the output");
    }
    for (int i = 2; i < 6; ++i) {
      const ElementType t = plan.in_shapes[i].element_type();
      if (t != ElementType::kS32 && t != ElementType::kS64) {
        return absl::InvalidArgumentError("ragged-all-to-all offsets and sizes must be s32 or s64");
      }
    }
  }
  if (kind == CollectiveKind::kAllReduce || kind == CollectiveKind::kReduceScatter) {
    if (plan.in_shapes.empty()) return absl::InvalidArgumentError("no operands");
    const ElementType type = plan.in_shapes[0].element_type();
    for (const Shape& s : plan.in_shapes) {
      if (s.element_type() != type) {
        return absl::UnimplementedError("a reduction over operands of different element types");
      }
    }
    HLOVM_RETURN_IF_ERROR(BuildReducer(b, instr, type, plan.reducer));
  }
  if (!instr.attrs().collective_slice_sizes.empty()) {
    HLOVM_RETURN_IF_ERROR(BuildInPlacePermute(instr, plan));
  }
  HLOVM_RETURN_IF_ERROR(ResolveGroups(instr, plan));
  // Shape checks of the data movement (the verifier checks the rest).
  for (int64_t self = 0; self < plan.replicas * plan.partitions; ++self) {
    const int64_t n = static_cast<int64_t>(plan.groups[self].size());
    if (kind == CollectiveKind::kAllToAll && plan.tuple_form &&
        (static_cast<int64_t>(in.size()) != n || out_leaves.size() != in.size())) {
      return absl::InvalidArgumentError(absl::StrCat(
          "all-to-all of ", in.size(), " operands in a group of ", n));
    }
    if (kind == CollectiveKind::kAllToAll && !plan.tuple_form) {
      for (const Shape& s : plan.in_shapes) {
        if (plan.dimension < 0 || plan.dimension >= s.rank() || s.dimensions(plan.dimension) % n) {
          return absl::InvalidArgumentError(absl::StrCat(
              "all-to-all cannot split ", s.ToString(), " along dimension ", plan.dimension,
              " into ", n, " parts"));
        }
      }
    }
    if (kind == CollectiveKind::kAllGather || kind == CollectiveKind::kReduceScatter) {
      for (size_t a = 0; a < plan.in_shapes.size() && a < plan.out_shapes.size(); ++a) {
        const Shape& small = kind == CollectiveKind::kAllGather ? plan.in_shapes[a]
                                                                : plan.out_shapes[a];
        const Shape& big = kind == CollectiveKind::kAllGather ? plan.out_shapes[a]
                                                              : plan.in_shapes[a];
        if (plan.dimension < 0 || plan.dimension >= small.rank() ||
            small.dimensions(plan.dimension) * n != big.dimensions(plan.dimension)) {
          return absl::InvalidArgumentError(absl::StrCat(
              CollectiveKindName(kind), " from ", plan.in_shapes[a].ToString(), " to ",
              plan.out_shapes[a].ToString(), " does not fit a group of ", n));
        }
      }
    }
  }
  int64_t bytes = 0;
  FunctionBuilder::EmitSpec spec;
  for (const Shape* s : out_leaves) {
    HLOVM_ASSIGN_OR_RETURN(Reg r, b.NewReg(RegKind::kOwned, *s));
    spec.out.push_back(r);
    out_desc->push_back(r);
    bytes += b.function().regs[r].bytes;
  }
  for (auto& s : plan.in_shapes) plan.in_ptrs.push_back(&s);
  for (auto& s : plan.out_shapes) plan.out_ptrs.push_back(&s);
  // The pointers above refer into the plan; AddPlan moves it, so rebuild
  // them in its final place.
  const CollectivePlan* stored = b.program().AddPlan(std::move(plan));
  auto* fix = const_cast<CollectivePlan*>(stored);
  fix->in_ptrs.clear();
  fix->out_ptrs.clear();
  for (auto& s : fix->in_shapes) fix->in_ptrs.push_back(&s);
  for (auto& s : fix->out_shapes) fix->out_ptrs.push_back(&s);
  spec.handler = start ? &CollectiveStartHandler : &CollectiveHandler;
  spec.plan = stored;
  spec.in = in;
  spec.cost = 2 * bytes + 64;
  spec.kind = CollectiveHandlerKind(kind);
  spec.side_effect = true;
  if (start) spec.variant = "start: begins the exchange";
  b.Emit(&instr, std::move(spec));
  return absl::OkStatus();
}

// Emits the -done of the asynchronous collective whose start wrote
// `results` (the done's value): it waits for the exchange,
// and reads the start's operands and results so that the buffer plan keeps
// them live (and unwritten) until it has run. Emits nothing when this
// function has no such start (it ran its whole exchange).
absl::Status EmitCollectiveDone(FunctionBuilder& b, const HloInstruction& done,
                                const ValueDesc& results) {
  const Function& fn = b.function();
  if (results.empty()) return absl::OkStatus();
  for (int32_t i = static_cast<int32_t>(fn.code.size()) - 1; i >= 0; --i) {
    const Instr& begun = fn.code[i];
    const InstrInfo& info = fn.info[i];
    // The start is the one that wrote the done's results (registers are
    // written once).
    if (begun.handler != &CollectiveStartHandler || begun.num_out != results.size() ||
        !std::equal(results.begin(), results.end(), fn.reg_pool.begin() + info.out_offset)) {
      continue;
    }
    FunctionBuilder::EmitSpec spec;
    spec.handler = &CollectiveDoneHandler;
    spec.plan = begun.plan;
    spec.in.assign(fn.reg_pool.begin() + info.in_offset,
                   fn.reg_pool.begin() + info.in_offset + begun.num_in);
    spec.in.insert(spec.in.end(), fn.reg_pool.begin() + info.out_offset,
                   fn.reg_pool.begin() + info.out_offset + begun.num_out);
    spec.cost = 64;
    spec.kind = info.kind;
    spec.side_effect = true;
    spec.variant = "done: waits for the exchange";
    b.Emit(&done, std::move(spec));
    return absl::OkStatus();
  }
  // The start ran its whole exchange (see DoneInSameComputation).
  return absl::OkStatus();
}

// Whether a -done (or async-done, through async-updates) of `start` lies in
// the start's own computation: only then is the start emitted as one that
// begins its exchange, since its done is emitted in the same function. (A
// start whose value leaves its computation, say carried around a loop to a
// done in the next trip, runs its whole exchange at the start.)
bool DoneInSameComputation(const HloInstruction& start) {
  const HloComputation* computation = start.parent();
  if (computation == nullptr) return false;
  for (const auto& i : computation->instructions()) {
    switch (i->opcode()) {
      case HloOpcode::kAllReduceDone:
      case HloOpcode::kAllGatherDone:
      case HloOpcode::kCollectivePermuteDone:
      case HloOpcode::kAsyncDone:
        break;
      default:
        continue;
    }
    if (i->operand_count() == 0) continue;
    const HloInstruction* op = i->operand(0);
    while (op->opcode() == HloOpcode::kAsyncUpdate && op->operand_count() > 0) {
      op = op->operand(0);
    }
    if (op == &start) return true;
  }
  return false;
}

absl::StatusOr<CollectiveKind> KindOf(HloOpcode op) {
  switch (op) {
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllReduceStart:
      return CollectiveKind::kAllReduce;
    case HloOpcode::kAllGather:
    case HloOpcode::kAllGatherStart:
      return CollectiveKind::kAllGather;
    case HloOpcode::kReduceScatter:
      return CollectiveKind::kReduceScatter;
    case HloOpcode::kAllToAll:
      return CollectiveKind::kAllToAll;
    case HloOpcode::kCollectivePermute:
    case HloOpcode::kCollectivePermuteStart:
      return CollectiveKind::kCollectivePermute;
    case HloOpcode::kCollectiveBroadcast:
      return CollectiveKind::kCollectiveBroadcast;
    case HloOpcode::kRaggedAllToAll:
      return CollectiveKind::kRaggedAllToAll;
    default:
      return absl::UnimplementedError(
          absl::StrCat("collective '", std::string(HloOpcodeName(op)), "' is not implemented yet"));
  }
}

ValueDesc Concat(absl::Span<const ValueDesc* const> operands) {
  ValueDesc all;
  for (const ValueDesc* d : operands) all.insert(all.end(), d->begin(), d->end());
  return all;
}

// all-reduce, all-gather, reduce-scatter, all-to-all, collective-permute,
// collective-broadcast.
absl::Status LowerCollective(FunctionBuilder& b, const HloInstruction& instr,
                             absl::Span<const ValueDesc* const> operands, ValueDesc* result) {
  HLOVM_ASSIGN_OR_RETURN(CollectiveKind kind, KindOf(instr.opcode()));
  std::vector<const Shape*> leaves;
  FlattenShape(instr.shape(), &leaves);
  return EmitCollective(b, instr, kind, Concat(operands), leaves, result);
}

// The leaves of tuple element `index` of `shape` within `desc`.
ValueDesc TupleElementLeaves(const Shape& shape, const ValueDesc& desc, int64_t index) {
  if (!shape.IsTuple()) return desc;
  int64_t first = 0;
  for (int64_t i = 0; i < index; ++i) first += LeafCount(shape.tuple_shapes()[i]);
  const int64_t count = LeafCount(shape.tuple_shapes()[index]);
  return ValueDesc(desc.begin() + first, desc.begin() + first + count);
}

// Allocates registers for the leaves of `shape` that are not data (the
// u32[] contexts of collective-permute-start).
absl::Status AppendOwned(FunctionBuilder& b, const Shape& shape, ValueDesc* result) {
  HLOVM_ASSIGN_OR_RETURN(ValueDesc extra, b.NewOwnedValue(shape));
  result->insert(result->end(), extra.begin(), extra.end());
  return absl::OkStatus();
}

// all-reduce-start: the result itself. all-gather-start and
// collective-permute-start: (operands, results, contexts...).
absl::Status LowerCollectiveStart(FunctionBuilder& b, const HloInstruction& instr,
                                  absl::Span<const ValueDesc* const> operands,
                                  ValueDesc* result) {
  HLOVM_ASSIGN_OR_RETURN(CollectiveKind kind, KindOf(instr.opcode()));
  const Shape& shape = instr.shape();
  const ValueDesc in = Concat(operands);
  if (instr.opcode() == HloOpcode::kAllReduceStart) {
    std::vector<const Shape*> leaves;
    FlattenShape(shape, &leaves);
    return EmitCollective(b, instr, kind, in, leaves, result, DoneInSameComputation(instr));
  }
  if (!shape.IsTuple() || shape.tuple_shapes().size() < 2) {
    return absl::InvalidArgumentError(
        absl::StrCat(std::string(HloOpcodeName(instr.opcode())),
                     " must produce a tuple (operands, results, ...)"));
  }
  // The in-place permute's first element is its input alone.
  const ValueDesc& first = instr.attrs().collective_slice_sizes.empty() ? in : *operands[0];
  result->insert(result->end(), first.begin(), first.end());
  std::vector<const Shape*> leaves;
  FlattenShape(shape.tuple_shapes()[1], &leaves);
  HLOVM_RETURN_IF_ERROR(
      EmitCollective(b, instr, kind, in, leaves, result, DoneInSameComputation(instr)));
  for (size_t i = 2; i < shape.tuple_shapes().size(); ++i) {
    HLOVM_RETURN_IF_ERROR(AppendOwned(b, shape.tuple_shapes()[i], result));
  }
  return absl::OkStatus();
}

// -done: waits for the exchange its start began; its value is the start's
// results.
absl::Status LowerCollectiveDone(FunctionBuilder& b, const HloInstruction& instr,
                                 absl::Span<const ValueDesc* const> operands, ValueDesc* result) {
  const HloInstruction* start = instr.operand(0);
  if (start->opcode() == HloOpcode::kAllReduceStart || !start->shape().IsTuple()) {
    *result = *operands[0];
  } else {
    *result = TupleElementLeaves(start->shape(), *operands[0], 1);
  }
  return EmitCollectiveDone(b, instr, *result);
}

// The collective an async-start wraps when it can begin asynchronously: the
// wrapped computation's root is a collective whose operands are the
// computation's parameters in order (null otherwise).
const HloInstruction* WrappedCollective(const HloComputation& wrapped) {
  const HloInstruction* root = wrapped.root();
  switch (root->opcode()) {
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllGather:
    case HloOpcode::kReduceScatter:
    case HloOpcode::kAllToAll:
    case HloOpcode::kCollectivePermute:
    case HloOpcode::kCollectiveBroadcast:
      break;
    default:
      return nullptr;
  }
  if (root->operand_count() != wrapped.parameter_count()) return nullptr;
  for (int64_t i = 0; i < root->operand_count(); ++i) {
    const HloInstruction* o = root->operand(i);
    if (o->opcode() != HloOpcode::kParameter || o->parameter_number != i) return nullptr;
  }
  return root;
}

// async-start wrapping a computation. A wrapped collective begins its
// exchange here and the async-done waits for it; any other computation is
// lowered inline at the start. The value is ((operands), results,
// contexts...).
absl::Status LowerAsyncStart(FunctionBuilder& b, const HloInstruction& instr,
                             absl::Span<const ValueDesc* const> operands, ValueDesc* result) {
  const HloComputation* wrapped = instr.to_apply();
  if (wrapped == nullptr) return absl::InvalidArgumentError("async-start wraps no computation");
  ValueDesc value;
  const HloInstruction* collective = WrappedCollective(*wrapped);
  if (collective != nullptr && DoneInSameComputation(instr)) {
    HLOVM_ASSIGN_OR_RETURN(CollectiveKind kind, KindOf(collective->opcode()));
    std::vector<const Shape*> leaves;
    FlattenShape(collective->shape(), &leaves);
    HLOVM_RETURN_IF_ERROR(
        EmitCollective(b, *collective, kind, Concat(operands), leaves, &value, /*start=*/true));
  } else {
    std::vector<ValueDesc> args;
    for (const ValueDesc* d : operands) args.push_back(*d);
    HLOVM_RETURN_IF_ERROR(b.compiler().LowerComputation(b, *wrapped, args, &value));
  }
  const Shape& shape = instr.shape();
  if (!shape.IsTuple() || shape.tuple_shapes().size() < 2) {
    return absl::InvalidArgumentError("async-start must produce a tuple (operands, results, ...)");
  }
  ValueDesc in = Concat(operands);
  result->insert(result->end(), in.begin(), in.end());
  result->insert(result->end(), value.begin(), value.end());
  for (size_t i = 2; i < shape.tuple_shapes().size(); ++i) {
    HLOVM_RETURN_IF_ERROR(AppendOwned(b, shape.tuple_shapes()[i], result));
  }
  return absl::OkStatus();
}

absl::Status LowerAsyncUpdate(FunctionBuilder& b, const HloInstruction& instr,
                              absl::Span<const ValueDesc* const> operands, ValueDesc* result) {
  *result = *operands[0];
  return absl::OkStatus();
}

absl::Status LowerAsyncDone(FunctionBuilder& b, const HloInstruction& instr,
                            absl::Span<const ValueDesc* const> operands, ValueDesc* result) {
  *result = TupleElementLeaves(instr.operand(0)->shape(), *operands[0], 1);
  // A wrapped collective began its exchange at the start (LowerAsyncStart).
  return EmitCollectiveDone(b, instr, *result);
}

//===----------------------------------------------------------------------===//
// send / recv and their -done forms.
//===----------------------------------------------------------------------===//

struct PointToPointPlan {
  int64_t channel = 0;
  int64_t partitions = 1, replicas = 1;
  int64_t bytes = 0;
  // Per instance: the peer it sends to / receives from (-1: none).
  std::vector<int64_t> peer;
  const HloInstruction* hlo = nullptr;
};

template <bool kSend>
bool PointToPointHandler(const Instr& instr, uint8_t* const* regs, ExecContext& ctx) {
  const auto& p = *static_cast<const PointToPointPlan*>(instr.plan);
  const int64_t self = ctx.replica_id * p.partitions + ctx.partition_id;
  if (self < 0 || self >= static_cast<int64_t>(p.peer.size())) {
    return ctx.Fail(absl::InvalidArgumentError("instance outside the module's devices"));
  }
  const int64_t peer = p.peer[self];
  if (peer < 0) {
    if (!kSend) std::memset(regs[instr.out[0]], 0, p.bytes);
    return true;
  }
  if (ctx.bus == nullptr) {
    return ctx.Fail(absl::FailedPreconditionError(
        "send/recv between instances needs a collective bus; run the module with its replicas"));
  }
  absl::Status status =
      kSend ? ctx.bus->Send(self, peer, p.channel, p.hlo, regs[instr.in[0]], p.bytes)
            : ctx.bus->Recv(self, peer, p.channel, p.hlo, regs[instr.out[0]], p.bytes);
  if (!status.ok()) return ctx.Fail(std::move(status));
  return true;
}

// The pairs of frontend_attributes={_xla_send_recv_source_target_pairs="{{0,1},...}"}.
absl::StatusOr<std::vector<std::pair<int64_t, int64_t>>> SendRecvPairs(
    const HloInstruction& instr) {
  for (const auto& [name, value] : instr.raw_attributes()) {
    if (name != "frontend_attributes") continue;
    const size_t at = value.find("_xla_send_recv_source_target_pairs");
    if (at == std::string::npos) continue;
    const size_t open = value.find('"', at);
    const size_t close = open == std::string::npos ? open : value.find('"', open + 1);
    if (close == std::string::npos) break;
    std::vector<std::pair<int64_t, int64_t>> pairs;
    std::vector<int64_t> numbers;
    int64_t current = -1;
    for (size_t i = open + 1; i <= close; ++i) {
      const char c = value[i];
      if (c >= '0' && c <= '9') {
        current = (current < 0 ? 0 : current * 10) + (c - '0');
      } else if (current >= 0) {
        numbers.push_back(current);
        current = -1;
      }
    }
    if (numbers.size() % 2 != 0) break;
    for (size_t i = 0; i < numbers.size(); i += 2) pairs.push_back({numbers[i], numbers[i + 1]});
    return pairs;
  }
  return absl::InvalidArgumentError(
      "send/recv needs frontend_attributes={_xla_send_recv_source_target_pairs=\"{{s,t},...}\"}");
}

absl::StatusOr<PointToPointPlan> MakePointToPointPlan(FunctionBuilder& b,
                                                      const HloInstruction& instr,
                                                      const Shape& data, bool send) {
  PointToPointPlan plan;
  plan.hlo = &instr;
  plan.channel = instr.attrs().channel_id.value_or(0);
  const HloModule& module = b.compiler().module();
  plan.replicas = std::max<int64_t>(1, module.replica_count);
  plan.partitions = std::max<int64_t>(1, module.num_partitions);
  if (!data.IsArray()) return absl::UnimplementedError("send/recv of a tuple");
  plan.bytes = ByteWidth(data.element_type());
  for (int64_t i = 0; i < data.rank(); ++i) plan.bytes *= data.dimensions(i);
  HLOVM_ASSIGN_OR_RETURN(auto pairs, SendRecvPairs(instr));
  // Pairs name partitions when the module has several, else replicas.
  const bool by_partition = plan.partitions > 1;
  const int64_t n = plan.replicas * plan.partitions;
  plan.peer.assign(n, -1);
  for (int64_t self = 0; self < n; ++self) {
    const int64_t r = self / plan.partitions, q = self % plan.partitions;
    const int64_t me = by_partition ? q : r;
    for (const auto& [s, t] : pairs) {
      const int64_t other = send ? t : s;
      if ((send ? s : t) != me) continue;
      if (other < 0 || other >= (by_partition ? plan.partitions : plan.replicas)) {
        return absl::InvalidArgumentError(absl::StrCat("send/recv pair names device ", other));
      }
      plan.peer[self] = by_partition ? r * plan.partitions + other : other * plan.partitions + q;
    }
  }
  return plan;
}

absl::Status LowerHostSend(FunctionBuilder& b, const HloInstruction& instr,
                           absl::Span<const ValueDesc* const> operands, ValueDesc* result);
absl::Status LowerHostRecvDone(FunctionBuilder& b, const HloInstruction& instr,
                               absl::Span<const ValueDesc* const> operands, ValueDesc* result);

// send(data, token) -> (data, u32[], token): the data leaves at once.
absl::Status LowerSend(FunctionBuilder& b, const HloInstruction& instr,
                       absl::Span<const ValueDesc* const> operands, ValueDesc* result) {
  if (operands.size() != 2 || operands[0]->size() != 1) {
    return absl::InvalidArgumentError("send takes (array, token)");
  }
  if (instr.attrs().is_host_transfer) return LowerHostSend(b, instr, operands, result);
  HLOVM_ASSIGN_OR_RETURN(PointToPointPlan plan,
                         MakePointToPointPlan(b, instr, instr.operand(0)->shape(), true));
  FunctionBuilder::EmitSpec spec;
  spec.handler = &PointToPointHandler<true>;
  spec.cost = plan.bytes + 64;
  spec.plan = b.program().AddPlan(std::move(plan));
  spec.in = {(*operands[0])[0]};
  spec.kind = HandlerKind::kSend;
  spec.side_effect = true;
  b.Emit(&instr, std::move(spec));
  result->push_back((*operands[0])[0]);
  const Shape& shape = instr.shape();
  for (size_t i = 1; shape.IsTuple() && i < shape.tuple_shapes().size(); ++i) {
    HLOVM_RETURN_IF_ERROR(AppendOwned(b, shape.tuple_shapes()[i], result));
  }
  return absl::OkStatus();
}

// send-done(send) -> token.
absl::Status LowerSendDone(FunctionBuilder& b, const HloInstruction& instr,
                           absl::Span<const ValueDesc* const> operands, ValueDesc* result) {
  result->push_back(operands[0]->back());
  return absl::OkStatus();
}

// recv(token) -> (data, u32[], token): only registers; the data arrives at
// recv-done, so that a recv issued before the peer's send cannot block it.
absl::Status LowerRecv(FunctionBuilder& b, const HloInstruction& instr,
                       absl::Span<const ValueDesc* const> operands, ValueDesc* result) {
  return AppendOwned(b, instr.shape(), result);
}

// recv-done(recv) -> (data, token).
absl::Status LowerRecvDone(FunctionBuilder& b, const HloInstruction& instr,
                           absl::Span<const ValueDesc* const> operands, ValueDesc* result) {
  const HloInstruction& recv = *instr.operand(0);
  if (recv.opcode() != HloOpcode::kRecv || !recv.shape().IsTuple()) {
    return absl::InvalidArgumentError("recv-done takes a recv");
  }
  if (recv.attrs().is_host_transfer) return LowerHostRecvDone(b, instr, operands, result);
  const Shape& data = recv.shape().tuple_shapes()[0];
  HLOVM_ASSIGN_OR_RETURN(PointToPointPlan plan, MakePointToPointPlan(b, recv, data, false));
  HLOVM_ASSIGN_OR_RETURN(Reg out, b.NewReg(RegKind::kOwned, data));
  FunctionBuilder::EmitSpec spec;
  spec.handler = &PointToPointHandler<false>;
  spec.cost = plan.bytes + 64;
  spec.plan = b.program().AddPlan(std::move(plan));
  spec.out = {out};
  spec.kind = HandlerKind::kRecv;
  spec.side_effect = true;
  b.Emit(&instr, std::move(spec));
  result->push_back(out);
  result->push_back(operands[0]->back());
  return absl::OkStatus();
}

//===----------------------------------------------------------------------===//
// infeed / outfeed.
//===----------------------------------------------------------------------===//

struct FeedPlan {
  std::vector<Shape> leaves;  // row-major
  Shape shape;                // the fed value's shape
  const HloInstruction* hlo = nullptr;
};

void FlattenLiteral(Literal& value, std::vector<Literal*>* leaves) {
  if (value.shape().IsTuple()) {
    for (Literal& e : value.tuple_elements()) FlattenLiteral(e, leaves);
  } else {
    leaves->push_back(&value);
  }
}

bool InfeedHandler(const Instr& instr, uint8_t* const* regs, ExecContext& ctx) {
  const auto& p = *static_cast<const FeedPlan*>(instr.plan);
  if (ctx.feeds == nullptr) {
    return ctx.Fail(absl::FailedPreconditionError(absl::StrCat(
        "infeed of ", p.shape.ToString(), " but no infeed was given (--infeed=FILE.npy)")));
  }
  Literal value;
  {
    absl::MutexLock lock(&ctx.feeds->mu);
    if (ctx.feeds->infeed.empty()) {
      return ctx.Fail(absl::FailedPreconditionError(absl::StrCat(
          "infeed of ", p.shape.ToString(), " but the infeed queue is empty")));
    }
    value = std::move(ctx.feeds->infeed.front());
    ctx.feeds->infeed.pop_front();
  }
  std::vector<Literal*> leaves;
  FlattenLiteral(value, &leaves);
  if (leaves.size() != p.leaves.size()) {
    return ctx.Fail(absl::InvalidArgumentError(absl::StrCat(
        "infeed of ", p.shape.ToString(), " got ", value.shape().ToString())));
  }
  for (size_t i = 0; i < leaves.size(); ++i) {
    if (!leaves[i]->shape().Compatible(p.leaves[i])) {
      return ctx.Fail(absl::InvalidArgumentError(absl::StrCat(
          "infeed of ", p.shape.ToString(), " got ", value.shape().ToString())));
    }
    auto row_major = leaves[i]->Relayout(p.leaves[i].layout());
    if (!row_major.ok()) return ctx.Fail(row_major.status());
    std::memcpy(regs[instr.out[i]], row_major->untyped_data(), row_major->size_bytes());
  }
  return true;
}

absl::StatusOr<Literal> LeavesToLiteral(const Shape& shape, uint8_t* const* regs,
                                        const Reg*& leaf) {
  if (shape.IsTuple()) {
    std::vector<Literal> elements;
    for (const Shape& s : shape.tuple_shapes()) {
      HLOVM_ASSIGN_OR_RETURN(Literal e, LeavesToLiteral(s, regs, leaf));
      elements.push_back(std::move(e));
    }
    return Literal::Tuple(std::move(elements));
  }
  HLOVM_ASSIGN_OR_RETURN(Literal lit, Literal::Create(RowMajorShape(shape)));
  std::memcpy(lit.untyped_data(), regs[*leaf++], lit.size_bytes());
  return lit;
}

bool OutfeedHandler(const Instr& instr, uint8_t* const* regs, ExecContext& ctx) {
  const auto& p = *static_cast<const FeedPlan*>(instr.plan);
  if (ctx.feeds == nullptr) return true;
  const Reg* leaf = instr.in;
  auto value = LeavesToLiteral(p.shape, regs, leaf);
  if (!value.ok()) return ctx.Fail(value.status());
  absl::MutexLock lock(&ctx.feeds->mu);
  ctx.feeds->outfeed.push_back(std::move(*value));
  return true;
}

// Emits an instruction that moves `shape` between the host queues and the
// registers `in` (to the outfeed) or `out` (from the infeed).
void EmitFeed(FunctionBuilder& b, const HloInstruction& instr, const Shape& shape, Handler handler,
              std::vector<Reg> in, std::vector<Reg> out, HandlerKind kind) {
  FeedPlan plan;
  plan.hlo = &instr;
  plan.shape = shape;
  std::vector<const Shape*> leaves;
  FlattenShape(shape, &leaves);
  for (const Shape* s : leaves) plan.leaves.push_back(RowMajorShape(*s));
  FunctionBuilder::EmitSpec spec;
  spec.in = std::move(in);
  spec.out = std::move(out);
  spec.handler = handler;
  spec.plan = b.program().AddPlan(std::move(plan));
  spec.cost = 64;
  spec.kind = kind;
  spec.side_effect = true;
  b.Emit(&instr, std::move(spec));
}

// infeed(token) -> (value, token).
absl::Status LowerInfeed(FunctionBuilder& b, const HloInstruction& instr,
                         absl::Span<const ValueDesc* const> operands, ValueDesc* result) {
  const Shape& shape = instr.shape();
  if (!shape.IsTuple() || shape.tuple_shapes().size() != 2) {
    return absl::InvalidArgumentError("infeed must produce (value, token)");
  }
  std::vector<const Shape*> leaves;
  FlattenShape(shape.tuple_shapes()[0], &leaves);
  std::vector<Reg> out;
  for (const Shape* s : leaves) {
    if (!s->IsArray()) return absl::UnimplementedError("infeed of a token");
    HLOVM_ASSIGN_OR_RETURN(Reg r, b.NewReg(RegKind::kOwned, *s));
    out.push_back(r);
    result->push_back(r);
  }
  EmitFeed(b, instr, shape.tuple_shapes()[0], &InfeedHandler, {}, out, HandlerKind::kInfeed);
  result->push_back(operands[0]->back());
  return absl::OkStatus();
}

// outfeed(value, token) -> token.
absl::Status LowerOutfeed(FunctionBuilder& b, const HloInstruction& instr,
                          absl::Span<const ValueDesc* const> operands, ValueDesc* result) {
  EmitFeed(b, instr, instr.operand(0)->shape(), &OutfeedHandler, *operands[0], {},
           HandlerKind::kOutfeed);
  result->push_back(operands[1]->back());
  return absl::OkStatus();
}

// Transfers with the host (is_host_transfer=true) go through the instance's
// host queues: a send appends its data to the outfeed, a recv-done takes
// the next infeed value (`--infeed`, printed outfeed, vm/api.h FeedQueues).
absl::Status LowerHostSend(FunctionBuilder& b, const HloInstruction& instr,
                           absl::Span<const ValueDesc* const> operands, ValueDesc* result) {
  EmitFeed(b, instr, instr.operand(0)->shape(), &OutfeedHandler, *operands[0], {},
           HandlerKind::kSendToHost);
  result->push_back((*operands[0])[0]);
  const Shape& shape = instr.shape();
  for (size_t i = 1; shape.IsTuple() && i < shape.tuple_shapes().size(); ++i) {
    HLOVM_RETURN_IF_ERROR(AppendOwned(b, shape.tuple_shapes()[i], result));
  }
  return absl::OkStatus();
}

absl::Status LowerHostRecvDone(FunctionBuilder& b, const HloInstruction& instr,
                               absl::Span<const ValueDesc* const> operands, ValueDesc* result) {
  const Shape& data = instr.operand(0)->shape().tuple_shapes()[0];
  if (!data.IsArray()) return absl::UnimplementedError("recv from the host of a tuple");
  HLOVM_ASSIGN_OR_RETURN(Reg out, b.NewReg(RegKind::kOwned, data));
  EmitFeed(b, instr, data, &InfeedHandler, {}, {out}, HandlerKind::kRecvFromHost);
  result->push_back(out);
  result->push_back(operands[0]->back());
  return absl::OkStatus();
}

}  // namespace

void RegisterCollectiveLowerings(LoweringTable& table) {
  auto set = [&](HloOpcode op, LowerFn fn) { table[static_cast<int>(op)] = fn; };
  for (HloOpcode op : {HloOpcode::kAllReduce, HloOpcode::kAllGather, HloOpcode::kReduceScatter,
                       HloOpcode::kAllToAll, HloOpcode::kCollectivePermute,
                       HloOpcode::kCollectiveBroadcast, HloOpcode::kRaggedAllToAll}) {
    set(op, &LowerCollective);
  }
  for (HloOpcode op : {HloOpcode::kAllReduceStart, HloOpcode::kAllGatherStart,
                       HloOpcode::kCollectivePermuteStart}) {
    set(op, &LowerCollectiveStart);
  }
  for (HloOpcode op : {HloOpcode::kAllReduceDone, HloOpcode::kAllGatherDone,
                       HloOpcode::kCollectivePermuteDone}) {
    set(op, &LowerCollectiveDone);
  }
  set(HloOpcode::kAsyncStart, &LowerAsyncStart);
  set(HloOpcode::kAsyncUpdate, &LowerAsyncUpdate);
  set(HloOpcode::kAsyncDone, &LowerAsyncDone);
  set(HloOpcode::kSend, &LowerSend);
  set(HloOpcode::kSendDone, &LowerSendDone);
  set(HloOpcode::kRecv, &LowerRecv);
  set(HloOpcode::kRecvDone, &LowerRecvDone);
  set(HloOpcode::kInfeed, &LowerInfeed);
  set(HloOpcode::kOutfeed, &LowerOutfeed);
}

}  // namespace vm
}  // namespace hlovm
