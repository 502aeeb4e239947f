// Parsing HLO text: an instruction's attributes. Which opcodes take the
// restricted ones, and each attribute's value stored in the instruction's
// fields (the names are those of frontend/attribute_table.h; see
// frontend/parser_internal.h).
#include <algorithm>
#include <array>
#include <charconv>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/hash/hash.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/element_type.h"
#include "core/hlo_ir.h"
#include "core/hlo_opcode.h"
#include "core/literal.h"
#include "core/shape.h"
#include "core/status_macros.h"
#include "core/text_cursor.h"

#include "frontend/parser_internal.h"

namespace hlovm {
namespace parser_internal {

namespace {

// Where the rows of frontend/attribute_table.h keep their values (the
// holder column), made on first use.
HloInstruction& Holder_instr(HloInstruction* instr) { return *instr; }
OpAttributes& Holder_attrs(HloInstruction* instr) { return instr->mutable_attrs(); }
DotDimensionNumbers& Holder_dot(HloInstruction* instr) {
  auto& dnums = instr->mutable_attrs().dot_dimension_numbers;
  if (!dnums) dnums.emplace();
  return *dnums;
}
GatherDimensionNumbers& Holder_gather(HloInstruction* instr) {
  auto& dnums = instr->mutable_attrs().gather_dimension_numbers;
  if (!dnums) dnums.emplace();
  return *dnums;
}
ScatterDimensionNumbers& Holder_scatter(HloInstruction* instr) {
  auto& dnums = instr->mutable_attrs().scatter_dimension_numbers;
  if (!dnums) dnums.emplace();
  return *dnums;
}

int64_t LeafCount(const Shape& shape) {
  if (!shape.IsTuple()) return 1;
  int64_t n = 0;
  for (const Shape& s : shape.tuple_shapes()) n += LeafCount(s);
  return n;
}

}  // namespace

std::optional<std::string_view> NearestName(std::string_view word,
                                            const std::vector<std::string_view>& names) {
  auto same = [](char a, char b) { return a == b || ((a == '-' || a == '_') && (b == '-' || b == '_')); };
  // Levenshtein distance, one row at a time.
  auto distance = [&](std::string_view a, std::string_view b) {
    std::vector<size_t> row(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
      size_t diagonal = row[0];
      row[0] = i;
      for (size_t j = 1; j <= b.size(); ++j) {
        const size_t above = row[j];
        row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (same(a[i - 1], b[j - 1]) ? 0 : 1)});
        diagonal = above;
      }
    }
    return row[b.size()];
  };
  std::optional<std::string_view> best;
  size_t best_distance = 3;
  for (std::string_view name : names) {
    if (name.size() > word.size() + 2 || word.size() > name.size() + 2) continue;
    const size_t d = distance(word, name);
    if (d < best_distance && d * 3 < word.size()) {
      best = name;
      best_distance = d;
    }
  }
  return best;
}

//===----------------------------------------------------------------------===//
// Attributes.
//===----------------------------------------------------------------------===//

