#include "core/npy.h"

#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "core/literal.h"
#include "core/element_type.h"
#include "core/shape.h"
#include "gtest/gtest.h"

namespace hlovm {
namespace {

// Files written by NumPy 1.24 (numpy.lib.format.write_array).
// bool [True, False, True]
const std::string kBool(
    "\x93\x4e\x55\x4d\x50\x59\x01\x00\x76\x00\x7b\x27\x64\x65\x73\x63\x72\x27\x3a\x20\x27\x7c\x62\x31"
    "\x27\x2c\x20\x27\x66\x6f\x72\x74\x72\x61\x6e\x5f\x6f\x72\x64\x65\x72\x27\x3a\x20\x46\x61\x6c\x73"
    "\x65\x2c\x20\x27\x73\x68\x61\x70\x65\x27\x3a\x20\x28\x33\x2c\x29\x2c\x20\x7d\x20\x20\x20\x20\x20"
    "\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20"
    "\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20"
    "\x20\x20\x20\x20\x20\x20\x20\x0a\x01\x00\x01",
    131);
// int8 [[-128, 127], [0, -1]]
const std::string kInt8(
    "\x93\x4e\x55\x4d\x50\x59\x01\x00\x76\x00\x7b\x27\x64\x65\x73\x63\x72\x27\x3a\x20\x27\x7c\x69\x31"
    "\x27\x2c\x20\x27\x66\x6f\x72\x74\x72\x61\x6e\x5f\x6f\x72\x64\x65\x72\x27\x3a\x20\x46\x61\x6c\x73"
    "\x65\x2c\x20\x27\x73\x68\x61\x70\x65\x27\x3a\x20\x28\x32\x2c\x20\x32\x29\x2c\x20\x7d\x20\x20\x20"
    "\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20"
    "\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20"
    "\x20\x20\x20\x20\x20\x20\x20\x0a\x80\x7f\x00\xff",
    132);
// big-endian int32 [1, -2, 70000]
const std::string kBigInt32(
    "\x93\x4e\x55\x4d\x50\x59\x01\x00\x76\x00\x7b\x27\x64\x65\x73\x63\x72\x27\x3a\x20\x27\x3e\x69\x34"
    "\x27\x2c\x20\x27\x66\x6f\x72\x74\x72\x61\x6e\x5f\x6f\x72\x64\x65\x72\x27\x3a\x20\x46\x61\x6c\x73"
    "\x65\x2c\x20\x27\x73\x68\x61\x70\x65\x27\x3a\x20\x28\x33\x2c\x29\x2c\x20\x7d\x20\x20\x20\x20\x20"
    "\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20"
    "\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20"
    "\x20\x20\x20\x20\x20\x20\x20\x0a\x00\x00\x00\x01\xff\xff\xff\xfe\x00\x01\x11\x70",
    140);
// float16 [1.5, -0.0, inf]
const std::string kHalf(
    "\x93\x4e\x55\x4d\x50\x59\x01\x00\x76\x00\x7b\x27\x64\x65\x73\x63\x72\x27\x3a\x20\x27\x3c\x66\x32"
    "\x27\x2c\x20\x27\x66\x6f\x72\x74\x72\x61\x6e\x5f\x6f\x72\x64\x65\x72\x27\x3a\x20\x46\x61\x6c\x73"
    "\x65\x2c\x20\x27\x73\x68\x61\x70\x65\x27\x3a\x20\x28\x33\x2c\x29\x2c\x20\x7d\x20\x20\x20\x20\x20"
    "\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20"
    "\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20"
    "\x20\x20\x20\x20\x20\x20\x20\x0a\x00\x3e\x00\x80\x00\x7c",
    134);
// complex64 [1+2j, -3.5-0.25j]
const std::string kComplex64(
    "\x93\x4e\x55\x4d\x50\x59\x01\x00\x76\x00\x7b\x27\x64\x65\x73\x63\x72\x27\x3a\x20\x27\x3c\x63\x38"
    "\x27\x2c\x20\x27\x66\x6f\x72\x74\x72\x61\x6e\x5f\x6f\x72\x64\x65\x72\x27\x3a\x20\x46\x61\x6c\x73"
    "\x65\x2c\x20\x27\x73\x68\x61\x70\x65\x27\x3a\x20\x28\x32\x2c\x29\x2c\x20\x7d\x20\x20\x20\x20\x20"
    "\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20"
    "\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20"
    "\x20\x20\x20\x20\x20\x20\x20\x0a\x00\x00\x80\x3f\x00\x00\x00\x40\x00\x00\x60\xc0\x00\x00\x80\xbe",
    144);
// Fortran-ordered float64 [[1, 2, 3], [4, 5, 6]]
const std::string kFortranF64(
    "\x93\x4e\x55\x4d\x50\x59\x01\x00\x76\x00\x7b\x27\x64\x65\x73\x63\x72\x27\x3a\x20\x27\x3c\x66\x38"
    "\x27\x2c\x20\x27\x66\x6f\x72\x74\x72\x61\x6e\x5f\x6f\x72\x64\x65\x72\x27\x3a\x20\x54\x72\x75\x65"
    "\x2c\x20\x27\x73\x68\x61\x70\x65\x27\x3a\x20\x28\x32\x2c\x20\x33\x29\x2c\x20\x7d\x20\x20\x20\x20"
    "\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20"
    "\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20"
    "\x20\x20\x20\x20\x20\x20\x20\x0a\x00\x00\x00\x00\x00\x00\xf0\x3f\x00\x00\x00\x00\x00\x00\x10\x40"
    "\x00\x00\x00\x00\x00\x00\x00\x40\x00\x00\x00\x00\x00\x00\x14\x40\x00\x00\x00\x00\x00\x00\x08\x40"
    "\x00\x00\x00\x00\x00\x00\x18\x40",
    176);
// float32 scalar 2.5
const std::string kScalarF32(
    "\x93\x4e\x55\x4d\x50\x59\x01\x00\x76\x00\x7b\x27\x64\x65\x73\x63\x72\x27\x3a\x20\x27\x3c\x66\x34"
    "\x27\x2c\x20\x27\x66\x6f\x72\x74\x72\x61\x6e\x5f\x6f\x72\x64\x65\x72\x27\x3a\x20\x46\x61\x6c\x73"
    "\x65\x2c\x20\x27\x73\x68\x61\x70\x65\x27\x3a\x20\x28\x29\x2c\x20\x7d\x20\x20\x20\x20\x20\x20\x20"
    "\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20"
    "\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20"
    "\x20\x20\x20\x20\x20\x20\x20\x0a\x00\x00\x20\x40",
    132);
// uint16 of shape (0, 3)
const std::string kEmptyU16(
    "\x93\x4e\x55\x4d\x50\x59\x01\x00\x76\x00\x7b\x27\x64\x65\x73\x63\x72\x27\x3a\x20\x27\x3c\x75\x32"
    "\x27\x2c\x20\x27\x66\x6f\x72\x74\x72\x61\x6e\x5f\x6f\x72\x64\x65\x72\x27\x3a\x20\x46\x61\x6c\x73"
    "\x65\x2c\x20\x27\x73\x68\x61\x70\x65\x27\x3a\x20\x28\x30\x2c\x20\x33\x29\x2c\x20\x7d\x20\x20\x20"
    "\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20"
    "\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20"
    "\x20\x20\x20\x20\x20\x20\x20\x0a",
    128);
// uint64 [2**64-1, 5], format version 2.0
const std::string kVersion2U64(
    "\x93\x4e\x55\x4d\x50\x59\x02\x00\x74\x00\x00\x00\x7b\x27\x64\x65\x73\x63\x72\x27\x3a\x20\x27\x3c"
    "\x75\x38\x27\x2c\x20\x27\x66\x6f\x72\x74\x72\x61\x6e\x5f\x6f\x72\x64\x65\x72\x27\x3a\x20\x46\x61"
    "\x6c\x73\x65\x2c\x20\x27\x73\x68\x61\x70\x65\x27\x3a\x20\x28\x32\x2c\x29\x2c\x20\x7d\x20\x20\x20"
    "\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20"
    "\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20"
    "\x20\x20\x20\x20\x20\x20\x20\x0a\xff\xff\xff\xff\xff\xff\xff\xff\x05\x00\x00\x00\x00\x00\x00\x00",
    144);
// big-endian complex128 [1+2j]
const std::string kBigComplex128(
    "\x93\x4e\x55\x4d\x50\x59\x01\x00\x76\x00\x7b\x27\x64\x65\x73\x63\x72\x27\x3a\x20\x27\x3e\x63\x31"
    "\x36\x27\x2c\x20\x27\x66\x6f\x72\x74\x72\x61\x6e\x5f\x6f\x72\x64\x65\x72\x27\x3a\x20\x46\x61\x6c"
    "\x73\x65\x2c\x20\x27\x73\x68\x61\x70\x65\x27\x3a\x20\x28\x31\x2c\x29\x2c\x20\x7d\x20\x20\x20\x20"
    "\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20"
    "\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20"
    "\x20\x20\x20\x20\x20\x20\x20\x0a\x3f\xf0\x00\x00\x00\x00\x00\x00\x40\x00\x00\x00\x00\x00\x00\x00",
    144);
// a unicode string array (unsupported)
const std::string kUnicode(
    "\x93\x4e\x55\x4d\x50\x59\x01\x00\x76\x00\x7b\x27\x64\x65\x73\x63\x72\x27\x3a\x20\x27\x3c\x55\x32"
    "\x27\x2c\x20\x27\x66\x6f\x72\x74\x72\x61\x6e\x5f\x6f\x72\x64\x65\x72\x27\x3a\x20\x46\x61\x6c\x73"
    "\x65\x2c\x20\x27\x73\x68\x61\x70\x65\x27\x3a\x20\x28\x31\x2c\x29\x2c\x20\x7d\x20\x20\x20\x20\x20"
    "\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20"
    "\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20"
    "\x20\x20\x20\x20\x20\x20\x20\x0a\x61\x00\x00\x00\x62\x00\x00\x00",
    136);
// float32 [0.5, -1.25, 3, 1e-45]
const std::string kF32Vector(
    "\x93\x4e\x55\x4d\x50\x59\x01\x00\x76\x00\x7b\x27\x64\x65\x73\x63\x72\x27\x3a\x20\x27\x3c\x66\x34"
    "\x27\x2c\x20\x27\x66\x6f\x72\x74\x72\x61\x6e\x5f\x6f\x72\x64\x65\x72\x27\x3a\x20\x46\x61\x6c\x73"
    "\x65\x2c\x20\x27\x73\x68\x61\x70\x65\x27\x3a\x20\x28\x34\x2c\x29\x2c\x20\x7d\x20\x20\x20\x20\x20"
    "\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20"
    "\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20"
    "\x20\x20\x20\x20\x20\x20\x20\x0a\x00\x00\x00\x3f\x00\x00\xa0\xbf\x00\x00\x40\x40\x01\x00\x00\x00",
    144);

Literal MustParse(const std::string& bytes) {
  auto literal = ParseNpy(bytes, "test.npy");
  EXPECT_TRUE(literal.ok()) << literal.status();
  return literal.ok() ? std::move(literal).value() : Literal();
}

template <typename T>
std::vector<T> Values(const Literal& literal) {
  auto span = literal.data<T>();
  return std::vector<T>(span.begin(), span.end());
}

TEST(NpyTest, ReadsBool) {
  Literal l = MustParse(kBool);
  EXPECT_EQ(l.shape().ToString(false), "pred[3]");
  EXPECT_EQ(Values<uint8_t>(l), (std::vector<uint8_t>{1, 0, 1}));
}

TEST(NpyTest, ReadsInt8Matrix) {
  Literal l = MustParse(kInt8);
  EXPECT_EQ(l.shape().ToString(false), "s8[2,2]");
  EXPECT_EQ(Values<int8_t>(l), (std::vector<int8_t>{-128, 127, 0, -1}));
}

TEST(NpyTest, SwapsBigEndianData) {
  Literal l = MustParse(kBigInt32);
  EXPECT_EQ(l.shape().ToString(false), "s32[3]");
  EXPECT_EQ(Values<int32_t>(l), (std::vector<int32_t>{1, -2, 70000}));
  Literal c = MustParse(kBigComplex128);
  EXPECT_EQ(c.shape().ToString(false), "c128[1]");
  EXPECT_EQ(c.data<std::complex<double>>()[0], std::complex<double>(1, 2));
}

TEST(NpyTest, ReadsHalfAndComplex) {
  Literal h = MustParse(kHalf);
  EXPECT_EQ(h.shape().ToString(false), "f16[3]");
  EXPECT_EQ(Values<uint16_t>(h), (std::vector<uint16_t>{0x3e00, 0x8000, 0x7c00}));
  Literal c = MustParse(kComplex64);
  EXPECT_EQ(c.shape().ToString(false), "c64[2]");
  EXPECT_EQ(c.data<std::complex<float>>()[1], std::complex<float>(-3.5f, -0.25f));
}

TEST(NpyTest, FortranOrderBecomesColumnMajorLayout) {
  Literal l = MustParse(kFortranF64);
  EXPECT_EQ(l.shape().ToString(), "f64[2,3]{0,1}");
  // Physical (column-major) order of [[1,2,3],[4,5,6]].
  EXPECT_EQ(Values<double>(l), (std::vector<double>{1, 4, 2, 5, 3, 6}));
  // Written back, it is C-ordered with the logical values in row-major order.
  auto bytes = SerializeNpy(l);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  Literal back = MustParse(*bytes);
  EXPECT_EQ(back.shape().ToString(), "f64[2,3]{1,0}");
  EXPECT_EQ(Values<double>(back), (std::vector<double>{1, 2, 3, 4, 5, 6}));
}

TEST(NpyTest, ScalarsEmptyArraysAndVersion2) {
  Literal s = MustParse(kScalarF32);
  EXPECT_EQ(s.shape().ToString(false), "f32[]");
  EXPECT_EQ(s.data<float>()[0], 2.5f);
  Literal e = MustParse(kEmptyU16);
  EXPECT_EQ(e.shape().ToString(false), "u16[0,3]");
  Literal v = MustParse(kVersion2U64);
  EXPECT_EQ(Values<uint64_t>(v), (std::vector<uint64_t>{UINT64_MAX, 5}));
}

TEST(NpyTest, WritesWhatNumpyWrites) {
  for (const std::string* file : {&kBool, &kInt8, &kHalf, &kComplex64, &kScalarF32, &kEmptyU16,
                                   &kF32Vector}) {
    Literal l = MustParse(*file);
    auto bytes = SerializeNpy(l);
    ASSERT_TRUE(bytes.ok()) << bytes.status();
    EXPECT_EQ(*bytes, *file) << l.shape().ToString();
  }
}

TEST(NpyTest, WidensTypesNumpyLacks) {
  auto bf16 = Literal::Create(Shape(ElementType::kBF16, {2}));
  ASSERT_TRUE(bf16.ok());
  uint16_t bits[2] = {0x3fc0, 0xc120};  // 1.5, -10
  std::memcpy(bf16->untyped_data(), bits, 4);
  auto bytes = SerializeNpy(*bf16);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  Literal back = MustParse(*bytes);
  EXPECT_EQ(back.shape().ToString(false), "f32[2]");
  EXPECT_EQ(Values<float>(back), (std::vector<float>{1.5f, -10.0f}));

  auto s4 = Literal::Create(Shape(ElementType::kS4, {3}));
  ASSERT_TRUE(s4.ok());
  uint8_t nibbles[3] = {0x07, 0x0f, 0x08};  // 7, -1, -8 in the low four bits
  std::memcpy(s4->untyped_data(), nibbles, 3);
  bytes = SerializeNpy(*s4);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  back = MustParse(*bytes);
  EXPECT_EQ(back.shape().ToString(false), "s8[3]");
  EXPECT_EQ(Values<int8_t>(back), (std::vector<int8_t>{7, -1, -8}));
}

TEST(NpyTest, RejectsBadFiles) {
  EXPECT_FALSE(ParseNpy("", "x.npy").ok());
  EXPECT_FALSE(ParseNpy("not a numpy file at all", "x.npy").ok());
  // Unsupported dtype.
  auto unicode = ParseNpy(kUnicode, "u.npy");
  EXPECT_FALSE(unicode.ok());
  EXPECT_NE(unicode.status().message().find("u.npy"), std::string::npos);
  EXPECT_NE(unicode.status().message().find("<U2"), std::string::npos);
  // Truncated data and truncated header.
  EXPECT_FALSE(ParseNpy(kF32Vector.substr(0, kF32Vector.size() - 1), "t.npy").ok());
  EXPECT_FALSE(ParseNpy(kF32Vector.substr(0, 40), "t.npy").ok());
  // A shape far larger than the data: rejected before anything is allocated.
  std::string huge = kF32Vector;
  const size_t at = huge.find("(4,)");
  ASSERT_NE(at, std::string::npos);
  huge.replace(at, 4, "(100000000000,)");
  auto big = ParseNpy(huge, "h.npy");
  EXPECT_EQ(big.status().code(), absl::StatusCode::kInvalidArgument);
  // A shape whose size overflows int64.
  std::string overflow = kF32Vector;
  overflow.replace(at, 4, "(4611686018427387904, 4)");
  EXPECT_EQ(ParseNpy(overflow, "o.npy").status().code(), absl::StatusCode::kInvalidArgument);
  // A key given twice: the second 'shape' must not extend (or replace) the first.
  const std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }";
  ASSERT_NE(kF32Vector.find(dict), std::string::npos);
  for (const std::string& twice :
       {std::string("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'shape': (2,), }"),
        std::string("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (4,)}"),
        std::string("{'fortran_order': False, 'descr': '<f4', 'fortran_order': True, 'shape': (4,)}")}) {
    ASSERT_LE(twice.size(), 117u);  // fits the 118-byte header with its newline
    std::string repeated = kF32Vector;
    repeated.replace(repeated.find(dict), twice.size(), twice);
    auto parsed = ParseNpy(repeated, "d.npy");
    ASSERT_FALSE(parsed.ok()) << twice;
    EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(parsed.status().message().find("appears twice"), std::string::npos)
        << parsed.status();
  }
  // Unsupported version.
  std::string version = kF32Vector;
  version[6] = 9;
  EXPECT_FALSE(ParseNpy(version, "v.npy").ok());
  // Missing file.
  EXPECT_FALSE(ReadNpy("/nonexistent/dir/file.npy").ok());
}

TEST(NpyTest, WriteAndReadAFile) {
  Literal l = MustParse(kComplex64);
  const std::string path = ::testing::TempDir() + "/npy_test_roundtrip.npy";
  ASSERT_TRUE(WriteNpy(l, path).ok());
  auto back = ReadNpy(path);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_TRUE(back->BitwiseEqual(l));
  std::remove(path.c_str());
}

// A version 1 .npy file of float32 with the given 'shape' tuple and no data.
std::string F32HeaderOnly(std::string_view shape) {
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': ";
  header.append(shape);
  header.append(", }\n");
  std::string file("\x93NUMPY\x01\x00", 8);
  file.push_back(static_cast<char>(header.size() & 0xff));
  file.push_back(static_cast<char>(header.size() >> 8));
  return file + header;
}

TEST(NpyTest, RefusesShapesWhoseStridesOverflow) {
  // A zero-size array is read...
  auto empty = ParseNpy(F32HeaderOnly("(0, 5, 4)"), "e.npy");
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_EQ(empty->shape().ToString(false), "f32[0,5,4]");
  // ...but not one whose other dimensions overflow int64 (its strides
  // would, when it is printed or passed to a kernel).
  auto hostile = ParseNpy(F32HeaderOnly("(0, 4611686018427387904, 4)"), "z.npy");
  ASSERT_FALSE(hostile.ok());
  EXPECT_EQ(hostile.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(hostile.status().message().find("z.npy"), std::string::npos);
  EXPECT_NE(hostile.status().message().find("f32[0,4611686018427387904,4] has no elements"),
            std::string::npos)
      << hostile.status();
  // Element counts past int64.
  auto count = ParseNpy(F32HeaderOnly("(3, 4611686018427387904)"), "c.npy");
  ASSERT_FALSE(count.ok());
  EXPECT_NE(count.status().message().find("more than 2^63 - 1 elements"), std::string::npos)
      << count.status();
}

TEST(NpyTest, DescrTable) {
  EXPECT_EQ(ElementTypeFromNpyDescr("<f4"), ElementType::kF32);
  EXPECT_EQ(ElementTypeFromNpyDescr(">i8"), ElementType::kS64);
  EXPECT_EQ(ElementTypeFromNpyDescr("|b1"), ElementType::kPred);
  EXPECT_EQ(ElementTypeFromNpyDescr("<c16"), ElementType::kC128);
  EXPECT_EQ(ElementTypeFromNpyDescr("<U3"), std::nullopt);
  EXPECT_EQ(ElementTypeFromNpyDescr("|O"), std::nullopt);
  EXPECT_EQ(NpyStorageType(ElementType::kF8E4M3FN), ElementType::kF32);
  EXPECT_EQ(NpyStorageType(ElementType::kU4), ElementType::kU8);
}

// A version 1 .npy file with header dict `dict` and data `data`.
std::string NpyFile(std::string_view dict, std::string_view data) {
  std::string header(dict);
  header.append(63 - (10 + header.size()) % 64, ' ');
  header.push_back('\n');
  std::string file("\x93NUMPY\x01\x00", 8);
  file.push_back(static_cast<char>(header.size() & 0xff));
  file.push_back(static_cast<char>(header.size() >> 8));
  return file + header + std::string(data);
}

TEST(NpyTest, ReadsMlDtypesFiles) {
  // NumPy saves ml_dtypes' bfloat16 as raw 2-byte elements, '<V2'.
  const std::string bf16_bits("\xc0\x3f\x20\xc1", 4);  // 1.5, -10
  for (const std::string dict : {"{'descr': '<V2', 'fortran_order': False, 'shape': (2,), }",
                                 "{'descr': 'bfloat16', 'fortran_order': False, 'shape': (2,), }",
                                 "{'descr': [('', '<V2')], 'fortran_order': False, 'shape': (2,), }"}) {
    Literal l = MustParse(NpyFile(dict, bf16_bits));
    EXPECT_EQ(l.ToString(), "bf16[2] {1.5, -10}") << dict;
  }
  Literal big = MustParse(NpyFile("{'descr': '>V2', 'fortran_order': False, 'shape': (2,), }",
                                  std::string("\x3f\xc0\xc1\x20", 4)));
  EXPECT_EQ(big.ToString(), "bf16[2] {1.5, -10}");
  // 'V1' names no type: the reader says which.
  const std::string v1 = NpyFile("{'descr': '|V1', 'fortran_order': False, 'shape': (3,), }",
                                 std::string("\x38\xb0\x7e", 3));
  absl::StatusOr<Literal> unknown = ParseNpy(v1, "f8.npy");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("raw 1-byte elements"), std::string::npos);
  NpyReadOptions options;
  options.raw_byte_type = ElementType::kF8E4M3FN;
  absl::StatusOr<Literal> f8 = ParseNpy(v1, "f8.npy", options);
  ASSERT_TRUE(f8.ok()) << f8.status();
  EXPECT_EQ(f8->ToString(), "f8e4m3fn[3] {1, -0.5, 448}");
  // int4: the value in the low bits, sign-extended or not; anything else is
  // not an int4.
  options.raw_byte_type = ElementType::kS4;
  const std::string s4 = NpyFile("{'descr': '<V1', 'fortran_order': False, 'shape': (3,), }",
                                 std::string("\x0d\xfd\x07", 3));
  absl::StatusOr<Literal> int4 = ParseNpy(s4, "s4.npy", options);
  ASSERT_TRUE(int4.ok()) << int4.status();
  EXPECT_EQ(int4->ToString(), "s4[3] {-3, -3, 7}");
  EXPECT_EQ(Values<int8_t>(*int4), (std::vector<int8_t>{-3, -3, 7}));
  const std::string bad = NpyFile("{'descr': '<V1', 'fortran_order': False, 'shape': (1,), }",
                                  std::string("\x7f", 1));
  EXPECT_FALSE(ParseNpy(bad, "s4.npy", options).ok());
  // ml_dtypes' int4 by name.
  EXPECT_EQ(MustParse(NpyFile("{'descr': 'int4', 'fortran_order': False, 'shape': (1,), }",
                              std::string("\x0f", 1)))
                .ToString(),
            "s4[1] {-1}");
}

TEST(NpyTest, WritesMlDtypesFormsExactly) {
  for (ElementType type : {ElementType::kBF16, ElementType::kF8E5M2, ElementType::kS4,
                           ElementType::kU2, ElementType::kF4E2M1FN}) {
    absl::StatusOr<Literal> l = Literal::Create(Shape(type, {4}));
    ASSERT_TRUE(l.ok());
    for (int i = 0; i < 4; ++i) ASSERT_TRUE(l->SetFromDouble(i, i % 2).ok());
    absl::StatusOr<std::string> bytes = SerializeNpy(*l, NpyTypes::kMlDtypes);
    ASSERT_TRUE(bytes.ok()) << bytes.status();
    EXPECT_NE(bytes->find(type == ElementType::kBF16 ? "'<V2'" : "'|V1'"), std::string::npos);
    NpyReadOptions options;
    options.raw_byte_type = type;
    absl::StatusOr<Literal> back = ParseNpy(*bytes, "x.npy", options);
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_TRUE(back->BitwiseEqual(*l)) << ElementTypeName(type);
  }
}

TEST(NpyTest, SaysWhyAFileIsRefused) {
  auto error = [](std::string_view dict) {
    absl::StatusOr<Literal> l = ParseNpy(NpyFile(dict, ""), "x.npy");
    EXPECT_FALSE(l.ok());
    EXPECT_EQ(l.status().code(), absl::StatusCode::kInvalidArgument);
    return l.ok() ? std::string() : std::string(l.status().message());
  };
  EXPECT_NE(error("{'descr': '|O', 'fortran_order': False, 'shape': (2,), }")
                .find("Python objects (stored with pickle, which hlovm never loads)"),
            std::string::npos);
  EXPECT_NE(error("{'descr': '<U3', 'fortran_order': False, 'shape': (2,), }").find("strings"),
            std::string::npos);
  EXPECT_NE(error("{'descr': '<M8[s]', 'fortran_order': False, 'shape': (2,), }").find("dates"),
            std::string::npos);
  EXPECT_NE(error("{'descr': '<f16', 'fortran_order': False, 'shape': (2,), }")
                .find("extended precision"),
            std::string::npos);
  EXPECT_NE(error("{'descr': [('a', '<f4'), ('b', '<i4')], 'fortran_order': False, 'shape': (2,), }")
                .find("a structured array (fields 'a': <f4, 'b': <i4)"),
            std::string::npos);
  EXPECT_NE(error("{'descr': [('a', [('x', '<f4')])], 'fortran_order': False, 'shape': (2,), }")
                .find("nested fields"),
            std::string::npos);
}

}  // namespace
}  // namespace hlovm
