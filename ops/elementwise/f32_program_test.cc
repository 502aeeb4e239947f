// Runs random register programs (f32_program.h) through the interpreter of
// f32_program-inl.h on every SIMD target compiled in and supported here
// (Highway's per-target test suite, hwy_gtest.h) and compares every stored
// element with a plain scalar interpreter of the same program: bit for bit
// (any NaN for a NaN). The scalar interpreter computes the exactly rounded
// ops itself and the transcendental ones (exp, logistic, tanh) with the
// op-by-op kernel of the same target, one element at a time: a program must
// give the bits of running its ops one kernel at a time.
#include "ops/elementwise/elementwise_hwy_targets.h"  // must precede Highway

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "hwy/aligned_allocator.h"
#include "hwy/highway.h"
#include "hwy/targets.h"
#include "hwy/tests/hwy_gtest.h"
#include "ops/elementwise/elementwise.h"
#include "ops/elementwise/elementwise_hwy.h"
#include "ops/elementwise/f32_program.h"
#include "ops/reduce/reduce_hwy.h"

namespace hlovm {
namespace {

HWY_BEFORE_TEST(F32ProgramTest);

float FromBits(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof(f));
  return f;
}
uint32_t Bits(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof(bits));
  return bits;
}
float WidenBF16(uint16_t h) { return FromBits(uint32_t{h} << 16); }
// Round to nearest even to bf16 and back; a NaN stays a (quiet) NaN.
float RoundBF16(float x) {
  const uint32_t b = Bits(x);
  if (std::isnan(x)) return FromBits((b & 0xffff0000u) | 0x00400000u);
  return FromBits((b + 0x7fffu + ((b >> 16) & 1)) & 0xffff0000u);
}

float Quiet(float x) { return FromBits(Bits(x) | 0x00400000u); }
// NaN-propagating (the first NaN operand, quieted); +0 above -0.
float Max(float a, float b) {
  if (std::isnan(a)) return Quiet(a);
  if (std::isnan(b)) return Quiet(b);
  if (a == b) return FromBits(Bits(a) & Bits(b));
  return a > b ? a : b;
}
float Min(float a, float b) {
  if (std::isnan(a)) return Quiet(a);
  if (std::isnan(b)) return Quiet(b);
  if (a == b) return FromBits(Bits(a) | Bits(b));
  return a < b ? a : b;
}
float Mask(bool m) { return FromBits(m ? 0xffffffffu : 0u); }

// One element of an op-by-op f32 kernel on the target under test.
float Kernel(HloOpcode opcode, float x) {
  auto kernel = SelectUnaryKernel(opcode, ElementType::kF32, ElementType::kF32);
  EXPECT_TRUE(kernel.ok());
  float y = 0;
  (*kernel)(&x, &y, 1);
  return y;
}

// Edge values and random ones of every magnitude, some of them exactly
// bf16 (so that compares of bf16 and f32 streams can come out equal).
std::vector<float> Inputs(int64_t n, uint32_t seed) {
  static const float kEdges[] = {0.0f,
                                 -0.0f,
                                 1.0f,
                                 -1.0f,
                                 0.5f,
                                 -2.5f,
                                 3.0f,
                                 std::numeric_limits<float>::infinity(),
                                 -std::numeric_limits<float>::infinity(),
                                 std::numeric_limits<float>::quiet_NaN(),
                                 std::numeric_limits<float>::denorm_min(),
                                 -1e-40f,
                                 std::numeric_limits<float>::max(),
                                 88.7f,
                                 -104.0f,
                                 1e-20f};
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> mantissa(-1.0f, 1.0f);
  std::uniform_int_distribution<int> exponent(-12, 12);
  std::uniform_int_distribution<int> pick(0, 7);
  std::vector<float> v(n);
  for (float& x : v) {
    const int kind = pick(rng);
    if (kind == 0) {
      x = kEdges[rng() % (sizeof(kEdges) / sizeof(kEdges[0]))];
    } else {
      x = std::ldexp(mantissa(rng), exponent(rng));
      if (kind == 1) x = RoundBF16(x);
    }
  }
  return v;
}

