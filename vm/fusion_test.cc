// Fusion: which instructions form a region, and that a fused region gives
// the bits of the op-by-op run, for every element type and op the regions
// take, special values included, over several tiles and chunks, on 1 and 2
// threads.
#include "vm/fusion.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "frontend/parser.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "vm/api.h"
#include "vm/compiler.h"
#include "vm/test_util.h"

namespace hlovm {
namespace vm {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

// Mnemonics of the entry function of `text` compiled with fusion.
std::vector<std::string> EntryMnemonics(const std::string& text, std::string* listing = nullptr) {
  auto module = ParseHloModule(text);
  EXPECT_TRUE(module.ok()) << module.status();
  if (!module.ok()) return {};
  auto program = CompileModule(**module);
  EXPECT_TRUE(program.ok()) << program.status();
  if (!program.ok()) return {};
  if (listing != nullptr) *listing = DisassembleProgram(**program);
  return Mnemonics(*(*program)->entry);
}

// Random values of `type` (raw bits) with the special values mixed in.
Literal RandomArray(ElementType type, const std::vector<int64_t>& dims, uint32_t seed) {
  auto lit = Literal::Create(Shape(type, dims));
  EXPECT_TRUE(lit.ok());
  std::mt19937 rng(seed);
  const int64_t n = lit->shape().element_count();
  uint8_t* data = lit->untyped_data();
  std::uniform_real_distribution<float> uniform(-4.0f, 4.0f);
  const float special[] = {0.0f, -0.0f, std::numeric_limits<float>::infinity(),
                           -std::numeric_limits<float>::infinity(),
                           std::numeric_limits<float>::quiet_NaN(), 1e-40f, -1e-40f, 1e30f,
                           -1e30f, 88.8f, -104.5f, 0.5f, -0.5f, 2.5f};
  for (int64_t i = 0; i < n; ++i) {
    const bool pick_special = rng() % 8 == 0;
    const float f = pick_special ? special[rng() % std::size(special)] : uniform(rng);
    switch (type) {
      case ElementType::kF32:
        std::memcpy(data + 4 * i, &f, 4);
        break;
      case ElementType::kBF16: {
        uint32_t bits;
        std::memcpy(&bits, &f, 4);
        const uint16_t h = static_cast<uint16_t>(bits >> 16);
        std::memcpy(data + 2 * i, &h, 2);
        break;
      }
      case ElementType::kF64: {
        const double d = f;
        std::memcpy(data + 8 * i, &d, 8);
        break;
      }
      case ElementType::kS32: {
        const int32_t v = static_cast<int32_t>(rng());
        std::memcpy(data + 4 * i, &v, 4);
        break;
      }
      case ElementType::kPred:
        data[i] = rng() & 1;
        break;
      default:
        for (int b = 0; b < ByteWidth(type); ++b) data[ByteWidth(type) * i + b] = rng() & 0xff;
    }
  }
  return std::move(*lit);
}

// Runs `text` fused on 1 and 2 threads and unfused; all must agree bit for bit.
void ExpectFusedMatchesUnfused(const std::string& text, const std::vector<Literal>& args) {
  CompileOptions fused, plain;
  plain.fusion = false;
  auto one = testing_util::RunHlo(text, args, 1, nullptr, nullptr, fused);
  auto two = testing_util::RunHlo(text, args, 2, nullptr, nullptr, fused);
  auto ref = testing_util::RunHlo(text, args, 1, nullptr, nullptr, plain);
  ASSERT_TRUE(one.ok()) << one.status();
  ASSERT_TRUE(two.ok()) << two.status();
  ASSERT_TRUE(ref.ok()) << ref.status();
  EXPECT_TRUE(one->BitwiseEqual(*ref)) << "fused on 1 thread differs from op by op";
  EXPECT_TRUE(two->BitwiseEqual(*ref)) << "fused on 2 threads differs from op by op";
}

TEST(FusionTest, ChainBecomesOneInstruction) {
  std::string listing;
  EXPECT_THAT(EntryMnemonics(R"(HloModule m
ENTRY main {
  x = f32[4096] parameter(0)
  c = f32[] constant(2)
  cb = f32[4096] broadcast(c), dimensions={}
  m = f32[4096] multiply(x, cb)
  e = f32[4096] exponential(m)
  ROOT a = f32[4096] add(e, x)
})",
                             &listing),
              ElementsAre("fusion"));
  // The program reads the splat's scalar; the broadcast itself is gone.
  EXPECT_THAT(listing, Not(HasSubstr("broadcast")));
  EXPECT_THAT(listing, HasSubstr("f32 register program"));
  EXPECT_THAT(listing, HasSubstr("acc = multiply acc, s0"));
  EXPECT_THAT(listing, HasSubstr("acc = exponential acc"));
}

TEST(FusionTest, ValueUsedLaterOutsideIsASecondOutput) {
  EXPECT_THAT(EntryMnemonics(R"(HloModule m
ENTRY main {
  x = f32[64,64] parameter(0)
  n = f32[64,64] negate(x)
  e = f32[64,64] exponential(n)
  t = f32[64,64] transpose(n), dimensions={1,0}
  ROOT r = (f32[64,64], f32[64,64]) tuple(e, t)
})"),
              ElementsAre("fusion", "transpose"));
}

TEST(FusionTest, ValueUsedBeforeTheRootIsNotFusedIntoIt) {
  // n is read by the dot, which the add needs: fusing n into the add's region
  // would make a cycle through the dot.
  const std::vector<std::string> m = EntryMnemonics(R"(HloModule m
ENTRY main {
  x = f32[64,64] parameter(0)
  n = f32[64,64] negate(x)
  d = f32[64,64] dot(n, n), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  e = f32[64,64] exponential(d)
  ROOT a = f32[64,64] add(e, n)
})");
  ASSERT_EQ(m.size(), 3u);
  EXPECT_EQ(m[0], "negate");
  EXPECT_EQ(m[2], "fusion");
}

TEST(FusionTest, TransposedBroadcastStaysOutside) {
  // [20,30] -> [30,40,20] with dimensions={2,0} is not a contiguous run.
  EXPECT_THAT(EntryMnemonics(R"(HloModule m
ENTRY main {
  x = f32[20,30] parameter(0)
  y = f32[30,40,20] parameter(1)
  b = f32[30,40,20] broadcast(x), dimensions={2,0}
  n = f32[30,40,20] negate(y)
  ROOT a = f32[30,40,20] add(b, n)
})"),
              ElementsAre("bcast", "fusion"));
}

// A broadcast (or iota) several regions read is recomputed in each: the
// relu6 clamps of two layers share their bounds, and neither region reads
// them from memory. Where an instruction outside the regions reads it too
// (the dot), it is still written for that reader alone.
TEST(FusionTest, SharedBroadcastsAreRecomputedInEachRegion) {
  const std::string shared = R"(HloModule m
ENTRY main {
  x = f32[64,64] parameter(0)
  y = f32[64,64] parameter(1)
  zero = f32[] constant(0)
  six = f32[] constant(6)
  lo = f32[64,64] broadcast(zero), dimensions={}
  hi = f32[64,64] broadcast(six), dimensions={}
  a = f32[64,64] clamp(lo, x, hi)
  b = f32[64,64] clamp(lo, y, hi)
  ROOT t = (f32[64,64], f32[64,64]) tuple(a, b)
})";
  EXPECT_THAT(EntryMnemonics(shared), ElementsAre("fusion", "fusion"));
  std::vector<Literal> args;
  args.push_back(RandomArray(ElementType::kF32, {64, 64}, 1));
  args.push_back(RandomArray(ElementType::kF32, {64, 64}, 2));
  ExpectFusedMatchesUnfused(shared, args);

  std::string read_outside = shared;
  read_outside.replace(read_outside.find("  ROOT t"), std::string::npos, R"(  d = f32[64,64] dot(hi, y), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT t = (f32[64,64], f32[64,64], f32[64,64]) tuple(a, b, d)
})");
  const std::vector<std::string> m = EntryMnemonics(read_outside);
  EXPECT_EQ(std::count(m.begin(), m.end(), "bcast"), 1) << ::testing::PrintToString(m);
  EXPECT_EQ(std::count(m.begin(), m.end(), "fusion"), 2) << ::testing::PrintToString(m);
  ExpectFusedMatchesUnfused(read_outside, args);
}

