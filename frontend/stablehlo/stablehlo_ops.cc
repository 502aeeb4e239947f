// The StableHLO ops: each read in its pretty or generic form into an Op
// (operands, attributes, regions, types), then turned into the HLO
// instructions XLA's StableHLO-to-HLO translation makes of it. Pretty and
// generic attribute names both land in Op::attrs; Lower looks under either.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/element_type.h"
#include "core/hlo_opcode.h"
#include "core/status_macros.h"
#include "frontend/stablehlo/stablehlo_internal.h"

namespace hlovm {
namespace stablehlo_internal {
namespace {

using Kind = AttrValue::Kind;

const AttrValue* Find(const Op& op, std::initializer_list<std::string_view> names) {
  for (const auto& [key, value] : op.attrs) {
    for (std::string_view n : names) {
      if (key == n) return &value;
    }
  }
  return nullptr;
}

const AttrValue* Field(const AttrValue& s, std::string_view name) {
  for (const auto& [key, value] : s.fields) {
    if (key == name) return &value;
  }
  return nullptr;
}

std::string ToLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// The ops whose HLO form is the opcode of the same name with no attributes.
bool IsPlainOpcode(HloOpcode opcode) {
  switch (HloOpcodeFamily(opcode)) {
    case OpFamily::kUnary:
    case OpFamily::kBinary:
    case OpFamily::kTernary:
      return true;
    default:
      break;
  }
  switch (opcode) {
    case HloOpcode::kConvert:
    case HloOpcode::kBitcastConvert:
    case HloOpcode::kReshape:
    case HloOpcode::kTuple:
    case HloOpcode::kDynamicUpdateSlice:
    case HloOpcode::kAfterAll:
    case HloOpcode::kReplicaId:
    case HloOpcode::kPartitionId:
    case HloOpcode::kAddDependency:
      return true;
    default:
      return false;
  }
}

// The ops Lower turns into HLO beyond the plain opcodes, and those it
// refuses with a message of its own (quantized, dynamic).
bool IsSpecialOp(std::string_view name) {
  static constexpr std::string_view kNames[] = {
      "constant", "broadcast_in_dim", "transpose", "reverse", "concatenate", "iota", "slice",
      "pad", "dynamic_slice", "compare", "dot_general", "dot", "convolution", "gather",
      "scatter", "reduce", "reduce_window", "select_and_scatter", "sort", "map", "while", "if",
      "case", "fft", "rng_bit_generator", "rng", "reduce_precision", "triangular_solve",
      "cholesky", "top_k", "ragged_dot", "get_tuple_element", "optimization_barrier", "create_token",
      "custom_call", "all_reduce", "all_gather", "reduce_scatter", "collective_permute",
      "all_to_all", "batch_norm_inference", "batch_norm_training", "batch_norm_grad",
      "uniform_quantize", "uniform_dequantize", "real_dynamic_slice", "get_dimension_size",
      "set_dimension_size", "return", "composite"};
  for (std::string_view n : kNames) {
    if (n == name) return true;
  }
  return name.substr(0, 8) == "dynamic_";
}

}  // namespace

absl::Status Parser::CheckKnownOp(std::string_view full, size_t offset) const {
  const size_t dot = full.find('.');
  if (dot == std::string_view::npos) {
    return Error(offset, absl::StrCat("unknown operation '", Sv(full), "'"));
  }
  std::string_view dialect = full.substr(0, dot);
  std::string_view name = full.substr(dot + 1);
  if (dialect == "func") {
    if (name == "call" || name == "return") return absl::OkStatus();
    return Error(offset, absl::StrCat("unsupported operation '", Sv(full), "'"));
  }
  if (dialect != "stablehlo" && dialect != "chlo" && dialect != "mhlo") {
    return Error(offset, absl::StrCat("unknown dialect '", Sv(dialect), "' (in '", Sv(full), "')"));
  }
  if (IsSpecialOp(name)) return absl::OkStatus();
  if (dialect == "chlo" && IsDecomposedChloOp(name)) return absl::OkStatus();
  std::string hlo_name(name);
  std::replace(hlo_name.begin(), hlo_name.end(), '_', '-');
  std::optional<HloOpcode> opcode = HloOpcodeFromName(hlo_name);
  if (opcode.has_value() && IsPlainOpcode(*opcode)) return absl::OkStatus();
  return Error(offset, absl::StrCat("unsupported operation '", Sv(full), "'"));
}

RegionKind Parser::RegionKindOf(std::string_view op_name) const {
  if (op_name == "stablehlo.while" || op_name == "mhlo.while") return RegionKind::kTuple;
  if (op_name == "stablehlo.if" || op_name == "stablehlo.case" || op_name == "mhlo.if" ||
      op_name == "mhlo.case") {
    return RegionKind::kCaptures;
  }
  return RegionKind::kFlat;
}

//===----------------------------------------------------------------------===//
// Reading ops.
//===----------------------------------------------------------------------===//

absl::Status Parser::ParseTrailer(Op* op) {
  if (Peek() == '{') HLOVM_RETURN_IF_ERROR(ParseAttrDict(&op->attrs));
  HLOVM_RETURN_IF_ERROR(Expect(':', "and the op's type"));
  bool functional = false;
  std::vector<Shape> ins, outs;
  HLOVM_RETURN_IF_ERROR(ParseOpTypes(&ins, &outs, &functional));
  if (functional) {
    op->operand_types = std::move(ins);
    op->result_types = std::move(outs);
  } else {
    op->operand_types = ins;
    if (op->name == "stablehlo.optimization_barrier" || op->name == "stablehlo.while") {
      op->result_types = std::move(outs);
    } else {
      op->result_types = {outs.back()};
    }
  }
  return absl::OkStatus();
}

absl::Status Parser::ParseGenericOp(Scope* scope, Op* op) {
  HLOVM_RETURN_IF_ERROR(CheckKnownOp(op->name, op->offset));
  HLOVM_RETURN_IF_ERROR(Expect('(', "to start the operands"));
  if (!Eat(')')) {
    HLOVM_RETURN_IF_ERROR(ParseOperandList(scope, &op->operands));
    HLOVM_RETURN_IF_ERROR(Expect(')', "to close the operands"));
  }
  if (Peek() == '[') return ErrorHere("successor blocks are not supported");
  if (EatStr("<{")) {
    --pos_;
    HLOVM_RETURN_IF_ERROR(ParseAttrDict(&op->attrs));
    HLOVM_RETURN_IF_ERROR(Expect('>', "to close the properties"));
  }
  if (Peek() == '(') {
    ++pos_;
    const RegionKind kind = RegionKindOf(op->name);
    if (kind == RegionKind::kTuple) op->region_captures.push_back(std::make_unique<Captures>());
    do {
      if (kind == RegionKind::kCaptures) op->region_captures.push_back(std::make_unique<Captures>());
      Captures* captures = op->region_captures.empty() ? nullptr : op->region_captures.back().get();
      HloComputation* region = nullptr;
      const RegionKind this_kind =
          kind == RegionKind::kTuple && op->regions.empty() ? RegionKind::kTupleCond : kind;
      HLOVM_RETURN_IF_ERROR(ParseRegion(scope, this_kind, nullptr, captures, &region));
      op->regions.push_back(region);
    } while (Eat(','));
    HLOVM_RETURN_IF_ERROR(Expect(')', "to close the regions"));
  }
  if (Peek() == '{') HLOVM_RETURN_IF_ERROR(ParseAttrDict(&op->attrs));
  HLOVM_RETURN_IF_ERROR(Expect(':', "and the op's type"));
  bool functional = false;
  HLOVM_RETURN_IF_ERROR(ParseOpTypes(&op->operand_types, &op->result_types, &functional));
  if (!functional) return ErrorHere("a generic op's type is '(operands) -> results'");
  return absl::OkStatus();
}

absl::Status Parser::ParsePrettyCommon(Scope* scope, Op* op) {
  HLOVM_RETURN_IF_ERROR(ParseOperandList(scope, &op->operands));
  while (true) {
    size_t save = pos_;
    Eat(',');
    if (Peek() == '[') {
      AttrValue v;
      HLOVM_RETURN_IF_ERROR(ParseAttrValue(&v));
      op->attrs.emplace_back(v.kind == Kind::kSlice ? "slice" : "index", std::move(v));
      continue;
    }
    std::string_view key = LexBareId();
    if (!key.empty() && Peek() == '=') {
      ++pos_;
      AttrValue v;
      HLOVM_RETURN_IF_ERROR(ParseAttrValue(&v));
      op->attrs.emplace_back(std::string(key), std::move(v));
      continue;
    }
    pos_ = save;
    break;
  }
  return ParseTrailer(op);
}

absl::Status Parser::ParsePrettyReduce(Scope* scope, Op* op) {
  // (%a init: %b), (%c init: %d) applies stablehlo.add across dimensions = [0] : type
  // or ... across dimensions = [0] : type reducer(%x: T, %y: T) (...) { body }
  std::vector<HloInstruction*> inputs, inits;
  do {
    HLOVM_RETURN_IF_ERROR(Expect('(', "before a reduce input"));
    ValueRef ref;
    HLOVM_RETURN_IF_ERROR(ParseValueRef(&ref));
    HLOVM_ASSIGN_OR_RETURN(HloInstruction * input, Resolve(scope, ref));
    HLOVM_RETURN_IF_ERROR(ExpectWord("init"));
    HLOVM_RETURN_IF_ERROR(Expect(':', "after 'init'"));
    HLOVM_RETURN_IF_ERROR(ParseValueRef(&ref));
    HLOVM_ASSIGN_OR_RETURN(HloInstruction * init, Resolve(scope, ref));
    HLOVM_RETURN_IF_ERROR(Expect(')', "after a reduce input"));
    inputs.push_back(input);
    inits.push_back(init);
  } while (Eat(','));
  op->operands = inputs;
  op->operands.insert(op->operands.end(), inits.begin(), inits.end());
  std::string applies;
  size_t applies_offset = 0;
  if (EatWord("applies")) {
    Skip();
    applies_offset = pos_;
    applies = std::string(LexBareId());
    if (applies.empty()) return ErrorHere("expected the op the reduction applies");
  }
  HLOVM_RETURN_IF_ERROR(ExpectWord("across"));
  HLOVM_RETURN_IF_ERROR(ExpectWord("dimensions"));
  HLOVM_RETURN_IF_ERROR(Expect('=', "after 'dimensions'"));
  AttrValue dims;
  HLOVM_RETURN_IF_ERROR(ParseAttrValue(&dims));
  op->attrs.emplace_back("dimensions", std::move(dims));
  HLOVM_RETURN_IF_ERROR(ParseTrailer(op));
  if (!applies.empty()) {
    std::string_view base = applies;
    if (base.substr(0, 10) == "stablehlo.") base = base.substr(10);
    std::string hlo_name(base);
    std::replace(hlo_name.begin(), hlo_name.end(), '_', '-');
    std::optional<HloOpcode> opcode = HloOpcodeFromName(hlo_name);
    if (!opcode.has_value() || HloOpcodeFamily(*opcode) != OpFamily::kBinary ||
        inputs.size() != 1) {
      return Error(applies_offset, absl::StrCat("a reduction cannot apply '", applies, "'"));
    }
    HloComputation* c = NewComputation("region");
    Scope body;
    body.computation = c;
    Shape scalar(inits[0]->shape().element_type(), {});
    HloInstruction* a = EmitParameter(&body, 0, scalar);
    HloInstruction* b = EmitParameter(&body, 1, scalar);
    c->set_root(Emit(&body, *opcode, scalar, {a, b}));
    op->regions.push_back(c);
    return absl::OkStatus();
  }
  HLOVM_RETURN_IF_ERROR(ExpectWord("reducer"));
  std::vector<std::pair<std::string, Shape>> firsts, seconds;
  while (Peek() == '(') {
    ++pos_;
    for (int k = 0; k < 2; ++k) {
      if (k == 1) HLOVM_RETURN_IF_ERROR(Expect(',', "between reducer arguments"));
      ValueRef ref;
      HLOVM_RETURN_IF_ERROR(ParseValueRef(&ref));
      HLOVM_RETURN_IF_ERROR(Expect(':', "and the argument's type"));
      Shape t;
      HLOVM_RETURN_IF_ERROR(ParseType(&t));
      (k == 0 ? firsts : seconds).emplace_back(std::string(ref.name), std::move(t));
    }
    HLOVM_RETURN_IF_ERROR(Expect(')', "after reducer arguments"));
  }
  std::vector<std::pair<std::string, Shape>> args = firsts;
  args.insert(args.end(), seconds.begin(), seconds.end());
  HloComputation* region = nullptr;
  HLOVM_RETURN_IF_ERROR(ParseRegion(scope, RegionKind::kFlat, &args, nullptr, &region));
  op->regions.push_back(region);
  return absl::OkStatus();
}

absl::Status Parser::ParsePrettyWhile(Scope* scope, Op* op) {
  // (%iterArg = %c, ...) : T, T cond { ... } do { ... }
  HLOVM_RETURN_IF_ERROR(Expect('(', "to start the loop values"));
  std::vector<std::string> names;
  if (!Eat(')')) {
    do {
      ValueRef name;
      HLOVM_RETURN_IF_ERROR(ParseValueRef(&name));
      HLOVM_RETURN_IF_ERROR(Expect('=', "after a loop value's name"));
      ValueRef ref;
      HLOVM_RETURN_IF_ERROR(ParseValueRef(&ref));
      HLOVM_ASSIGN_OR_RETURN(HloInstruction * v, Resolve(scope, ref));
      names.emplace_back(name.name);
      op->operands.push_back(v);
    } while (Eat(','));
    HLOVM_RETURN_IF_ERROR(Expect(')', "to close the loop values"));
  }
  if (EatWord("attributes")) HLOVM_RETURN_IF_ERROR(ParseAttrDict(&op->attrs));
  std::vector<Shape> types;
  if (Eat(':')) {
    do {
      Shape t;
      HLOVM_RETURN_IF_ERROR(ParseType(&t));
      types.push_back(std::move(t));
    } while (Eat(','));
  }
  if (types.size() != names.size()) return Error(op->offset, "a type is needed for each loop value");
  std::vector<std::pair<std::string, Shape>> args;
  for (size_t i = 0; i < names.size(); ++i) args.emplace_back(names[i], types[i]);
  op->operand_types = types;
  op->result_types = types;
  op->region_captures.push_back(std::make_unique<Captures>());
  HloComputation* cond = nullptr;
  HloComputation* body = nullptr;
  HLOVM_RETURN_IF_ERROR(ExpectWord("cond"));
  HLOVM_RETURN_IF_ERROR(
      ParseRegion(scope, RegionKind::kTupleCond, &args, op->region_captures[0].get(), &cond));
  HLOVM_RETURN_IF_ERROR(ExpectWord("do"));
  HLOVM_RETURN_IF_ERROR(
      ParseRegion(scope, RegionKind::kTuple, &args, op->region_captures[0].get(), &body));
  op->regions = {cond, body};
  return absl::OkStatus();
}

absl::Status Parser::ParsePrettyConvolution(Scope* scope, Op* op) {
  // (%a, %b) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {...} {attrs} : type
  HLOVM_RETURN_IF_ERROR(Expect('(', "to start the operands"));
  HLOVM_RETURN_IF_ERROR(ParseOperandList(scope, &op->operands));
  HLOVM_RETURN_IF_ERROR(Expect(')', "to close the operands"));
  HLOVM_RETURN_IF_ERROR(ExpectWord("dim_numbers"));
  HLOVM_RETURN_IF_ERROR(Expect('=', "after 'dim_numbers'"));
  AttrValue dims;
  dims.offset = pos_;
  dims.kind = Kind::kConv;
  dims.conv = std::make_shared<ConvolutionDimensionNumbers>();
  HLOVM_RETURN_IF_ERROR(ParseConvDims(dims.conv.get()));
  op->attrs.emplace_back("dimension_numbers", std::move(dims));
  if (Eat(',')) {
    HLOVM_RETURN_IF_ERROR(ExpectWord("window"));
    HLOVM_RETURN_IF_ERROR(Expect('=', "after 'window'"));
    AttrValue window;
    window.offset = pos_;
    window.kind = Kind::kStruct;
    HLOVM_RETURN_IF_ERROR(ParseAttrDict(&window.fields));
    op->attrs.emplace_back("window", std::move(window));
  }
  return ParseTrailer(op);
}

absl::Status Parser::ParsePrettyOp(Scope* scope, std::string_view name, Op* op) {
  HLOVM_RETURN_IF_ERROR(CheckKnownOp(name == "call" ? "func.call" : name, op->offset));
  if (name == "stablehlo.constant") {
    if (Peek() == '{') HLOVM_RETURN_IF_ERROR(ParseAttrDict(&op->attrs));
    AttrValue value;
    HLOVM_RETURN_IF_ERROR(ParseAttrValue(&value));
    if (value.kind != Kind::kDense) return Error(value.offset, "expected a dense<...> value");
    op->result_types = {*value.type};
    op->attrs.emplace_back("value", std::move(value));
    return absl::OkStatus();
  }
  if (name == "stablehlo.compare") {
    AttrValue direction;
    HLOVM_RETURN_IF_ERROR(ParseAttrValue(&direction));
    op->attrs.emplace_back("comparison_direction", std::move(direction));
    HLOVM_RETURN_IF_ERROR(Expect(',', "after the comparison direction"));
    HLOVM_RETURN_IF_ERROR(ParseOperandList(scope, &op->operands));
    if (Eat(',')) {
      AttrValue type;
      HLOVM_RETURN_IF_ERROR(ParseAttrValue(&type));
      op->attrs.emplace_back("compare_type", std::move(type));
    }
    return ParseTrailer(op);
  }
  if (name == "func.call" || name == "call" || name == "stablehlo.custom_call" ||
      name == "mhlo.custom_call") {
    op->name = name == "call" ? "func.call" : std::string(name);
    HLOVM_RETURN_IF_ERROR(ParseSymbol(&op->callee));
    HLOVM_RETURN_IF_ERROR(Expect('(', "to start the operands"));
    if (!Eat(')')) {
      HLOVM_RETURN_IF_ERROR(ParseOperandList(scope, &op->operands));
      HLOVM_RETURN_IF_ERROR(Expect(')', "to close the operands"));
    }
    if (Peek() == '{') HLOVM_RETURN_IF_ERROR(ParseAttrDict(&op->attrs));
    HLOVM_RETURN_IF_ERROR(Expect(':', "and the op's type"));
    bool functional = false;
    HLOVM_RETURN_IF_ERROR(ParseOpTypes(&op->operand_types, &op->result_types, &functional));
    if (!functional) return ErrorHere("expected '(operands) -> results'");
    return absl::OkStatus();
  }
  if (name == "stablehlo.composite") {
    // stablehlo.composite "name" %a, ... {decomposition = @f, ...} : type
    std::string composite_name;
    HLOVM_RETURN_IF_ERROR(ParseString(&composite_name));
    return ParsePrettyCommon(scope, op);
  }
  if (name == "stablehlo.reduce") return ParsePrettyReduce(scope, op);
  if (name == "stablehlo.while") return ParsePrettyWhile(scope, op);
  if (name == "stablehlo.convolution") return ParsePrettyConvolution(scope, op);
  if (name == "chlo.top_k") {
    HLOVM_RETURN_IF_ERROR(Expect('(', "to start the operands"));
    HLOVM_RETURN_IF_ERROR(ParseOperandList(scope, &op->operands));
    while (Eat(',')) {
      std::string_view key = LexBareId();
      if (key.empty()) return ErrorHere("expected an attribute name");
      HLOVM_RETURN_IF_ERROR(Expect('=', "after the attribute name"));
      AttrValue v;
      HLOVM_RETURN_IF_ERROR(ParseAttrValue(&v));
      op->attrs.emplace_back(std::string(key), std::move(v));
    }
    HLOVM_RETURN_IF_ERROR(Expect(')', "to close the operands"));
    return ParseTrailer(op);
  }
  return ParsePrettyCommon(scope, op);
}

//===----------------------------------------------------------------------===//
// Lowering.
//===----------------------------------------------------------------------===//

namespace {

// A list of integers from `[1, 2]`, `array<i64: 1, 2>` or an integer
// `dense<...>`.
absl::Status IntsOf(const AttrValue& v, std::vector<int64_t>* out) {
  out->clear();
  if (v.kind == Kind::kList) {
    for (const AttrValue& e : v.list) {
      if (e.kind == Kind::kInt) {
        out->push_back(e.i);
      } else if (e.kind == Kind::kBool) {
        out->push_back(e.b ? 1 : 0);
      } else {
        return absl::InvalidArgumentError("expected a list of integers");
      }
    }
    return absl::OkStatus();
  }
  if (v.kind == Kind::kDense && v.dense != nullptr) {
    const Literal& l = *v.dense;
    ElementType t = l.shape().element_type();
    if (!IsInteger(t) && t != ElementType::kPred) {
      return absl::InvalidArgumentError("expected integers");
    }
    for (int64_t i = 0; i < l.shape().element_count(); ++i) {
      out->push_back(static_cast<int64_t>(l.GetAsDouble(i)));
    }
    return absl::OkStatus();
  }
  if (v.kind == Kind::kInt) {
    out->push_back(v.i);
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError("expected a list of integers");
}

}  // namespace

absl::Status Parser::Lower(Scope* scope, Op* op, std::vector<HloInstruction*>* results) {
  const size_t at = op->offset;
  std::string_view full = op->name;
  const size_t dot = full.find('.');
  if (dot == std::string_view::npos) return Error(at, absl::StrCat("unknown operation '", op->name, "'"));
  std::string_view dialect = full.substr(0, dot);
  std::string_view name = full.substr(dot + 1);
  if (dialect != "stablehlo" && dialect != "chlo" && dialect != "mhlo" && dialect != "func") {
    return Error(at, absl::StrCat("unknown dialect '", Sv(dialect), "' (in '", op->name, "')"));
  }
  for (const Shape& t : op->result_types) {
    absl::Status valid = ValidateShape(t);
    if (!valid.ok()) return Error(at, Msg(valid));
  }
  const size_t nresults = op->result_types.size();
  Shape result = nresults == 1 ? op->result_types[0] : Shape::Tuple(op->result_types);

  // Attribute readers with errors at the attribute.
  auto ints = [&](std::initializer_list<std::string_view> names, std::vector<int64_t>* out,
                  bool required) -> absl::Status {
    const AttrValue* v = Find(*op, names);
    out->clear();
    if (v == nullptr) {
      if (!required) return absl::OkStatus();
      return Error(at, absl::StrCat("'", op->name, "' needs attribute '", Sv(*names.begin()), "'"));
    }
    absl::Status st = IntsOf(*v, out);
    if (!st.ok()) return Error(v->offset, Msg(st));
    return absl::OkStatus();
  };
  auto int_attr = [&](std::initializer_list<std::string_view> names, int64_t* out,
                      bool required) -> absl::Status {
    const AttrValue* v = Find(*op, names);
    if (v == nullptr) {
      if (!required) return absl::OkStatus();
      return Error(at, absl::StrCat("'", op->name, "' needs attribute '", Sv(*names.begin()), "'"));
    }
    if (v->kind != Kind::kInt) return Error(v->offset, "expected an integer");
    *out = v->i;
    return absl::OkStatus();
  };
  auto bool_attr = [&](std::initializer_list<std::string_view> names, bool* out) -> absl::Status {
    const AttrValue* v = Find(*op, names);
    if (v == nullptr) return absl::OkStatus();
    if (v->kind == Kind::kUnit) {
      *out = true;
    } else if (v->kind == Kind::kBool) {
      *out = v->b;
    } else {
      return Error(v->offset, "expected true or false");
    }
    return absl::OkStatus();
  };
  auto ident_attr = [&](std::initializer_list<std::string_view> names, std::string* out,
                        bool required) -> absl::Status {
    const AttrValue* v = Find(*op, names);
    if (v == nullptr) {
      if (!required) return absl::OkStatus();
      return Error(at, absl::StrCat("'", op->name, "' needs attribute '", Sv(*names.begin()), "'"));
    }
    if (v->kind != Kind::kIdent) return Error(v->offset, "expected a name");
    *out = v->s;
    return absl::OkStatus();
  };
  auto want_regions = [&](size_t count) -> absl::Status {
    if (op->regions.size() != count) {
      return Error(at, absl::StrCat("'", op->name, "' takes ", count, " region(s), has ",
                                    op->regions.size()));
    }
    return absl::OkStatus();
  };
  auto want_operands = [&](size_t count) -> absl::Status {
    if (op->operands.size() != count) {
      return Error(at, absl::StrCat("'", op->name, "' takes ", count, " operand(s), has ",
                                    op->operands.size()));
    }
    return absl::OkStatus();
  };
  auto want_results = [&](size_t count) -> absl::Status {
    if (nresults != count) {
      return Error(at, absl::StrCat("'", op->name, "' has ", count, " result(s), its type says ",
                                    nresults));
    }
    return absl::OkStatus();
  };
  // A window from the generic attributes of reduce_window / select_and_scatter.
  auto generic_window = [&](int64_t rank, Window* window) -> absl::Status {
    std::vector<int64_t> sizes, strides, base, dilations, padding;
    HLOVM_RETURN_IF_ERROR(ints({"window_dimensions"}, &sizes, true));
    HLOVM_RETURN_IF_ERROR(ints({"window_strides"}, &strides, false));
    HLOVM_RETURN_IF_ERROR(ints({"base_dilations"}, &base, false));
    HLOVM_RETURN_IF_ERROR(ints({"window_dilations"}, &dilations, false));
    HLOVM_RETURN_IF_ERROR(ints({"padding"}, &padding, false));
    const size_t n = sizes.size();
    if (static_cast<int64_t>(n) != rank) return Error(at, "window_dimensions must have one entry per dimension");
    if ((!strides.empty() && strides.size() != n) || (!base.empty() && base.size() != n) ||
        (!dilations.empty() && dilations.size() != n) || (!padding.empty() && padding.size() != 2 * n)) {
      return Error(at, "window attributes differ in length");
    }
    window->assign(n, WindowDimension());
    for (size_t i = 0; i < n; ++i) {
      WindowDimension& d = (*window)[i];
      d.size = sizes[i];
      if (!strides.empty()) d.stride = strides[i];
      if (!base.empty()) d.base_dilation = base[i];
      if (!dilations.empty()) d.window_dilation = dilations[i];
      if (!padding.empty()) {
        d.padding_low = padding[2 * i];
        d.padding_high = padding[2 * i + 1];
      }
    }
    return absl::OkStatus();
  };
  auto precision = [&](HloInstruction* instr) -> absl::Status {
    const AttrValue* v = Find(*op, {"precision", "precision_config"});
    if (v == nullptr) return absl::OkStatus();
    if (v->kind != Kind::kList) return Error(v->offset, "expected a list of precisions");
    for (const AttrValue& e : v->list) {
      if (e.kind != Kind::kIdent) return Error(e.offset, "expected DEFAULT, HIGH or HIGHEST");
      std::string p = ToLower(e.s);
      if (p != "default" && p != "high" && p != "highest") {
        return Error(e.offset, "expected DEFAULT, HIGH or HIGHEST");
      }
      instr->mutable_attrs().operand_precision.push_back(p);
    }
    if (Find(*op, {"algorithm"}) != nullptr) {
      return Error(Find(*op, {"algorithm"})->offset, "dot algorithms are not supported");
    }
    return absl::OkStatus();
  };
  auto emit = [&](HloOpcode opcode) { return Emit(scope, opcode, result, op->operands); };
  auto finish = [&](HloInstruction* instr) {
    Unpack(scope, instr, nresults, results);
    return absl::OkStatus();
  };

  if (dialect == "chlo" && IsDecomposedChloOp(name)) return LowerChlo(scope, op, results);
  if (dialect == "func") {
    if (name != "call") return Error(at, absl::StrCat("unknown operation '", op->name, "'"));
    if (!function_used_.contains(op->callee)) function_used_[op->callee] = at;
    HloComputation* callee = FunctionComputation(op->callee);
    Shape shape = nresults == 1 ? result : Shape::Tuple(op->result_types);
    HloInstruction* call = Emit(scope, HloOpcode::kCall, shape, op->operands);
    call->AppendCalledComputation(callee);
    if (nresults == 0) return absl::OkStatus();
    return finish(call);
  }

  if (name == "composite") {
    // A composite computes what its decomposition does: a call of it.
    const AttrValue* d = Find(*op, {"decomposition"});
    if (d == nullptr || d->kind != Kind::kSymbol) return Error(at, "a composite needs a decomposition");
    if (!function_used_.contains(d->s)) function_used_[d->s] = at;
    HloInstruction* call = emit(HloOpcode::kCall);
    call->AppendCalledComputation(FunctionComputation(d->s));
    return finish(call);
  }
  if (name == "constant") {
    const AttrValue* v = Find(*op, {"value"});
    if (v == nullptr || v->kind != Kind::kDense) return Error(at, "a constant needs a dense value");
    HLOVM_RETURN_IF_ERROR(want_results(1));
    if (!v->type->Compatible(result)) return Error(at, "the constant's type differs from its value's");
    HloInstruction* c = Emit(scope, HloOpcode::kConstant, result, {});
    c->literal.emplace(v->dense->Clone());
    results->push_back(c);
    return absl::OkStatus();
  }
  if (name == "broadcast_in_dim") {
    HLOVM_RETURN_IF_ERROR(want_operands(1));
    std::vector<int64_t> dims;
    HLOVM_RETURN_IF_ERROR(ints({"dims", "broadcast_dimensions"}, &dims, true));
    HloInstruction* operand = op->operands[0];
    const Shape& in = operand->shape();
    if (!in.IsArray() || !result.IsArray() || static_cast<int64_t>(dims.size()) != in.rank()) {
      return Error(at, "broadcast_in_dim needs one dimension per operand dimension");
    }
    // HLO's broadcast cannot stretch a dimension of size 1: such dimensions
    // are reshaped away first, as XLA's translation does.
    std::vector<int64_t> kept_dims, kept_sizes;
    for (int64_t i = 0; i < in.rank(); ++i) {
      if (dims[i] < 0 || dims[i] >= result.rank()) return Error(at, "broadcast dimension out of range");
      if (in.dimensions(i) == 1 && result.dimensions(dims[i]) != 1) continue;
      kept_dims.push_back(dims[i]);
      kept_sizes.push_back(in.dimensions(i));
    }
    if (kept_dims.size() != dims.size()) {
      operand = Emit(scope, HloOpcode::kReshape, Shape(in.element_type(), kept_sizes), {operand});
    }
    HloInstruction* instr = Emit(scope, HloOpcode::kBroadcast, result, {operand});
    instr->dimensions = std::move(kept_dims);
    return finish(instr);
  }
  if (name == "transpose" || name == "reverse") {
    HLOVM_RETURN_IF_ERROR(want_operands(1));
    HloInstruction* instr = emit(name == "transpose" ? HloOpcode::kTranspose : HloOpcode::kReverse);
    HLOVM_RETURN_IF_ERROR(ints({"dims", "permutation", "dimensions"}, &instr->dimensions, true));
    return finish(instr);
  }
  if (name == "concatenate") {
    int64_t d = 0;
    HLOVM_RETURN_IF_ERROR(int_attr({"dim", "dimension"}, &d, true));
    HloInstruction* instr = emit(HloOpcode::kConcatenate);
    instr->dimensions = {d};
    return finish(instr);
  }
  if (name == "iota") {
    HLOVM_RETURN_IF_ERROR(want_operands(0));
    HloInstruction* instr = emit(HloOpcode::kIota);
    HLOVM_RETURN_IF_ERROR(int_attr({"dim", "iota_dimension"}, &instr->iota_dimension, true));
    return finish(instr);
  }
  if (name == "slice") {
    HLOVM_RETURN_IF_ERROR(want_operands(1));
    SliceAttr slice;
    const AttrValue* pretty = Find(*op, {"slice"});
    if (pretty != nullptr && pretty->kind == Kind::kSlice) {
      slice = *pretty->slice;
    } else {
      HLOVM_RETURN_IF_ERROR(ints({"start_indices"}, &slice.starts, true));
      HLOVM_RETURN_IF_ERROR(ints({"limit_indices"}, &slice.limits, true));
      HLOVM_RETURN_IF_ERROR(ints({"strides"}, &slice.strides, false));
      if (slice.strides.empty()) slice.strides.assign(slice.starts.size(), 1);
    }
    HloInstruction* instr = emit(HloOpcode::kSlice);
    instr->slice.emplace(std::move(slice));
    return finish(instr);
  }
  if (name == "pad") {
    HLOVM_RETURN_IF_ERROR(want_operands(2));
    std::vector<int64_t> low, high, interior;
    HLOVM_RETURN_IF_ERROR(ints({"low", "edge_padding_low"}, &low, true));
    HLOVM_RETURN_IF_ERROR(ints({"high", "edge_padding_high"}, &high, true));
    HLOVM_RETURN_IF_ERROR(ints({"interior", "interior_padding"}, &interior, true));
    if (low.size() != high.size() || low.size() != interior.size()) {
      return Error(at, "pad attributes differ in length");
    }
    HloInstruction* instr = emit(HloOpcode::kPad);
    PaddingConfig padding;
    for (size_t i = 0; i < low.size(); ++i) padding.push_back({low[i], high[i], interior[i]});
    instr->mutable_attrs().padding = std::move(padding);
    return finish(instr);
  }
  if (name == "dynamic_slice") {
    HloInstruction* instr = emit(HloOpcode::kDynamicSlice);
    HLOVM_RETURN_IF_ERROR(ints({"sizes", "slice_sizes"}, &instr->mutable_attrs().dynamic_slice_sizes, true));
    return finish(instr);
  }
  if (name == "compare") {
    HLOVM_RETURN_IF_ERROR(want_operands(2));
    std::string direction, type;
    HLOVM_RETURN_IF_ERROR(ident_attr({"comparison_direction"}, &direction, true));
    HLOVM_RETURN_IF_ERROR(ident_attr({"compare_type"}, &type, false));
    HloInstruction* instr = emit(HloOpcode::kCompare);
    static const std::pair<std::string_view, ComparisonDirection> kDirections[] = {
        {"EQ", ComparisonDirection::kEq}, {"NE", ComparisonDirection::kNe},
        {"GE", ComparisonDirection::kGe}, {"GT", ComparisonDirection::kGt},
        {"LE", ComparisonDirection::kLe}, {"LT", ComparisonDirection::kLt}};
    bool found = false;
    for (const auto& [text, value] : kDirections) {
      if (direction == text) {
        instr->comparison_direction = value;
        found = true;
      }
    }
    if (!found) return Error(at, absl::StrCat("unknown comparison direction '", direction, "'"));
    static const std::pair<std::string_view, ComparisonType> kTypes[] = {
        {"NOTYPE", ComparisonType::kDefault}, {"FLOAT", ComparisonType::kFloat},
        {"TOTALORDER", ComparisonType::kTotalOrder}, {"SIGNED", ComparisonType::kSigned},
        {"UNSIGNED", ComparisonType::kUnsigned}};
    if (!type.empty()) {
      found = false;
      for (const auto& [text, value] : kTypes) {
        if (type == text) {
          instr->comparison_type = value;
          found = true;
        }
      }
      if (!found) return Error(at, absl::StrCat("unknown comparison type '", type, "'"));
    }
    return finish(instr);
  }
  if (name == "dot_general" || name == "dot") {
    HLOVM_RETURN_IF_ERROR(want_operands(2));
    DotDimensionNumbers dnums;
    if (name == "dot") {
      dnums.lhs_contracting_dimensions = {op->operands[0]->shape().rank() - 1};
      dnums.rhs_contracting_dimensions = {0};
    } else if (const AttrValue* g = Find(*op, {"dot_dimension_numbers"}); g != nullptr) {
      if (g->kind != Kind::kStruct) return Error(g->offset, "expected #stablehlo.dot<...>");
      auto field = [&](std::string_view f, std::vector<int64_t>* out) -> absl::Status {
        const AttrValue* v = Field(*g, f);
        if (v == nullptr) return absl::OkStatus();
        absl::Status st = IntsOf(*v, out);
        return st.ok() ? st : Error(v->offset, Msg(st));
      };
      HLOVM_RETURN_IF_ERROR(field("lhs_batching_dimensions", &dnums.lhs_batch_dimensions));
      HLOVM_RETURN_IF_ERROR(field("rhs_batching_dimensions", &dnums.rhs_batch_dimensions));
      HLOVM_RETURN_IF_ERROR(field("lhs_contracting_dimensions", &dnums.lhs_contracting_dimensions));
      HLOVM_RETURN_IF_ERROR(field("rhs_contracting_dimensions", &dnums.rhs_contracting_dimensions));
    } else {
      auto pair = [&](std::string_view key, std::vector<int64_t>* lhs,
                      std::vector<int64_t>* rhs) -> absl::Status {
        const AttrValue* v = Find(*op, {key});
        if (v == nullptr) return absl::OkStatus();
        if (v->kind != Kind::kPair) return Error(v->offset, "expected '[...] x [...]'");
        absl::Status st = IntsOf(v->list[0], lhs);
        if (st.ok()) st = IntsOf(v->list[1], rhs);
        return st.ok() ? st : Error(v->offset, Msg(st));
      };
      HLOVM_RETURN_IF_ERROR(pair("batching_dims", &dnums.lhs_batch_dimensions, &dnums.rhs_batch_dimensions));
      HLOVM_RETURN_IF_ERROR(pair("contracting_dims", &dnums.lhs_contracting_dimensions,
                                 &dnums.rhs_contracting_dimensions));
    }
    HloInstruction* instr = emit(HloOpcode::kDot);
    instr->mutable_attrs().dot_dimension_numbers.emplace(std::move(dnums));
    HLOVM_RETURN_IF_ERROR(precision(instr));
    return finish(instr);
  }
  if (name == "ragged_dot") {
    // chlo.ragged_dot stays one instruction: HLO's ragged-dot.
    HLOVM_RETURN_IF_ERROR(want_operands(3));
    const AttrValue* g = Find(*op, {"ragged_dot_dimension_numbers"});
    if (g == nullptr || g->kind != Kind::kStruct) {
      return Error(g == nullptr ? at : g->offset, "a ragged_dot needs #chlo.ragged_dot<...>");
    }
    DotDimensionNumbers dnums;
    for (const auto& [key, out] : std::initializer_list<std::pair<std::string_view, std::vector<int64_t>*>>{
             {"lhs_batching_dimensions", &dnums.lhs_batch_dimensions},
             {"rhs_batching_dimensions", &dnums.rhs_batch_dimensions},
             {"lhs_contracting_dimensions", &dnums.lhs_contracting_dimensions},
             {"rhs_contracting_dimensions", &dnums.rhs_contracting_dimensions},
             {"lhs_ragged_dimensions", &dnums.lhs_ragged_dimensions},
             {"rhs_group_dimensions", &dnums.rhs_group_dimensions}}) {
      const AttrValue* v = Field(*g, key);
      if (v == nullptr) continue;
      absl::Status st = IntsOf(*v, out);
      if (!st.ok()) return Error(v->offset, Msg(st));
    }
    HloInstruction* instr = emit(HloOpcode::kRaggedDot);
    instr->mutable_attrs().dot_dimension_numbers.emplace(std::move(dnums));
    HLOVM_RETURN_IF_ERROR(precision(instr));
    return finish(instr);
  }
  if (name == "convolution") {
    HLOVM_RETURN_IF_ERROR(want_operands(2));
    const AttrValue* d = Find(*op, {"dimension_numbers"});
    if (d == nullptr || d->kind != Kind::kConv) return Error(at, "a convolution needs dimension numbers");
    const int64_t spatial = static_cast<int64_t>(d->conv->input_spatial_dimensions.size());
    std::vector<int64_t> strides, padding, lhs_dilation, rhs_dilation, reversal;
    if (const AttrValue* w = Find(*op, {"window"}); w != nullptr) {
      auto field = [&](std::string_view f, std::vector<int64_t>* out) -> absl::Status {
        const AttrValue* v = Field(*w, f);
        out->clear();
        if (v == nullptr) return absl::OkStatus();
        if (f == "pad" && v->kind == Kind::kList) {
          for (const AttrValue& p : v->list) {
            std::vector<int64_t> lh;
            absl::Status st = IntsOf(p, &lh);
            if (!st.ok() || lh.size() != 2) return Error(p.offset, "expected [low, high]");
            out->insert(out->end(), lh.begin(), lh.end());
          }
          return absl::OkStatus();
        }
        absl::Status st = IntsOf(*v, out);
        return st.ok() ? st : Error(v->offset, Msg(st));
      };
      HLOVM_RETURN_IF_ERROR(field("stride", &strides));
      HLOVM_RETURN_IF_ERROR(field("pad", &padding));
      HLOVM_RETURN_IF_ERROR(field("lhs_dilate", &lhs_dilation));
      HLOVM_RETURN_IF_ERROR(field("rhs_dilate", &rhs_dilation));
      HLOVM_RETURN_IF_ERROR(field("reverse", &reversal));
    } else {
      HLOVM_RETURN_IF_ERROR(ints({"window_strides"}, &strides, false));
      HLOVM_RETURN_IF_ERROR(ints({"padding"}, &padding, false));
      HLOVM_RETURN_IF_ERROR(ints({"lhs_dilation"}, &lhs_dilation, false));
      HLOVM_RETURN_IF_ERROR(ints({"rhs_dilation"}, &rhs_dilation, false));
      HLOVM_RETURN_IF_ERROR(ints({"window_reversal"}, &reversal, false));
    }
    auto check = [&](const std::vector<int64_t>& v, size_t n) {
      return v.empty() || v.size() == n;
    };
    if (!check(strides, spatial) || !check(padding, 2 * spatial) || !check(lhs_dilation, spatial) ||
        !check(rhs_dilation, spatial) || !check(reversal, spatial)) {
      return Error(at, "window attributes must have one entry per spatial dimension");
    }
    const Shape& kernel = op->operands[1]->shape();
    Window window(spatial);
    for (int64_t i = 0; i < spatial; ++i) {
      WindowDimension& w = window[i];
      int64_t kd = d->conv->kernel_spatial_dimensions[i];
      if (kd < 0 || kd >= kernel.rank()) return Error(at, "kernel spatial dimension out of range");
      w.size = kernel.dimensions(kd);
      if (!strides.empty()) w.stride = strides[i];
      if (!padding.empty()) {
        w.padding_low = padding[2 * i];
        w.padding_high = padding[2 * i + 1];
      }
      if (!lhs_dilation.empty()) w.base_dilation = lhs_dilation[i];
      if (!rhs_dilation.empty()) w.window_dilation = rhs_dilation[i];
      if (!reversal.empty()) w.window_reversal = reversal[i] != 0;
    }
    HloInstruction* instr = emit(HloOpcode::kConvolution);
    OpAttributes& a = instr->mutable_attrs();
    a.convolution_dimension_numbers.emplace(*d->conv);
    a.window = std::move(window);
    HLOVM_RETURN_IF_ERROR(int_attr({"feature_group_count"}, &a.feature_group_count, false));
    HLOVM_RETURN_IF_ERROR(int_attr({"batch_group_count"}, &a.batch_group_count, false));
    HLOVM_RETURN_IF_ERROR(precision(instr));
    return finish(instr);
  }
  if (name == "gather") {
    HLOVM_RETURN_IF_ERROR(want_operands(2));
    const AttrValue* g = Find(*op, {"dimension_numbers"});
    if (g == nullptr || g->kind != Kind::kStruct) return Error(at, "a gather needs #stablehlo.gather<...>");
    GatherDimensionNumbers dnums;
    auto field = [&](std::string_view f, std::vector<int64_t>* out) -> absl::Status {
      const AttrValue* v = Field(*g, f);
      if (v == nullptr) return absl::OkStatus();
      absl::Status st = IntsOf(*v, out);
      return st.ok() ? st : Error(v->offset, Msg(st));
    };
    HLOVM_RETURN_IF_ERROR(field("offset_dims", &dnums.offset_dims));
    HLOVM_RETURN_IF_ERROR(field("collapsed_slice_dims", &dnums.collapsed_slice_dims));
    HLOVM_RETURN_IF_ERROR(field("operand_batching_dims", &dnums.operand_batching_dims));
    HLOVM_RETURN_IF_ERROR(field("start_indices_batching_dims", &dnums.start_indices_batching_dims));
    HLOVM_RETURN_IF_ERROR(field("start_index_map", &dnums.start_index_map));
    if (const AttrValue* v = Field(*g, "index_vector_dim"); v != nullptr) {
      if (v->kind != Kind::kInt) return Error(v->offset, "expected an integer");
      dnums.index_vector_dim = v->i;
    }
    HloInstruction* instr = emit(HloOpcode::kGather);
    OpAttributes& a = instr->mutable_attrs();
    a.gather_dimension_numbers.emplace(std::move(dnums));
    HLOVM_RETURN_IF_ERROR(ints({"slice_sizes"}, &a.gather_slice_sizes, true));
    HLOVM_RETURN_IF_ERROR(bool_attr({"indices_are_sorted"}, &a.indices_are_sorted));
    return finish(instr);
  }
  if (name == "scatter") {
    HLOVM_RETURN_IF_ERROR(want_regions(1));
    const AttrValue* g = Find(*op, {"scatter_dimension_numbers"});
    if (g == nullptr || g->kind != Kind::kStruct) return Error(at, "a scatter needs #stablehlo.scatter<...>");
    ScatterDimensionNumbers dnums;
    auto field = [&](std::string_view f, std::vector<int64_t>* out) -> absl::Status {
      const AttrValue* v = Field(*g, f);
      if (v == nullptr) return absl::OkStatus();
      absl::Status st = IntsOf(*v, out);
      return st.ok() ? st : Error(v->offset, Msg(st));
    };
    HLOVM_RETURN_IF_ERROR(field("update_window_dims", &dnums.update_window_dims));
    HLOVM_RETURN_IF_ERROR(field("inserted_window_dims", &dnums.inserted_window_dims));
    HLOVM_RETURN_IF_ERROR(field("input_batching_dims", &dnums.input_batching_dims));
    HLOVM_RETURN_IF_ERROR(field("scatter_indices_batching_dims", &dnums.scatter_indices_batching_dims));
    HLOVM_RETURN_IF_ERROR(field("scatter_dims_to_operand_dims", &dnums.scatter_dims_to_operand_dims));
    if (const AttrValue* v = Field(*g, "index_vector_dim"); v != nullptr) {
      if (v->kind != Kind::kInt) return Error(v->offset, "expected an integer");
      dnums.index_vector_dim = v->i;
    }
    HloInstruction* instr = emit(HloOpcode::kScatter);
    OpAttributes& a = instr->mutable_attrs();
    a.scatter_dimension_numbers.emplace(std::move(dnums));
    HLOVM_RETURN_IF_ERROR(bool_attr({"indices_are_sorted"}, &a.indices_are_sorted));
    HLOVM_RETURN_IF_ERROR(bool_attr({"unique_indices"}, &a.unique_indices));
    instr->AppendCalledComputation(op->regions[0]);
    return finish(instr);
  }
  if (name == "reduce") {
    HLOVM_RETURN_IF_ERROR(want_regions(1));
    HloInstruction* instr = emit(HloOpcode::kReduce);
    HLOVM_RETURN_IF_ERROR(ints({"dimensions"}, &instr->dimensions, true));
    instr->AppendCalledComputation(op->regions[0]);
    return finish(instr);
  }
  if (name == "reduce_window") {
    HLOVM_RETURN_IF_ERROR(want_regions(1));
    if (op->operands.empty()) return Error(at, "a reduce_window needs operands");
    Window window;
    HLOVM_RETURN_IF_ERROR(generic_window(op->operands[0]->shape().rank(), &window));
    HloInstruction* instr = emit(HloOpcode::kReduceWindow);
    instr->mutable_attrs().window = std::move(window);
    instr->AppendCalledComputation(op->regions[0]);
    return finish(instr);
  }
  if (name == "select_and_scatter") {
    HLOVM_RETURN_IF_ERROR(want_regions(2));
    HLOVM_RETURN_IF_ERROR(want_operands(3));
    Window window;
    HLOVM_RETURN_IF_ERROR(generic_window(op->operands[0]->shape().rank(), &window));
    HloInstruction* instr = emit(HloOpcode::kSelectAndScatter);
    instr->mutable_attrs().window = std::move(window);
    instr->AppendCalledComputation(op->regions[0]);
    instr->AppendCalledComputation(op->regions[1]);
    return finish(instr);
  }
  if (name == "sort") {
    HLOVM_RETURN_IF_ERROR(want_regions(1));
    if (op->operands.empty()) return Error(at, "a sort needs operands");
    int64_t dimension = -1;
    HLOVM_RETURN_IF_ERROR(int_attr({"dimension"}, &dimension, false));
    if (dimension < 0) dimension += op->operands[0]->shape().rank();
    HloInstruction* instr = emit(HloOpcode::kSort);
    instr->dimensions = {dimension};
    HLOVM_RETURN_IF_ERROR(bool_attr({"is_stable"}, &instr->mutable_attrs().is_stable));
    instr->AppendCalledComputation(op->regions[0]);
    return finish(instr);
  }
  if (name == "map") {
    HLOVM_RETURN_IF_ERROR(want_regions(1));
    HloInstruction* instr = emit(HloOpcode::kMap);
    HLOVM_RETURN_IF_ERROR(ints({"dimensions"}, &instr->dimensions, true));
    instr->AppendCalledComputation(op->regions[0]);
    return finish(instr);
  }
  if (name == "while") {
    HLOVM_RETURN_IF_ERROR(want_regions(2));
    const std::vector<HloInstruction*>& captured = op->region_captures[0]->outer;
    std::vector<HloInstruction*> carried = op->operands;
    carried.insert(carried.end(), captured.begin(), captured.end());
    HloInstruction* init = EmitTuple(scope, carried);
    // The condition was read before the body found its captures.
    for (HloComputation* c : op->regions) {
      if (c->parameter_count() > 0) *c->parameter(0)->mutable_shape() = init->shape();
    }
    HloInstruction* loop = Emit(scope, HloOpcode::kWhile, init->shape(), {init});
    loop->AppendCalledComputation(op->regions[0]);
    loop->AppendCalledComputation(op->regions[1]);
    for (size_t i = 0; i < op->operands.size(); ++i) {
      results->push_back(EmitGte(scope, loop, static_cast<int64_t>(i)));
    }
    return absl::OkStatus();
  }
  if (name == "if" || name == "case") {
    HLOVM_RETURN_IF_ERROR(want_operands(1));
    if (op->regions.empty() || (name == "if" && op->regions.size() != 2)) {
      return Error(at, absl::StrCat("'", op->name, "' has the wrong number of regions"));
    }
    std::vector<HloInstruction*> operands = {op->operands[0]};
    for (size_t i = 0; i < op->regions.size(); ++i) {
      HloInstruction* t = EmitTuple(scope, op->region_captures[i]->outer);
      *op->regions[i]->parameter(0)->mutable_shape() = t->shape();
      operands.push_back(t);
    }
    HloInstruction* instr = Emit(scope, HloOpcode::kConditional, result, operands);
    for (HloComputation* c : op->regions) instr->AppendCalledComputation(c);
    if (nresults == 0) return absl::OkStatus();
    return finish(instr);
  }
  if (name == "fft") {
    HLOVM_RETURN_IF_ERROR(want_operands(1));
    std::string type;
    HLOVM_RETURN_IF_ERROR(ident_attr({"type", "fft_type"}, &type, true));
    HloInstruction* instr = emit(HloOpcode::kFft);
    OpAttributes& a = instr->mutable_attrs();
    if (type == "FFT") {
      a.fft_type = FftType::kFft;
    } else if (type == "IFFT") {
      a.fft_type = FftType::kIfft;
    } else if (type == "RFFT") {
      a.fft_type = FftType::kRfft;
    } else if (type == "IRFFT") {
      a.fft_type = FftType::kIrfft;
    } else {
      return Error(at, absl::StrCat("unknown fft type '", type, "'"));
    }
    HLOVM_RETURN_IF_ERROR(ints({"length", "fft_length"}, &a.fft_length, true));
    return finish(instr);
  }
  if (name == "rng_bit_generator") {
    HLOVM_RETURN_IF_ERROR(want_operands(1));
    HLOVM_RETURN_IF_ERROR(want_results(2));
    std::string algorithm = "DEFAULT";
    HLOVM_RETURN_IF_ERROR(ident_attr({"algorithm", "rng_algorithm"}, &algorithm, false));
    HloInstruction* instr = emit(HloOpcode::kRngBitGenerator);
    OpAttributes& a = instr->mutable_attrs();
    if (algorithm == "DEFAULT") {
      a.rng_algorithm = RngAlgorithm::kDefault;
    } else if (algorithm == "THREE_FRY") {
      a.rng_algorithm = RngAlgorithm::kThreeFry;
    } else if (algorithm == "PHILOX") {
      a.rng_algorithm = RngAlgorithm::kPhilox;
    } else {
      return Error(at, absl::StrCat("unknown rng algorithm '", algorithm, "'"));
    }
    return finish(instr);
  }
  if (name == "rng") {
    HLOVM_RETURN_IF_ERROR(want_operands(3));
    std::string distribution;
    HLOVM_RETURN_IF_ERROR(ident_attr({"distribution", "rng_distribution"}, &distribution, true));
    HloInstruction* instr = Emit(scope, HloOpcode::kRng, result, {op->operands[0], op->operands[1]});
    if (distribution == "UNIFORM") {
      instr->mutable_attrs().distribution = RandomDistribution::kUniform;
    } else if (distribution == "NORMAL") {
      instr->mutable_attrs().distribution = RandomDistribution::kNormal;
    } else {
      return Error(at, absl::StrCat("unknown rng distribution '", distribution, "'"));
    }
    return finish(instr);
  }
  if (name == "reduce_precision") {
    HLOVM_RETURN_IF_ERROR(want_operands(1));
    HloInstruction* instr = emit(HloOpcode::kReducePrecision);
    OpAttributes& a = instr->mutable_attrs();
    if (const AttrValue* f = Find(*op, {"format"}); f != nullptr) {
      // e5m10
      int e = 0, m = 0;
      char tail = 0;
      if (f->kind != Kind::kIdent || std::sscanf(f->s.c_str(), "e%dm%d%c", &e, &m, &tail) != 2) {
        return Error(f->offset, "expected a format eXmY");
      }
      a.exponent_bits = e;
      a.mantissa_bits = m;
    } else {
      HLOVM_RETURN_IF_ERROR(int_attr({"exponent_bits"}, &a.exponent_bits, true));
      HLOVM_RETURN_IF_ERROR(int_attr({"mantissa_bits"}, &a.mantissa_bits, true));
    }
    return finish(instr);
  }
  if (name == "triangular_solve") {
    HLOVM_RETURN_IF_ERROR(want_operands(2));
    HloInstruction* instr = emit(HloOpcode::kTriangularSolve);
    OpAttributes& a = instr->mutable_attrs();
    HLOVM_RETURN_IF_ERROR(bool_attr({"left_side"}, &a.left_side));
    HLOVM_RETURN_IF_ERROR(bool_attr({"lower"}, &a.lower));
    HLOVM_RETURN_IF_ERROR(bool_attr({"unit_diagonal"}, &a.unit_diagonal));
    std::string transpose = "NO_TRANSPOSE";
    HLOVM_RETURN_IF_ERROR(ident_attr({"transpose_a"}, &transpose, false));
    if (transpose == "NO_TRANSPOSE") {
      a.transpose_a = TriangularSolveTranspose::kNoTranspose;
    } else if (transpose == "TRANSPOSE") {
      a.transpose_a = TriangularSolveTranspose::kTranspose;
    } else if (transpose == "ADJOINT") {
      a.transpose_a = TriangularSolveTranspose::kAdjoint;
    } else {
      return Error(at, absl::StrCat("unknown transpose '", transpose, "'"));
    }
    return finish(instr);
  }
  if (name == "cholesky") {
    HLOVM_RETURN_IF_ERROR(want_operands(1));
    HloInstruction* instr = emit(HloOpcode::kCholesky);
    HLOVM_RETURN_IF_ERROR(bool_attr({"lower"}, &instr->mutable_attrs().lower));
    return finish(instr);
  }
  if (name == "top_k") {
    HLOVM_RETURN_IF_ERROR(want_operands(1));
    HLOVM_RETURN_IF_ERROR(want_results(2));
    HloInstruction* instr = emit(HloOpcode::kTopK);
    OpAttributes& a = instr->mutable_attrs();
    HLOVM_RETURN_IF_ERROR(int_attr({"k"}, &a.k, true));
    a.largest = true;
    HLOVM_RETURN_IF_ERROR(bool_attr({"largest"}, &a.largest));
    return finish(instr);
  }
  if (name == "get_tuple_element") {
    HLOVM_RETURN_IF_ERROR(want_operands(1));
    int64_t index = 0;
    const AttrValue* v = Find(*op, {"index"});
    if (v == nullptr) return Error(at, "get_tuple_element needs an index");
    std::vector<int64_t> list;
    absl::Status st = IntsOf(*v, &list);
    if (!st.ok() || list.size() != 1) return Error(v->offset, "expected one index");
    index = list[0];
    HloInstruction* instr = emit(HloOpcode::kGetTupleElement);
    instr->tuple_index = index;
    return finish(instr);
  }
  if (name == "optimization_barrier") {
    HloInstruction* t = EmitTuple(scope, op->operands);
    HloInstruction* barrier = Emit(scope, HloOpcode::kOptimizationBarrier, t->shape(), {t});
    for (size_t i = 0; i < op->operands.size(); ++i) {
      results->push_back(EmitGte(scope, barrier, static_cast<int64_t>(i)));
    }
    return absl::OkStatus();
  }
  if (name == "create_token") {
    results->push_back(Emit(scope, HloOpcode::kAfterAll, Shape::Token(), {}));
    return absl::OkStatus();
  }
  if (name == "custom_call") {
    std::string target = op->callee;
    if (target.empty()) {
      const AttrValue* v = Find(*op, {"call_target_name"});
      if (v == nullptr || v->kind != Kind::kString) return Error(at, "custom_call needs a target");
      target = v->s;
    }
    Shape shape = nresults == 1 ? result : Shape::Tuple(op->result_types);
    HloInstruction* instr = Emit(scope, HloOpcode::kCustomCall, shape, op->operands);
    OpAttributes& a = instr->mutable_attrs();
    a.custom_call_target = target;
    HLOVM_RETURN_IF_ERROR(bool_attr({"has_side_effect"}, &a.custom_call_has_side_effect));
    if (const AttrValue* v = Find(*op, {"backend_config"}); v != nullptr) {
      if (v->kind == Kind::kString) {
        a.backend_config = v->s;
      } else if (v->kind != Kind::kStruct || !v->fields.empty()) {
        return Error(v->offset, "only string backend configs are supported");
      }
    }
    if (target.substr(0, 6) == "check.") {
      // Named as in the HLO form of the conformance programs.
      instr->set_name(absl::StrCat("check.", next_id_));
    }
    if (target == "check.expect_close" || target == "check.expect_almost_eq") {
      // The HLO checks carry their tolerance in backend_config; StableHLO's
      // are attributes with the reference interpreter's defaults.
      if (a.backend_config.empty()) {
        if (target == "check.expect_close") {
          int64_t max_ulp = 3, min_ulp = 0;
          HLOVM_RETURN_IF_ERROR(int_attr({"max_ulp_difference"}, &max_ulp, false));
          HLOVM_RETURN_IF_ERROR(int_attr({"min_ulp_difference"}, &min_ulp, false));
          a.backend_config = absl::StrCat("{\"max_ulp_difference\":", max_ulp,
                                          ",\"min_ulp_difference\":", min_ulp, "}");
        } else {
          std::string tolerance = "0.001";
          if (const AttrValue* t = Find(*op, {"tolerance"}); t != nullptr) {
            if (t->kind == Kind::kFloat) {
              tolerance = absl::StrCat(t->f);
            } else if (t->kind == Kind::kInt) {
              tolerance = absl::StrCat(t->i);
            } else {
              return Error(t->offset, "expected a number");
            }
          }
          a.backend_config = absl::StrCat("{\"tolerance\":", tolerance, "}");
        }
      }
    }
    if (nresults == 0) return absl::OkStatus();
    return finish(instr);
  }
  if (name == "all_reduce" || name == "all_gather" || name == "reduce_scatter" ||
      name == "collective_permute" || name == "all_to_all") {
    HloOpcode opcode = name == "all_reduce"       ? HloOpcode::kAllReduce
                       : name == "all_gather"     ? HloOpcode::kAllGather
                       : name == "reduce_scatter" ? HloOpcode::kReduceScatter
                       : name == "all_to_all"     ? HloOpcode::kAllToAll
                                                  : HloOpcode::kCollectivePermute;
    HloInstruction* instr = emit(opcode);
    OpAttributes& a = instr->mutable_attrs();
    if (const AttrValue* g = Find(*op, {"replica_groups"}); g != nullptr) {
      if (g->kind != Kind::kDense || g->dense->shape().rank() != 2) {
        return Error(g->offset, "replica_groups must be a 2-d dense value");
      }
      std::vector<int64_t> flat;
      HLOVM_RETURN_IF_ERROR(IntsOf(*g, &flat).ok() ? absl::OkStatus()
                                                  : Error(g->offset, "expected integers"));
      ReplicaGroups groups;
      const int64_t cols = g->dense->shape().dimensions(1);
      for (int64_t r = 0; r < g->dense->shape().dimensions(0); ++r) {
        std::vector<int64_t> group;
        for (int64_t c = 0; c < cols; ++c) {
          if (flat[r * cols + c] >= 0) group.push_back(flat[r * cols + c]);  // -1 pads
        }
        groups.groups.push_back(std::move(group));
      }
      a.replica_groups.emplace(std::move(groups));
    }
    if (const AttrValue* c = Find(*op, {"channel_handle"}); c != nullptr) {
      const AttrValue* h = c->kind == Kind::kStruct ? Field(*c, "handle") : nullptr;
      if (h == nullptr || h->kind != Kind::kInt) return Error(c->offset, "expected a channel handle");
      if (h->i > 0) a.channel_id = h->i;
    }
    HLOVM_RETURN_IF_ERROR(bool_attr({"use_global_device_ids"}, &a.use_global_device_ids));
    if (name == "all_gather") {
      int64_t d = 0;
      HLOVM_RETURN_IF_ERROR(int_attr({"all_gather_dim"}, &d, true));
      instr->dimensions = {d};
    } else if (name == "reduce_scatter") {
      int64_t d = 0;
      HLOVM_RETURN_IF_ERROR(int_attr({"scatter_dimension"}, &d, true));
      instr->dimensions = {d};
    } else if (name == "all_to_all") {
      int64_t split = 0, concat = 0;
      HLOVM_RETURN_IF_ERROR(int_attr({"split_dimension"}, &split, true));
      HLOVM_RETURN_IF_ERROR(int_attr({"concat_dimension"}, &concat, true));
      if (split != concat) {
        return Error(at, "all_to_all with different split and concat dimensions is not supported");
      }
      instr->dimensions = {split};
      a.split_dimension = split;
    } else if (name == "collective_permute") {
      std::vector<int64_t> pairs;
      HLOVM_RETURN_IF_ERROR(ints({"source_target_pairs"}, &pairs, true));
      if (pairs.size() % 2 != 0) return Error(at, "source_target_pairs must be pairs");
      for (size_t i = 0; i < pairs.size(); i += 2) a.source_target_pairs.push_back({pairs[i], pairs[i + 1]});
    }
    if (name == "all_reduce" || name == "reduce_scatter") {
      HLOVM_RETURN_IF_ERROR(want_regions(1));
      instr->AppendCalledComputation(op->regions[0]);
    }
    return finish(instr);
  }
  if (name == "batch_norm_inference" || name == "batch_norm_training" || name == "batch_norm_grad") {
    HloInstruction* instr = emit(name == "batch_norm_inference" ? HloOpcode::kBatchNormInference
                                 : name == "batch_norm_training" ? HloOpcode::kBatchNormTraining
                                                                 : HloOpcode::kBatchNormGrad);
    OpAttributes& a = instr->mutable_attrs();
    const AttrValue* e = Find(*op, {"epsilon"});
    if (e == nullptr || e->kind != Kind::kFloat) return Error(at, "batch norm needs a float epsilon");
    a.epsilon = static_cast<float>(e->f);
    HLOVM_RETURN_IF_ERROR(int_attr({"feature_index"}, &a.feature_index, true));
    return finish(instr);
  }
  if (name == "uniform_quantize" || name == "uniform_dequantize") {
    return Error(at, absl::StrCat("quantized op '", op->name, "' is not supported"));
  }
  if ((name.substr(0, 8) == "dynamic_" && name != "dynamic_update_slice") ||
      name == "real_dynamic_slice" ||
      name == "get_dimension_size" || name == "set_dimension_size") {
    return Error(at, absl::StrCat("dynamic-shape op '", op->name, "' is not supported"));
  }
  // The rest map one to one onto HLO opcodes of the same name.
  std::string hlo_name(name);
  std::replace(hlo_name.begin(), hlo_name.end(), '_', '-');
  std::optional<HloOpcode> opcode = HloOpcodeFromName(hlo_name);
  if (opcode.has_value() && IsPlainOpcode(*opcode) && op->regions.empty()) {
    HloInstruction* instr = emit(*opcode);
    return finish(instr);
  }
  return Error(at, absl::StrCat("unsupported operation '", op->name, "'"));
}

}  // namespace stablehlo_internal
}  // namespace hlovm
