#include "repl/inputs.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <set>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/element_type.h"
#include "core/float_format.h"
#include "core/npy.h"
#include "core/npz.h"
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

//===--- Converting element types -----------------------------------------===//

// One element read as the widest value of its kind.
struct Element {
  enum Kind { kBool, kSigned, kUnsigned, kFloat, kComplex } kind;
  int64_t s = 0;
  uint64_t u = 0;
  double re = 0, im = 0;
};

double ReadFloat(ElementType type, const uint8_t* p) {
  if (type == ElementType::kF64) {
    double v;
    std::memcpy(&v, p, 8);
    return v;
  }
  if (type == ElementType::kF32) {
    float v;
    std::memcpy(&v, p, 4);
    return v;
  }
  uint32_t bits = 0;
  std::memcpy(&bits, p, ByteWidth(type));
  if (BitWidth(type) < 8 * ByteWidth(type)) bits &= (1u << BitWidth(type)) - 1;
  return DecodeNarrowFloat(type, bits);
}

Element ReadElement(ElementType type, const uint8_t* p) {
  Element e{};
  switch (ElementTypeKind(type)) {
    case TypeKind::kPred:
      e.kind = Element::kBool;
      e.u = p[0] != 0;
      break;
    case TypeKind::kSigned: {
      e.kind = Element::kSigned;
      switch (ByteWidth(type)) {
        case 1: e.s = static_cast<int8_t>(p[0]); break;  // sub-byte: sign-extended
        case 2: { int16_t v; std::memcpy(&v, p, 2); e.s = v; break; }
        case 4: { int32_t v; std::memcpy(&v, p, 4); e.s = v; break; }
        default: std::memcpy(&e.s, p, 8);
      }
      break;
    }
    case TypeKind::kUnsigned: {
      e.kind = Element::kUnsigned;
      std::memcpy(&e.u, p, ByteWidth(type));  // little-endian: the low bytes
      break;
    }
    case TypeKind::kFloat:
      e.kind = Element::kFloat;
      e.re = ReadFloat(type, p);
      break;
    case TypeKind::kComplex:
      e.kind = Element::kComplex;
      if (type == ElementType::kC64) {
        float parts[2];
        std::memcpy(parts, p, 8);
        e.re = parts[0];
        e.im = parts[1];
      } else {
        double parts[2];
        std::memcpy(parts, p, 16);
        e.re = parts[0];
        e.im = parts[1];
      }
      break;
    default:
      break;
  }
  return e;
}

// An integer as a double rounded to odd: exact below 2^53, and otherwise
// with a sticky low bit, so that rounding it once more to a narrower float
// gives the correctly rounded integer (no double rounding).
double RoundToOddDouble(uint64_t magnitude, bool negative) {
  double d;
  if (magnitude < (uint64_t{1} << 53)) {
    d = static_cast<double>(magnitude);
  } else {
    int shift = 0;
    while ((magnitude >> shift) >= (uint64_t{1} << 53)) ++shift;
    uint64_t kept = magnitude >> shift;
    if (magnitude & ((uint64_t{1} << shift) - 1)) kept |= 1;
    d = std::ldexp(static_cast<double>(kept), shift);
  }
  return negative ? -d : d;
}

std::string ElementText(const Element& e) {
  switch (e.kind) {
    case Element::kBool: return e.u ? "true" : "false";
    case Element::kSigned: return absl::StrCat(e.s);
    case Element::kUnsigned: return absl::StrCat(e.u);
    case Element::kFloat: return absl::StrCat(e.re);
    case Element::kComplex: return absl::StrCat("(", e.re, ", ", e.im, ")");
  }
  return "";
}