TEST(FusionTest, EveryF32ProgramOpMatchesItsKernel) {
  const std::string text = R"(HloModule m
ENTRY main {
  x = f32[5003] parameter(0)
  y = f32[5003] parameter(1)
  ab = f32[5003] abs(x)
  sq = f32[5003] sqrt(ab)
  rs = f32[5003] rsqrt(y)
  fl = f32[5003] floor(x)
  ce = f32[5003] ceil(y)
  rn = f32[5003] round-nearest-even(x)
  ex = f32[5003] exponential(y)
  lg = f32[5003] logistic(x)
  th = f32[5003] tanh(y)
  ng = f32[5003] negate(th)
  s1 = f32[5003] add(sq, rs)
  s2 = f32[5003] subtract(fl, s1)
  s3 = f32[5003] multiply(ce, s2)
  s4 = f32[5003] divide(rn, s3)
  s5 = f32[5003] maximum(ex, s4)
  s6 = f32[5003] minimum(s5, lg)
  s7 = f32[5003] multiply(s6, s6)
  s8 = f32[5003] subtract(ng, s7)
  ceq = pred[5003] compare(x, y), direction=EQ
  v1 = f32[5003] select(ceq, x, s8)
  cne = pred[5003] compare(v1, x), direction=NE
  v2 = f32[5003] select(cne, v1, y)
  cge = pred[5003] compare(y, v2), direction=GE
  v3 = f32[5003] select(cge, s7, v2)
  cgt = pred[5003] compare(v3, y), direction=GT
  v4 = f32[5003] select(cgt, v3, s6)
  cle = pred[5003] compare(x, v4), direction=LE
  v5 = f32[5003] select(cle, s5, v4)
  clt = pred[5003] compare(v5, s8), direction=LT
  v6 = f32[5003] select(clt, v5, s4)
  ROOT r = (f32[5003], f32[5003], f32[5003]) tuple(v6, s8, s3)
})";
  std::vector<Literal> args;
  args.push_back(RandomArray(ElementType::kF32, {5003}, 1));
  args.push_back(RandomArray(ElementType::kF32, {5003}, 2));
  ExpectFusedMatchesUnfused(text, args);
  std::string listing;
  EntryMnemonics(text, &listing);
  EXPECT_THAT(listing, HasSubstr("acc = compare NE"));
  EXPECT_THAT(listing, HasSubstr("acc = select acc"));
}

TEST(FusionTest, Bf16ProgramsRoundLikeTheirKernels) {
  // bf16 ops widen to f32 and round back after every op, in registers.
  const std::string text = R"(HloModule m
ENTRY main {
  x = bf16[3001] parameter(0)
  y = bf16[3001] parameter(1)
  a = bf16[3001] add(x, y)
  m = bf16[3001] multiply(a, x)
  d = bf16[3001] divide(m, y)
  t = bf16[3001] tanh(d)
  e = bf16[3001] exponential(x)
  mx = bf16[3001] maximum(t, e)
  n = bf16[3001] negate(mx)
  s = bf16[3001] sqrt(y)
  c = pred[3001] compare(n, s), direction=LT
  sel = bf16[3001] select(c, n, x)
  f = f32[3001] convert(sel)
  g = f32[3001] multiply(f, f)
  back = bf16[3001] convert(g)
  ROOT r = (bf16[3001], f32[3001], bf16[3001]) tuple(back, g, a)
})";
  std::vector<Literal> args;
  args.push_back(RandomArray(ElementType::kBF16, {3001}, 19));
  args.push_back(RandomArray(ElementType::kBF16, {3001}, 20));
  // Signalling NaNs pass through select untouched.
  reinterpret_cast<uint16_t*>(args[0].untyped_data())[7] = 0x7f81;
  reinterpret_cast<uint16_t*>(args[0].untyped_data())[8] = 0xff81;
  ExpectFusedMatchesUnfused(text, args);
  std::string listing;
  EntryMnemonics(text, &listing);
  EXPECT_THAT(listing, HasSubstr("acc = round-bf16"));
}

TEST(FusionTest, SplatsAreReadAsScalars) {
  // Scalars broadcast into a program, f32 and bf16, NaN and -0 included, in
  // every operand position: first and second of binary ops and compares,
  // both arms of select, and loaded as the accumulator.
  const std::string text = R"(HloModule m
ENTRY main {
  x = f32[4099] parameter(0)
  y = f32[4099] parameter(1)
  h = bf16[4099] parameter(2)
  c_half = f32[] constant(0.5)
  c_nan = f32[] constant(nan)
  c_negz = f32[] constant(-0)
  c_bf = bf16[] constant(0.3)
  half = f32[4099] broadcast(c_half), dimensions={}
  nan = f32[4099] broadcast(c_nan), dimensions={}
  negz = f32[4099] broadcast(c_negz), dimensions={}
  bf = bf16[4099] broadcast(c_bf), dimensions={}
  a1 = f32[4099] subtract(half, x)
  a2 = f32[4099] maximum(a1, nan)
  a3 = f32[4099] minimum(negz, y)
  a4 = f32[4099] maximum(negz, x)
  gt = pred[4099] compare(half, a3), direction=GT
  s1 = f32[4099] select(gt, negz, a4)
  le = pred[4099] compare(s1, half), direction=LE
  s2 = f32[4099] select(le, a2, half)
  hx = f32[4099] multiply(half, x)
  p = f32[4099] multiply(hx, s2)
  hb = bf16[4099] multiply(bf, h)
  hc = bf16[4099] add(hb, bf)
  ROOT r = (f32[4099], f32[4099], bf16[4099]) tuple(p, s1, hc)
})";
  std::vector<Literal> args;
  args.push_back(RandomArray(ElementType::kF32, {4099}, 31));
  args.push_back(RandomArray(ElementType::kF32, {4099}, 32));
  args.push_back(RandomArray(ElementType::kBF16, {4099}, 33));
  for (int i = 0; i < 4099; i += 97) {
    reinterpret_cast<float*>(args[0].untyped_data())[i] = 0.0f;
    reinterpret_cast<float*>(args[1].untyped_data())[i + 1] = 0.0f;
  }
  ExpectFusedMatchesUnfused(text, args);
  std::string listing;
  EntryMnemonics(text, &listing);
  EXPECT_THAT(listing, Not(HasSubstr("broadcast")));
  EXPECT_THAT(listing, HasSubstr("acc = s"));
}

TEST(FusionTest, RowValuesAreReadAsRepeatedScalars) {
  // Per-row values broadcast along rows of 128 (f32, wrapping every 8 rows)
  // and 192 (bf16), over enough elements for parallel chunks; a row length
  // of 100 is no multiple of a block and stays a tile. Rows of 320 reduced
  // in runs of 160, 409 runs a chunk, start chunks mid-row: those run
  // element by element.
  const std::string text = R"(HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[300,8,128] parameter(0)
  v = f32[8] parameter(1)
  h = bf16[3000,192] parameter(2)
  w = bf16[3000] parameter(3)
  y = f32[600,100] parameter(4)
  u = f32[600] parameter(5)
  vb = f32[300,8,128] broadcast(v), dimensions={1}
  d = f32[300,8,128] subtract(x, vb)
  e = f32[300,8,128] exponential(d)
  wb = bf16[3000,192] broadcast(w), dimensions={0}
  q = bf16[3000,192] divide(wb, h)
  ub = f32[600,100] broadcast(u), dimensions={0}
  m = f32[600,100] multiply(y, ub)
  z = f32[2001,2,160] parameter(6)
  t = f32[2001] parameter(7)
  tb = f32[2001,2,160] broadcast(t), dimensions={0}
  zt = f32[2001,2,160] multiply(z, tb)
  zero = f32[] constant(0)
  s = f32[2001,2] reduce(zt, zero), dimensions={2}, to_apply=add
  ROOT r = (f32[300,8,128], bf16[3000,192], f32[600,100], f32[2001,2]) tuple(e, q, m, s)
})";
  std::vector<Literal> args;
  args.push_back(RandomArray(ElementType::kF32, {300, 8, 128}, 41));
  args.push_back(RandomArray(ElementType::kF32, {8}, 42));
  args.push_back(RandomArray(ElementType::kBF16, {3000, 192}, 43));
  args.push_back(RandomArray(ElementType::kBF16, {3000}, 44));
  args.push_back(RandomArray(ElementType::kF32, {600, 100}, 45));
  args.push_back(RandomArray(ElementType::kF32, {600}, 46));
  args.push_back(RandomArray(ElementType::kF32, {2001, 2, 160}, 47));
  args.push_back(RandomArray(ElementType::kF32, {2001}, 48));
  ExpectFusedMatchesUnfused(text, args);
  std::string listing;
  EntryMnemonics(text, &listing);
  EXPECT_THAT(listing, HasSubstr("(repeat 128, period 8)"));
  EXPECT_THAT(listing, HasSubstr("(repeat 192, period 3000)"));
  EXPECT_THAT(listing, HasSubstr("broadcast (repeat 100, period 600)"));
  EXPECT_THAT(listing, HasSubstr("(repeat 320, period 2001)"));
}

