#include "core/npy.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/float_format.h"
#include "core/shape.h"
#include "core/status_macros.h"

namespace hlovm {
namespace {

// Debian's Abseil has its own string_view type; StrCat needs it.
absl::string_view Sv(std::string_view s) { return absl::string_view(s.data(), s.size()); }

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;

bool HostIsLittleEndian() {
  const uint16_t probe = 1;
  uint8_t first;
  std::memcpy(&first, &probe, 1);
  return first == 1;
}

// The header of a .npy file: a Python dict literal such as
// {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
struct NpyHeader {
  std::string descr;
  bool fortran_order = false;
  std::vector<int64_t> shape;
};

class HeaderParser {
 public:
  HeaderParser(std::string_view text, std::string_view name) : text_(text), name_(name) {}

  absl::StatusOr<NpyHeader> Parse() {
    NpyHeader header;
    bool have_descr = false, have_order = false, have_shape = false;
    HLOVM_RETURN_IF_ERROR(Expect('{'));
    while (true) {
      SkipSpace();
      if (Peek() == '}') {
        ++pos_;
        break;
      }
      std::string key;
      HLOVM_RETURN_IF_ERROR(ParseString(&key));
      HLOVM_RETURN_IF_ERROR(Expect(':'));
      // Python keeps the last of repeated keys; NumPy never writes one
      // twice, so a repeated key is a damaged or hand-made header.
      if ((key == "descr" && have_descr) || (key == "fortran_order" && have_order) ||
          (key == "shape" && have_shape)) {
        return Error(absl::StrCat("the key '", key, "' appears twice in the header"));
      }
      if (key == "descr") {
        SkipSpace();
        if (Peek() == '[') {
          HLOVM_RETURN_IF_ERROR(ParseFieldList(&header.descr));
        } else if (Peek() != '\'' && Peek() != '"') {
          return Error("'descr' is neither a type code nor a list of fields");
        } else {
          HLOVM_RETURN_IF_ERROR(ParseString(&header.descr));
        }
        have_descr = true;
      } else if (key == "fortran_order") {
        HLOVM_RETURN_IF_ERROR(ParseBool(&header.fortran_order));
        have_order = true;
      } else if (key == "shape") {
        HLOVM_RETURN_IF_ERROR(ParseTuple(&header.shape));
        have_shape = true;
      } else {
        return Error(absl::StrCat("unexpected key '", key, "' in the header"));
      }
      SkipSpace();
      if (Peek() == ',') {
        ++pos_;
        continue;
      }
      HLOVM_RETURN_IF_ERROR(Expect('}'));
      break;
    }
    if (!have_descr || !have_order || !have_shape) {
      return Error("header lacks one of 'descr', 'fortran_order', 'shape'");
    }
    return header;
  }