// Writes `e` as `to`; false (with `why`) when it cannot be converted exactly
// where exactness is the rule (integers).
bool WriteElement(const Element& e, ElementType to, uint8_t* p, std::string* why) {
  const TypeKind kind = ElementTypeKind(to);
  if (e.kind == Element::kComplex && kind != TypeKind::kComplex) {
    *why = "a complex value does not convert to a real type (the imaginary part would be lost)";
    return false;
  }
  if (kind == TypeKind::kPred) {
    p[0] = e.kind == Element::kFloat ? e.re != 0 : (e.kind == Element::kSigned ? e.s != 0 : e.u != 0);
    return true;
  }
  if (kind == TypeKind::kSigned || kind == TypeKind::kUnsigned) {
    const int bits = BitWidth(to);
    const bool is_signed = kind == TypeKind::kSigned;
    // The value as a sign and magnitude, exactly.
    bool negative = false;
    uint64_t magnitude = 0;
    if (e.kind == Element::kFloat) {
      if (!(e.re == std::floor(e.re)) || std::isinf(e.re)) {
        *why = "it is not an integer";
        return false;
      }
      if (std::fabs(e.re) >= 0x1p64) {
        *why = absl::StrCat("it does not fit in ", Sv(ElementTypeName(to)));
        return false;
      }
      negative = e.re < 0;
      magnitude = static_cast<uint64_t>(std::fabs(e.re));
    } else if (e.kind == Element::kSigned) {
      negative = e.s < 0;
      magnitude = negative ? ~static_cast<uint64_t>(e.s) + 1 : static_cast<uint64_t>(e.s);
    } else {
      magnitude = e.u;
    }
    const uint64_t max_positive =
        is_signed ? (uint64_t{1} << (bits - 1)) - 1
                  : (bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1);
    const uint64_t max_negative = is_signed ? uint64_t{1} << (bits - 1) : 0;
    if ((negative && magnitude > max_negative) || (!negative && magnitude > max_positive)) {
      *why = absl::StrCat("it does not fit in ", Sv(ElementTypeName(to)));
      return false;
    }
    const uint64_t value = negative ? ~magnitude + 1 : magnitude;
    std::memcpy(p, &value, ByteWidth(to));  // little-endian; sub-byte signed stays sign-extended
    return true;
  }
  // Floats and complex: the real (and imaginary) part rounded to nearest even.
  auto to_float = [&](ElementType type, double from_float, uint8_t* out) {
    double v = from_float;
    if (e.kind == Element::kSigned || e.kind == Element::kUnsigned || e.kind == Element::kBool) {
      const bool negative = e.kind == Element::kSigned && e.s < 0;
      const uint64_t magnitude = e.kind == Element::kSigned
                                     ? (negative ? ~static_cast<uint64_t>(e.s) + 1
                                                 : static_cast<uint64_t>(e.s))
                                     : e.u;
      if (type == ElementType::kF64) {
        v = e.kind == Element::kSigned ? static_cast<double>(e.s) : static_cast<double>(e.u);
      } else if (type == ElementType::kF32) {
        const float f =
            e.kind == Element::kSigned ? static_cast<float>(e.s) : static_cast<float>(e.u);
        std::memcpy(out, &f, 4);
        return;
      } else {
        v = RoundToOddDouble(magnitude, negative);
      }
    }
    if (type == ElementType::kF64) {
      std::memcpy(out, &v, 8);
    } else if (type == ElementType::kF32) {
      const float f = static_cast<float>(v);
      std::memcpy(out, &f, 4);
    } else {
      const uint32_t bits = EncodeNarrowFloat(type, v);
      std::memcpy(out, &bits, ByteWidth(type));
    }
  };
  if (kind == TypeKind::kFloat) {
    to_float(to, e.re, p);
    return true;
  }
  const ElementType part = to == ElementType::kC64 ? ElementType::kF32 : ElementType::kF64;
  const int half = ByteWidth(to) / 2;
  to_float(part, e.re, p);
  if (e.kind == Element::kComplex) {
    Element imaginary{};
    imaginary.kind = Element::kFloat;
    imaginary.re = e.im;
    std::string unused;
    return WriteElement(imaginary, part, p + half, &unused);
  }
  std::memset(p + half, 0, half);
  return true;
}

//===--- Inputs from the command line --------------------------------------===//

// Whether `type` is a 1-byte type NumPy saves only as ml_dtypes' raw 'V1'.
bool IsRawByteType(ElementType type) {
  return ByteWidth(type) == 1 && IsArrayType(type) && type != ElementType::kPred &&
         type != ElementType::kS8 && type != ElementType::kU8;
}