// The streams of every program: inputs 0..5, outputs 6..7.
enum Stream : uint8_t {
  kInF,         // f32 array
  kInH,         // bf16 array
  kSplatF,      // one f32
  kSplatH,      // one bf16
  kRepeatF,     // f32 scalars, each repeated kRepeat times, period kPeriod
  kFarF,        // f32 array, read from memory (prefetched)
  kOutF,        // f32 result
  kOutH,        // bf16 result
  kNumStreams,
};
constexpr int64_t kRepeat = kF32ProgramRepeatQuantum;
constexpr int64_t kPeriod = 3;

struct Data {
  std::vector<float> in_f, splat_f, repeat_f, far_f, out_f;
  std::vector<uint16_t> in_h, splat_h, out_h;
  F32Stream kinds[kNumStreams];
  void* streams[kNumStreams];

  Data(int64_t len, uint32_t seed) {
    in_f = Inputs(len, seed);
    far_f = Inputs(len, seed + 1);
    splat_f = Inputs(1, seed + 2);
    repeat_f = Inputs(kPeriod, seed + 3);
    for (float x : Inputs(len, seed + 4)) in_h.push_back(static_cast<uint16_t>(Bits(RoundBF16(x)) >> 16));
    splat_h = {static_cast<uint16_t>(Bits(RoundBF16(Inputs(1, seed + 5)[0])) >> 16)};
    out_f.assign(len, -7.0f);
    out_h.assign(len, 0x1234);
    kinds[kInH].half = kinds[kSplatH].half = kinds[kOutH].half = true;
    kinds[kSplatF].splat = kinds[kSplatH].splat = kinds[kRepeatF].splat = true;
    kinds[kRepeatF].repeat = kRepeat;
    kinds[kRepeatF].period = kPeriod;
    kinds[kFarF].far = true;
    streams[kInF] = in_f.data();
    streams[kInH] = in_h.data();
    streams[kSplatF] = splat_f.data();
    streams[kSplatH] = splat_h.data();
    streams[kRepeatF] = repeat_f.data();
    streams[kFarF] = far_f.data();
    streams[kOutF] = out_f.data();
    streams[kOutH] = out_h.data();
  }

  // Input stream `s` at element e of a range that starts at region
  // element `offset`.
  float Read(uint8_t s, int64_t offset, int64_t e) const {
    switch (s) {
      case kInF: return in_f[e];
      case kInH: return WidenBF16(in_h[e]);
      case kSplatF: return splat_f[0];
      case kSplatH: return WidenBF16(splat_h[0]);
      case kRepeatF: return repeat_f[(offset + e) / kRepeat % kPeriod];
      case kFarF: return far_f[e];
    }
    ADD_FAILURE() << "not an input stream " << int{s};
    return 0;
  }
};

