#include "frontend/verifier.h"

#include <memory>
#include <string>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "frontend/parser.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hlovm {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::unique_ptr<HloModule> Parse(std::string_view text) {
  ParseOptions options;
  options.file_name = "test.hlo";
  options.keep_source = true;
  absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(text, options);
  EXPECT_TRUE(m.ok()) << m.status();
  return m.ok() ? std::move(*m) : nullptr;
}

// Verifies `text`, which must parse; returns the verifier's message ("" if OK).
std::string VerifyText(std::string_view text, const VerifyOptions& options = {}) {
  std::unique_ptr<HloModule> m = Parse(text);
  if (m == nullptr) return "<parse error>";
  absl::Status s = VerifyModule(*m, options);
  if (!s.ok()) {
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  }
  return std::string(s.message());
}

TEST(VerifierTest, ValidModule) {
  EXPECT_EQ(VerifyText(R"(
HloModule m, entry_computation_layout={(f32[2,3]{1,0}, f32[3]{0})->f32[2]{0}}

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY main {
  x = f32[2,3]{1,0} parameter(0)
  y = f32[3]{0} parameter(1)
  by = f32[2,3]{1,0} broadcast(y), dimensions={1}
  m = f32[2,3]{1,0} multiply(x, by)
  zero = f32[] constant(0)
  ROOT r = f32[2]{0} reduce(m, zero), dimensions={1}, to_apply=add
}
)"),
            "");
}

// Two computations that both name an instruction `a` and `s`.
constexpr std::string_view kRepeatedNames = R"(
HloModule m

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY main {
  a = f32[4] parameter(0)
  zero = f32[] constant(0)
  s = f32[] reduce(a, zero), dimensions={0}, to_apply=add
  ROOT t = f32[] negate(s)
}
)";

TEST(VerifierTest, NamesMayRepeatAcrossComputationsAndTheirKeysSayWhich) {
  std::unique_ptr<HloModule> m = Parse(kRepeatedNames);
  ASSERT_NE(m, nullptr);
  ModuleNameKeys keys;
  VerifyOptions options;
  options.name_keys = &keys;
  EXPECT_TRUE(VerifyModule(*m, options).ok());
  for (std::string_view name : {"add", "main", "a", "b", "s", "zero", "t"}) {
    EXPECT_TRUE(keys.seen.contains(ModuleNameKeys::Key(name))) << name;
  }
  EXPECT_EQ(keys.repeated.size(), 2u);
  EXPECT_TRUE(keys.repeated.contains(ModuleNameKeys::Key("a")));
  EXPECT_TRUE(keys.repeated.contains(ModuleNameKeys::Key("s")));
}

TEST(VerifierTest, ANameRepeatedWithinAComputationIsAnError) {
  std::unique_ptr<HloModule> m = Parse(kRepeatedNames);
  ASSERT_NE(m, nullptr);
  // `t` becomes a second `zero` of main, after `a`, a name the reducer has
  // too, made main's names be looked at one by one; then `b`, which only
  // the reducer had.
  HloComputation* entry = m->entry();
  const auto& list = entry->instructions();
  list.back()->set_name("zero");
  list[list.size() - 2]->set_name("b");
  ModuleNameKeys keys;
  VerifyOptions options;
  options.name_keys = &keys;
  const absl::Status s = VerifyModule(*m, options);
  EXPECT_THAT(s.message(), HasSubstr("instruction name zero is not unique in computation main"));
  EXPECT_THAT(s.message(), Not(HasSubstr("name b is not unique")));
  EXPECT_THAT(s.message(), Not(HasSubstr("name a is not unique")));
  EXPECT_TRUE(keys.seen.empty());  // only a valid module's names are given
}

TEST(VerifierTest, ShapeMismatchIsLocatedAndShowsBothShapes) {
  const std::string msg = VerifyText(R"(HloModule m

ENTRY main {
  x = f32[2,3] parameter(0)
  ROOT t = f32[2,3] transpose(x), dimensions={1,0}
}
)");
  EXPECT_THAT(msg, HasSubstr("test.hlo:5:8: error: %t (transpose): inferred shape f32[3,2] does "
                             "not match the declared shape f32[2,3]"));
  // The source line and a caret under the instruction's name.
  EXPECT_THAT(msg, HasSubstr("\n  ROOT t = f32[2,3] transpose(x), dimensions={1,0}\n       ^"));
}