TEST(FusionTest, OtherTypesRunTileByTile) {
  const std::string text = R"(HloModule m
ENTRY main {
  h = bf16[3000] parameter(0)
  i = s32[3000] parameter(1)
  p = pred[3000] parameter(2)
  d = f64[3000] parameter(3)
  lo = bf16[] constant(-1)
  hi = bf16[] constant(2)
  f = f32[3000] convert(h)
  e = f32[3000] exponential(f)
  sn = f32[3000] sine(e)
  back = bf16[3000] convert(sn)
  cl = bf16[3000] clamp(lo, back, hi)
  rp = bf16[3000] reduce-precision(cl), exponent_bits=5, mantissa_bits=2
  i2 = s32[3000] multiply(i, i)
  i3 = s32[3000] shift-right-arithmetic(i2, i)
  pi = pred[3000] compare(i3, i), direction=LT
  q = pred[3000] and(pi, p)
  sc = pred[] constant(true)
  sel = s32[3000] select(sc, i3, i2)
  w = s32[3000] select(q, sel, i)
  dd = f64[3000] multiply(d, d)
  dl = f64[3000] log(dd)
  ROOT r = (bf16[3000], s32[3000], f64[3000]) tuple(rp, w, dl)
})";
  std::vector<Literal> args;
  args.push_back(RandomArray(ElementType::kBF16, {3000}, 3));
  args.push_back(RandomArray(ElementType::kS32, {3000}, 4));
  args.push_back(RandomArray(ElementType::kPred, {3000}, 5));
  args.push_back(RandomArray(ElementType::kF64, {3000}, 6));
  ExpectFusedMatchesUnfused(text, args);
}

TEST(FusionTest, BroadcastPatterns) {
  const std::string text = R"(HloModule m
ENTRY main {
  x = f32[4,96,5,7] parameter(0)
  ch = f32[96] parameter(1)
  row = f32[5,7] parameter(2)
  col = f32[4] parameter(3)
  deg = f32[4,1] parameter(4)
  y = f32[4,1,96] parameter(6)
  s = f32[] parameter(5)
  b1 = f32[4,96,5,7] broadcast(ch), dimensions={1}
  b2 = f32[4,96,5,7] broadcast(row), dimensions={2,3}
  b3 = f32[4,96,5,7] broadcast(col), dimensions={0}
  b4 = f32[4,96,5,7] broadcast(col), dimensions={0}
  bd = f32[4,1,96] broadcast(deg), dimensions={0,1}
  yd = f32[4,1,96] add(y, bd)
  ydr = f32[4,96] reshape(yd)
  b6 = f32[4,96,5,7] broadcast(ydr), dimensions={0,1}
  b5 = f32[4,96,5,7] broadcast(s), dimensions={}
  a1 = f32[4,96,5,7] add(x, b1)
  a2 = f32[4,96,5,7] multiply(a1, b2)
  a3 = f32[4,96,5,7] subtract(a2, b3)
  a4 = f32[4,96,5,7] maximum(a3, b4)
  a6 = f32[4,96,5,7] add(a4, b6)
  rs = f32[4,96,35] reshape(a6)
  b5r = f32[4,96,35] reshape(b5)
  ROOT a5 = f32[4,96,35] divide(rs, b5r)
})";
  std::vector<Literal> args;
  args.push_back(RandomArray(ElementType::kF32, {4, 96, 5, 7}, 7));
  args.push_back(RandomArray(ElementType::kF32, {96}, 8));
  args.push_back(RandomArray(ElementType::kF32, {5, 7}, 9));
  args.push_back(RandomArray(ElementType::kF32, {4}, 10));
  args.push_back(RandomArray(ElementType::kF32, {4, 1}, 11));
  args.push_back(testing_util::Lit("f32[] 1.5"));
  args.push_back(RandomArray(ElementType::kF32, {4, 1, 96}, 14));
  ExpectFusedMatchesUnfused(text, args);
  // yd (96 x 4 elements) is too small to fuse; the big region reads it.
  EXPECT_THAT(EntryMnemonics(text), ElementsAre("bcast", "add", "fusion"));
}

TEST(FusionTest, LargeLoopStateInPlaceOnTwoThreads) {
  // 1M elements: many chunks; the loop writes its state in place.
  const std::string text = R"(HloModule m
cond {
  s = (s32[], f32[1048576]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  three = s32[] constant(3)
  ROOT lt = pred[] compare(i, three), direction=LT
}
body {
  s = (s32[], f32[1048576]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[1048576] get-tuple-element(s), index=1
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  k = f32[] constant(0.75)
  kb = f32[1048576] broadcast(k), dimensions={}
  m = f32[1048576] multiply(x, kb)
  t = f32[1048576] tanh(m)
  y = f32[1048576] add(t, x)
  ROOT next = (s32[], f32[1048576]) tuple(i1, y)
}
ENTRY main {
  x0 = f32[1048576] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[1048576]) tuple(zero, x0)
  loop = (s32[], f32[1048576]) while(init), condition=cond, body=body
  ROOT out = f32[1048576] get-tuple-element(loop), index=1
})";
  std::vector<Literal> args;
  args.push_back(RandomArray(ElementType::kF32, {1048576}, 12));
  ExpectFusedMatchesUnfused(text, args);
}

TEST(FusionTest, XlaFusionInstructionsCompileTheSameWay) {
  std::string listing;
  EXPECT_THAT(EntryMnemonics(R"(HloModule m
fused_computation {
  p0 = f32[1024] parameter(0)
  p1 = f32[1024] parameter(1)
  m = f32[1024] multiply(p0, p1)
  e = f32[1024] exponential(m)
  ROOT a = f32[1024] add(e, p0)
}
ENTRY main {
  x = f32[1024] parameter(0)
  y = f32[1024] parameter(1)
  ROOT f = f32[1024] fusion(x, y), kind=kLoop, calls=fused_computation
})",
                             &listing),
              ElementsAre("fusion"));
  EXPECT_THAT(listing, HasSubstr("acc = multiply acc, in1"));
}

constexpr char kReducers[] = R"(
add_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
max_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
add_bf16 {
  a = bf16[] parameter(0)
  b = bf16[] parameter(1)
  ROOT s = bf16[] add(a, b)
}
)";

TEST(FusionTest, RowReducesJoinTheRegion) {
  // exp(x) is also read outside (written and reduced); the sum of squares
  // is only reduced (its rows stay in a scratch). Neither has work after
  // its reduce, so neither is a row-wise region.
  const std::string text = absl::StrCat("HloModule m\n", kReducers, R"(
ENTRY main {
  x = f32[300,1000] parameter(0)
  h = bf16[300,1000] parameter(1)
  ninf = f32[] constant(-inf)
  zero = f32[] constant(0)
  e = f32[300,1000] exponential(x)
  sum = f32[300] reduce(e, zero), dimensions={1}, to_apply=add_f32
  hf = f32[300,1000] convert(h)
  sq = f32[300,1000] multiply(hf, hf)
  ss = f32[300] reduce(sq, zero), dimensions={1}, to_apply=add_f32
  z = f32[200,1000] parameter(2)
  n = f32[200,1000] negate(z)
  all = f32[] reduce(n, ninf), dimensions={0,1}, to_apply=max_f32
  ROOT r = (f32[300,1000], f32[300], f32[300], f32[]) tuple(e, sum, ss, all)
})");
  std::vector<Literal> args;
  args.push_back(RandomArray(ElementType::kF32, {300, 1000}, 15));
  args.push_back(RandomArray(ElementType::kBF16, {300, 1000}, 16));
  args.push_back(RandomArray(ElementType::kF32, {200, 1000}, 17));
  ExpectFusedMatchesUnfused(text, args);
  std::string listing;
  const std::vector<std::string> m = EntryMnemonics(text, &listing);
  EXPECT_EQ(std::count(m.begin(), m.end(), "reduce"), 0) << listing;
  EXPECT_THAT(listing, Not(HasSubstr("row-wise")));
  EXPECT_THAT(listing, HasSubstr("out0 -> reduce add over runs of 1000"));
  EXPECT_THAT(listing, HasSubstr("rows -> reduce add over runs of 1000"));
  EXPECT_THAT(listing, HasSubstr("rows -> reduce maximum over runs of 200000"));
}