// The scalar interpreter: element by element.
void RunScalar(const std::vector<F32ProgramOp>& code, Data& data, int64_t offset, int64_t len) {
  for (int64_t e = 0; e < len; ++e) {
    float acc = 0;
    float spill[kF32ProgramMaxSpills] = {};
    auto operand = [&](const F32Operand& o) {
      switch (o.kind) {
        case F32Operand::kStream: return data.Read(o.index, offset, e);
        case F32Operand::kSpill: return spill[o.index];
        default: return acc;
      }
    };
    for (const F32ProgramOp& op : code) {
      // Operand a where the op reads one (stores and spills name their
      // destination there; unary ops have none).
      const bool reads_a = op.code == F32Code::kLoad || op.code >= F32Code::kAdd;
      const float a = reads_a && op.a.kind != F32Operand::kNone ? operand(op.a) : 0.0f;
      const float x = op.reversed ? a : acc, y = op.reversed ? acc : a;
      switch (op.code) {
        case F32Code::kLoad: acc = a; break;
        case F32Code::kStore:
          if (op.a.index == kOutF) data.out_f[e] = acc;
          else data.out_h[e] = static_cast<uint16_t>(Bits(acc) >> 16);
          break;
        case F32Code::kSpill: spill[op.a.index] = acc; break;
        case F32Code::kSumRow:  // whole rows: SumRowsAndColumnsGiveTheReduceBits
          ADD_FAILURE() << "sum-row in a random program";
          break;
        case F32Code::kAbs: acc = std::fabs(acc); break;
        case F32Code::kNeg: acc = -acc; break;
        case F32Code::kSqrt: acc = std::sqrt(acc); break;
        case F32Code::kRsqrt: acc = 1.0f / std::sqrt(acc); break;
        case F32Code::kFloor: acc = std::copysign(std::floor(acc), acc); break;
        case F32Code::kCeil: acc = std::copysign(std::ceil(acc), acc); break;
        case F32Code::kRoundEven: acc = std::copysign(std::nearbyint(acc), acc); break;
        case F32Code::kExp: acc = Kernel(HloOpcode::kExp, acc); break;
        case F32Code::kLogistic: acc = Kernel(HloOpcode::kLogistic, acc); break;
        case F32Code::kTanh: acc = Kernel(HloOpcode::kTanh, acc); break;
        case F32Code::kAdd: acc = x + y; break;
        case F32Code::kSub: acc = x - y; break;
        case F32Code::kMul: acc = x * y; break;
        case F32Code::kDiv: acc = x / y; break;
        case F32Code::kMax: acc = Max(x, y); break;
        case F32Code::kMin: acc = Min(x, y); break;
        case F32Code::kEq: acc = Mask(x == y); break;
        case F32Code::kNe: acc = Mask(x != y); break;
        case F32Code::kGe: acc = Mask(x >= y); break;
        case F32Code::kGt: acc = Mask(x > y); break;
        case F32Code::kLe: acc = Mask(x <= y); break;
        case F32Code::kLt: acc = Mask(x < y); break;
        case F32Code::kSelect: acc = Bits(acc) != 0 ? a : operand(op.b); break;
        case F32Code::kRoundBF16: acc = RoundBF16(acc); break;
        case F32Code::kNop: break;
      }
    }
  }
}

// A random program over the streams above. Every program starts with a load
// and spills to every slot it will read; a select follows a compare (its
// mask), a bf16 store follows a round-bf16, and each program ends with
// stores of both results.
std::vector<F32ProgramOp> RandomProgram(std::mt19937& rng) {
  constexpr int kSpills = 3;
  std::vector<F32ProgramOp> code;
  auto input = [&]() {
    F32Operand o;
    const int r = static_cast<int>(rng() % 8);
    if (r < 6) {
      o.kind = F32Operand::kStream;
      o.index = static_cast<uint8_t>(r);  // kInF .. kFarF
    } else if (r == 6) {
      o.kind = F32Operand::kSpill;
      o.index = static_cast<uint8_t>(rng() % kSpills);
    } else {
      o.kind = F32Operand::kAcc;
    }
    return o;
  };
  auto stream_or_spill = [&]() {
    F32Operand o = input();
    while (o.kind == F32Operand::kAcc) o = input();
    return o;
  };
  auto push = [&](F32Code c, F32Operand a = {}, F32Operand b = {}, bool reversed = false) {
    F32ProgramOp op;
    op.code = c;
    op.a = a;
    op.b = b;
    op.reversed = reversed;
    code.push_back(op);
  };
  F32Operand first;
  first.kind = F32Operand::kStream;
  first.index = static_cast<uint8_t>(rng() % 6);
  push(F32Code::kLoad, first);
  for (uint8_t j = 0; j < kSpills; ++j) {
    push(F32Code::kSpill, F32Operand{F32Operand::kSpill, j});
    push(F32Code::kAdd, F32Operand{F32Operand::kStream, static_cast<uint8_t>(rng() % 6)}, {},
         rng() % 2 == 0);
  }
  const int steps = 4 + static_cast<int>(rng() % 12);
  for (int s = 0; s < steps; ++s) {
    const int r = static_cast<int>(rng() % 10);
    if (r < 3) {  // a unary op
      const int u = static_cast<int>(rng() % 10);
      push(static_cast<F32Code>(static_cast<int>(F32Code::kAbs) + u));
    } else if (r < 6) {  // a binary op
      const int b = static_cast<int>(rng() % 6);
      push(static_cast<F32Code>(static_cast<int>(F32Code::kAdd) + b), input(), {},
           rng() % 2 == 0);
    } else if (r == 6) {  // a compare and the select of its mask
      const int c = static_cast<int>(rng() % 6);
      push(static_cast<F32Code>(static_cast<int>(F32Code::kEq) + c), input(), {},
           rng() % 2 == 0);
      push(F32Code::kSelect, stream_or_spill(), stream_or_spill());
    } else if (r == 7) {
      push(F32Code::kSpill, F32Operand{F32Operand::kSpill, static_cast<uint8_t>(rng() % kSpills)});
    } else if (r == 8) {
      push(F32Code::kRoundBF16);
      push(F32Code::kNop);
    } else {
      push(F32Code::kLoad, stream_or_spill());
    }
  }
  push(F32Code::kStore, F32Operand{F32Operand::kStream, kOutF});
  push(F32Code::kRoundBF16);
  push(F32Code::kStore, F32Operand{F32Operand::kStream, kOutH});
  return code;
}

