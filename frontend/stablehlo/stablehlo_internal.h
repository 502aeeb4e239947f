// Internal to frontend/stablehlo/: the StableHLO MLIR parser.
//
//   stablehlo_parser.cc  lexing, types, attributes, `dense<...>` literals,
//                        the module, functions, regions and statements
//   stablehlo_ops.cc     each op, read in its pretty or generic form, turned
//                        into HLO instructions
//
// The parser builds HLO while it reads: a function or region becomes a
// computation as soon as its body is read, and an op becomes its HLO
// instruction(s) once its operands, attributes, regions and types are known.
#ifndef HLOVM_FRONTEND_STABLEHLO_STABLEHLO_INTERNAL_H_
#define HLOVM_FRONTEND_STABLEHLO_STABLEHLO_INTERNAL_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/hlo_ir.h"
#include "core/literal.h"
#include "core/shape.h"
#include "frontend/parser.h"

namespace hlovm {
namespace stablehlo_internal {

// One attribute value, of any of the forms MLIR text has. Struct-like
// `#stablehlo.gather<k = v, ...>` values and dictionaries keep their fields
// in order; `#stablehlo<comparison_direction LT>` is the identifier `LT`.
struct AttrValue {
  // Declared here and defaulted below, where AttrValue is complete: `fields`
  // holds pairs of it, which clang's library instantiates eagerly.
  AttrValue();
  AttrValue(const AttrValue&);
  AttrValue(AttrValue&&) noexcept;
  AttrValue& operator=(const AttrValue&);
  AttrValue& operator=(AttrValue&&) noexcept;
  ~AttrValue();

  enum class Kind : uint8_t {
    kUnit,    // a name without `= value`
    kInt,     // 3, 3 : i64, 0x1F
    kFloat,   // 1.5 : f32
    kBool,    // true, false
    kString,  // "text" (unescaped)
    kSymbol,  // @name
    kIdent,   // LT, THREE_FRY, e11m52, #stablehlo<precision DEFAULT>
    kList,    // [a, b], array<i64: 1, 2>
    kPair,    // [0] x [1] (dot_general's pretty dimension pairs): list[0], list[1]
    kStruct,  // #stablehlo.gather<...>, {k = v}: fields
    kDense,   // dense<...> : tensor<...>
    kType,    // a type used as a value
    kConv,    // [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]
    kSlice,   // [0:2, 1:3:2] (slice's pretty form)
    kOther,   // a form read past without a meaning here (#loc, affine maps)
  };
  Kind kind = Kind::kUnit;
  int64_t i = 0;
  double f = 0;
  bool b = false;
  std::string s;
  std::vector<AttrValue> list;
  std::vector<std::pair<std::string, AttrValue>> fields;
  std::shared_ptr<Literal> dense;
  std::shared_ptr<Shape> type;
  std::shared_ptr<ConvolutionDimensionNumbers> conv;
  std::shared_ptr<SliceAttr> slice;
  size_t offset = 0;
};
inline AttrValue::AttrValue() = default;
inline AttrValue::AttrValue(const AttrValue&) = default;
inline AttrValue::AttrValue(AttrValue&&) noexcept = default;
inline AttrValue& AttrValue::operator=(const AttrValue&) = default;
inline AttrValue& AttrValue::operator=(AttrValue&&) noexcept = default;
inline AttrValue::~AttrValue() = default;
using AttrList = std::vector<std::pair<std::string, AttrValue>>;

// Values visible in one function or region body, by name (without `%`).
struct Scope;

// The values a while, if or case region reads from outside it: they are
// handed in as extra tuple elements (while) or as the branch operand (if,
// case), since HLO computations see nothing but their parameters.
struct Captures {
  std::vector<HloInstruction*> outer;  // the values, in the enclosing scope
};

struct Scope {
  Scope* parent = nullptr;
  HloComputation* computation = nullptr;
  absl::flat_hash_map<std::string, std::vector<HloInstruction*>> values;
  // Outer values already brought into this computation.
  absl::flat_hash_map<HloInstruction*, HloInstruction*> imported;
  // Set for regions that may read outer values through a tuple parameter:
  // element `first_capture + k` of `tuple_param` is captures->outer[k].
  Captures* captures = nullptr;
  HloInstruction* tuple_param = nullptr;
  int64_t first_capture = 0;
};

// How a region's block arguments become parameters.
enum class RegionKind : uint8_t {
  kFlat,      // one parameter per argument (reduce, sort, scatter, ...)
  kTuple,     // one tuple parameter; arguments and captures are its elements (while body)
  kTupleCond, // as kTuple, for a while condition (its root is the predicate alone)
  kCaptures,  // no arguments; the parameter is the tuple of captures (if, case)
};

// One op as read, before it becomes HLO.
struct Op {
  std::string name;  // "stablehlo.add", "chlo.top_k", "func.call", ...
  size_t offset = 0;
  std::vector<HloInstruction*> operands;
  AttrList attrs;
  std::vector<HloComputation*> regions;
  // Per region of a while (one shared by both), if or case: the outer
  // values it reads.
  std::vector<std::unique_ptr<Captures>> region_captures;
  std::vector<Shape> operand_types;
  std::vector<Shape> result_types;
  std::string callee;  // func.call / custom_call target
};

class Parser {
 public:
  Parser(std::string_view text, const ParseOptions& options);
  absl::StatusOr<std::unique_ptr<HloModule>> Run();

