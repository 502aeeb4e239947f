// Compiler tests: the bytecode emitted for small modules (in the spirit of
// Lua's testes/code.lua), buffer plans, scheduling and compile errors.
#include "vm/compiler.h"

#include <string>
#include <vector>

#include "frontend/parser.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hlovm {
namespace vm {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

struct Compiled {
  std::unique_ptr<HloModule> module;
  std::unique_ptr<Program> program;
  const Function& entry() const { return *program->entry; }
  const Function* Find(std::string_view name) const {
    for (const auto& f : program->functions) {
      if (f->name == name) return f.get();
    }
    return nullptr;
  }
};

absl::StatusOr<Compiled> Compile(std::string_view text, const CompilerOptions& options = {}) {
  Compiled c;
  auto module = ParseHloModule(text);
  if (!module.ok()) return module.status();
  c.module = std::move(*module);
  auto program = CompileModule(*c.module, options);
  if (!program.ok()) return program.status();
  c.program = std::move(*program);
  return c;
}

TEST(CompilerTest, StructureEmitsNoCode) {
  auto c = Compile(R"hlo(
HloModule m
ENTRY main {
  p0 = f32[2,3] parameter(0)
  r = f32[6] reshape(p0)
  cp = f32[6] copy(r)
  b = f32[3,2] bitcast(p0)
  t = (f32[6], f32[3,2]) tuple(cp, b)
  g = f32[6] get-tuple-element(t), index=0
  ROOT out = (f32[6], (f32[6], f32[3,2])) tuple(g, t)
})hlo");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_THAT(Mnemonics(c->entry()), IsEmpty());
  // Every result leaf is the parameter's register.
  const Function& fn = c->entry();
  ASSERT_EQ(fn.result_regs.size(), 3u);
  for (Reg r : fn.result_regs) EXPECT_EQ(r, fn.param_regs[0]);
}

TEST(CompilerTest, ElementwiseChainWritesInPlace) {
  auto c = Compile(R"hlo(
HloModule m
ENTRY main {
  p0 = f32[1024] parameter(0)
  p1 = f32[1024] parameter(1)
  a = f32[1024] add(p0, p1)
  m = f32[1024] multiply(a, p1)
  n = f32[1024] negate(m)
  ROOT s = f32[1024] subtract(n, p0)
})hlo",
                   {.fusion = false});
  ASSERT_TRUE(c.ok()) << c.status();
  const Function& fn = c->entry();
  EXPECT_THAT(Mnemonics(fn), ElementsAre("add", "multiply", "negate", "subtract"));
  // a dies in multiply, m in negate, n in subtract: one buffer for all four,
  // the result's own (outside the arena).
  EXPECT_EQ(fn.slot_size.size(), 1u);
  EXPECT_EQ(fn.arena_bytes, 0);
  EXPECT_THAT(fn.slot_result, ElementsAre(0));
  for (const Instr& i : fn.code) EXPECT_EQ(fn.regs[i.out[0]].slot, 0);
}

TEST(CompilerTest, BuffersAreReusedAfterLastUse) {
  auto c = Compile(R"hlo(
HloModule m
ENTRY main {
  p0 = f32[256] parameter(0)
  a = f32[256] add(p0, p0)
  b = f32[256] multiply(a, a)
  c = f32[256] add(b, p0)
  d = pred[256] compare(c, a), direction=LT
  ROOT e = f32[256] select(d, c, b)
})hlo",
                   {.fusion = false});
  ASSERT_TRUE(c.ok()) << c.status();
  const Function& fn = c->entry();
  EXPECT_THAT(Mnemonics(fn), ElementsAre("add", "multiply", "add", "compare", "select"));
  // Live at once at most: a, b, c (1 KiB each) and d (256 B of pred).
  EXPECT_LE(fn.arena_bytes, 3 * 1024 + 256);
}