bool SameOrBothNaN(float a, float b) {
  return Bits(a) == Bits(b) || (std::isnan(a) && std::isnan(b));
}

std::string Describe(const std::vector<F32ProgramOp>& code) {
  std::string out;
  for (const F32ProgramOp& op : code) {
    out += std::to_string(static_cast<int>(op.code)) + (op.reversed ? "r" : "") + "(" +
           std::to_string(op.a.kind) + ":" + std::to_string(op.a.index) + "," +
           std::to_string(op.b.kind) + ":" + std::to_string(op.b.index) + ") ";
  }
  return out;
}

TEST_P(F32ProgramTest, RunsOnTheTargetUnderTest) {
  EXPECT_EQ(elementwise_internal::HwyChosenTarget(), GetParam());
}

TEST_P(F32ProgramTest, RandomProgramsMatchScalarInterpreter) {
  std::mt19937 rng(20240611);
  // Whole blocks and tails on every target, and ranges that start inside a
  // repeated scalar (then the interpreter runs element by element).
  const int64_t kLens[] = {1, 3, 8, 15, 16, 17, 31, 64, 65, 100, 130, 257};
  const int64_t kOffsets[] = {0, 64, 128, 5};
  for (int program = 0; program < 300; ++program) {
    const std::vector<F32ProgramOp> code = RandomProgram(rng);
    const int64_t len = kLens[program % (sizeof(kLens) / sizeof(kLens[0]))];
    const int64_t offset = kOffsets[program % (sizeof(kOffsets) / sizeof(kOffsets[0]))];
    Data got(len, static_cast<uint32_t>(program) * 7 + 1);
    Data want(len, static_cast<uint32_t>(program) * 7 + 1);
    RunF32Program(code.data(), static_cast<int>(code.size()), got.streams, got.kinds, kNumStreams,
                  offset, len);
    RunScalar(code, want, offset, len);
    for (int64_t e = 0; e < len; ++e) {
      ASSERT_TRUE(SameOrBothNaN(got.out_f[e], want.out_f[e]))
          << "program " << program << " len=" << len << " offset=" << offset << " element " << e
          << ": " << got.out_f[e] << " vs " << want.out_f[e] << "\n"
          << Describe(code);
      ASSERT_TRUE(SameOrBothNaN(WidenBF16(got.out_h[e]), WidenBF16(want.out_h[e])))
          << "program " << program << " bf16 element " << e << "\n"
          << Describe(code);
    }
  }
}