TEST(VerifierTest, BroadcastKeepsOperandSizes) {
  const char* text = R"(HloModule m
ENTRY main {
  a = f32[2,1] parameter(0)
  ROOT b = f32[2,5] broadcast(a), dimensions={0,1}
})";
  const std::string msg = VerifyText(text);
  EXPECT_THAT(msg, HasSubstr("test.hlo:4:8: error: %b (broadcast): operand dimension 1 (size 1) "
                             "maps to result dimension 1 (size 5)"));
  EXPECT_THAT(msg, HasSubstr("\n  ROOT b = f32[2,5] broadcast(a), dimensions={0,1}\n       ^"));
}

// One mistake, one error: users of a reported instruction, and callers of a
// computation with an error, are not checked against them.
TEST(VerifierTest, NoFollowOnErrors) {
  const std::string users = VerifyText(R"(HloModule m
ENTRY main {
  a = f32[2,3] parameter(0)
  n = f32[23] negate(a)
  ROOT e = f32[2,3] exponential(n)
})");
  EXPECT_THAT(users, HasSubstr("%n (negate)"));
  EXPECT_THAT(users, Not(HasSubstr("%e (exponential)")));
  const std::string callers = VerifyText(R"(HloModule m
sum {
  a = f32[] parameter(0)
  b = f32[] parameter(3)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[4] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[] reduce(x, z), dimensions={0}, to_apply=sum
})");
  EXPECT_THAT(callers, HasSubstr("parameter number 3 is out of range"));
  EXPECT_THAT(callers, Not(HasSubstr("%r (reduce)")));
}

TEST(VerifierTest, MixedPrecisionOperandsAreRefusedUnlessAllowed) {
  const char* text = R"(HloModule m
ENTRY main {
  p = pred[2] parameter(0)
  a = f32[2] parameter(1)
  b = bf16[2] parameter(2)
  ROOT s = f32[2] select(p, a, b)
})";
  EXPECT_THAT(VerifyText(text),
              HasSubstr("test.hlo:6:8: error: %s (select): operands mix the floating-point types "
                        "f32 and bf16"));
  VerifyOptions xla_tests;
  xla_tests.allow_mixed_precision = true;
  EXPECT_EQ(VerifyText(text, xla_tests), "");
  // A result declared in another precision than its operands.
  EXPECT_THAT(VerifyText(R"(HloModule m
ENTRY main {
  a = bf16[2] parameter(0)
  ROOT n = f32[2] negate(a)
})"),
              HasSubstr("%n (negate): inferred shape bf16[2] does not match the declared shape "
                        "f32[2]"));
  // Contractions and converts take mixed types.
  EXPECT_EQ(VerifyText(R"(HloModule m
ENTRY main {
  a = bf16[2,2] parameter(0)
  b = f32[2,2] parameter(1)
  d = f32[2,2] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT c = f32[2,2] convert(a)
})"),
            "");
}

TEST(VerifierTest, LayoutOnlyDifferencesAreAccepted) {
  const char* text = R"(HloModule m

ENTRY main {
  x = f32[2,3]{1,0} parameter(0)
  ROOT c = f32[2,3]{0,1} copy(x)
}
)";
  EXPECT_EQ(VerifyText(text), "");
  VerifyOptions sensitive;
  sensitive.layout_sensitive = true;
  EXPECT_THAT(VerifyText(text, sensitive), HasSubstr("f32[2,3]{1,0} does not match the declared "
                                                     "shape f32[2,3]{0,1}"));
}

TEST(VerifierTest, SeveralErrorsAreAllReportedUpToTheLimit) {
  const char* text = R"(HloModule m

ENTRY main {
  x = f32[2] parameter(0)
  i = s32[2] parameter(1)
  a = s32[2] negate(x)
  b = f32[3] exponential(x)
  ROOT c = s32[2] floor(i)
}
)";
  const std::string msg = VerifyText(text);
  EXPECT_THAT(msg, HasSubstr("test.hlo:6:3: error: %a (negate)"));
  EXPECT_THAT(msg, HasSubstr("test.hlo:7:3: error: %b (exponential)"));
  EXPECT_THAT(msg, HasSubstr("test.hlo:8:8: error: %c (floor): Expected element type in shape to "
                             "be floating for floor operation; got s32."));
  VerifyOptions one;
  one.max_errors = 1;
  const std::string limited = VerifyText(text, one);
  EXPECT_THAT(limited, HasSubstr("%a (negate)"));
  EXPECT_THAT(limited, Not(HasSubstr("%b (exponential)")));
  EXPECT_THAT(limited, HasSubstr("2 more error(s) not shown"));
}