// Runs `text` with fusion and expects one row-wise region over `rows` rows of
// `inner` among its instructions, with the bits of op by op on 1 and 2 threads.
void ExpectRowWise(const std::string& text, const std::vector<Literal>& args, int64_t rows,
                   int64_t inner, int regions = 1) {
  std::string listing;
  const std::vector<std::string> m = EntryMnemonics(text, &listing);
  int found = 0;
  for (size_t at = listing.find(absl::StrCat("row-wise over ", rows, " rows of ", inner, ","));
       at != std::string::npos;
       at = listing.find(absl::StrCat("row-wise over ", rows, " rows of ", inner, ","), at + 1)) {
    ++found;
  }
  EXPECT_EQ(found, regions) << listing;
  EXPECT_EQ(std::count(m.begin(), m.end(), "reduce"), 0) << listing;
  ExpectFusedMatchesUnfused(text, args);
}

// Layer norm: the mean, the centred values, their variance, the normalised,
// scaled and shifted rows, one pass over each block of rows; rows of 768
// (two a block) and 301 rows (an odd block at the end, several tasks).
TEST(FusionTest, LayerNormIsOneRowWiseRegion) {
  const std::string text = absl::StrCat("HloModule m\n", kReducers, R"(
ENTRY main {
  x = f32[301,768] parameter(0)
  scale = f32[768] parameter(1)
  bias = f32[768] parameter(2)
  zero = f32[] constant(0)
  mean_sum = f32[301] reduce(x, zero), dimensions={1}, to_apply=add_f32
  n = f32[] constant(768)
  nb = f32[301] broadcast(n), dimensions={}
  mean = f32[301] divide(mean_sum, nb)
  mean1 = f32[301,1] reshape(mean)
  mean2 = f32[301] reshape(mean1)
  meanb = f32[301,768] broadcast(mean2), dimensions={0}
  xc = f32[301,768] subtract(x, meanb)
  sq = f32[301,768] multiply(xc, xc)
  var_sum = f32[301] reduce(sq, zero), dimensions={1}, to_apply=add_f32
  var = f32[301] divide(var_sum, nb)
  eps = f32[] constant(1e-05)
  epsb = f32[301] broadcast(eps), dimensions={}
  ve = f32[301] add(var, epsb)
  inv = f32[301] rsqrt(ve)
  invb = f32[301,768] broadcast(inv), dimensions={0}
  y = f32[301,768] multiply(xc, invb)
  sb = f32[301,768] broadcast(scale), dimensions={1}
  ys = f32[301,768] multiply(y, sb)
  bb = f32[301,768] broadcast(bias), dimensions={1}
  ROOT out = f32[301,768] add(ys, bb)
})");
  std::vector<Literal> args;
  args.push_back(RandomArray(ElementType::kF32, {301, 768}, 71));
  args.push_back(RandomArray(ElementType::kF32, {768}, 72));
  args.push_back(RandomArray(ElementType::kF32, {768}, 73));
  ExpectRowWise(text, args, 301, 768);
  std::string listing;
  EXPECT_THAT(EntryMnemonics(text, &listing), ElementsAre("fusion"));
  // The centring, squaring and summing, and the normalising, scaling and
  // shifting, run as register programs reading the row values repeated
  // along rows and scale and bias in place for every row; the second
  // computes the centred values again rather than reading them back, so
  // only the output is stored. The second program, the input's last
  // reader, prefetches the next block of rows for the mean's reduce.
  EXPECT_THAT(listing, HasSubstr("program 1:"));
  EXPECT_THAT(listing, HasSubstr("program 1: 6 ops over in0 (next block prefetched)"));
  EXPECT_THAT(listing, HasSubstr("(repeat 768)"));
  EXPECT_THAT(listing, HasSubstr("(row sums)"));
  EXPECT_THAT(listing, HasSubstr("(whole) (every row)"));
  EXPECT_THAT(listing, HasSubstr("(read in place)"));
  size_t stored = 0;
  for (size_t at = listing.find("(stored)"); at != std::string::npos;
       at = listing.find("(stored)", at + 1)) {
    ++stored;
  }
  EXPECT_EQ(stored, 1u) << listing;
}

// Finite values of every magnitude, where the order of a sum's adds shows
// in its bits.
Literal FiniteArray(const std::vector<int64_t>& dims, uint32_t seed) {
  auto lit = Literal::Create(Shape(ElementType::kF32, dims));
  EXPECT_TRUE(lit.ok());
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> mantissa(-1.0f, 1.0f);
  float* data = reinterpret_cast<float*>(lit->untyped_data());
  for (int64_t i = 0; i < lit->shape().element_count(); ++i) {
    data[i] = std::ldexp(mantissa(rng), static_cast<int>(rng() % 24) - 12);
  }
  return std::move(*lit);
}

// Sums of rows of whole program blocks run inside the register programs
// (sum-row): the bits of the reduce op by op, for a layer norm, a softmax
// whose sum is broadcast straight back (the program ends before that
// broadcast), and the sums of z and z * z in one program.
TEST(FusionTest, RowSumsInProgramsGiveTheReduceBits) {
  const std::string layer_norm = absl::StrCat("HloModule m\n", kReducers, R"(
ENTRY main {
  x = f32[37,256] parameter(0)
  scale = f32[256] parameter(1)
  zero = f32[] constant(0)
  s = f32[37] reduce(x, zero), dimensions={1}, to_apply=add_f32
  n = f32[] constant(256)
  nb = f32[37] broadcast(n), dimensions={}
  mean = f32[37] divide(s, nb)
  meanb = f32[37,256] broadcast(mean), dimensions={0}
  xc = f32[37,256] subtract(x, meanb)
  sq = f32[37,256] multiply(xc, xc)
  v = f32[37] reduce(sq, zero), dimensions={1}, to_apply=add_f32
  inv = f32[37] rsqrt(v)
  invb = f32[37,256] broadcast(inv), dimensions={0}
  y = f32[37,256] multiply(xc, invb)
  sb = f32[37,256] broadcast(scale), dimensions={1}
  ROOT out = f32[37,256] multiply(y, sb)
})");
  std::vector<Literal> args;
  args.push_back(FiniteArray({37, 256}, 81));
  args.push_back(FiniteArray({256}, 82));
  ExpectRowWise(layer_norm, args, 37, 256);

  const std::string softmax = absl::StrCat("HloModule m\n", kReducers, R"(
ENTRY main {
  x = f32[50,128] parameter(0)
  zero = f32[] constant(0)
  e = f32[50,128] exponential(x)
  sum = f32[50] reduce(e, zero), dimensions={1}, to_apply=add_f32
  sb = f32[50,128] broadcast(sum), dimensions={0}
  ROOT sm = f32[50,128] divide(e, sb)
})");
  args.clear();
  args.push_back(FiniteArray({50, 128}, 83));
  ExpectRowWise(softmax, args, 50, 128);
  std::string listing;
  EntryMnemonics(softmax, &listing);
  EXPECT_THAT(listing, HasSubstr("program 1:")) << listing;
  EXPECT_THAT(listing, HasSubstr("(row sums)")) << listing;

  const std::string moments = absl::StrCat("HloModule m\n", kReducers, R"(
ENTRY main {
  z = f32[64,192] parameter(0)
  zero = f32[] constant(0)
  zs = f32[64] reduce(z, zero), dimensions={1}, to_apply=add_f32
  zz = f32[64,192] multiply(z, z)
  zzs = f32[64] reduce(zz, zero), dimensions={1}, to_apply=add_f32
  n = f32[] constant(192)
  nb = f32[64] broadcast(n), dimensions={}
  mean = f32[64] divide(zs, nb)
  meansq = f32[64] divide(zzs, nb)
  mean2 = f32[64] multiply(mean, mean)
  var = f32[64] subtract(meansq, mean2)
  ROOT r = (f32[64], f32[64]) tuple(mean, var)
})");
  args.clear();
  args.push_back(FiniteArray({64, 192}, 84));
  ExpectRowWise(moments, args, 64, 192);
  EntryMnemonics(moments, &listing);
  EXPECT_THAT(listing, HasSubstr("program 0: 4 ops over in0, t0 (row sums), in1 (whole), t2 (row sums)"))
      << listing;
}