absl::Status Parser::ParseAttributes(Scope* scope, HloInstruction* instr, HloInstruction* async,
                                     HloOpcode rule_opcode, Called* called,
                                     AttrSet* seen) {
  const bool pred_conditional = rule_opcode == HloOpcode::kConditional &&
                                instr->operand_count() > 0 &&
                                instr->operand(0)->shape().element_type() == ElementType::kPred;
  // Every attribute as written, stored on the instruction at the end in one
  // piece (the views point into the text).
  absl::InlinedVector<RawAttributes::Entry, 4> raw(instr->raw_attributes().begin(),
                                                   instr->raw_attributes().end());
  while (Eat(',')) {
    Skip();
    size_t name_offset = pos_;
    size_t p = pos_;
    while (p < n_ && IsNameChar(s_[p])) ++p;
    std::string_view name = s_.substr(pos_, p - pos_);
    pos_ = p;
    if (name.empty() || !Eat('=')) return Error(name_offset, "expects attribute name");
    const Attr attr = AttributeFromName(name);
    if (attr == Attr::kUnknown) {
      // Names hlovm does not know are kept as text (XLA adds attributes),
      // but one a letter or two from a known name is a typo.
      if (std::optional<std::string_view> near = NearestAttributeName(name)) {
        return Error(name_offset,
                     Cat("unknown attribute ", name, " (did you mean ", *near, "?)"));
      }
    }
    bool repeated = false;
    if (attr != Attr::kUnknown) {
      repeated = seen->contains(attr);
    } else {
      for (const auto& [existing, value] : raw) repeated |= existing == name;
    }
    if (repeated) return Error(name_offset, Cat("attribute ", name, " already exists"));
    HloOpcode owner = rule_opcode;
    if (attr == Attr::kAsyncExecutionThread || attr == Attr::kCalls) {
      // Async attributes belong to the async op even in the shorthand form.
      if (async->opcode() == HloOpcode::kAsyncStart || async->opcode() == HloOpcode::kAsyncUpdate ||
          async->opcode() == HloOpcode::kAsyncDone) {
        if (attr == Attr::kCalls && async->attrs().async_wrapped_opcode.has_value() &&
            async->opcode() == HloOpcode::kAsyncStart) {
          owner = rule_opcode;
        } else {
          owner = async->opcode();
        }
      }
    }
    // Called-computation attributes, result_accuracy and
    // async_execution_thread are rejected on opcodes whose row does not list
    // them, as XLA does; every other attribute name is accepted everywhere
    // it is typed, and kept as text where it is not known.
    const OpSpec& spec =
        GetOpSpec(owner, owner == HloOpcode::kConditional && pred_conditional ? OpForm::kPredicate
                                                                              : OpForm::kDefault);
    if (!spec.Allows(attr)) {
      return Error(name_offset, Cat("unexpected attribute \"", name, "\""));
    }
    Skip();
    size_t value_offset = pos_;
    HLOVM_RETURN_IF_ERROR(ParseAttribute(scope, attr, name, name_offset,
                                         owner == rule_opcode ? instr : async, async, called));
    seen->insert(attr);
    raw.emplace_back(name, s_.substr(value_offset, pos_ - value_offset));
  }
  if (!raw.empty()) instr->raw_attributes().Assign(raw);
  return absl::OkStatus();
}

absl::Status Parser::ParseComputationRef(std::string_view attr_name, HloComputation** out) {
  Skip();
  size_t offset = pos_;
  if (PeekAt(pos_) == '{') {
    DepthGuard guard(this);
    if (guard.exceeded()) return ErrorHere("maximum recursion depth exceeded");
    HloComputation* computation = NewComputation(UniqueComputationName(attr_name));
    computation->is_inline = true;
    computation->set_location(Locate(offset));
    Scope scope;
    scope.computation = computation;
    HLOVM_RETURN_IF_ERROR(ParseInstructionList(computation, &scope));
    *out = computation;
    return absl::OkStatus();
  }
  std::string_view name = LexName();
  if (name.empty()) return Error(offset, "expects computation name");
  auto it = computation_pool_.find(name);
  if (it == computation_pool_.end()) {
    return Error(offset, Cat("computation does not exist: ", name));
  }
  // Its error is reported; what it would say about this call is unknown.
  if (failed_computations_.contains(it->second.first)) {
    return absl::CancelledError("calls a computation that failed to parse");
  }
  *out = it->second.first;
  return absl::OkStatus();
}

absl::Status Parser::ParseComputationList(std::string_view attr_name,
                                          std::vector<HloComputation*>* out) {
  HLOVM_RETURN_IF_ERROR(Expect('{', "expects '{'"));
  if (Eat('}')) return absl::OkStatus();
  do {
    HloComputation* c = nullptr;
    HLOVM_RETURN_IF_ERROR(ParseComputationRef(attr_name, &c));
    out->push_back(c);
  } while (Eat(','));
  return Expect('}', "expects '}'");
}