NpyReadOptions NpyOptionsFor(const Shape& parameter) {
  NpyReadOptions options;
  if (parameter.IsArray() && IsRawByteType(parameter.element_type())) {
    options.raw_byte_type = parameter.element_type();
  }
  return options;
}

// `fill(VALUE)`: the array `parameter` with every element VALUE.
absl::StatusOr<Literal> ParseFill(std::string_view inner, const Shape& parameter) {
  if (!parameter.IsArray()) {
    return absl::InvalidArgumentError(
        absl::StrCat("fill(...) makes arrays; the parameter is ", parameter.ToString(false)));
  }
  const Shape scalar(parameter.element_type(), {});
  TextCursor cursor{inner, 0};
  Literal value;
  HLOVM_RETURN_IF_ERROR(ParseLiteralValue(cursor, scalar, &value, LiteralSyntax{true}));
  (void)cursor.SkipSpace();
  if (!cursor.AtEnd()) return cursor.Error("unexpected text after the value of fill(...)");
  HLOVM_ASSIGN_OR_RETURN(Literal out, Literal::Create(parameter));
  const int width = ByteWidth(parameter.element_type());
  const int64_t n = parameter.element_count();
  for (int64_t i = 0; i < n; ++i) std::memcpy(out.untyped_data() + i * width, value.untyped_data(), width);
  return out;
}

// The text of an input: a shaped literal, a bare value, or fill(VALUE).
absl::StatusOr<Literal> ParseInputText(const std::string& arg, const Shape& parameter) {
  std::string_view text = arg;
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  if (absl::StartsWith(Sv(text), "fill(") && absl::EndsWith(Sv(text), ")")) {
    return ParseFill(text.substr(5, text.size() - 6), parameter);
  }
  const LiteralSyntax strict{/*every_element=*/true};
  auto literal = ParseLiteral(arg, strict);
  if (literal.ok()) return literal;
  // A bare value ("{1, 2}", "3.5", "(1, 2)") takes the parameter's shape.
  TextCursor cursor{arg, 0};
  Literal value;
  absl::Status status = ParseLiteralValue(cursor, parameter, &value, strict);
  if (status.ok()) {
    (void)cursor.SkipSpace();
    if (cursor.AtEnd()) return value;
    status = cursor.Error("unexpected text after the value");
  }
  // Report the error of the form the text most looks like.
  const bool looks_bare = !arg.empty() && (arg[0] == '{' || arg[0] == '(' || arg[0] == '-' ||
                                           arg[0] == '.' ||
                                           std::isdigit(static_cast<unsigned char>(arg[0])));
  absl::Status error = looks_bare ? status : literal.status();
  if (absl::StrContains(error.message(), "one value given for")) {
    error = absl::Status(error.code(), absl::StrCat(error.message(),
                                                    " (or fill(VALUE) to repeat one value)"));
  }
  return error;
}

// Checks `input` (given as `given`) against parameter `index` (`parameter`,
// `name`), converting its element type when `convert`.
absl::StatusOr<Literal> CheckInput(Literal input, const Shape& parameter, size_t index,
                                   const std::string& name, const std::string& given,
                                   bool convert) {
  const std::string who = name.empty() ? absl::StrCat("parameter ", index)
                                       : absl::StrCat("parameter ", index, " (%", name, ")");
  const std::string named = name.empty() ? "" : absl::StrCat(" (%", name, ")");
  const Shape& shape = input.shape();
  if (shape.Compatible(parameter)) return input;
  // Same structure and dimensions, other element types?
  std::function<bool(const Shape&, const Shape&)> same_dims = [&](const Shape& a, const Shape& b) {
    if (a.IsTuple() || b.IsTuple()) {
      if (!a.IsTuple() || !b.IsTuple() || a.tuple_size() != b.tuple_size()) return false;
      for (int64_t i = 0; i < a.tuple_size(); ++i) {
        if (!same_dims(a.tuple_shape(i), b.tuple_shape(i))) return false;
      }
      return true;
    }
    return a.IsArray() && b.IsArray() && a.dimensions() == b.dimensions() &&
           a.is_static() == b.is_static();
  };
  if (!same_dims(shape, parameter)) {
    return absl::InvalidArgumentError(absl::StrCat("input ", index, " (", given, ") is ",
                                                   shape.ToString(false), ", but parameter ", index,
                                                   " is ", parameter.ToString(false), named));
  }
  if (!convert) {
    return absl::InvalidArgumentError(absl::StrCat(
        "input ", index, " (", given, ") is ", shape.ToString(false), ", but parameter ", index,
        " is ", parameter.ToString(false), named,
        "; --convert-inputs converts its elements to the parameter's type"));
  }
  std::function<absl::StatusOr<Literal>(const Literal&, const Shape&)> convert_to =
      [&](const Literal& from, const Shape& to) -> absl::StatusOr<Literal> {
    if (from.shape().IsTuple()) {
      std::vector<Literal> elements;
      for (int64_t i = 0; i < to.tuple_size(); ++i) {
        HLOVM_ASSIGN_OR_RETURN(Literal e, convert_to(from.tuple_elements()[i], to.tuple_shape(i)));
        elements.push_back(std::move(e));
      }
      return Literal::Tuple(std::move(elements));
    }
    return ConvertElementType(from, to.element_type());
  };
  absl::StatusOr<Literal> converted = convert_to(input, parameter);
  if (!converted.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("input ", index, " (", given, ") for ", who,
                                                   ", --convert-inputs: ",
                                                   converted.status().message()));
  }
  return converted;
}

