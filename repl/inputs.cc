#include "repl/inputs.h"

#include <cctype>
#include <cstring>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/element_type.h"
#include "core/float_format.h"
#include "core/npy.h"
#include "oneapi/tbb/blocked_range.h"
#include "oneapi/tbb/parallel_for.h"
#include "core/status_macros.h"
#include "core/text_cursor.h"

namespace hlovm {
namespace {

absl::string_view Sv(std::string_view s) { return absl::string_view(s.data(), s.size()); }

//===--- Random inputs ----------------------------------------------------===//

// SplitMix64: small, fast and the same on every platform.
struct Random {
  uint64_t state;
  uint64_t Next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  // Uniform in [-1, 1), a multiple of 2^-23.
  double Unit() { return static_cast<double>(Next() >> 40) * 0x1p-23 - 1.0; }
};

constexpr uint64_t kGamma = 0x9e3779b97f4a7c15ull;  // SplitMix64's increment

// Random draws one element of `type` takes.
int DrawsPerElement(ElementType type) {
  switch (ElementTypeKind(type)) {
    case TypeKind::kPred:
    case TypeKind::kSigned:
    case TypeKind::kUnsigned:
    case TypeKind::kFloat:
      return 1;
    case TypeKind::kComplex:
      return 2;
    default:
      return 0;
  }
}

// Writes `draw(random)` to elements [begin, end) of `bytes`.
template <typename T, typename Draw>
void FillEach(uint8_t* bytes, int64_t begin, int64_t end, Random& random, Draw draw) {
  for (int64_t i = begin; i < end; ++i) {
    const T v = draw(random);
    std::memcpy(bytes + i * sizeof(T), &v, sizeof(T));
  }
}

// Elements [begin, end) of an array whose element 0 starts at generator
// state `state`: the same values as drawing them one after another. The
// type is dispatched once per range, not per element.
void FillRandomRange(uint8_t* bytes, ElementType type, int64_t begin, int64_t end, uint64_t state) {
  const int width = ByteWidth(type);
  Random random{state + static_cast<uint64_t>(begin) * DrawsPerElement(type) * kGamma};
  switch (ElementTypeKind(type)) {
    case TypeKind::kPred:
      FillEach<uint8_t>(bytes, begin, end, random, [](Random& r) { return static_cast<uint8_t>(r.Next() & 1); });
      return;
    case TypeKind::kSigned: {
      // Small values in [-8, 8] (within range for s2/s4 too).
      const int bits = BitWidth(type);
      const int64_t lo = bits >= 5 ? -8 : -(int64_t{1} << (bits - 1));
      const int64_t hi = bits >= 5 ? 8 : (int64_t{1} << (bits - 1)) - 1;
      for (int64_t i = begin; i < end; ++i) {
        const int64_t v = lo + static_cast<int64_t>(random.Next() % (hi - lo + 1));
        std::memcpy(bytes + i * width, &v, width);  // little-endian: the low bytes
      }
      return;
    }
    case TypeKind::kUnsigned: {
      const int bits = BitWidth(type);
      const uint64_t hi = bits >= 5 ? 16 : (uint64_t{1} << bits);
      for (int64_t i = begin; i < end; ++i) {
        const uint64_t v = random.Next() % hi;
        std::memcpy(bytes + i * width, &v, width);
      }
      return;
    }
    case TypeKind::kFloat:
      if (type == ElementType::kF32) {
        FillEach<float>(bytes, begin, end, random, [](Random& r) { return static_cast<float>(r.Unit()); });
      } else if (type == ElementType::kF64) {
        FillEach<double>(bytes, begin, end, random, [](Random& r) { return r.Unit(); });
      } else if (type == ElementType::kBF16) {
        // Unit() is exact in f32 (24 bits), so rounding its f32 bits to the
        // nearest even bf16 gives EncodeNarrowFloat's bits (no NaN arises).
        FillEach<uint16_t>(bytes, begin, end, random, [](Random& r) {
          const float f = static_cast<float>(r.Unit());
          uint32_t bits;
          std::memcpy(&bits, &f, 4);
          return static_cast<uint16_t>((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
        });
      } else {
        for (int64_t i = begin; i < end; ++i) {
          const uint32_t bits = EncodeNarrowFloat(type, random.Unit());
          std::memcpy(bytes + i * width, &bits, width);
        }
      }
      return;
    case TypeKind::kComplex:
      if (type == ElementType::kC64) {
        for (int64_t i = begin; i < end; ++i) {
          const float re = static_cast<float>(random.Unit()), im = static_cast<float>(random.Unit());
          std::memcpy(bytes + i * width, &re, 4);
          std::memcpy(bytes + i * width + 4, &im, 4);
        }
      } else {
        for (int64_t i = begin; i < end; ++i) {
          const double re = random.Unit(), im = random.Unit();
          std::memcpy(bytes + i * width, &re, 8);
          std::memcpy(bytes + i * width + 8, &im, 8);
        }
      }
      return;
    default:
      return;
  }
}

// Large arrays fill in parallel blocks; SplitMix64 is a counter, so every
// block starts where the draws before it would have left the generator.
absl::Status FillRandomWith(Literal* literal, Random& random) {
  const Shape& shape = literal->shape();
  if (shape.IsTuple()) {
    for (Literal& element : literal->tuple_elements()) HLOVM_RETURN_IF_ERROR(FillRandomWith(&element, random));
    return absl::OkStatus();
  }
  if (!shape.IsArray()) return absl::OkStatus();
  const ElementType type = shape.element_type();
  const int64_t n = shape.element_count();
  uint8_t* bytes = literal->untyped_data();
  const uint64_t state = random.state;
  constexpr int64_t kBlock = 1 << 16;
  tbb::parallel_for(tbb::blocked_range<int64_t>(0, (n + kBlock - 1) / kBlock, 1),
                    [&](const tbb::blocked_range<int64_t>& r) {
                      for (int64_t b = r.begin(); b < r.end(); ++b) {
                        FillRandomRange(bytes, type, b * kBlock, std::min(n, (b + 1) * kBlock),
                                        state);
                      }
                    });
  random.state = state + static_cast<uint64_t>(n) * DrawsPerElement(type) * kGamma;
  return absl::OkStatus();
}

//===--- Inputs from the command line --------------------------------------===//

// Converts an .npy literal to the parameter's element type where NumPy has
// no such type (bf16, 8-bit floats, s4, ...): from a float file by rounding,
// from an 8-bit integer file when every value fits.
absl::StatusOr<Literal> ConvertNpyInput(Literal input, const Shape& parameter) {
  const ElementType from = input.shape().element_type();
  const ElementType to = parameter.element_type();
  if (from == to || !parameter.IsArray() || !input.shape().IsArray()) return input;
  const bool narrow_float = IsFloatingPoint(to) && to != ElementType::kF32 && to != ElementType::kF64 &&
                            to != ElementType::kF16;
  const bool float_source = from == ElementType::kF32 || from == ElementType::kF64;
  const bool sub_byte_int = IsSubByte(to) && IsInteger(to);
  const bool byte_source = from == ElementType::kS8 || from == ElementType::kU8;
  if (!(narrow_float && float_source) && !(sub_byte_int && byte_source)) return input;
  Shape shape = input.shape();
  Shape target(to, std::vector<int64_t>(shape.dimensions().begin(), shape.dimensions().end()));
  if (shape.has_layout()) target.set_layout(shape.layout());
  HLOVM_ASSIGN_OR_RETURN(Literal out, Literal::Create(target));
  const int64_t n = shape.element_count();
  for (int64_t i = 0; i < n; ++i) {
    if (narrow_float) {
      const double v = from == ElementType::kF32 ? static_cast<double>(input.data<float>()[i])
                                                 : input.data<double>()[i];
      const uint32_t bits = EncodeNarrowFloat(to, v);
      std::memcpy(out.untyped_data() + i * ByteWidth(to), &bits, ByteWidth(to));
    } else {
      const int v = from == ElementType::kS8 ? input.data<int8_t>()[i] : input.data<uint8_t>()[i];
      const int bits = BitWidth(to);
      const int lo = IsSignedInteger(to) ? -(1 << (bits - 1)) : 0;
      const int hi = IsSignedInteger(to) ? (1 << (bits - 1)) - 1 : (1 << bits) - 1;
      if (v < lo || v > hi) {
        return absl::InvalidArgumentError(absl::StrCat("value ", v, " at element ", i,
                                                       " does not fit in ", Sv(ElementTypeName(to))));
      }
      out.untyped_data()[i] = static_cast<uint8_t>(static_cast<int8_t>(v));
    }
  }
  return out;
}

}  // namespace

absl::Status FillRandom(Literal* literal, uint64_t seed) {
  Random generator{seed};
  return FillRandomWith(literal, generator);
}

uint64_t RandomSeedForParameter(uint64_t seed, int64_t index) {
  return seed * 0x100000001b3ull + static_cast<uint64_t>(index);
}

absl::StatusOr<Literal> ParseInput(const std::string& arg, const Shape& parameter) {
  if (absl::EndsWith(arg, ".npy")) {
    HLOVM_ASSIGN_OR_RETURN(Literal literal, ReadNpy(arg));
    return ConvertNpyInput(std::move(literal), parameter);
  }
  auto literal = ParseLiteral(arg);
  if (literal.ok()) return literal;
  // A bare value ("{1, 2}", "3.5", "(1, 2)") takes the parameter's shape.
  TextCursor cursor{arg, 0};
  Literal value;
  absl::Status status = ParseLiteralValue(cursor, parameter, &value);
  if (status.ok()) {
    (void)cursor.SkipSpace();
    if (cursor.AtEnd()) return value;
    status = cursor.Error("unexpected text after the value");
  }
  // Report the error of the form the text most looks like.
  const bool looks_bare = !arg.empty() && (arg[0] == '{' || arg[0] == '(' || arg[0] == '-' ||
                                           std::isdigit(static_cast<unsigned char>(arg[0])));
  return looks_bare ? status : literal.status();
}

absl::StatusOr<std::vector<Literal>> MakeArguments(const std::vector<Shape>& parameters,
                                                   const std::vector<std::string>& inputs,
                                                   bool random, uint64_t seed,
                                                   const std::string& what) {
  if (random && !inputs.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("give either --random or ", parameters.size(),
                                                   " input", parameters.size() == 1 ? "" : "s",
                                                   ", not both"));
  }
  if (!random && inputs.size() != parameters.size()) {
    std::string expected;
    for (size_t i = 0; i < parameters.size(); ++i) {
      absl::StrAppend(&expected, "\n  parameter ", i, ": ", parameters[i].ToString(false));
    }
    return absl::InvalidArgumentError(absl::StrCat(
        what, " takes ", parameters.size(), " input", parameters.size() == 1 ? "" : "s", ", ",
        inputs.size(), " given (or use --random)", expected));
  }
  std::vector<Literal> arguments;
  arguments.reserve(parameters.size());
  for (size_t i = 0; i < parameters.size(); ++i) {
    if (random) {
      auto literal = Literal::Create(parameters[i]);
      if (!literal.ok()) {
        return absl::InvalidArgumentError(absl::StrCat("parameter ", i, " (",
                                                       parameters[i].ToString(false), "): ",
                                                       literal.status().message()));
      }
      HLOVM_RETURN_IF_ERROR(FillRandom(&*literal, RandomSeedForParameter(seed, i)));
      arguments.push_back(std::move(*literal));
      continue;
    }
    auto literal = ParseInput(inputs[i], parameters[i]);
    if (!literal.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("input ", i, ": ", literal.status().message()));
    }
    if (!literal->shape().Compatible(parameters[i])) {
      return absl::InvalidArgumentError(absl::StrCat("input ", i, " is ",
                                                     literal->shape().ToString(false),
                                                     ", but parameter ", i, " is ",
                                                     parameters[i].ToString(false)));
    }
    arguments.push_back(std::move(*literal));
  }
  return arguments;
}

}  // namespace hlovm