TEST(CompilerTest, DeadCodeIsDroppedButSideEffectsStay) {
  auto c = Compile(R"hlo(
HloModule m
ENTRY main {
  p0 = f32[4] parameter(0)
  unused = f32[4] negate(p0)
  also_unused = f32[4] exponential(unused)
  ROOT a = f32[4] add(p0, p0)
  check = () custom-call(a, a), custom_call_target="check.expect_eq", custom_call_has_side_effect=true
})hlo");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_THAT(Mnemonics(c->entry()), ElementsAre("add", "custom-call"));
}

TEST(CompilerTest, CallAndFusionAreInlined) {
  auto c = Compile(R"hlo(
HloModule m
sq {
  x = f32[8] parameter(0)
  ROOT m = f32[8] multiply(x, x)
}
fused {
  a = f32[8] parameter(0)
  b = f32[8] parameter(1)
  ROOT s = f32[8] add(a, b)
}
ENTRY main {
  p0 = f32[8] parameter(0)
  c = f32[8] call(p0), to_apply=sq
  ROOT f = f32[8] fusion(c, p0), kind=kLoop, calls=fused
})hlo");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_THAT(Mnemonics(c->entry()), ElementsAre("multiply", "add"));
  EXPECT_EQ(c->program->functions.size(), 1u);
}

TEST(CompilerTest, WhileBodyAndConditionAreFunctions) {
  auto c = Compile(R"hlo(
HloModule m
cond {
  s = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(10)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  one = s32[] constant(1)
  j = s32[] add(i, one)
  v = f32[4] get-tuple-element(s), index=1
  ROOT t = (s32[], f32[4]) tuple(j, v)
}
ENTRY main {
  z = s32[] constant(0)
  p = f32[4] parameter(0)
  t = (s32[], f32[4]) tuple(z, p)
  ROOT w = (s32[], f32[4]) while(t), condition=cond, body=body
})hlo");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_THAT(Mnemonics(c->entry()), ElementsAre("while"));
  const Function* body = c->Find("body");
  const Function* cond = c->Find("cond");
  ASSERT_NE(body, nullptr);
  ASSERT_NE(cond, nullptr);
  EXPECT_THAT(Mnemonics(*body), ElementsAre("add"));
  EXPECT_THAT(Mnemonics(*cond), ElementsAre("compare"));
  // The f32[4] element is carried unchanged: no copy, and the while's result
  // for it is the parameter's own register. The counter's add writes its
  // next value into the state buffer itself.
  EXPECT_THAT(body->result_passthrough, ElementsAre(true, true));
  EXPECT_THAT(body->param_mutated, ElementsAre(true, false));
  EXPECT_EQ(c->entry().values.at(c->module->entry()->root())[1], c->entry().param_regs[0]);
}

TEST(CompilerTest, WhileBodyReturningAParameterCopiesIt) {
  auto c = Compile(R"hlo(
HloModule m
cond {
  s = (f32[], f32[]) parameter(0)
  ROOT t = pred[] constant(false)
}
body {
  s = (f32[], f32[]) parameter(0)
  a = f32[] get-tuple-element(s), index=0
  b = f32[] get-tuple-element(s), index=1
  ROOT t = (f32[], f32[]) tuple(b, a)
}
ENTRY main {
  p = (f32[], f32[]) parameter(0)
  ROOT w = (f32[], f32[]) while(p), condition=cond, body=body
})hlo");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_THAT(Mnemonics(*c->Find("body")), ElementsAre("copy", "copy"));
}

TEST(CompilerTest, BitcastBetweenLayoutsRelays) {
  auto c = Compile(R"hlo(
HloModule m
ENTRY main {
  p0 = f32[2,3]{0,1} parameter(0)
  ROOT b = f32[3,2]{1,0} bitcast(p0)
})hlo");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_THAT(Mnemonics(c->entry()), ElementsAre("relayout", "relayout"));
}

TEST(CompilerTest, BroadcastAndIota) {
  auto c = Compile(R"hlo(
HloModule m
ENTRY main {
  p0 = f32[3] parameter(0)
  b = f32[2,3] broadcast(p0), dimensions={1}
  i = f32[2,3] iota(), iota_dimension=0
  ROOT a = f32[2,3] add(b, i)
})hlo",
                   {.fusion = false});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_THAT(Mnemonics(c->entry()), ElementsAre("bcast", "iota", "add"));
}