// One input as given: text or a file, or an array of an .npz archive.
struct InputSource {
  std::string label;    // for messages: the text, the path, or "FILE.npz:NAME"
  std::string text;     // a literal, or the path of a .npy file
  bool from_npz = false;
  std::string npy;      // the .npy bytes of an .npz entry
  std::string npz_name;  // the entry's name
};

absl::StatusOr<Literal> ReadSource(const InputSource& source, const Shape& parameter) {
  if (source.from_npz) return ParseNpy(source.npy, source.label, NpyOptionsFor(parameter));
  if (absl::EndsWith(source.text, ".npy")) return ReadNpy(source.text, NpyOptionsFor(parameter));
  return ParseInputText(source.text, parameter);
}

// A file name made of the characters that need no quoting.
std::string SafeFileName(std::string_view name) {
  std::string out;
  for (char c : name) {
    out.push_back(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.'
                      ? c
                      : '_');
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

absl::StatusOr<Literal> ConvertElementType(const Literal& input, ElementType to) {
  const Shape& shape = input.shape();
  if (!shape.IsArray() || !IsArrayType(to)) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot convert ", shape.ToString(false), " to ", Sv(ElementTypeName(to))));
  }
  const ElementType from = shape.element_type();
  if (from == to) return input.Clone();
  Shape target(to, std::vector<int64_t>(shape.dimensions().begin(), shape.dimensions().end()));
  if (shape.has_layout()) target.set_layout(shape.layout());
  HLOVM_ASSIGN_OR_RETURN(Literal out, Literal::Create(target));
  const int in_width = ByteWidth(from), out_width = ByteWidth(to);
  const int64_t n = shape.element_count();
  std::string why;
  for (int64_t i = 0; i < n; ++i) {
    const Element e = ReadElement(from, input.untyped_data() + i * in_width);
    if (!WriteElement(e, to, out.untyped_data() + i * out_width, &why)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "element ", i, " (", ElementText(e), ") of ", shape.ToString(false),
          " cannot become ", Sv(ElementTypeName(to)), ": ", why));
    }
  }
  return out;
}

absl::StatusOr<Literal> ParseInput(const std::string& arg, const Shape& parameter, bool convert) {
  InputSource source;
  source.label = arg;
  source.text = arg;
  HLOVM_ASSIGN_OR_RETURN(Literal literal, ReadSource(source, parameter));
  return CheckInput(std::move(literal), parameter, 0, "", arg, convert);
}