// As many rows as columns: the scale vector, read in place for every row,
// is also the size of a row value, and must still be read from its start
// in every block (blocks of 64 rows here).
TEST(FusionTest, ColumnVectorOfSquareRowsIsReadWhole) {
  const std::string text = absl::StrCat("HloModule m\n", kReducers, R"(
ENTRY main {
  x = f32[256,256] parameter(0)
  scale = f32[256] parameter(1)
  zero = f32[] constant(0)
  s = f32[256] reduce(x, zero), dimensions={1}, to_apply=add_f32
  sb = f32[256,256] broadcast(s), dimensions={0}
  xc = f32[256,256] subtract(x, sb)
  gb = f32[256,256] broadcast(scale), dimensions={1}
  ROOT y = f32[256,256] multiply(xc, gb)
})");
  std::vector<Literal> args;
  args.push_back(FiniteArray({256, 256}, 85));
  args.push_back(FiniteArray({256}, 86));
  ExpectRowWise(text, args, 256, 256);
  std::string listing;
  EntryMnemonics(text, &listing);
  EXPECT_THAT(listing, HasSubstr("(whole) (every row)")) << listing;
}

// Softmax and log-softmax of bf16 rows computed in f32 (as JAX writes them),
// rows of 130 (no multiple of a vector), the row maximum also an output.
TEST(FusionTest, SoftmaxAndLogSoftmaxAreRowWiseRegions) {
  const std::string text = absl::StrCat("HloModule m\n", kReducers, R"(
ENTRY main {
  h = bf16[999,130] parameter(0)
  x = f32[999,130] convert(h)
  ninf = f32[] constant(-inf)
  zero = f32[] constant(0)
  mx = f32[999] reduce(x, ninf), dimensions={1}, to_apply=max_f32
  mxb = f32[999,130] broadcast(mx), dimensions={0}
  sh = f32[999,130] subtract(x, mxb)
  e = f32[999,130] exponential(sh)
  sum = f32[999] reduce(e, zero), dimensions={1}, to_apply=add_f32
  sb = f32[999,130] broadcast(sum), dimensions={0}
  sm = f32[999,130] divide(e, sb)
  smh = bf16[999,130] convert(sm)
  y = f32[999,130] parameter(1)
  ymx = f32[999] reduce(y, ninf), dimensions={1}, to_apply=max_f32
  ymxb = f32[999,130] broadcast(ymx), dimensions={0}
  ysh = f32[999,130] subtract(y, ymxb)
  ye = f32[999,130] exponential(ysh)
  ysum = f32[999] reduce(ye, zero), dimensions={1}, to_apply=add_f32
  ylog = f32[999] log(ysum)
  ylogb = f32[999,130] broadcast(ylog), dimensions={0}
  lsm = f32[999,130] subtract(ysh, ylogb)
  ROOT r = (bf16[999,130], f32[999], f32[999,130]) tuple(smh, mx, lsm)
})");
  std::vector<Literal> args;
  args.push_back(RandomArray(ElementType::kBF16, {999, 130}, 74));
  args.push_back(RandomArray(ElementType::kF32, {999, 130}, 75));
  ExpectRowWise(text, args, 999, 130, /*regions=*/2);
}

// RMS norm, and the mean and variance of the same rows: two reduces of one
// input in one pass (two row outputs). The two share the broadcast of the
// row length, so they form one region (one pass over x and z together).
TEST(FusionTest, RmsNormAndMeanVarianceAreRowWiseRegions) {
  const std::string text = absl::StrCat("HloModule m\n", kReducers, R"(
ENTRY main {
  x = f32[200,512] parameter(0)
  g = f32[512] parameter(1)
  zero = f32[] constant(0)
  n = f32[] constant(512)
  nb = f32[200] broadcast(n), dimensions={}
  sq = f32[200,512] multiply(x, x)
  ss = f32[200] reduce(sq, zero), dimensions={1}, to_apply=add_f32
  ms = f32[200] divide(ss, nb)
  eps = f32[] constant(1e-06)
  epsb = f32[200] broadcast(eps), dimensions={}
  mse = f32[200] add(ms, epsb)
  inv = f32[200] rsqrt(mse)
  invb = f32[200,512] broadcast(inv), dimensions={0}
  gb = f32[200,512] broadcast(g), dimensions={1}
  xn = f32[200,512] multiply(x, invb)
  rms = f32[200,512] multiply(xn, gb)
  z = f32[200,512] parameter(2)
  zs = f32[200] reduce(z, zero), dimensions={1}, to_apply=add_f32
  zz = f32[200,512] multiply(z, z)
  zzs = f32[200] reduce(zz, zero), dimensions={1}, to_apply=add_f32
  mean = f32[200] divide(zs, nb)
  meansq = f32[200] divide(zzs, nb)
  mean2 = f32[200] multiply(mean, mean)
  var = f32[200] subtract(meansq, mean2)
  ROOT r = (f32[200,512], f32[200], f32[200]) tuple(rms, mean, var)
})");
  std::vector<Literal> args;
  args.push_back(RandomArray(ElementType::kF32, {200, 512}, 76));
  args.push_back(RandomArray(ElementType::kF32, {512}, 77));
  args.push_back(RandomArray(ElementType::kF32, {200, 512}, 78));
  ExpectRowWise(text, args, 200, 512);
  EXPECT_THAT(EntryMnemonics(text), ElementsAre("fusion"));
}