TEST(CompilerTest, UnimplementedOpcodeNamesItAndTheLine) {
  auto c = Compile(R"hlo(HloModule m
ENTRY main {
  p0 = f32[2,2] parameter(0)
  n = f32[2,2] negate(p0)
  ROOT s = f32[2,2] shuffle(n)
})hlo");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), absl::StatusCode::kUnimplemented);
  // Located as the parser locates its errors (this text has no file name).
  EXPECT_THAT(c.status().message(),
              HasSubstr("5:8: error: %s (shuffle): opcode 'shuffle' is not implemented yet"));
}

// copy-start/copy-done is a copy: the destination and source alias the
// operand and only the u32[] context is written.
TEST(CompilerTest, CopyStartAndDoneAreACopy) {
  auto c = Compile(R"hlo(HloModule m
ENTRY main {
  p0 = f32[2,2] parameter(0)
  cs = (f32[2,2], f32[2,2], u32[]) copy-start(p0)
  ROOT d = f32[2,2] copy-done(cs)
})hlo");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_THAT(Mnemonics(c->entry()), ElementsAre("copy-start"));
}

TEST(CompilerTest, UnknownCustomCallTargetIsNamed) {
  auto c = Compile(R"hlo(HloModule m
ENTRY main {
  p0 = f32[2] parameter(0)
  ROOT d = f32[2] custom-call(p0), custom_call_target="no.such.target"
})hlo");
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(), HasSubstr("no.such.target"));
}

TEST(CompilerTest, HugeShapeIsACleanError) {
  auto c = Compile(R"hlo(HloModule m
ENTRY main {
  z = f32[] constant(0)
  ROOT b = f32[100000000000] broadcast(z), dimensions={}
})hlo");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(c.status().message(), HasSubstr("f32[100000000000]"));
}

TEST(CompilerTest, ControlPredecessorsAndSideEffectsOrderTheSchedule) {
  auto module = ParseHloModule(R"hlo(HloModule m
ENTRY main {
  p0 = f32[4] parameter(0)
  a = f32[4] negate(p0)
  b = f32[4] exponential(p0), control-predecessors={a}
  ROOT t = (f32[4], f32[4]) tuple(b, a)
})hlo");
  ASSERT_TRUE(module.ok()) << module.status();
  auto order = ScheduleComputation(*(*module)->entry());
  ASSERT_TRUE(order.ok());
  std::vector<std::string> names;
  for (const HloInstruction* i : *order) names.push_back(i->name());
  EXPECT_THAT(names, ElementsAre("p0", "a", "b", "t"));
}

TEST(CompilerTest, OnlyFunctionsWithLargeWorkRunInParallel) {
  auto small = Compile(R"hlo(HloModule m
ENTRY main {
  p0 = f32[16] parameter(0)
  a = f32[16] add(p0, p0)
  b = f32[16] multiply(p0, p0)
  ROOT t = (f32[16], f32[16]) tuple(a, b)
})hlo");
  ASSERT_TRUE(small.ok()) << small.status();
  EXPECT_FALSE(small->entry().parallel);
  auto large = Compile(R"hlo(HloModule m
cond {
  s = f32[1048576] parameter(0)
  ROOT f = pred[] constant(false)
}
body {
  s = f32[1048576] parameter(0)
  ROOT n = f32[1048576] negate(s)
}
ENTRY main {
  p0 = f32[1048576] parameter(0)
  a = f32[1048576] add(p0, p0)
  b = f32[1048576] multiply(p0, p0)
  w1 = f32[1048576] while(a), condition=cond, body=body
  w2 = f32[1048576] while(b), condition=cond, body=body
  w3 = f32[1048576] while(p0), condition=cond, body=body
  w4 = f32[1048576] while(p0), condition=cond, body=body
  w5 = f32[1048576] while(p0), condition=cond, body=body
  ROOT t = (f32[1048576], f32[1048576], f32[1048576], f32[1048576], f32[1048576]) tuple(w1, w2, w3, w4, w5)
})hlo");
  ASSERT_TRUE(large.ok()) << large.status();
  const Function& fn = large->entry();
  EXPECT_TRUE(fn.parallel);
  EXPECT_GT(fn.total_cost, 0);
  // add and multiply are independent; each while waits for its operand only.
  EXPECT_EQ(fn.dep_count[0], 0);
  EXPECT_EQ(fn.dep_count[1], 0);
}