absl::StatusOr<std::vector<Literal>> MakeArguments(const std::vector<Shape>& parameters,
                                                   const std::vector<std::string>& names,
                                                   const std::vector<std::string>& inputs,
                                                   const InputOptions& options,
                                                   const std::string& what) {
  if (options.random && !inputs.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("give either --random or ", parameters.size(),
                                                   " input", parameters.size() == 1 ? "" : "s",
                                                   ", not both"));
  }
  auto name_of = [&](size_t i) { return i < names.size() ? names[i] : std::string(); };
  std::vector<Literal> arguments;
  arguments.reserve(parameters.size());
  if (options.random) {
    for (size_t i = 0; i < parameters.size(); ++i) {
      auto literal = Literal::Create(parameters[i]);
      if (!literal.ok()) {
        return absl::InvalidArgumentError(absl::StrCat("parameter ", i, " (",
                                                       parameters[i].ToString(false), "): ",
                                                       literal.status().message()));
      }
      HLOVM_RETURN_IF_ERROR(FillRandom(&*literal, RandomSeedForParameter(options.seed, i)));
      arguments.push_back(std::move(*literal));
    }
    return arguments;
  }
  // Each .npz stands for its arrays.
  std::vector<InputSource> sources;
  bool single_npz = false;
  for (const std::string& input : inputs) {
    if (!absl::EndsWith(input, ".npz")) {
      InputSource source;
      source.label = input;
      source.text = input;
      sources.push_back(std::move(source));
      continue;
    }
    HLOVM_ASSIGN_OR_RETURN(std::vector<NpzEntry> entries, ReadNpz(input));
    single_npz = inputs.size() == 1;
    for (NpzEntry& entry : entries) {
      InputSource source;
      source.label = absl::StrCat(input, ":", entry.name);
      source.from_npz = true;
      source.npy = std::move(entry.npy);
      source.npz_name = std::move(entry.name);
      sources.push_back(std::move(source));
    }
  }
  // One archive whose array names are the parameters' names: by name.
  if (single_npz && !parameters.empty()) {
    std::vector<int> by_name(parameters.size(), -1);
    size_t matched = 0;
    for (size_t i = 0; i < parameters.size(); ++i) {
      for (size_t j = 0; j < sources.size(); ++j) {
        if (!name_of(i).empty() && sources[j].npz_name == name_of(i)) {
          by_name[i] = static_cast<int>(j);
          ++matched;
        }
      }
    }
    if (matched == parameters.size()) {
      std::vector<bool> used(sources.size(), false);
      std::vector<InputSource> ordered;
      for (size_t i = 0; i < parameters.size(); ++i) {
        used[by_name[i]] = true;
        ordered.push_back(sources[by_name[i]]);
      }
      std::vector<std::string> extra;
      for (size_t j = 0; j < sources.size(); ++j) {
        if (!used[j]) extra.push_back(sources[j].npz_name);
      }
      if (!extra.empty()) {
        return absl::InvalidArgumentError(absl::StrCat(
            inputs[0], " has arrays that match no parameter: ", absl::StrJoin(extra, ", ")));
      }
      sources = std::move(ordered);
    } else if (matched > 0) {
      std::vector<std::string> missing;
      for (size_t i = 0; i < parameters.size(); ++i) {
        if (by_name[i] < 0) missing.push_back(absl::StrCat(i, " (", name_of(i), ")"));
      }
      return absl::InvalidArgumentError(absl::StrCat(
          inputs[0], ": some array names are parameter names, but no array is named after "
          "parameter ", absl::StrJoin(missing, ", "),
          "; name every array after its parameter, or none (then they go in order)"));
    }
  }
  if (sources.size() != parameters.size()) {
    std::string expected;
    for (size_t i = 0; i < parameters.size(); ++i) {
      absl::StrAppend(&expected, "\n  parameter ", i, name_of(i).empty() ? "" : " (",
                      name_of(i), name_of(i).empty() ? "" : ")", ": ",
                      parameters[i].ToString(false));
    }
    const bool npz = sources.size() != inputs.size();
    return absl::InvalidArgumentError(absl::StrCat(
        what, " takes ", parameters.size(), " input", parameters.size() == 1 ? "" : "s", ", ",
        sources.size(), npz ? " arrays" : "", " given (or use --random)", expected));
  }
  for (size_t i = 0; i < parameters.size(); ++i) {
    const std::string& given = sources[i].label;
    auto literal = ReadSource(sources[i], parameters[i]);
    if (!literal.ok()) {
      // What was given (shortened), and the parameter: its name and shape.
      std::string shown = given.size() > 60 ? given.substr(0, 57) + "..." : given;
      return absl::InvalidArgumentError(absl::StrCat(
          "input ", i, " ('", shown, "') for parameter ", i, " (",
          name_of(i).empty() ? "" : absl::StrCat("%", name_of(i), ": "),
          parameters[i].ToString(false), "): ", literal.status().message()));
    }
    HLOVM_ASSIGN_OR_RETURN(Literal checked, CheckInput(std::move(*literal), parameters[i], i,
                                                       name_of(i), given, options.convert));
    arguments.push_back(std::move(checked));
  }
  return arguments;
}