absl::Status Parser::ParseAttribute(Scope* scope, Attr attr, std::string_view name,
                                    size_t name_offset, HloInstruction* instr,
                                    HloInstruction* async, Called* called) {
  (void)async;
  HloOpcode op = instr->opcode();
  auto int_list = [&](std::vector<int64_t>* out) { return ParseInt64List(out); };
  auto ident = [&](std::string_view what, std::string_view* out) -> absl::Status {
    Skip();
    size_t p = pos_;
    while (p < n_ && IsNameChar(s_[p])) ++p;
    if (p == pos_) return ErrorHere(Cat("expects ", what));
    *out = s_.substr(pos_, p - pos_);
    return absl::OkStatus();
  };
  // An identifier naming a value of `Enum` (frontend/attribute_table.h),
  // its value into *out; `what` names the kind of value in errors.
  auto enum_value = [&]<typename Enum>(std::string_view what, Enum* out) -> absl::Status {
    std::string_view t;
    HLOVM_RETURN_IF_ERROR(ident(what, &t));
    if (!AttributeValueFromName(t, out)) return ErrorHere(Cat("expects ", what, " but sees: ", t));
    pos_ += t.size();
    return absl::OkStatus();
  };
  switch (attr) {
    case Attr::kCount:  // not an attribute; the lookup never yields it
    case Attr::kUnknown:
      return SkipValue();
    case Attr::kSharding: {
      size_t start = pos_;
      HLOVM_RETURN_IF_ERROR(SkipValue());
      HLOVM_RETURN_IF_ERROR(ValidateSharding(start, pos_));
      instr->mutable_attrs().sharding.assign(s_.substr(start, pos_ - start));
      return absl::OkStatus();
    }
    case Attr::kBackendConfig: {
      if (Peek() == '"') return ParseString(&instr->mutable_attrs().backend_config);
      size_t start = pos_;
      if (PeekAt(pos_) != '{') return ErrorHere("expects string or JSON dict");
      HLOVM_RETURN_IF_ERROR(SkipValue());
      instr->mutable_attrs().backend_config.assign(s_.substr(start, pos_ - start));
      return absl::OkStatus();
    }
    case Attr::kResultAccuracy:
      return ParseResultAccuracy();
    case Attr::kControlPredecessors: {
      HLOVM_RETURN_IF_ERROR(Expect('{', "expects '{'"));
      if (Eat('}')) return absl::OkStatus();
      do {
        Skip();
        size_t offset = pos_;
        std::string_view pred = LexName();
        if (pred.empty()) return Error(offset, "expects name");
        auto it = scope->names.find(pred);
        if (it == scope->names.end()) {
          if (poisoned_.contains(pred)) return absl::CancelledError("uses a failed instruction");
          return Error(offset, Cat("'", pred, "' is not defined"));
        }
        instr->AddControlPredecessor(it->second);
      } while (Eat(','));
      return Expect('}', "expects '}'");
    }
    case Attr::kParameterReplication: {
      HLOVM_RETURN_IF_ERROR(Expect('{', "expects '{'"));
      if (!Eat('}')) {
        do {
          bool b = false;
          HLOVM_RETURN_IF_ERROR(ParseBool(&b));
          instr->mutable_attrs().parameter_replication.push_back(b);
        } while (Eat(','));
        HLOVM_RETURN_IF_ERROR(Expect('}', "expects '}'"));
      }
      int64_t leaves = LeafCount(instr->shape());
      if (leaves != static_cast<int64_t>(instr->attrs().parameter_replication.size())) {
        return ErrorHere(Cat("parameter has ", leaves,
                                      " leaf buffers, but parameter_replication has ",
                                      instr->attrs().parameter_replication.size(), " elements."));
      }
      return absl::OkStatus();
    }
    case Attr::kDimensions: {
      HLOVM_RETURN_IF_ERROR(int_list(&instr->dimensions));
      if (op == HloOpcode::kAllToAll) {
        if (instr->dimensions.size() != 1) {
          return Error(name_offset, "all-to-all expects exactly one dimension");
        }
        instr->mutable_attrs().split_dimension = instr->dimensions[0];
      }
      return absl::OkStatus();
    }
    case Attr::kSlice:
      instr->slice.emplace();
      return ParseSliceRanges(&*instr->slice);
    case Attr::kWindow:
      instr->mutable_attrs().window.emplace();
      return ParseWindow(&*instr->mutable_attrs().window);
    case Attr::kPadding:
      instr->mutable_attrs().padding.emplace();
      return ParsePaddingConfig(&*instr->mutable_attrs().padding);
    case Attr::kDimLabels:
      instr->mutable_attrs().convolution_dimension_numbers.emplace();
      return ParseDimLabels(&*instr->mutable_attrs().convolution_dimension_numbers);
    case Attr::kOperandPrecision: {
      HLOVM_RETURN_IF_ERROR(Expect('{', "expects '{'"));
      if (Eat('}')) return absl::OkStatus();
      do {
        std::string_view p;
        HLOVM_RETURN_IF_ERROR(ident("precision", &p));
        std::string lower = Lower(p);
        if (lower != "default" && lower != "high" && lower != "highest" &&
            lower != "packed_nibble") {
          return ErrorHere(Cat("expects precision but sees: ", p));
        }
        pos_ += p.size();
        instr->mutable_attrs().operand_precision.push_back(std::move(lower));
      } while (Eat(','));
      return Expect('}', "expects '}'");
    }
    case Attr::kAlgorithm: {
      std::string_view a;
      HLOVM_RETURN_IF_ERROR(ident(AttributeName(Attr::kAlgorithm), &a));
      if (op == HloOpcode::kRngBitGenerator) {
        if (!AttributeValueFromName(a, &instr->mutable_attrs().rng_algorithm)) {
          return ErrorHere(Cat("expects random algorithm but sees: ", a));
        }
      } else {
        // The names of XLA's PrecisionConfig::Algorithm values, lower case
        // and without their "ALG_" prefix.
        static constexpr std::string_view kAlgorithms[] = {
            "unset",
            "dot_any_f8_any_f8_f32",
            "dot_any_f8_any_f8_f32_fast_accum",
            "dot_f16_f16_f16",
            "dot_f16_f16_f32",
            "dot_bf16_bf16_bf16",
            "dot_bf16_bf16_f32",
            "dot_bf16_bf16_f32_x3",
            "dot_bf16_bf16_f32_x6",
            "dot_bf16_bf16_f32_x9",
            "dot_bf16_bf16_fp8x3",
            "dot_bf16_bf16_fp8x4",
            "dot_tf32_tf32_f32",
            "dot_tf32_tf32_f32_x3",
            "dot_f32_f32_f32",
            "dot_f64_f64_f64"};
        if (std::find(std::begin(kAlgorithms), std::end(kAlgorithms), a) ==
            std::end(kAlgorithms)) {
          return ErrorHere(Cat("Unknown algorithm: ", a));
        }
        instr->mutable_attrs().precision_algorithm.assign(a);
      }
      pos_ += a.size();
      return absl::OkStatus();
    }
    case Attr::kIndexVectorDim: {
      int64_t v = 0;
      HLOVM_RETURN_IF_ERROR(ParseInt64(&v));
      if (op == HloOpcode::kScatter) {
        Holder_scatter(instr).index_vector_dim = v;
      } else {
        Holder_gather(instr).index_vector_dim = v;
      }
      return absl::OkStatus();
    }
    case Attr::kSliceSizes:
      if (op == HloOpcode::kCollectivePermute || op == HloOpcode::kCollectivePermuteStart) {
        return ParseInt64ListList(&instr->mutable_attrs().collective_slice_sizes);
      }
      return int_list(&instr->mutable_attrs().gather_slice_sizes);
    case Attr::kDirection:
      return enum_value("comparison direction", &instr->comparison_direction);
    case Attr::kType:
      return enum_value("comparison type", &instr->comparison_type);
    case Attr::kDistribution:
      return enum_value("random distribution", &instr->mutable_attrs().distribution);
    case Attr::kFftType:
      return enum_value("fft type", &instr->mutable_attrs().fft_type);
    case Attr::kReplicaGroups:
      instr->mutable_attrs().replica_groups.emplace();
      return ParseReplicaGroups(&*instr->mutable_attrs().replica_groups);
    case Attr::kSourceTargetPairs: {
      std::vector<std::vector<int64_t>> pairs;
      HLOVM_RETURN_IF_ERROR(ParseInt64ListList(&pairs));
      for (const auto& pair : pairs) {
        if (pair.size() != 2) {
          return ErrorHere("expects 'source_target_pairs=' to be a list of pairs");
        }
        instr->mutable_attrs().source_target_pairs.emplace_back(pair[0], pair[1]);
      }
      return absl::OkStatus();
    }
    case Attr::kApiVersion: {
      std::string_view v;
      HLOVM_RETURN_IF_ERROR(ident("custom-call API version", &v));
      if (v == "API_VERSION_UNSPECIFIED") {
        return ErrorHere(Cat("Invalid API version: ", v));
      }
      if (v != "API_VERSION_ORIGINAL" && v != "API_VERSION_STATUS_RETURNING" &&
          v != "API_VERSION_STATUS_RETURNING_UNIFIED" && v != "API_VERSION_TYPED_FFI") {
        return ErrorHere(Cat("expects custom-call API version but sees: ", v,
                                      ", error: Unknown API version: ", v));
      }
      instr->mutable_attrs().custom_call_api_version.assign(v);
      pos_ += v.size();
      return absl::OkStatus();
    }
    case Attr::kOutputToOperandAliasing:
      return ParseInstructionAliasing(&instr->mutable_attrs().output_to_operand_aliasing);
    case Attr::kOperandLayoutConstraints: {
      std::vector<Shape> shapes;
      HLOVM_RETURN_IF_ERROR(Expect('{', "expects '{'"));
      if (!Eat('}')) {
        do {
          Shape s;
          HLOVM_RETURN_IF_ERROR(ParseShapeHere(&s));
          shapes.push_back(std::move(s));
        } while (Eat(','));
        HLOVM_RETURN_IF_ERROR(Expect('}', "expects '}'"));
      }
      instr->mutable_attrs().operand_layout_constraints = std::move(shapes);
      return absl::OkStatus();
    }
    case Attr::kSchedule: {
      std::string_view v;
      HLOVM_RETURN_IF_ERROR(ident("custom-call schedule", &v));
      if (v != "SCHEDULE_NONE" && v != "SCHEDULE_LATEST" && v != "SCHEDULE_EARLIEST") {
        return ErrorHere(Cat("expects custom-call schedule but sees: ", v));
      }
      instr->mutable_attrs().custom_call_schedule.assign(v);
      pos_ += v.size();
      return absl::OkStatus();
    }
    case Attr::kKind: {
      std::string_view v;
      HLOVM_RETURN_IF_ERROR(ident("fusion kind", &v));
      if (v != "kLoop" && v != "kInput" && v != "kOutput" && v != "kCustom") {
        return ErrorHere(Cat("expects fusion kind but sees: ", v));
      }
      instr->mutable_attrs().fusion_kind.assign(v);
      pos_ += v.size();
      return absl::OkStatus();
    }
    case Attr::kOutfeedShape: {
      Shape s;
      HLOVM_RETURN_IF_ERROR(ParseShapeHere(&s));
      instr->mutable_attrs().outfeed_shape = std::move(s);
      return absl::OkStatus();
    }
    case Attr::kTransposeA:
      return enum_value("transpose type", &instr->mutable_attrs().transpose_a);
    case Attr::kEpsilon: {
      double v = 0;
      HLOVM_RETURN_IF_ERROR(ParseDouble(&v));
      if (v > std::numeric_limits<float>::max() || v < std::numeric_limits<float>::lowest()) {
        return Error(name_offset, "value out of range for float");
      }
      instr->mutable_attrs().epsilon = static_cast<float>(v);
      return absl::OkStatus();
    }
    case Attr::kLiteral: {
      Literal literal;
      HLOVM_RETURN_IF_ERROR(ParseTypedLiteral(&literal));
      instr->custom_call_literal = std::move(literal);
      return absl::OkStatus();
    }
    case Attr::kToApply:
    case Attr::kCalls:
    case Attr::kCondition:
    case Attr::kBody:
    case Attr::kTrueComputation:
    case Attr::kFalseComputation:
    case Attr::kSelect:
    case Attr::kScatter:
    case Attr::kBranchComputations:
    case Attr::kCalledComputations: {
      std::vector<HloComputation*> list;
      if (AttributeKind(attr) == AttrKind::kComputationList) {
        HLOVM_RETURN_IF_ERROR(ParseComputationList(name, &list));
        called->Set(attr, std::move(list));
      } else if (attr == Attr::kCalls && PeekAt(pos_) == '{' && op == HloOpcode::kCustomCall) {
        // custom-call's calls={a, b} is its called_computations.
        HLOVM_RETURN_IF_ERROR(ParseComputationList(name, &list));
        called->Set(Attr::kCalledComputations, std::move(list));
      } else {
        HloComputation* c = nullptr;
        HLOVM_RETURN_IF_ERROR(ParseComputationRef(name, &c));
        called->Set(attr, {c});
      }
      return absl::OkStatus();
    }

    default:
      break;
  }
  // The others: their row says where the value goes and how it is written.
  switch (attr) {
#define HLOVM_READ_ATTR_(id, name, kind, holder, member) \
  case Attr::id:                                         \
    return ReadPlain<AttrKind::kind>([&] { return &Holder_##holder(instr).member; });
    HLOVM_ATTRIBUTE_LIST(HLOVM_READ_ATTR_)
#undef HLOVM_READ_ATTR_
    default:
      return SkipValue();
  }
}

template <AttrKind kind, typename Storage>
absl::Status Parser::ReadPlain(Storage storage) {
  if constexpr (kind == AttrKind::kText) {
    return SkipValue();
  } else if constexpr (!IsPlainKind(kind)) {
    return absl::InternalError("attribute without a reader");
  } else {
    auto* out = storage();
    using T = std::remove_pointer_t<decltype(out)>;
    if constexpr (kind == AttrKind::kInt && std::is_same_v<T, int64_t>) {
      return ParseInt64(out);
    } else if constexpr (kind == AttrKind::kInt && std::is_same_v<T, std::optional<int64_t>>) {
      int64_t v = 0;
      HLOVM_RETURN_IF_ERROR(ParseInt64(&v));
      *out = v;
      return absl::OkStatus();
    } else if constexpr (kind == AttrKind::kBool && std::is_same_v<T, bool>) {
      return ParseBool(out);
    } else if constexpr (kind == AttrKind::kIntList && std::is_same_v<T, std::vector<int64_t>>) {
      return ParseInt64List(out);
    } else if constexpr (kind == AttrKind::kString && std::is_same_v<T, std::string>) {
      return ParseString(out);
    } else {
      static_assert(sizeof(T) == 0, "a plain attribute's storage of a type its kind cannot hold");
    }
  }
}

}  // namespace parser_internal

std::optional<std::string_view> NearestAttributeName(std::string_view word) {
  static const auto* names = [] {
    auto* v = new std::vector<std::string_view>();
    for (int i = 0; i < AttributeCount(); ++i) v->push_back(AttributeName(AttributeAt(i)));
    std::sort(v->begin(), v->end());  // ties go to the first name in order
    return v;
  }();
  return parser_internal::NearestName(word, *names);
}

bool IsAttributeName(std::string_view name) { return AttributeFromName(name) != AttrId::kUnknown; }

std::optional<std::string_view> NearestOpcodeName(std::string_view word) {
  static const auto* names = [] {
    auto* v = new std::vector<std::string_view>();
    for (int i = 0; i < HloOpcodeCount(); ++i) v->push_back(HloOpcodeName(static_cast<HloOpcode>(i)));
    return v;
  }();
  return parser_internal::NearestName(word, *names);
}

}  // namespace hlovm