TEST(VerifierTest, ReducerSignature) {
  EXPECT_THAT(VerifyText(R"(HloModule m

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = pred[] compare(a, b), direction=LT
}

ENTRY main {
  x = f32[4] parameter(0)
  zero = f32[] constant(0)
  ROOT r = f32[] reduce(x, zero), dimensions={0}, to_apply=add
}
)"),
              HasSubstr("%r (reduce): Reduction function's 0-th parameter shape differs from "
                        "the result shape: f32[] vs pred[]"));
}

TEST(VerifierTest, SortComparatorMustReturnPred) {
  EXPECT_THAT(VerifyText(R"(HloModule m

cmp {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY main {
  x = f32[4] parameter(0)
  ROOT r = f32[4] sort(x), dimensions={0}, to_apply=cmp
}
)"),
              HasSubstr("does not lead to a scalar predicate shape: f32[]"));
}

TEST(VerifierTest, WhileBodyMustKeepTheShape) {
  EXPECT_THAT(VerifyText(R"(HloModule m

cond {
  p = s32[] parameter(0)
  ROOT lt = pred[] compare(p, p), direction=LT
}

body {
  p = s32[] parameter(0)
  ROOT c = f32[] convert(p)
}

ENTRY main {
  i = s32[] constant(0)
  ROOT w = s32[] while(i), condition=cond, body=body
}
)"),
              HasSubstr("%w (while): The parameter of condition and body, the result of the "
                        "body, and init must all have the same shape"));
}

TEST(VerifierTest, ConditionalBranches) {
  EXPECT_THAT(VerifyText(R"(HloModule m

b0 {
  p = f32[] parameter(0)
  ROOT n = f32[] negate(p)
}

b1 {
  p = f32[] parameter(0)
  ROOT n = s32[] convert(p)
}

ENTRY main {
  i = s32[] parameter(0)
  x = f32[] parameter(1)
  ROOT c = f32[] conditional(i, x, x), branch_computations={b0, b1}
}
)"),
              HasSubstr("the result of branch 0 computation and branch 1 computation must "
                        "have the same shape"));
}

TEST(VerifierTest, ParameterNumbersMustBeDense) {
  EXPECT_THAT(VerifyText(R"(HloModule m

ENTRY main {
  x = f32[] parameter(0)
  y = f32[] parameter(2)
  ROOT a = f32[] add(x, y)
}
)"),
              HasSubstr("test.hlo:5:3: error: %y (parameter): parameter number 2 is out of "
                        "range: computation main has 2 parameters"));
}

TEST(VerifierTest, EntryComputationLayoutMustAgree) {
  EXPECT_THAT(VerifyText(R"(HloModule m, entry_computation_layout={(f32[3]{0})->f32[3]{0}}

ENTRY main {
  x = f32[2] parameter(0)
  ROOT n = f32[2] negate(x)
}
)"),
              HasSubstr("entry_computation_layout gives parameter 0 the shape f32[3] but the "
                        "parameter is declared f32[2]"));
}

TEST(VerifierTest, DimensionsInRange) {
  EXPECT_THAT(VerifyText(R"(HloModule m

ENTRY main {
  x = f32[2,3] parameter(0)
  ROOT r = f32[2,3] reverse(x), dimensions={2}
}
)"),
              HasSubstr("%r (reverse): One of the reverse dimensions (2) is out-of-bounds"));
  EXPECT_THAT(VerifyText(R"(HloModule m

ENTRY main {
  x = f32[2,3] parameter(0)
  y = f32[2,3] parameter(1)
  ROOT c = f32[4,3] concatenate(x, y), dimensions={3}
}
)"),
              HasSubstr("Concatenate dimension out of bounds: 3."));
}

TEST(VerifierTest, CollectivesUseTheReplicaCount) {
  const char* text = R"(HloModule m

ENTRY main {
  x = f32[4,8] parameter(0)
  ROOT ag = f32[16,8] all-gather(x), replica_groups={}, dimensions={0}
}
)";
  VerifyOptions four;
  four.replica_count = 4;
  EXPECT_EQ(VerifyText(text, four), "");
  VerifyOptions two;
  two.replica_count = 2;
  EXPECT_THAT(VerifyText(text, two),
              HasSubstr("the shape implies 4 shards along dimension 0 but the replica group "
                        "size is 2"));
}