absl::StatusOr<std::vector<std::string>> SaveInputs(const std::vector<Literal>& arguments,
                                                    const std::vector<std::string>& names,
                                                    const std::string& path) {
  namespace fs = std::filesystem;
  // Unique names: the parameter's, else arg_I; repeats get _I appended.
  std::vector<std::string> unique;
  std::set<std::string> taken;
  for (size_t i = 0; i < arguments.size(); ++i) {
    std::string name = i < names.size() && !names[i].empty() ? SafeFileName(names[i])
                                                             : absl::StrCat("arg_", i);
    if (!taken.insert(name).second) {
      name = absl::StrCat(name, "_", i);
      taken.insert(name);
    }
    unique.push_back(name);
  }
  std::vector<std::string> written;
  if (absl::EndsWith(path, ".npz")) {
    std::vector<std::pair<std::string, const Literal*>> arrays;
    for (size_t i = 0; i < arguments.size(); ++i) {
      if (!arguments[i].shape().IsArray()) {
        return absl::UnimplementedError(absl::StrCat(
            "--save-inputs: parameter ", i, " is a tuple; only arrays can be saved"));
      }
      arrays.emplace_back(unique[i], &arguments[i]);
    }
    HLOVM_RETURN_IF_ERROR(WriteNpz(arrays, path, NpyTypes::kMlDtypes));
    written.push_back(path);
    return written;
  }
  std::error_code ec;
  if (!fs::is_directory(path, ec)) {
    if (fs::exists(path, ec)) {
      return absl::InvalidArgumentError(absl::StrCat("--save-inputs=", path,
                                                     ": neither a directory nor a .npz file"));
    }
    if (!fs::create_directory(path, ec) || ec) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--save-inputs=", path, ": cannot create the directory",
          ec ? absl::StrCat(" (", ec.message(), ")") : std::string()));
    }
  }
  const int digits = static_cast<int>(absl::StrCat(std::max<size_t>(arguments.size(), 1) - 1).size());
  for (size_t i = 0; i < arguments.size(); ++i) {
    if (!arguments[i].shape().IsArray()) {
      return absl::UnimplementedError(absl::StrCat(
          "--save-inputs: parameter ", i, " is a tuple; only arrays can be saved"));
    }
    std::string index = absl::StrCat(i);
    index.insert(0, digits - index.size(), '0');
    const std::string file = (fs::path(path) / absl::StrCat(index, "_", unique[i], ".npy")).string();
    HLOVM_RETURN_IF_ERROR(WriteNpy(arguments[i], file, NpyTypes::kMlDtypes));
    written.push_back(file);
  }
  return written;
}

absl::StatusOr<std::vector<Literal>> PrepareArguments(const std::vector<Shape>& parameters,
                                                      const std::vector<std::string>& names,
                                                      const std::vector<std::string>& inputs,
                                                      const InputOptions& options,
                                                      const std::string& save_path,
                                                      const std::string& what) {
  HLOVM_ASSIGN_OR_RETURN(std::vector<Literal> arguments,
                         MakeArguments(parameters, names, inputs, options, what));
  if (options.random && options.announce) {
    std::fprintf(stderr, "hlovm: random inputs, --seed=%llu\n",
                 static_cast<unsigned long long>(options.seed));
  }
  if (!save_path.empty()) {
    HLOVM_ASSIGN_OR_RETURN(std::vector<std::string> written,
                           SaveInputs(arguments, names, save_path));
    for (const std::string& file : written) std::fprintf(stderr, "hlovm: saved the inputs to %s\n", file.c_str());
  }
  return arguments;
}

}  // namespace hlovm