 private:
  struct ValueRef {
    std::string_view name;
    int64_t index = -1;  // %name#index
    size_t offset = 0;
  };

  //===--- Lexing (stablehlo_parser.cc) -------------------------------===//
  void Skip();
  char Peek();
  char PeekAt(size_t p) const { return p < n_ ? s_[p] : '\0'; }
  bool Eat(char c);
  bool EatStr(std::string_view str);
  bool EatWord(std::string_view word);
  bool PeekWord(std::string_view word);
  std::string_view LexBareId();
  absl::Status Expect(char c, std::string_view what);
  absl::Status ExpectWord(std::string_view word);
  absl::Status ParseInt(int64_t* out);
  absl::Status ParseString(std::string* out);
  absl::Status ParseSymbol(std::string* out);

  //===--- Errors -----------------------------------------------------===//
  std::string FormatAt(size_t offset, std::string_view message) const;
  // The line and column of `offset` (offsets mostly increase: each call
  // scans on from the last one).
  SourceLocation Locate(size_t offset);
  // Gives the instructions from `first` on in `computation` the location
  // of their op, and names their called computations as HLO text does.
  void MarkOp(HloComputation* computation, int64_t first, size_t offset);
  absl::Status Error(size_t offset, std::string_view message) const;
  absl::Status ErrorHere(std::string_view message);

  //===--- Types ------------------------------------------------------===//
  absl::Status ParseType(Shape* out);
  absl::Status ParseElementType(ElementType* out);
  absl::Status ParseTensorType(Shape* out);
  // `(T, ...)` or a single type.
  absl::Status ParseTypeList(std::vector<Shape>* out);
  // After `:` of an op: `T`, `T, T`, `(T, T) -> R`, `T -> R`. `ins` gets the
  // operand types of a functional type, else the plain list.
  absl::Status ParseOpTypes(std::vector<Shape>* ins, std::vector<Shape>* outs, bool* functional);

  //===--- Attributes -------------------------------------------------===//
  absl::Status ParseAttrValue(AttrValue* out);
  absl::Status ParseHashAttr(AttrValue* out);
  absl::Status ParseAttrDict(AttrList* out, char close = '}');
  absl::Status ParseDense(AttrValue* out);
  absl::Status ParseConvDims(ConvolutionDimensionNumbers* out);
  absl::Status SkipBalanced(char open, char close);
  absl::Status SkipLoc();