TEST(VerifierTest, ReplicaGroupsMustCoverTheReplicas) {
  const char* text = R"(HloModule m

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY main {
  x = f32[4] parameter(0)
  ROOT r = f32[4] all-reduce(x), replica_groups={{0,1},{2,3}}, to_apply=add
}
)";
  VerifyOptions four;
  four.replica_count = 4;
  EXPECT_EQ(VerifyText(text, four), "");
  VerifyOptions eight;
  eight.replica_count = 8;
  EXPECT_THAT(VerifyText(text, eight),
              HasSubstr("%r (all-reduce): replica_groups should contain 8 participants"));
}

TEST(VerifierTest, AsyncPairs) {
  EXPECT_EQ(VerifyText(R"(HloModule m

wrapped {
  p = f32[4] parameter(0)
  ROOT n = f32[4] negate(p)
}

ENTRY main {
  x = f32[4] parameter(0)
  s = ((f32[4]), f32[4], s32[]) async-start(x), calls=wrapped
  ROOT d = f32[4] async-done(s)
}
)"),
            "");
  EXPECT_THAT(VerifyText(R"(HloModule m

wrapped {
  p = f32[4] parameter(0)
  ROOT n = f32[4] negate(p)
}

ENTRY main {
  x = f32[4] parameter(0)
  s = ((f32[4]), f32[5], s32[]) async-start(x), calls=wrapped
  ROOT d = f32[5] async-done(s)
}
)"),
              HasSubstr("%s (async-start): inferred shape ((f32[4]), f32[4], s32[]) does not "
                        "match the declared shape ((f32[4]), f32[5], s32[])"));
}

TEST(VerifierTest, FusionResultIsTheFusedRoot) {
  EXPECT_THAT(VerifyText(R"(HloModule m

fused {
  p = f32[4] parameter(0)
  ROOT e = f32[4] exponential(p)
}

ENTRY main {
  x = f32[4] parameter(0)
  ROOT f = f32[8] fusion(x), kind=kLoop, calls=fused
}
)"),
              HasSubstr("%f (fusion): inferred shape f32[4] does not match the declared shape "
                        "f32[8]"));
}

// Problems the parser does not let through are built directly in the IR.
TEST(VerifierTest, RecursionAndCyclesInIr) {
  auto module = std::make_unique<HloModule>("m");
  auto body = std::make_unique<HloComputation>("f");
  HloInstruction* p = body->AddInstruction(
      std::make_unique<HloInstruction>(HloOpcode::kParameter, "p", Shape(ElementType::kF32, {})));
  HloInstruction* call = body->AddInstruction(
      std::make_unique<HloInstruction>(HloOpcode::kCall, "c", Shape(ElementType::kF32, {})));
  call->AppendOperand(p);
  body->set_root(call);
  HloComputation* f = module->AddComputation(std::move(body));
  call->AppendCalledComputation(f);  // f calls itself

  auto entry = std::make_unique<HloComputation>("main");
  HloInstruction* a = entry->AddInstruction(
      std::make_unique<HloInstruction>(HloOpcode::kNegate, "a", Shape(ElementType::kF32, {})));
  HloInstruction* b = entry->AddInstruction(
      std::make_unique<HloInstruction>(HloOpcode::kNegate, "b", Shape(ElementType::kF32, {})));
  a->AppendOperand(b);
  b->AppendOperand(a);  // a <-> b
  entry->set_root(b);
  entry->set_is_entry(true);
  module->set_entry(module->AddComputation(std::move(entry)));

  absl::Status s = VerifyModule(*module);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()), HasSubstr("calls itself (recursion is not allowed)"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("is part of a cycle in computation main"));
}

TEST(VerifierTest, OperandCountFromTheOpcodeTable) {
  auto module = std::make_unique<HloModule>("m");
  auto entry = std::make_unique<HloComputation>("main");
  HloInstruction* x = entry->AddInstruction(
      std::make_unique<HloInstruction>(HloOpcode::kParameter, "x", Shape(ElementType::kF32, {})));
  HloInstruction* add = entry->AddInstruction(
      std::make_unique<HloInstruction>(HloOpcode::kAdd, "sum", Shape(ElementType::kF32, {})));
  add->AppendOperand(x);
  add->AppendOperand(x);
  add->AppendOperand(x);
  entry->set_root(add);
  module->set_entry(module->AddComputation(std::move(entry)));
  absl::Status s = VerifyModule(*module);
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("error: %sum (add): add takes 2 operands, got 3."));
}