// A loop-carried state through a row-wise region (log-softmax of rows of
// 256, scaled): the region writes the state in place, trip after trip, with
// the bits of op by op.
TEST(FusionTest, RowWiseRegionWritesLoopStateInPlace) {
  const std::string text = absl::StrCat("HloModule m\n", kReducers, R"(
cond {
  s = (s32[], f32[96,256]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  three = s32[] constant(3)
  ROOT lt = pred[] compare(i, three), direction=LT
}
body {
  s = (s32[], f32[96,256]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[96,256] get-tuple-element(s), index=1
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  ninf = f32[] constant(-inf)
  zero = f32[] constant(0)
  mx = f32[96] reduce(x, ninf), dimensions={1}, to_apply=max_f32
  mxb = f32[96,256] broadcast(mx), dimensions={0}
  sh = f32[96,256] subtract(x, mxb)
  e = f32[96,256] exponential(sh)
  sum = f32[96] reduce(e, zero), dimensions={1}, to_apply=add_f32
  lg = f32[96] log(sum)
  lgb = f32[96,256] broadcast(lg), dimensions={0}
  ls = f32[96,256] subtract(sh, lgb)
  half = f32[] constant(0.5)
  hb = f32[96,256] broadcast(half), dimensions={}
  y = f32[96,256] multiply(ls, hb)
  ROOT next = (s32[], f32[96,256]) tuple(i1, y)
}
ENTRY main {
  x0 = f32[96,256] parameter(0)
  z = s32[] constant(0)
  init = (s32[], f32[96,256]) tuple(z, x0)
  loop = (s32[], f32[96,256]) while(init), condition=cond, body=body
  ROOT out = f32[96,256] get-tuple-element(loop), index=1
})");
  std::vector<Literal> args;
  args.push_back(RandomArray(ElementType::kF32, {96, 256}, 81));
  ExpectFusedMatchesUnfused(text, args);
  std::string listing;
  EntryMnemonics(text, &listing);
  // The body's region writes the state's own register (`rK:param`).
  const size_t at = listing.find("row-wise over 96 rows of 256");
  ASSERT_NE(at, std::string::npos) << listing;
  const size_t line_end = listing.find('\n', at);
  EXPECT_THAT(listing.substr(at, line_end - at), HasSubstr(":param")) << listing;
}

// A member read outside before the region's last member ends the region
// there: the layer norm's output feeds a dot whose result is added back, so
// the add stays out (a region of its own), and the bits still match.
TEST(FusionTest, RowWiseRegionEndsBeforeAnOutsideReader) {
  const std::string text = absl::StrCat("HloModule m\n", kReducers, R"(
ENTRY main {
  x = f32[64,128] parameter(0)
  w = f32[128,128] parameter(1)
  zero = f32[] constant(0)
  s = f32[64] reduce(x, zero), dimensions={1}, to_apply=add_f32
  sb = f32[64,128] broadcast(s), dimensions={0}
  y = f32[64,128] subtract(x, sb)
  d = f32[64,128] dot(y, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT a = f32[64,128] add(y, d)
})");
  std::vector<Literal> args;
  args.push_back(RandomArray(ElementType::kF32, {64, 128}, 79));
  args.push_back(RandomArray(ElementType::kF32, {128, 128}, 80));
  ExpectRowWise(text, args, 64, 128);
  const std::vector<std::string> m = EntryMnemonics(text);
  ASSERT_EQ(m.size(), 3u) << ::testing::PrintToString(m);
  EXPECT_EQ(m[0], "fusion");
  EXPECT_EQ(m[1], "dot");
}

TEST(FusionTest, ColumnReducesJoinTheRegion) {
  // A bias gradient (the sum over the batch of a chain), also written; a
  // max over the middle dimension of three (output rows of 5000 columns in
  // blocks, a reduced count that is no multiple of four); a bf16 column sum
  // only reduced; a column reduce of rows too short to fuse.
  const std::string text = absl::StrCat("HloModule m\n", kReducers, R"(
ENTRY main {
  x = f32[517,768] parameter(0)
  y = f32[517,768] parameter(1)
  zero = f32[] constant(0)
  ninf = f32[] constant(-inf)
  d = f32[517,768] multiply(x, y)
  t = f32[517,768] tanh(d)
  g = f32[517,768] subtract(t, x)
  bias = f32[768] reduce(g, zero), dimensions={0}, to_apply=add_f32
  w = f32[3,7,5000] parameter(2)
  a = f32[3,7,5000] abs(w)
  n = f32[3,7,5000] negate(a)
  mx = f32[3,5000] reduce(n, ninf), dimensions={1}, to_apply=max_f32
  h = bf16[64,1024] parameter(3)
  hh = bf16[64,1024] multiply(h, h)
  hz = bf16[] constant(0)
  hs = bf16[1024] reduce(hh, hz), dimensions={0}, to_apply=add_bf16
  s = f32[4096,16] parameter(4)
  s2 = f32[4096,16] multiply(s, s)
  narrow = f32[16] reduce(s2, zero), dimensions={0}, to_apply=add_f32
  ROOT r = (f32[768], f32[517,768], f32[3,5000], bf16[1024], f32[16]) tuple(bias, g, mx, hs, narrow)
})");
  std::vector<Literal> args;
  args.push_back(RandomArray(ElementType::kF32, {517, 768}, 21));
  args.push_back(RandomArray(ElementType::kF32, {517, 768}, 22));
  args.push_back(RandomArray(ElementType::kF32, {3, 7, 5000}, 23));
  args.push_back(RandomArray(ElementType::kBF16, {64, 1024}, 24));
  args.push_back(RandomArray(ElementType::kF32, {4096, 16}, 25));
  ExpectFusedMatchesUnfused(text, args);
  std::string listing;
  const std::vector<std::string> m = EntryMnemonics(text, &listing);
  EXPECT_EQ(std::count(m.begin(), m.end(), "reduce"), 1) << listing;  // only the narrow one
  EXPECT_THAT(listing, HasSubstr("out0 -> reduce add over 517 rows of 768 columns"));
  EXPECT_THAT(listing, HasSubstr("rows -> reduce maximum over 7 rows of 5000 columns"));
  EXPECT_THAT(listing, HasSubstr("rows -> reduce add over 64 rows of 1024 columns"));
}

// A max pool (and a sum pool with a base dilation) of an elementwise
// chain over NHWC joins the region: per band of output rows the chain's
// rows are computed and folded in window order, bit for bit as op by op
// (NaNs, signed zeros and padding included), on 1 and 2 threads. Where the
// chain's result is also read elsewhere, the window stays op by op.
TEST(FusionTest, ReduceWindowOfTheRootJoinsTheRegion) {
  const std::string pool = R"(HloModule m
max { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT r = f32[] maximum(a, b) }
add { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT r = f32[] add(a, b) }
ENTRY main {
  x = f32[2,13,12,16] parameter(0)
  s = f32[16] parameter(1)
  sb = f32[2,13,12,16] broadcast(s), dimensions={3}
  y = f32[2,13,12,16] multiply(x, sb)
  zero = f32[] constant(0)
  zb = f32[2,13,12,16] broadcast(zero), dimensions={}
  r = f32[2,13,12,16] maximum(y, zb)
  ninf = f32[] constant(-inf)
  ROOT p = f32[2,7,6,16] reduce-window(r, ninf), window={size=1x3x3x1 stride=1x2x2x1 pad=0_0x1_1x1_1x0_0}, to_apply=max
})";
  std::string listing;
  EXPECT_THAT(EntryMnemonics(pool, &listing), ElementsAre("fusion"));
  EXPECT_THAT(listing, HasSubstr("reduce-window maximum over rows of 16"));
  std::vector<Literal> args;
  args.push_back(RandomArray(ElementType::kF32, {2, 13, 12, 16}, 3));
  args.push_back(RandomArray(ElementType::kF32, {16}, 4));
  ExpectFusedMatchesUnfused(pool, args);

  const std::string sum = R"(HloModule m
add { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT r = f32[] add(a, b) }
ENTRY main {
  x = f32[3,9,40] parameter(0)
  n = f32[3,9,40] negate(x)
  e = f32[3,9,40] exponential(n)
  mz = f32[] constant(-0)
  ROOT p = f32[3,8,40] reduce-window(e, mz), window={size=1x3x1 stride=1x2x1 pad=0_0x1_0x0_0 lhs_dilate=1x2x1}, to_apply=add
})";
  EXPECT_THAT(EntryMnemonics(sum), ElementsAre("fusion"));
  std::vector<Literal> sum_args;
  sum_args.push_back(RandomArray(ElementType::kF32, {3, 9, 40}, 5));
  ExpectFusedMatchesUnfused(sum, sum_args);

  std::string shared = pool;
  shared.replace(shared.find("  ROOT p"), std::string::npos, R"(  p = f32[2,7,6,16] reduce-window(r, ninf), window={size=1x3x3x1 stride=1x2x2x1 pad=0_0x1_1x1_1x0_0}, to_apply=max
  ROOT t = (f32[2,7,6,16], f32[2,13,12,16]) tuple(p, r)
})");
  EXPECT_THAT(EntryMnemonics(shared), ElementsAre("fusion", "reduce-window"));
  ExpectFusedMatchesUnfused(shared, args);
}