// Streaming (non-temporal) stores of the f32 output give the same bits as
// plain ones, into vector-aligned memory (the streaming path) and one
// element off it (plain stores again), on every target.
TEST_P(F32ProgramTest, StreamingStoresGiveTheSameBits) {
  std::mt19937 rng(20261127);
  const int64_t kLens[] = {64, 100, 257, 1024};
  for (int program = 0; program < 100; ++program) {
    const std::vector<F32ProgramOp> code = RandomProgram(rng);
    const int64_t len = kLens[program % 4];
    Data plain(len, static_cast<uint32_t>(program) * 5 + 3);
    RunF32Program(code.data(), static_cast<int>(code.size()), plain.streams, plain.kinds,
                  kNumStreams, 0, len);
    for (int64_t shift : {0, 1}) {
      Data streamed(len, static_cast<uint32_t>(program) * 5 + 3);
      hwy::AlignedFreeUniquePtr<float[]> out = hwy::AllocateAligned<float>(len + 1);
      streamed.streams[kOutF] = out.get() + shift;
      streamed.kinds[kOutF].streaming = true;
      RunF32Program(code.data(), static_cast<int>(code.size()), streamed.streams, streamed.kinds,
                    kNumStreams, 0, len);
      for (int64_t e = 0; e < len; ++e) {
        ASSERT_EQ(Bits(out[shift + e]), Bits(plain.out_f[e]))
            << "program " << program << " len=" << len << " shift=" << shift << " element " << e
            << "\n" << Describe(code);
      }
    }
  }
}

// Every op at least once, in both operand orders, over every input kind:
// the random programs above might miss one.
TEST_P(F32ProgramTest, EveryOpAndOperandKind) {
  std::vector<F32ProgramOp> code;
  for (int c = static_cast<int>(F32Code::kAbs); c <= static_cast<int>(F32Code::kNop); ++c) {
    const F32Code op = static_cast<F32Code>(c);
    if (op == F32Code::kSelect) continue;
    for (uint8_t s = 0; s < 6; ++s) {
      for (bool reversed : {false, true}) {
        code.clear();
        F32ProgramOp load;
        load.a = F32Operand{F32Operand::kStream, static_cast<uint8_t>((s + 1) % 6)};
        code.push_back(load);
        F32ProgramOp spill;
        spill.code = F32Code::kSpill;
        spill.a = F32Operand{F32Operand::kSpill, 0};
        code.push_back(spill);
        F32ProgramOp main;
        main.code = op;
        main.reversed = reversed;
        main.a = F32Operand{F32Operand::kStream, s};
        code.push_back(main);
        if (op >= F32Code::kEq && op <= F32Code::kLt) {
          F32ProgramOp select;
          select.code = F32Code::kSelect;
          select.a = F32Operand{F32Operand::kSpill, 0};
          select.b = F32Operand{F32Operand::kStream, s};
          code.push_back(select);
        }
        F32ProgramOp store;
        store.code = F32Code::kStore;
        store.a = F32Operand{F32Operand::kStream, kOutF};
        code.push_back(store);
        for (int64_t len : {7, 64, 129}) {
          Data got(len, 99), want(len, 99);
          RunF32Program(code.data(), static_cast<int>(code.size()), got.streams, got.kinds,
                        kNumStreams, 0, len);
          RunScalar(code, want, 0, len);
          for (int64_t e = 0; e < len; ++e) {
            ASSERT_TRUE(SameOrBothNaN(got.out_f[e], want.out_f[e]))
                << Describe(code) << " len=" << len << " element " << e << ": " << got.out_f[e]
                << " vs " << want.out_f[e];
          }
        }
      }
    }
  }
}