TEST(VerifierTest, MissingRootAndEntry) {
  HloModule empty("m");
  EXPECT_THAT(std::string(VerifyModule(empty).message()), HasSubstr("has no entry computation"));
  HloModule m("m");
  auto c = std::make_unique<HloComputation>("main");
  c->AddInstruction(
      std::make_unique<HloInstruction>(HloOpcode::kParameter, "x", Shape(ElementType::kF32, {})));
  m.set_entry(m.AddComputation(std::move(c)));
  EXPECT_THAT(std::string(VerifyModule(m).message()),
              HasSubstr("computation main has no ROOT instruction"));
}

// Every opcode in the table reaches a shape rule: with operands of some
// shape the answer is a shape or InvalidArgument, never "no shape rule".
TEST(VerifierTest, EveryOpcodeHasAShapeRule) {
  for (int i = 0; i < HloOpcodeCount(); ++i) {
    const HloOpcode op = static_cast<HloOpcode>(i);
    HloComputation c("c");
    const int arity = HloOpcodeArity(op) == kVariadic ? 1 : HloOpcodeArity(op);
    std::vector<HloInstruction*> operands;
    for (int k = 0; k < arity; ++k) {
      auto p = std::make_unique<HloInstruction>(HloOpcode::kParameter, absl::StrCat("p", k),
                                                Shape(ElementType::kF32, {2}));
      p->parameter_number = k;
      operands.push_back(c.AddInstruction(std::move(p)));
    }
    HloInstruction* instr = c.AddInstruction(
        std::make_unique<HloInstruction>(op, "x", Shape(ElementType::kF32, {2})));
    for (HloInstruction* o : operands) instr->AppendOperand(o);
    absl::StatusOr<Shape> s = InferInstructionShape(*instr);
    if (!s.ok()) {
      EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument)
          << HloOpcodeName(op) << ": " << s.status();
    }
  }
}

//===----------------------------------------------------------------------===//
// Hostile shapes: refused once, here, so that no plan can overflow.
//===----------------------------------------------------------------------===//

// A zero-size array whose other dimensions overflow int64: no elements, but
// every stride computed from it (slice, transpose, pad, reverse,
// dynamic-slice, broadcast, reduce, reduce-window, dot, sort, iota and
// printing) would overflow.
TEST(VerifierTest, ZeroSizeShapesWithHugeDimensionsAreRefused) {
  const std::string message = VerifyText(R"(HloModule m
ENTRY main {
  p = f32[0,4611686018427387904,4] parameter(0)
  ROOT t = f32[4,4611686018427387904,0] transpose(p), dimensions={2,1,0}
})");
  EXPECT_THAT(message, HasSubstr("test.hlo:3:3: error: %p (parameter): shape "
                                 "f32[0,4611686018427387904,4] has no elements, but its non-zero "
                                 "dimensions times its 4-byte element width exceed 2^63 - 1"));
  EXPECT_THAT(message, HasSubstr("test.hlo:4:8: error: %t (transpose): shape "
                                 "f32[4,4611686018427387904,0] has no elements"));
  // Zero-size arrays whose other dimensions fit are fine.
  EXPECT_EQ(VerifyText(R"(HloModule m
ENTRY main {
  p = f32[0,1000000000,4] parameter(0)
  ROOT t = f32[4,1000000000,0] transpose(p), dimensions={2,1,0}
})"),
            "");
  // Reductions, iota and sort of such shapes.
  EXPECT_THAT(VerifyText(R"(HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  z = f32[] constant(0)
  i = f32[4611686018427387904,0,4] iota(), iota_dimension=0
  ROOT r = f32[4611686018427387904,0] reduce(i, z), dimensions={2}, to_apply=add
})"),
              HasSubstr("test.hlo:9:3: error: %i (iota): shape f32[4611686018427387904,0,4] has "
                        "no elements"));
}