TEST(FusionTest, TransposedInputsAreGatheredTileByTile) {
  // A head shuffle [b,s,h,d] -> [b,h,s,d] feeding a scale and a bias (runs
  // of 32 across tiles); a transpose of a value the region would also
  // compute (it is read from memory, the value computed before); transposes
  // that move the innermost dimension, computed in bands: a matrix's, a
  // bf16 [c,h,w] -> [w,c,h] and an NHWC -> NCHW.
  const std::string text = absl::StrCat("HloModule m\n", kReducers, R"(
ENTRY main {
  x = f32[2,96,5,32] parameter(0)
  t = f32[2,5,96,32] transpose(x), dimensions={0,2,1,3}
  s = f32[] constant(0.125)
  sb = f32[2,5,96,32] broadcast(s), dimensions={}
  bias = f32[2,5,96,32] parameter(1)
  m = f32[2,5,96,32] multiply(t, sb)
  y = f32[2,5,96,32] add(m, bias)
  w = bf16[7,64,48] parameter(2)
  a = bf16[7,64,48] negate(w)
  ta = bf16[64,7,48] transpose(a), dimensions={1,0,2}
  ra = bf16[64,7,48] reshape(a)
  sum = bf16[64,7,48] add(ta, ra)
  q = f32[256,80] parameter(3)
  tq = f32[80,256] transpose(q), dimensions={1,0}
  nq = f32[80,256] negate(tq)
  eq = f32[80,256] exponential(nq)
  c = bf16[6,24,40] parameter(4)
  tc = bf16[40,6,24] transpose(c), dimensions={2,0,1}
  ec = bf16[40,6,24] exponential(tc)
  sc = bf16[40,6,24] multiply(ec, tc)
  v = f32[3,9,17,24] parameter(5)
  tv = f32[3,24,9,17] transpose(v), dimensions={0,3,1,2}
  av = f32[3,24,9,17] abs(tv)
  mv = f32[3,24,9,17] maximum(av, tv)
  ROOT r = (f32[2,5,96,32], bf16[64,7,48], f32[80,256], bf16[40,6,24], f32[3,24,9,17]) tuple(y, sum, eq, sc, mv)
})");
  std::vector<Literal> args;
  args.push_back(RandomArray(ElementType::kF32, {2, 96, 5, 32}, 31));
  args.push_back(RandomArray(ElementType::kF32, {2, 5, 96, 32}, 32));
  args.push_back(RandomArray(ElementType::kBF16, {7, 64, 48}, 33));
  args.push_back(RandomArray(ElementType::kF32, {256, 80}, 34));
  args.push_back(RandomArray(ElementType::kBF16, {6, 24, 40}, 35));
  args.push_back(RandomArray(ElementType::kF32, {3, 9, 17, 24}, 36));
  ExpectFusedMatchesUnfused(text, args);
  std::string listing;
  const std::vector<std::string> m = EntryMnemonics(text, &listing);
  EXPECT_EQ(std::count(m.begin(), m.end(), "transpose"), 0) << listing;
  EXPECT_EQ(std::count(m.begin(), m.end(), "fusion"), 5) << listing;
  EXPECT_THAT(listing, HasSubstr("transpose dimensions={0,2,1,3}"));
  EXPECT_THAT(listing, HasSubstr("transpose dimensions={1,0,2}"));
  EXPECT_THAT(listing, HasSubstr("transpose dimensions={1,0}"));
  EXPECT_THAT(listing, HasSubstr("transpose dimensions={2,0,1}"));
  EXPECT_THAT(listing, HasSubstr("transpose dimensions={0,3,1,2}"));
}

TEST(FusionTest, TransposesMovingTheInnermostDimensionRunInBands) {
  // [6000,16] -> [16,6000]: bands of the 6000 lines, 16 columns each; a
  // [3,700,40] -> [3,40,700] (three outer indices, a partial band); bf16
  // (32 columns a block) with a partial block; two such transposes in one
  // region (the second gathered run by run). [8,5000] -> [5000,8] (runs of
  // 8) and [16,4000] -> [4000,16] (16 lines) stay op by op. A row reduce
  // of a banded region's root, which takes it in order, stays outside.
  const std::string text = absl::StrCat("HloModule m\n", kReducers, R"(
ENTRY main {
  y = f32[6000,16] parameter(0)
  ty = f32[16,6000] transpose(y), dimensions={1,0}
  ny = f32[16,6000] negate(ty)
  ey = f32[16,6000] exponential(ny)
  v = f32[3,700,40] parameter(1)
  tv = f32[3,40,700] transpose(v), dimensions={0,2,1}
  av = f32[3,40,700] abs(tv)
  mv = f32[3,40,700] multiply(av, tv)
  h = bf16[300,40] parameter(2)
  th = bf16[40,300] transpose(h), dimensions={1,0}
  eh = bf16[40,300] exponential(th)
  sh = bf16[40,300] subtract(eh, th)
  p = f32[300,200] parameter(3)
  q = f32[300,200] parameter(4)
  tp = f32[200,300] transpose(p), dimensions={1,0}
  tq = f32[200,300] transpose(q), dimensions={1,0}
  d = f32[200,300] divide(tp, tq)
  md = f32[200,300] maximum(d, tq)
  x = f32[8,5000] parameter(5)
  tx = f32[5000,8] transpose(x), dimensions={1,0}
  nx = f32[5000,8] negate(tx)
  ex = f32[5000,8] exponential(nx)
  z = f32[16,4000] parameter(6)
  tz = f32[4000,16] transpose(z), dimensions={1,0}
  nz = f32[4000,16] negate(tz)
  ez = f32[4000,16] exponential(nz)
  k = f32[256,300] parameter(7)
  tk = f32[300,256] transpose(k), dimensions={1,0}
  ek = f32[300,256] exponential(tk)
  mk = f32[300,256] multiply(ek, tk)
  zero = f32[] constant(0)
  rk = f32[300] reduce(mk, zero), dimensions={1}, to_apply=add_f32
  ROOT r = (f32[16,6000], f32[3,40,700], bf16[40,300], f32[200,300], f32[5000,8], f32[4000,16], f32[300]) tuple(ey, mv, sh, md, ex, ez, rk)
})");
  std::vector<Literal> args;
  args.push_back(RandomArray(ElementType::kF32, {6000, 16}, 41));
  args.push_back(RandomArray(ElementType::kF32, {3, 700, 40}, 42));
  args.push_back(RandomArray(ElementType::kBF16, {300, 40}, 43));
  args.push_back(RandomArray(ElementType::kF32, {300, 200}, 44));
  args.push_back(RandomArray(ElementType::kF32, {300, 200}, 45));
  args.push_back(RandomArray(ElementType::kF32, {8, 5000}, 46));
  args.push_back(RandomArray(ElementType::kF32, {16, 4000}, 47));
  args.push_back(RandomArray(ElementType::kF32, {256, 300}, 48));
  ExpectFusedMatchesUnfused(text, args);
  std::string listing;
  const std::vector<std::string> m = EntryMnemonics(text, &listing);
  EXPECT_EQ(std::count(m.begin(), m.end(), "transpose"), 2) << listing;
  EXPECT_EQ(std::count(m.begin(), m.end(), "fusion"), 7) << listing;
  EXPECT_EQ(std::count(m.begin(), m.end(), "reduce"), 1) << listing;
  EXPECT_THAT(listing, HasSubstr("bands of 512 of 6000 lines, 16 columns a block"));
  EXPECT_THAT(listing, HasSubstr("bands of 512 of 700 lines, 16 columns a block"));
  EXPECT_THAT(listing, HasSubstr("bands of 300 of 300 lines, 32 columns a block"));
}

TEST(FusionTest, IotaIsComputedTileByTile) {
  // A causal mask: row index >= column index, over several tiles.
  const std::string text = R"(HloModule m
ENTRY main {
  x = f32[96,128] parameter(0)
  r = s32[96,128] iota(), iota_dimension=0
  c = s32[96,128] iota(), iota_dimension=1
  keep = pred[96,128] compare(r, c), direction=GE
  ninf = f32[] constant(-inf)
  nb = f32[96,128] broadcast(ninf), dimensions={}
  m = f32[96,128] select(keep, x, nb)
  fi = f32[96,128] iota(), iota_dimension=1
  ROOT a = f32[96,128] add(m, fi)
})";
  std::vector<Literal> args;
  args.push_back(RandomArray(ElementType::kF32, {96, 128}, 18));
  ExpectFusedMatchesUnfused(text, args);
  std::string listing;
  EXPECT_THAT(EntryMnemonics(text, &listing), ElementsAre("fusion"));
  EXPECT_THAT(listing, HasSubstr("iota (repeat 128, period 96)"));
  EXPECT_THAT(listing, HasSubstr("iota (repeat 1, period 128)"));
}