// Sum-rows give the bits of the f32 row reduce (HwySumF32, then the
// initial value plus the sum) and a columns stream reads its vector again
// for every row: rows of whole blocks (the vector path) and of other
// lengths (element by element), a range starting at a later row; finite
// values of every magnitude (where the order of the adds shows), and values
// with NaN, infinities and signed zeros among them.
TEST_P(F32ProgramTest, SumRowsAndColumnsGiveTheReduceBits) {
  enum : uint8_t { kX, kCols, kMean, kInit, kSums, kSquares, kOut, kCount };
  auto op = [](F32Code c, F32Operand a = {}, F32Operand b = {}) {
    F32ProgramOp o;
    o.code = c;
    o.a = a;
    o.b = b;
    return o;
  };
  auto stream = [](uint8_t k) { return F32Operand{F32Operand::kStream, k}; };
  // y = (x - mean of its row) * cols; out = y; sums = init + sum of y's
  // row; squares = init + sum of y * y's row.
  const std::vector<F32ProgramOp> code = {
      op(F32Code::kLoad, stream(kX)),          op(F32Code::kSub, stream(kMean)),
      op(F32Code::kMul, stream(kCols)),        op(F32Code::kStore, stream(kOut)),
      op(F32Code::kSumRow, stream(kSums), stream(kInit)),
      op(F32Code::kMul, {F32Operand::kAcc, 0}),
      op(F32Code::kSumRow, stream(kSquares), stream(kInit))};
  for (int64_t inner : {64, 128, 768, 16, 48, 100}) {
    for (int64_t rows : {1, 3, 7}) {
      for (int64_t first : {0, 1}) {  // the range's first row
        const int64_t len = rows * inner;
        std::vector<float> x = Inputs(len, static_cast<uint32_t>(inner * 10 + rows));
        if (first == 0) {
          std::mt19937 rng(static_cast<uint32_t>(inner + rows));
          std::uniform_real_distribution<float> mantissa(-1.0f, 1.0f);
          for (float& v : x) v = std::ldexp(mantissa(rng), static_cast<int>(rng() % 40) - 20);
        }
        std::vector<float> cols = Inputs(inner, static_cast<uint32_t>(inner + 7));
        std::vector<float> mean = Inputs(rows, static_cast<uint32_t>(rows + 3));
        if (first == 0) {
          for (float& v : cols) v = std::isfinite(v) ? v : 1.5f;
          for (float& v : mean) v = std::isfinite(v) ? v : -0.25f;
        }
        float init = first == 0 ? -0.0f : 2.5f;
        std::vector<float> sums(rows, 9.0f), squares(rows, 9.0f), out(len, 9.0f);
        void* streams[kCount] = {const_cast<float*>(x.data()), cols.data(), mean.data(), &init,
                                 sums.data(), squares.data(), out.data()};
        F32Stream kinds[kCount];
        kinds[kCols].columns = true;
        kinds[kCols].repeat = inner;
        kinds[kMean].splat = true;
        kinds[kInit].splat = true;
        kinds[kSums].rows = true;
        kinds[kSquares].rows = true;
        for (uint8_t k : {kMean, kSums, kSquares}) {
          kinds[k].repeat = inner;
          kinds[k].period = rows;
        }
        // Row q of the range is scalar (first + q) % rows of the per-row streams.
        RunF32Program(code.data(), static_cast<int>(code.size()), streams, kinds, kCount,
                      first * inner, len);
        std::vector<float> y(inner), yy(inner);
        for (int64_t q = 0; q < rows; ++q) {
          const int64_t r = (first + q) % rows;
          for (int64_t c = 0; c < inner; ++c) {
            y[c] = (x[q * inner + c] - mean[r]) * cols[c];
            yy[c] = y[c] * y[c];
            ASSERT_TRUE(SameOrBothNaN(out[q * inner + c], y[c]))
                << "inner=" << inner << " row " << q << " column " << c << " first=" << first;
          }
          const float want = init + reduce_internal::HwySumF32(y.data(), inner);
          const float want_squares = init + reduce_internal::HwySumF32(yy.data(), inner);
          ASSERT_TRUE(SameOrBothNaN(sums[r], want))
              << "inner=" << inner << " rows=" << rows << " first=" << first << " row " << q
              << ": " << sums[r] << " vs " << want;
          ASSERT_TRUE(SameOrBothNaN(squares[r], want_squares))
              << "inner=" << inner << " rows=" << rows << " first=" << first << " row " << q;
        }
      }
    }
  }
}

}  // namespace
}  // namespace hlovm