 private:
  char Peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  void SkipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  absl::Status Error(std::string_view what) const {
    return absl::InvalidArgumentError(
        absl::StrCat(Sv(name_), ": not a valid .npy file: ", Sv(what)));
  }
  absl::Status Expect(char c) {
    SkipSpace();
    if (Peek() != c) return Error(absl::StrCat("expected '", std::string(1, c), "' in the header"));
    ++pos_;
    return absl::OkStatus();
  }
  absl::Status ParseString(std::string* out) {
    SkipSpace();
    const char quote = Peek();
    if (quote != '\'' && quote != '"') return Error("expected a quoted string in the header");
    ++pos_;
    const size_t end = text_.find(quote, pos_);
    if (end == std::string_view::npos) return Error("unterminated string in the header");
    *out = std::string(text_.substr(pos_, end - pos_));
    pos_ = end + 1;
    return absl::OkStatus();
  }
  // A structured dtype: [('name', 'type'), ...]. One unnamed field, as in
  // [('', '<V2')], is the plain type; anything else is refused here, naming
  // the fields.
  absl::Status ParseFieldList(std::string* descr) {
    HLOVM_RETURN_IF_ERROR(Expect('['));
    std::vector<std::string> names, types;
    while (true) {
      SkipSpace();
      if (Peek() == ']') {
        ++pos_;
        break;
      }
      HLOVM_RETURN_IF_ERROR(Expect('('));
      std::string name, type;
      HLOVM_RETURN_IF_ERROR(ParseString(&name));
      HLOVM_RETURN_IF_ERROR(Expect(','));
      SkipSpace();
      if (Peek() != '\'' && Peek() != '"') {
        return Error("a structured dtype with nested fields (only numeric arrays can be read)");
      }
      HLOVM_RETURN_IF_ERROR(ParseString(&type));
      SkipSpace();
      if (Peek() == ',') {
        ++pos_;
        SkipSpace();
        if (Peek() == '(') {
          return Error("a structured dtype with sub-array fields (only numeric arrays can be read)");
        }
      }
      HLOVM_RETURN_IF_ERROR(Expect(')'));
      names.push_back(name);
      types.push_back(type);
      SkipSpace();
      if (Peek() == ',') ++pos_;
    }
    if (names.size() == 1 && names[0].empty()) {
      *descr = types[0];
      return absl::OkStatus();
    }
    std::vector<std::string> fields;
    for (size_t i = 0; i < names.size(); ++i) fields.push_back(absl::StrCat("'", names[i], "': ", types[i]));
    return absl::InvalidArgumentError(absl::StrCat(
        Sv(name_), ": a structured array (fields ", absl::StrJoin(fields, ", "),
        "); only plain numeric arrays can be read: save each field as its own array"));
  }
  absl::Status ParseBool(bool* out) {
    SkipSpace();
    if (text_.substr(pos_, 4) == "True") {
      *out = true;
      pos_ += 4;
    } else if (text_.substr(pos_, 5) == "False") {
      *out = false;
      pos_ += 5;
    } else {
      return Error("'fortran_order' is neither True nor False");
    }
    return absl::OkStatus();
  }
  absl::Status ParseTuple(std::vector<int64_t>* out) {
    HLOVM_RETURN_IF_ERROR(Expect('('));
    while (true) {
      SkipSpace();
      if (Peek() == ')') {
        ++pos_;
        return absl::OkStatus();
      }
      if (!std::isdigit(static_cast<unsigned char>(Peek()))) return Error("bad 'shape' tuple");
      int64_t value = 0;
      while (std::isdigit(static_cast<unsigned char>(Peek()))) {
        const int digit = Peek() - '0';
        if (value > (std::numeric_limits<int64_t>::max() - digit) / 10) {
          return Error("a dimension in 'shape' is too large");
        }
        value = value * 10 + digit;
        ++pos_;
      }
      if (Peek() == 'L') ++pos_;  // Python 2 long suffix
      out->push_back(value);
      SkipSpace();
      if (Peek() == ',') {
        ++pos_;
      } else if (Peek() != ')') {
        return Error("bad 'shape' tuple");
      }
    }
  }