// Element counts beyond int64: broadcast, rng, pad and reshape results.
TEST(VerifierTest, ElementCountsBeyondInt64AreRefused) {
  EXPECT_THAT(VerifyText(R"(HloModule m
ENTRY main {
  p = f32[3] parameter(0)
  ROOT b = f32[3,4611686018427387904] broadcast(p), dimensions={0}
})"),
              HasSubstr("test.hlo:4:8: error: %b (broadcast): shape f32[3,4611686018427387904] "
                        "has more than 2^63 - 1 elements"));
  EXPECT_THAT(VerifyText(R"(HloModule m
ENTRY main {
  lo = f32[] constant(0)
  hi = f32[] constant(1)
  ROOT r = f32[3,4611686018427387904] rng(lo, hi), distribution=rng_uniform
})"),
              HasSubstr("test.hlo:5:8: error: %r (rng): shape f32[3,4611686018427387904] has "
                        "more than 2^63 - 1 elements"));
  EXPECT_THAT(VerifyText(R"(HloModule m
ENTRY main {
  p = f32[3,2] parameter(0)
  z = f32[] constant(0)
  ROOT q = f32[3,4611686018427387906] pad(p, z), padding=0_0x0_4611686018427387904
})"),
              HasSubstr("test.hlo:5:8: error: %q (pad): shape f32[3,4611686018427387906] has "
                        "more than 2^63 - 1 elements"));
  EXPECT_THAT(VerifyText(R"(HloModule m
ENTRY main {
  p = f32[6,4611686018427387904] parameter(0)
  ROOT r = f32[3,2,4611686018427387904] reshape(p)
})"),
              HasSubstr("test.hlo:3:3: error: %p (parameter): shape f32[6,4611686018427387904] "
                        "has more than 2^63 - 1 elements"));
  // Byte sizes: 2^61 elements of 4 bytes.
  EXPECT_THAT(VerifyText(R"(HloModule m
ENTRY main {
  p = f32[] parameter(0)
  ROOT b = f32[2305843009213693952] broadcast(p), dimensions={}
})"),
              HasSubstr("needs more than 2^63 - 1 bytes (4 per element)"));
  // In the entry computation's layout.
  EXPECT_THAT(VerifyText(R"(HloModule m, entry_computation_layout={(f32[3,4611686018427387904]{1,0})->f32[3]{0}}
ENTRY main {
  p = f32[3] parameter(0)
  ROOT n = f32[3] negate(p)
})"),
              HasSubstr("entry_computation_layout: parameter 0: shape f32[3,4611686018427387904] "
                        "has more than 2^63 - 1 elements"));
}

// `?` reaches no op hlovm runs: one message for every op, convolution and
// reduce-window included (their plans multiply the result's dimensions).
TEST(VerifierTest, UnboundedDynamicDimensionsAreRefused) {
  const std::string conv = VerifyText(R"(HloModule m
ENTRY main {
  a = f32[1,4,4,1] parameter(0)
  w = f32[2,2,1,1] parameter(1)
  ROOT c = f32[?,3,3,1] convolution(a, w), window={size=2x2}, dim_labels=b01f_01io->b01f
})");
  EXPECT_THAT(conv, HasSubstr("test.hlo:5:8: error: %c (convolution): shape f32[?,3,3,1] has an "
                              "unbounded dynamic dimension `?` (dimension 0); hlovm runs only "
                              "static and bounded (<=N) dimensions"));
  const std::string window = VerifyText(R"(HloModule m
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
ENTRY main {
  a = f32[4,4] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[3,?] reduce-window(a, z), window={size=2x2}, to_apply=add
})");
  EXPECT_THAT(window, HasSubstr("test.hlo:10:8: error: %r (reduce-window): shape f32[3,?] has an "
                                "unbounded dynamic dimension `?` (dimension 1)"));
  const std::string negate = VerifyText(R"(HloModule m
ENTRY main {
  a = f32[?] parameter(0)
  ROOT n = f32[?] negate(a)
})");
  EXPECT_THAT(negate, HasSubstr("%a (parameter): shape f32[?] has an unbounded dynamic dimension"));
  EXPECT_THAT(negate, HasSubstr("%n (negate): shape f32[?] has an unbounded dynamic dimension"));
  // Bounded dimensions are fine; XLA's rules for `?` stay available.
  EXPECT_EQ(VerifyText(R"(HloModule m
ENTRY main {
  a = f32[<=4] parameter(0)
  ROOT n = f32[<=4] negate(a)
})"),
            "");
  VerifyOptions xla;
  xla.allow_unbounded_dynamic = true;
  EXPECT_EQ(VerifyText(R"(HloModule m
ENTRY main {
  a = f32[?] parameter(0)
  ROOT n = f32[?] negate(a)
})",
                       xla),
            "");
}

constexpr char kOneConstant[] = R"(HloModule m
ENTRY main {
  ROOT c = f32[] constant(1)
})";