// A convolution whose only readers are a region's elementwise ops (bias,
// batch-norm scale, residual, relu) runs the region over each unit's
// outputs: one `convolution` instruction, bit for bit as op by op (NaNs,
// infinities and signed zeros among the inputs), on 1 and 2 threads: the
// direct path over whole rows and over blocks of columns, with feature
// groups, the GEMM path (a 1x1 window to many features), and two
// convolutions in one region (the later one joins). A convolution read
// elsewhere too, or whose result is not [batch, positions, features]
// row-major, stays alone before its region.
TEST(FusionTest, ConvolutionRunsItsRegionOverItsUnits) {
  const std::string text = R"(HloModule m
ENTRY main {
  x = f32[1,16,16,32] parameter(0)
  k = f32[3,3,32,32] parameter(1)
  bias = f32[32] parameter(2)
  res = f32[1,16,16,32] parameter(3)
  zero = f32[] constant(0)
  zeros = f32[1,16,16,32] broadcast(zero), dimensions={}
  c = f32[1,16,16,32] convolution(x, k), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
  bb = f32[1,16,16,32] broadcast(bias), dimensions={3}
  a = f32[1,16,16,32] add(c, bb)
  ar = f32[1,16,16,32] add(a, res)
  relu = f32[1,16,16,32] maximum(ar, zeros)
  kw = f32[3,3,32,192] parameter(4)
  bw = f32[192] parameter(5)
  cw = f32[1,16,16,192] convolution(x, kw), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
  bbw = f32[1,16,16,192] broadcast(bw), dimensions={3}
  scale = f32[] constant(0.75)
  sw = f32[1,16,16,192] broadcast(scale), dimensions={}
  aw = f32[1,16,16,192] add(cw, bbw)
  mw = f32[1,16,16,192] multiply(aw, sw)
  tw = f32[1,16,16,192] tanh(mw)
  kg = f32[3,3,16,64] parameter(6)
  cg = f32[1,16,16,64] convolution(x, kg), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, feature_group_count=2
  zg = f32[1,16,16,64] broadcast(zero), dimensions={}
  rg = f32[1,16,16,64] maximum(zg, cg)
  k1 = f32[1,1,32,256] parameter(7)
  b1 = f32[256] parameter(8)
  c1 = f32[1,16,16,256] convolution(x, k1), window={size=1x1}, dim_labels=b01f_01io->b01f
  c2 = f32[1,16,16,256] convolution(res, k1), window={size=1x1}, dim_labels=b01f_01io->b01f
  bb1 = f32[1,16,16,256] broadcast(b1), dimensions={3}
  a1 = f32[1,16,16,256] add(c1, bb1)
  a2 = f32[1,16,16,256] add(a1, c2)
  z1 = f32[1,16,16,256] broadcast(zero), dimensions={}
  r1 = f32[1,16,16,256] maximum(a2, z1)
  kn = f32[32,32,3,3] parameter(9)
  xn = f32[1,32,16,16] parameter(10)
  cn = f32[1,32,16,16] convolution(xn, kn), window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01
  zn = f32[1,32,16,16] broadcast(zero), dimensions={}
  rn = f32[1,32,16,16] maximum(cn, zn)
  co = f32[1,16,16,32] convolution(res, k), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
  no = f32[1,16,16,32] negate(co)
  ao = f32[1,16,16,32] add(no, bb)
  k5 = f32[3,3,32,40] parameter(11)
  b5 = f32[40] parameter(12)
  r5 = f32[1,16,16,40] parameter(13)
  c5 = f32[1,16,16,40] convolution(x, k5), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
  bb5 = f32[1,16,16,40] broadcast(b5), dimensions={3}
  s5 = f32[1,16,16,40] subtract(bb5, c5)
  sw5 = f32[1,16,16,40] broadcast(scale), dimensions={}
  m5 = f32[1,16,16,40] multiply(s5, sw5)
  n5 = f32[1,16,16,40] minimum(r5, m5)
  z5 = f32[1,16,16,40] broadcast(zero), dimensions={}
  x5 = f32[1,16,16,40] maximum(n5, z5)
  k6 = f32[1,1,32,256] parameter(14)
  c6 = f32[1,16,16,256] convolution(x, k6), window={size=1x1}, dim_labels=b01f_01io->b01f
  a6 = f32[1,16,16,256] add(bb1, c6)
  r6 = f32[1,16,16,256] maximum(a6, z1)
  ROOT t = (f32[1,16,16,32], f32[1,16,16,192], f32[1,16,16,64], f32[1,16,16,256], f32[1,32,16,16], f32[1,16,16,32], f32[1,16,16,32], f32[1,16,16,40], f32[1,16,16,256]) tuple(relu, tw, rg, r1, rn, ao, co, x5, r6)
})";
  std::vector<Literal> args;
  args.push_back(RandomArray(ElementType::kF32, {1, 16, 16, 32}, 31));
  args.push_back(RandomArray(ElementType::kF32, {3, 3, 32, 32}, 32));
  args.push_back(RandomArray(ElementType::kF32, {32}, 33));
  args.push_back(RandomArray(ElementType::kF32, {1, 16, 16, 32}, 34));
  args.push_back(RandomArray(ElementType::kF32, {3, 3, 32, 192}, 35));
  args.push_back(RandomArray(ElementType::kF32, {192}, 36));
  args.push_back(RandomArray(ElementType::kF32, {3, 3, 16, 64}, 37));
  args.push_back(RandomArray(ElementType::kF32, {1, 1, 32, 256}, 38));
  args.push_back(RandomArray(ElementType::kF32, {256}, 39));
  args.push_back(RandomArray(ElementType::kF32, {32, 32, 3, 3}, 40));
  args.push_back(RandomArray(ElementType::kF32, {1, 32, 16, 16}, 41));
  args.push_back(RandomArray(ElementType::kF32, {3, 3, 32, 40}, 42));
  args.push_back(RandomArray(ElementType::kF32, {40}, 43));
  args.push_back(RandomArray(ElementType::kF32, {1, 16, 16, 40}, 44));
  args.push_back(RandomArray(ElementType::kF32, {1, 1, 32, 256}, 45));
  ExpectFusedMatchesUnfused(text, args);
  std::string listing;
  const std::vector<std::string> m = EntryMnemonics(text, &listing);
  // relu, tw, rg, r1 (c2 joins it, c1 runs before), rn, ao, x5, r6: eight
  // regions, six of them in their convolutions; c1, cn and co alone. Of
  // the six, relu, rg, x5 and r6 are chains of steps (in the register tile
  // on the direct path, partial tiles included; as the GEMM tile is
  // written); tw (a tanh) and r1 (c1's chain) run their micro-programs.
  EXPECT_EQ(std::count(m.begin(), m.end(), "convolution"), 9) << listing;
  EXPECT_EQ(std::count(m.begin(), m.end(), "fusion"), 2) << listing;
  auto count = [&](const std::string& what) {
    size_t found = 0;
    for (size_t at = listing.find(what); at != std::string::npos; at = listing.find(what, at + 1)) {
      ++found;
    }
    return found;
  };
  EXPECT_EQ(count("epilogue of"), 6u) << listing;
  EXPECT_EQ(count("as steps in the register tile"), 3u) << listing;
  EXPECT_EQ(count("as steps as each tile is written"), 1u) << listing;
  EXPECT_THAT(listing, HasSubstr("%c:"));
  EXPECT_THAT(listing, HasSubstr("steps: add acc, in1 (per feature); add acc, in3; maximum acc, s0"));
  EXPECT_THAT(listing, HasSubstr("steps: subtract in"));
  EXPECT_THAT(listing, HasSubstr("acc = maximum acc, s"));
}

TEST(FusionTest, SmallRegionsRunOpByOp) {
  EXPECT_THAT(EntryMnemonics(R"(HloModule m
ENTRY main {
  x = f32[1000] parameter(0)
  n = f32[1000] negate(x)
  ROOT e = f32[1000] exponential(n)
})"),
              ElementsAre("negate", "exponential"));
}

TEST(FusionTest, EmptyArrays) {
  const std::string text = R"(HloModule m
ENTRY main {
  x = f32[0,3] parameter(0)
  n = f32[0,3] negate(x)
  ROOT e = f32[0,3] exponential(n)
})";
  std::vector<Literal> args;
  args.push_back(RandomArray(ElementType::kF32, {0, 3}, 13));
  ExpectFusedMatchesUnfused(text, args);
}

}  // namespace
}  // namespace vm
}  // namespace hlovm