  std::string_view text_;
  std::string_view name_;
  size_t pos_ = 0;
};

// Little- or big-endian, or byte order irrelevant.
struct Descr {
  ElementType type;
  bool swap;  // data must be byte-swapped to host order
  // 1 or 2 for raw 'V1'/'V2' elements (ml_dtypes types), whose type the
  // header does not name: `type` is then bf16 (V2) or u8 (V1, a placeholder).
  int raw_width = 0;
};

// The ml_dtypes names, which some writers put in 'descr' instead of 'V1'/'V2'.
std::optional<ElementType> MlDtypesType(std::string_view name) {
  static const struct {
    std::string_view name;
    ElementType type;
  } kNames[] = {
      {"bfloat16", ElementType::kBF16},
      {"float8_e5m2", ElementType::kF8E5M2},
      {"float8_e4m3", ElementType::kF8E4M3},
      {"float8_e4m3fn", ElementType::kF8E4M3FN},
      {"float8_e4m3fnuz", ElementType::kF8E4M3FNUZ},
      {"float8_e4m3b11fnuz", ElementType::kF8E4M3B11FNUZ},
      {"float8_e5m2fnuz", ElementType::kF8E5M2FNUZ},
      {"float8_e3m4", ElementType::kF8E3M4},
      {"float8_e8m0fnu", ElementType::kF8E8M0FNU},
      {"float6_e2m3fn", ElementType::kF6E2M3FN},
      {"float6_e3m2fn", ElementType::kF6E3M2FN},
      {"float4_e2m1fn", ElementType::kF4E2M1FN},
      {"int2", ElementType::kS2},
      {"int4", ElementType::kS4},
      {"uint2", ElementType::kU2},
      {"uint4", ElementType::kU4},
  };
  for (const auto& entry : kNames) {
    if (entry.name == name) return entry.type;
  }
  return std::nullopt;
}

std::optional<Descr> ParseDescr(std::string_view descr) {
  if (std::optional<ElementType> named = MlDtypesType(descr)) {
    return Descr{*named, false, 0};
  }
  if (descr.size() < 2) return std::nullopt;
  const char order = descr[0];
  bool big_endian;
  switch (order) {
    case '<':
      big_endian = false;
      break;
    case '>':
      big_endian = true;
      break;
    case '=':
      big_endian = !HostIsLittleEndian();
      break;
    case '|':
      big_endian = false;
      break;
    default:
      return std::nullopt;
  }
  const std::string_view code = descr.substr(1);
  if (code == "V2") {
    return Descr{ElementType::kBF16, big_endian != !HostIsLittleEndian(), 2};
  }
  if (code == "V1") return Descr{ElementType::kU8, false, 1};
  static const struct {
    std::string_view code;
    ElementType type;
  } kTable[] = {
      {"b1", ElementType::kPred}, {"?", ElementType::kPred},  {"i1", ElementType::kS8},
      {"i2", ElementType::kS16},  {"i4", ElementType::kS32},  {"i8", ElementType::kS64},
      {"u1", ElementType::kU8},   {"u2", ElementType::kU16},  {"u4", ElementType::kU32},
      {"u8", ElementType::kU64},  {"f2", ElementType::kF16},  {"f4", ElementType::kF32},
      {"f8", ElementType::kF64},  {"c8", ElementType::kC64},  {"c16", ElementType::kC128},
  };
  for (const auto& entry : kTable) {
    if (entry.code == code) {
      const bool swap = big_endian != !HostIsLittleEndian() && ByteWidth(entry.type) > 1;
      return Descr{entry.type, swap};
    }
  }
  return std::nullopt;
}

void SwapBytes(uint8_t* data, int64_t count, int element_width, bool complex) {
  const int part = complex ? element_width / 2 : element_width;
  const int64_t parts = complex ? count * 2 : count;
  for (int64_t i = 0; i < parts; ++i) std::reverse(data + i * part, data + (i + 1) * part);
}

// Copies the elements of `literal` into row-major logical order.
std::vector<uint8_t> RowMajorBytes(const Literal& literal) {
  const Shape& shape = literal.shape();
  const int width = ByteWidth(shape.element_type());
  const int64_t count = shape.element_count();
  const uint8_t* in = literal.untyped_data();
  if (!shape.has_layout() || shape.layout().IsRowMajor() || shape.rank() <= 1) {
    return std::vector<uint8_t>(in, in + count * width);
  }
  std::vector<uint8_t> out(count * width);
  const std::vector<int64_t> strides = StridesForLayout(shape.dimensions(), shape.minor_to_major());
  const int64_t rank = shape.rank();
  std::vector<int64_t> index(rank, 0);
  for (int64_t i = 0; i < count; ++i) {
    int64_t offset = 0;
    for (int64_t d = 0; d < rank; ++d) offset += index[d] * strides[d];
    std::memcpy(out.data() + i * width, in + offset * width, width);
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++index[d] < shape.dimensions(d)) break;
      index[d] = 0;
    }
  }
  return out;
}