TEST(CompilerTest, DisassemblyShowsRegistersShapesAndBuffers) {
  auto c = Compile(R"hlo(HloModule m
ENTRY main {
  p0 = f32[16] parameter(0)
  a = f32[16] add(p0, p0)
  ROOT m = f32[16] multiply(a, p0)
})hlo",
                   {.fusion = false});
  ASSERT_TRUE(c.ok()) << c.status();
  const std::string dis = DisassembleProgram(*c->program);
  EXPECT_THAT(dis, HasSubstr("function %main (entry)"));
  EXPECT_THAT(dis, HasSubstr("r1 = add r0, r0"));
  EXPECT_THAT(dis, HasSubstr("f32[16]"));
  // a is written where the result will be (m overwrites it in place).
  EXPECT_THAT(dis, HasSubstr("r1:result0+64"));
  EXPECT_THAT(dis, HasSubstr("peak memory"));
}


// An all-reduce-start's exchange reads its operand and writes its result
// while the instructions up to its -done run: no buffer those write may
// share bytes with either (the done reads both, so they stay live).
TEST(CompilerTest, AsyncCollectiveKeepsItsBuffersUntilItsDone) {
  CompilerOptions options;
  options.fusion = false;  // every elementwise op gets a buffer of its own
  auto c = Compile(R"hlo(HloModule m, replica_count=2
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  p = f32[4096] parameter(0)
  x = f32[4096] negate(p)
  s = f32[4096] all-reduce-start(x), replica_groups={}, to_apply=add
  y = f32[4096] exponential(p)
  z = f32[4096] sine(y)
  w = f32[4096] cosine(z)
  d = f32[4096] all-reduce-done(s)
  ROOT r = f32[4096] add(d, w)
})hlo", options);
  ASSERT_TRUE(c.ok()) << c.status();
  const Function& fn = c->entry();
  int32_t start = -1, done = -1;
  for (size_t i = 0; i < fn.info.size(); ++i) {
    if (fn.info[i].hlo->name() == "s") start = static_cast<int32_t>(i);
    if (fn.info[i].hlo->name() == "d") done = static_cast<int32_t>(i);
  }
  ASSERT_GE(start, 0);
  ASSERT_GT(done, start + 1);
  const Instr& begun = fn.code[start];
  ASSERT_EQ(begun.num_in, 1u);
  ASSERT_EQ(begun.num_out, 1u);
  EXPECT_THAT(Mnemonics(fn), ElementsAre("negate", "all-reduce", "exponential", "sine", "cosine",
                                         "all-reduce", "add"));
  auto bytes = [&](Reg r) {
    const RegInfo& info = fn.regs[r];
    const int64_t at = fn.slot_offset[info.slot];
    return std::make_pair(at, at + info.bytes);
  };
  for (Reg held : {begun.in[0], begun.out[0]}) {
    const RegInfo& info = fn.regs[held];
    ASSERT_EQ(info.kind, RegKind::kOwned);
    EXPECT_GE(info.last_use, done);
    if (fn.ResultOfSlot(info.slot) >= 0) continue;  // the result region: nobody else's
    const auto [lo, hi] = bytes(held);
    for (int32_t i = start + 1; i < done; ++i) {
      for (uint32_t k = 0; k < fn.code[i].num_out; ++k) {
        const Reg r = fn.code[i].out[k];
        if (fn.regs[r].kind != RegKind::kOwned || fn.ResultOfSlot(fn.regs[r].slot) >= 0) continue;
        const auto [a, b] = bytes(r);
        EXPECT_TRUE(b <= lo || hi <= a)
            << "instruction " << i << " writes bytes [" << a << ", " << b
            << ") of the exchange's buffer [" << lo << ", " << hi << ")";
      }
    }
  }
}

}  // namespace
}  // namespace vm
}  // namespace hlovm