// Counts given to the verifier (by the command line, through the library)
// are checked as the header's are.
TEST(VerifierTest, InstanceCountsAreBounded) {
  VerifyOptions options;
  options.replica_count = 9223372036854775807;
  EXPECT_THAT(VerifyText(kOneConstant, options),
              HasSubstr("error: 9223372036854775807 replicas x 1 partitions are more than the "
                        "1024 instances"));
  options.replica_count = 4;
  options.num_partitions = 4611686018427387904;
  EXPECT_THAT(VerifyText(kOneConstant, options),
              HasSubstr("4 replicas x 4611686018427387904 partitions"));
  options.replica_count = -3;
  options.num_partitions = 1;
  EXPECT_THAT(VerifyText(kOneConstant, options),
              HasSubstr("replica_count must be at least 1, not -3"));
  // In the header: a parse error at the value.
  ParseOptions parse;
  parse.file_name = "test.hlo";
  absl::StatusOr<std::unique_ptr<HloModule>> m =
      ParseHloModule("HloModule m, replica_count=-3\nENTRY main {\n  ROOT c = f32[] constant(1)\n}",
                     parse);
  ASSERT_FALSE(m.ok());
  EXPECT_THAT(std::string(m.status().message()),
              HasSubstr("test.hlo:1:28: error: replica_count must be at least 1, not -3"));
}

// The REPL's inferred shapes pass the same check.
TEST(VerifierTest, InferredShapesAreValidated) {
  std::unique_ptr<HloModule> m = Parse(R"(HloModule m
ENTRY main {
  x = f32[1152921504606846976] parameter(0)
  ROOT c = f32[2305843009213693952] concatenate(x, x), dimensions={0}
})");
  ASSERT_NE(m, nullptr);
  absl::StatusOr<Shape> inferred = InferInstructionShape(*m->entry()->root());
  ASSERT_FALSE(inferred.ok());
  EXPECT_THAT(std::string(inferred.status().message()),
              HasSubstr("shape f32[2305843009213693952] needs more than 2^63 - 1 bytes"));
}

TEST(VerifierTest, InferInstructionShape) {
  std::unique_ptr<HloModule> m = Parse(R"(HloModule m

ENTRY main {
  x = f32[2,3] parameter(0)
  y = f32[2,3] parameter(1)
  d = f32[2,2] dot(x, y), lhs_contracting_dims={1}, rhs_contracting_dims={1}
  b = f32[4,2,3] broadcast(x), dimensions={1,2}
  ROOT t = (f32[2,2], f32[4,2,3]) tuple(d, b)
}
)");
  ASSERT_NE(m, nullptr);
  const HloComputation* entry = m->entry();
  absl::StatusOr<Shape> dot = InferInstructionShape(*entry->instructions()[2]);
  ASSERT_TRUE(dot.ok()) << dot.status();
  EXPECT_EQ(dot->ToString(false), "f32[2,2]");
  absl::StatusOr<Shape> tuple = InferInstructionShape(*entry->root());
  ASSERT_TRUE(tuple.ok()) << tuple.status();
  EXPECT_EQ(tuple->ToString(false), "(f32[2,2], f32[4,2,3])");
  absl::StatusOr<Shape> broadcast = InferInstructionShape(*entry->instructions()[3]);
  ASSERT_FALSE(broadcast.ok());
  EXPECT_THAT(std::string(broadcast.status().message()),
              HasSubstr("cannot be inferred from its operands"));
}

// FFT and IFFT accept any fft_length (the transform pads or truncates its
// input); RFFT and IRFFT must match the operand, zero-sized transforms
// keeping their zero-sized dimensions, as XLA's shape inference says.
TEST(VerifierTest, FftLengthsAsXla) {
  EXPECT_EQ(VerifyText(R"(HloModule m
ENTRY main {
  x = c64[2,3] parameter(0)
  a = c64[2,3] fft(x), fft_type=FFT, fft_length={5}
  b = c64[2,3] fft(a), fft_type=IFFT, fft_length={1,0}
  z = c64[2,1] parameter(1)
  i = f32[2,0] fft(z), fft_type=IRFFT, fft_length={0}
  ROOT t = (c64[2,3], f32[2,0]) tuple(b, i)
})"),
            "");
  EXPECT_THAT(VerifyText(R"(HloModule m
ENTRY main {
  x = f32[6] parameter(0)
  ROOT r = c64[3] fft(x), fft_type=RFFT, fft_length={4}
})"),
              HasSubstr("RFFT requires innermost dimensions match fft_length"));
  EXPECT_THAT(VerifyText(R"(HloModule m
ENTRY main {
  x = c64[2,3] parameter(0)
  ROOT r = f32[2,0] fft(x), fft_type=IRFFT, fft_length={0}
})"),
              HasSubstr("IRFFT requires innermost dimension"));
  // Accepted by XLA's shape inference but refused by its evaluator: nothing
  // runs a negative length, so the check refuses it.
  EXPECT_THAT(VerifyText(R"(HloModule m
ENTRY main {
  x = c64[3] parameter(0)
  ROOT r = c64[3] fft(x), fft_type=FFT, fft_length={-2}
})"),
              HasSubstr("non-negative fft_length"));
}