std::string_view DescrFor(ElementType type) {
  switch (type) {
    case ElementType::kPred:
      return "|b1";
    case ElementType::kS8:
      return "|i1";
    case ElementType::kS16:
      return "<i2";
    case ElementType::kS32:
      return "<i4";
    case ElementType::kS64:
      return "<i8";
    case ElementType::kU8:
      return "|u1";
    case ElementType::kU16:
      return "<u2";
    case ElementType::kU32:
      return "<u4";
    case ElementType::kU64:
      return "<u8";
    case ElementType::kF16:
      return "<f2";
    case ElementType::kF32:
      return "<f4";
    case ElementType::kF64:
      return "<f8";
    case ElementType::kC64:
      return "<c8";
    case ElementType::kC128:
      return "<c16";
    default:
      return "";
  }
}

// The bytes ml_dtypes stores for the types NumPy lacks: 'V2' for bf16, 'V1'
// for the 8-bit and smaller types.
std::string_view RawDescrFor(ElementType type) {
  if (type == ElementType::kBF16) return "<V2";
  if (ByteWidth(type) == 1 && DescrFor(type).empty()) return "|V1";
  return "";
}

// Why a dtype NumPy can write is not read, in words.
absl::Status UnsupportedDescr(const std::string& descr, std::string_view name) {
  const std::string code = descr.size() > 1 ? descr.substr(1) : descr;
  std::string what;
  if (code == "O") {
    what = "Python objects (stored with pickle, which hlovm never loads)";
  } else if (!code.empty() && (code[0] == 'U' || code[0] == 'S' || code[0] == 'a')) {
    what = "strings";
  } else if (!code.empty() && (code[0] == 'M' || code[0] == 'm')) {
    what = "dates or time deltas";
  } else if (code == "f16" || code == "f12" || code == "c32" || code == "c24") {
    what = "extended precision (long double)";
  } else if (!code.empty() && code[0] == 'V') {
    what = "raw bytes of a size no element type has";
  } else {
    what = "a type hlovm does not know";
  }
  return absl::InvalidArgumentError(absl::StrCat(
      Sv(name), ": unsupported .npy dtype '", descr, "': ", what,
      " (supported: bool, int8..int64, uint8..uint64, float16/32/64, complex64/128, and "
      "ml_dtypes' bfloat16, float8_*, float6_*, float4_e2m1fn, int4, uint4, int2, uint2)"));
}

// Raw bytes read as a sub-byte type must hold a value of it: an unsigned or
// float value in the low bits (the rest zero), a signed one in the low bits
// or sign-extended through the byte. Signed values are stored sign-extended.
absl::Status CheckSubByteValues(Literal& literal, std::string_view name) {
  const ElementType type = literal.shape().element_type();
  const int bits = BitWidth(type);
  const uint8_t mask = static_cast<uint8_t>((1u << bits) - 1);
  uint8_t* p = literal.untyped_data();
  const int64_t count = literal.shape().element_count();
  for (int64_t i = 0; i < count; ++i) {
    const uint8_t low = p[i] & mask;
    uint8_t value = low;
    if (IsSignedInteger(type) && (low & (1u << (bits - 1)))) value |= static_cast<uint8_t>(~mask);
    if (p[i] != low && p[i] != value) {
      return absl::InvalidArgumentError(absl::StrCat(
          Sv(name), ": byte ", static_cast<int>(p[i]), " of element ", i, " is not a ",
          Sv(ElementTypeName(type)), " value (", bits, " bits)"));
    }
    p[i] = value;
  }
  return absl::OkStatus();
}

}  // namespace

std::optional<ElementType> ElementTypeFromNpyDescr(std::string_view descr) {
  auto parsed = ParseDescr(descr);
  if (!parsed) return std::nullopt;
  return parsed->type;
}

ElementType NpyStorageType(ElementType type) {
  if (!DescrFor(type).empty()) return type;
  if (IsFloatingPoint(type)) return ElementType::kF32;
  if (IsSignedInteger(type)) return ElementType::kS8;
  if (IsUnsignedInteger(type)) return ElementType::kU8;
  return type;
}