  //===--- Structure --------------------------------------------------===//
  absl::Status ParseModuleBody(bool braced);
  absl::Status ParseFunc();
  // Statements up to the closing '}' of a block; `returned` gets the
  // terminator's operands.
  absl::Status ParseBlock(Scope* scope, std::vector<HloInstruction*>* returned);
  absl::Status ParseStatement(Scope* scope, bool* terminated, std::vector<HloInstruction*>* returned);
  // `{ [^bb0(args):] statements }`. `implicit_args` names the arguments of a
  // region written without a block header (the pretty while's iterArgs).
  absl::Status ParseRegion(Scope* outer, RegionKind kind,
                           const std::vector<std::pair<std::string, Shape>>* implicit_args,
                           Captures* captures, HloComputation** out);
  absl::Status ParseValueRef(ValueRef* out);
  absl::Status ParseOperandList(Scope* scope, std::vector<HloInstruction*>* out);
  absl::StatusOr<HloInstruction*> Resolve(Scope* scope, const ValueRef& ref);
  absl::StatusOr<HloInstruction*> Import(Scope* scope, HloInstruction* outer, const ValueRef& ref);
  HloComputation* NewComputation(std::string_view base);
  HloComputation* FunctionComputation(std::string_view name);

  //===--- Ops (stablehlo_ops.cc) -------------------------------------===//
  absl::Status ParseGenericOp(Scope* scope, Op* op);
  absl::Status ParsePrettyOp(Scope* scope, std::string_view name, Op* op);
  absl::Status ParsePrettyCommon(Scope* scope, Op* op);
  absl::Status ParsePrettyReduce(Scope* scope, Op* op);
  absl::Status ParsePrettyWhile(Scope* scope, Op* op);
  absl::Status ParsePrettyConvolution(Scope* scope, Op* op);
  absl::Status ParseTrailer(Op* op);
  RegionKind RegionKindOf(std::string_view op_name) const;
  // An error naming an unknown dialect or an op this frontend does not read.
  absl::Status CheckKnownOp(std::string_view full_name, size_t offset) const;
  absl::Status Lower(Scope* scope, Op* op, std::vector<HloInstruction*>* results);
  // The chlo ops lowered to XLA's elementwise decompositions
  // (chlo_decompositions.cc): erfc, erf_inv, lgamma, digamma, ...
  static bool IsDecomposedChloOp(std::string_view name);
  absl::Status LowerChlo(Scope* scope, Op* op, std::vector<HloInstruction*>* results);

  HloInstruction* Emit(Scope* scope, HloOpcode opcode, Shape shape,
                       const std::vector<HloInstruction*>& operands);
  HloInstruction* EmitParameter(Scope* scope, int64_t number, Shape shape);
  HloInstruction* EmitTuple(Scope* scope, const std::vector<HloInstruction*>& elements);
  HloInstruction* EmitGte(Scope* scope, HloInstruction* tuple, int64_t index);
  // Tuple results unpacked (several results) or the instruction itself.
  void Unpack(Scope* scope, HloInstruction* instr, size_t count,
              std::vector<HloInstruction*>* results);

  std::string_view s_;
  size_t n_;
  size_t pos_ = 0;
  const ParseOptions& options_;
  int depth_ = 0;
  size_t loc_offset_ = 0;
  int loc_line_ = 1;
  size_t loc_line_start_ = 0;
  std::unique_ptr<HloModule> module_;
  int64_t next_id_ = 0;
  absl::flat_hash_map<std::string, HloComputation*> functions_;
  absl::flat_hash_map<std::string, size_t> function_defined_;  // name -> offset of definition
  absl::flat_hash_map<std::string, size_t> function_used_;     // name -> offset of first call
  std::vector<std::pair<std::string, bool>> function_order_;   // name, public
  absl::flat_hash_map<std::string, int64_t> computation_names_;

 public:
  class DepthGuard {
   public:
    explicit DepthGuard(Parser* p) : p_(p) { ++p_->depth_; }
    ~DepthGuard() { --p_->depth_; }
    bool exceeded() const { return p_->depth_ > p_->options_.max_recursion_depth; }

   private:
    Parser* p_;
  };
};

inline std::string Sv(std::string_view s) { return std::string(s); }
inline std::string Msg(const absl::Status& status) {
  absl::string_view m = status.message();
  return std::string(m.data(), m.size());
}

// Shape with the default row-major layout on every array (recursively).
Shape WithDefaultLayout(Shape shape);

}  // namespace stablehlo_internal
}  // namespace hlovm

#endif  // HLOVM_FRONTEND_STABLEHLO_STABLEHLO_INTERNAL_H_