TEST(VerifierTest, CopyStartIsDestinationSourceAndContext) {
  EXPECT_EQ(VerifyText(R"(HloModule m
ENTRY main {
  x = f32[2,3] parameter(0)
  cs = (f32[2,3], f32[2,3], u32[]) copy-start(x)
  ROOT d = f32[2,3] copy-done(cs)
})"),
            "");
  EXPECT_THAT(VerifyText(R"(HloModule m
ENTRY main {
  x = f32[2,3] parameter(0)
  cs = (f32[2,3], f32[2,3]) copy-start(x)
  ROOT d = f32[2,3] copy-done(cs)
})"),
              HasSubstr("(f32[2,3], f32[2,3], u32[])"));
  EXPECT_THAT(VerifyText(R"(HloModule m
ENTRY main {
  x = f32[2,3] parameter(0)
  ROOT d = f32[2,3] copy-done(x)
})"),
              HasSubstr("copy-start"));
}

// Without window= the window has no dimensions: a scalar operand only.
TEST(VerifierTest, WindowlessReduceWindowIsRankZero) {
  const std::string kAdd = R"(HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
)";
  EXPECT_EQ(VerifyText(kAdd + R"(
ENTRY main {
  x = f32[] parameter(0)
  i = f32[] constant(0)
  ROOT r = f32[] reduce-window(x, i), to_apply=add
})"),
            "");
  EXPECT_THAT(VerifyText(kAdd + R"(
ENTRY main {
  x = f32[3] parameter(0)
  i = f32[] constant(0)
  ROOT r = f32[3] reduce-window(x, i), to_apply=add
})"),
              HasSubstr("Window has dimension 0 but base shape has dimension 1"));
}

// A scalar is sliced and updated without start indices.
TEST(VerifierTest, ScalarDynamicSlicesTakeNoIndices) {
  EXPECT_EQ(VerifyText(R"(HloModule m
ENTRY main {
  x = f32[] parameter(0)
  u = f32[] parameter(1)
  s = f32[] dynamic-slice(x), dynamic_slice_sizes={}
  ROOT r = f32[] dynamic-update-slice(s, u)
})"),
            "");
}

// The tuple form of all-to-all takes one operand per member of the group,
// all of one shape (XLA's verifier).
TEST(VerifierTest, TupleAllToAllTakesOneOperandPerGroupMember) {
  EXPECT_EQ(VerifyText(R"(HloModule m, replica_count=2
ENTRY main {
  a = f32[3] parameter(0)
  b = f32[3] parameter(1)
  ROOT r = (f32[3], f32[3]) all-to-all(a, b), replica_groups={}
})"),
            "");
  EXPECT_THAT(VerifyText(R"(HloModule m
ENTRY main {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = (f32[], f32[]) all-to-all(a, b), replica_groups={{0}}
})"),
              HasSubstr("one operand per member of its group (1), got 2"));
  EXPECT_THAT(VerifyText(R"(HloModule m, replica_count=2
ENTRY main {
  a = f32[3] parameter(0)
  b = f32[4] parameter(1)
  ROOT r = (f32[3], f32[4]) all-to-all(a, b), replica_groups={{0,1}}
})"),
              HasSubstr("operands with different shapes"));
}

// XLA's shape inference refuses complex to real conversions; no kernel runs
// them, so the check refuses them too.
TEST(VerifierTest, ComplexToRealConvertIsRefused) {
  EXPECT_THAT(VerifyText(R"(HloModule m
ENTRY main {
  x = c64[2] parameter(0)
  ROOT r = f32[2] convert(x)
})"),
              HasSubstr("Conversion from complex to real type c64[2] => f32"));
  EXPECT_EQ(VerifyText(R"(HloModule m
ENTRY main {
  x = f32[2] parameter(0)
  c = c64[2] convert(x)
  ROOT r = c128[2] convert(c)
})"),
            "");
}

}  // namespace
}  // namespace hlovm