absl::StatusOr<Literal> ParseNpy(std::string_view bytes, std::string_view name,
                                 const NpyReadOptions& options) {
  auto bad = [&](std::string_view what) {
    return absl::InvalidArgumentError(absl::StrCat(Sv(name), ": not a valid .npy file: ", Sv(what)));
  };
  if (bytes.size() < kMagicSize + 4 || bytes.substr(0, kMagicSize) != std::string_view(kMagic, kMagicSize)) {
    return bad("missing the \\x93NUMPY magic");
  }
  const uint8_t major = static_cast<uint8_t>(bytes[6]);
  size_t header_len, header_start;
  if (major == 1) {
    header_len = static_cast<uint8_t>(bytes[8]) | (static_cast<size_t>(static_cast<uint8_t>(bytes[9])) << 8);
    header_start = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) return bad("truncated header");
    header_len = 0;
    for (int i = 0; i < 4; ++i) header_len |= static_cast<size_t>(static_cast<uint8_t>(bytes[8 + i])) << (8 * i);
    header_start = 12;
  } else {
    return bad(absl::StrCat("unsupported format version ", major));
  }
  if (header_len > bytes.size() - header_start) return bad("truncated header");
  HLOVM_ASSIGN_OR_RETURN(NpyHeader header,
                         HeaderParser(bytes.substr(header_start, header_len), name).Parse());
  std::optional<Descr> descr = ParseDescr(header.descr);
  if (!descr) return UnsupportedDescr(header.descr, name);
  if (descr->raw_width == 1) {
    if (!options.raw_byte_type.has_value()) {
      return absl::InvalidArgumentError(absl::StrCat(
          Sv(name), ": the file holds raw 1-byte elements ('", header.descr,
          "'), as NumPy saves ml_dtypes' float8, float6, float4, int4 and int2 arrays without "
          "naming the type; they can be read only for a parameter of one of those types"));
    }
    descr->type = *options.raw_byte_type;
  }
  const int width = ByteWidth(descr->type);
  Shape shape(descr->type, header.shape);
  // Sizes and strides of a valid shape fit int64 (zero-size arrays too).
  if (absl::Status valid = ValidateShape(shape); !valid.ok()) {
    return bad(std::string(valid.message()));
  }
  int64_t count = 1;
  for (int64_t d : header.shape) count *= d;
  const std::string_view data = bytes.substr(header_start + header_len);
  if (static_cast<uint64_t>(count) * width > data.size()) {
    return bad(absl::StrCat("the data is truncated: shape (", absl::StrJoin(header.shape, ", "),
                            ") of ", header.descr, " needs ", count * width, " bytes, the file has ",
                            data.size()));
  }
  if (header.fortran_order && shape.rank() > 1) {
    Layout layout;
    for (int64_t d = 0; d < shape.rank(); ++d) layout.minor_to_major.push_back(d);
    shape.set_layout(layout);
  }
  HLOVM_ASSIGN_OR_RETURN(Literal literal, Literal::Create(shape));
  if (count > 0) {
    std::memcpy(literal.untyped_data(), data.data(), count * width);
    if (descr->swap) SwapBytes(literal.untyped_data(), count, width, IsComplex(descr->type));
    if (descr->type == ElementType::kPred) {
      uint8_t* p = literal.untyped_data();
      for (int64_t i = 0; i < count; ++i) p[i] = p[i] != 0;
    }
    if (IsSubByte(descr->type)) {
      HLOVM_RETURN_IF_ERROR(CheckSubByteValues(literal, name));
    }
  }
  return literal;
}

absl::StatusOr<Literal> ReadNpy(const std::string& path, const NpyReadOptions& options) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": is a directory, not a .npy file"));
  }
  std::ifstream file(path, std::ios::binary);
  if (!file) return absl::InvalidArgumentError(absl::StrCat(path, ": cannot open the file"));
  // ParseNpy checks the shape against the data size before it allocates.
  std::ostringstream contents;
  contents << file.rdbuf();
  if (file.bad()) return absl::InvalidArgumentError(absl::StrCat(path, ": cannot read the file"));
  return ParseNpy(contents.str(), path, options);
}

absl::StatusOr<std::string> SerializeNpy(const Literal& literal, NpyTypes types) {
  const Shape& shape = literal.shape();
  if (!shape.IsArray()) {
    return absl::InvalidArgumentError(
        absl::StrCat("only arrays can be written as .npy, not ", shape.ToString()));
  }
  const ElementType type = shape.element_type();
  const bool raw = types == NpyTypes::kMlDtypes && !RawDescrFor(type).empty();
  const ElementType storage = raw ? type : NpyStorageType(type);
  const std::string_view descr = raw ? RawDescrFor(type) : DescrFor(storage);
  if (descr.empty()) {
    return absl::UnimplementedError(
        absl::StrCat("element type ", Sv(ElementTypeName(type)), " has no .npy form"));
  }
  if (!shape.is_static()) {
    return absl::UnimplementedError("arrays with dynamic dimensions cannot be written as .npy");
  }
  std::vector<uint8_t> data = RowMajorBytes(literal);
  const int64_t count = shape.element_count();
  if (storage != type) {
    std::vector<uint8_t> widened(count * ByteWidth(storage));
    for (int64_t i = 0; i < count; ++i) {
      if (storage == ElementType::kF32) {
        uint32_t bits = 0;
        std::memcpy(&bits, data.data() + i * ByteWidth(type), ByteWidth(type));
        if (BitWidth(type) < 8 * ByteWidth(type)) bits &= (1u << BitWidth(type)) - 1;
        const float value = static_cast<float>(DecodeNarrowFloat(type, bits));
        std::memcpy(widened.data() + 4 * i, &value, 4);
      } else {
        const int bits = BitWidth(type);
        uint8_t low = data[i] & static_cast<uint8_t>((1u << bits) - 1);
        if (storage == ElementType::kS8 && (low & (1u << (bits - 1)))) {
          low |= static_cast<uint8_t>(~((1u << bits) - 1));
        }
        widened[i] = low;
      }
    }
    data = std::move(widened);
  }
  if (!HostIsLittleEndian()) {
    SwapBytes(data.data(), count, ByteWidth(storage), IsComplex(storage));
  }
  std::string dims;
  for (int64_t d : shape.dimensions()) absl::StrAppend(&dims, d, ", ");
  if (shape.rank() == 1) {
    dims.pop_back();  // "(3,)"
  } else if (shape.rank() > 1) {
    dims.resize(dims.size() - 2);
  }
  std::string header =
      absl::StrCat("{'descr': '", Sv(descr), "', 'fortran_order': False, 'shape': (", dims, "), }");
  // Pad with spaces so that the data starts at a multiple of 64 bytes, and
  // end the header with a newline.
  std::string out(kMagic, kMagicSize);
  size_t prefix = kMagicSize + 4;
  int version = 1;
  size_t total = prefix + header.size() + 1;
  size_t padded = (total + 63) / 64 * 64;
  if (padded - prefix > 0xFFFF) {
    version = 2;
    prefix = kMagicSize + 6;
    total = prefix + header.size() + 1;
    padded = (total + 63) / 64 * 64;
  }
  header.append(padded - total, ' ');
  header.push_back('\n');
  out.push_back(static_cast<char>(version));
  out.push_back(0);
  const size_t len = header.size();
  out.push_back(static_cast<char>(len & 0xFF));
  out.push_back(static_cast<char>((len >> 8) & 0xFF));
  if (version == 2) {
    out.push_back(static_cast<char>((len >> 16) & 0xFF));
    out.push_back(static_cast<char>((len >> 24) & 0xFF));
  }
  out += header;
  out.append(reinterpret_cast<const char*>(data.data()), data.size());
  return out;
}

absl::Status WriteWholeFile(const std::string& path, std::string_view bytes) {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  if (!file) return absl::InvalidArgumentError(absl::StrCat(path, ": cannot create the file"));
  file.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  file.close();
  if (!file) return absl::InvalidArgumentError(absl::StrCat(path, ": cannot write the file"));
  return absl::OkStatus();
}

absl::Status WriteNpy(const Literal& literal, const std::string& path, NpyTypes types) {
  HLOVM_ASSIGN_OR_RETURN(std::string bytes, SerializeNpy(literal, types));
  return WriteWholeFile(path, bytes);
}

}  // namespace hlovm
