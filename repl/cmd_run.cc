// `hlovm run FILE.hlo [INPUT...]` (also `hlovm FILE.hlo ...`): runs a module's
// entry computation on inputs given as HLO literals, .npy files or random
// values, and prints the results as HLO literals (or writes .npy files).
#include <sys/stat.h>

#include <cctype>
#include <cerrno>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "frontend/printer.h"
#include "passes/pipeline.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/element_type.h"
#include "core/float_format.h"
#include "core/literal.h"
#include "core/npy.h"
#include "core/shape.h"
#include "core/status_macros.h"
#include "core/text_cursor.h"
#include "repl/command.h"
#include "repl/source_file.h"
#include "vm/api.h"
#include "vm/check_failure.h"

ABSL_FLAG(bool, random, false,
          "run: fill every entry parameter with deterministic random values; --random=SEED "
          "is --random --seed=SEED");
ABSL_FLAG(uint64_t, seed, 0, "run: seed of --random");
ABSL_FLAG(std::string, elided, "xla",
          "run: how to fill elided constant({...}) literals: xla (XLA's parser's counter "
          "pattern), zeros, or error");
ABSL_FLAG(int, threads, 0, "executor threads (0: all cores)");
ABSL_FLAG(std::string, output, "",
          "run: write the results as .npy files into this directory instead of printing them");

ABSL_DECLARE_FLAG(std::string, passes);
ABSL_DECLARE_FLAG(bool, dump_after_passes);

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

absl::Status FillRandom(Literal* literal, Random& random) {
  const Shape& shape = literal->shape();
  if (shape.IsTuple()) {
    for (Literal& element : literal->tuple_elements()) HLOVM_RETURN_IF_ERROR(FillRandom(&element, random));
    return absl::OkStatus();
  }
  if (!shape.IsArray()) return absl::OkStatus();
  const ElementType type = shape.element_type();
  const int64_t n = shape.element_count();
  uint8_t* bytes = literal->untyped_data();
  const int width = ByteWidth(type);
  for (int64_t i = 0; i < n; ++i) {
    uint8_t* p = bytes + i * width;
    switch (ElementTypeKind(type)) {
      case TypeKind::kPred:
        *p = random.Next() & 1;
        break;
      case TypeKind::kSigned: {
        // Small values in [-8, 8] (within range for s2/s4 too).
        const int bits = BitWidth(type);
        const int64_t lo = bits >= 5 ? -8 : -(int64_t{1} << (bits - 1));
        const int64_t hi = bits >= 5 ? 8 : (int64_t{1} << (bits - 1)) - 1;
        const int64_t v = lo + static_cast<int64_t>(random.Next() % (hi - lo + 1));
        std::memcpy(p, &v, width);  // little-endian: the low bytes
        break;
      }
      case TypeKind::kUnsigned: {
        const int bits = BitWidth(type);
        const uint64_t hi = bits >= 5 ? 16 : (uint64_t{1} << bits);
        const uint64_t v = random.Next() % hi;
        std::memcpy(p, &v, width);
        break;
      }
      case TypeKind::kFloat:
        if (type == ElementType::kF32) {
          const float v = static_cast<float>(random.Unit());
          std::memcpy(p, &v, 4);
        } else if (type == ElementType::kF64) {
          const double v = random.Unit();
          std::memcpy(p, &v, 8);
        } else {
          const uint32_t bits = EncodeNarrowFloat(type, random.Unit());
          std::memcpy(p, &bits, width);
        }
        break;
      case TypeKind::kComplex:
        if (type == ElementType::kC64) {
          const float re = static_cast<float>(random.Unit()), im = static_cast<float>(random.Unit());
          std::memcpy(p, &re, 4);
          std::memcpy(p + 4, &im, 4);
        } else {
          const double re = random.Unit(), im = random.Unit();
          std::memcpy(p, &re, 8);
          std::memcpy(p + 8, &im, 8);
        }
        break;
      default:
        break;
    }
  }
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

// Bad input (a malformed module or arguments, an unsupported op or type, a
// shape too large to allocate) exits 2; a failure of the program itself
// (a failed check, OutOfRange, Cancelled, Internal) exits 1.
int ExitCodeFor(const absl::Status& status, bool during_execution) {
  switch (status.code()) {
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kUnimplemented:
    case absl::StatusCode::kResourceExhausted:
    case absl::StatusCode::kNotFound:
      return kExitBadInput;
    default:
      return during_execution ? kExitFailed : kExitBadInput;
  }
}

void PrintError(const absl::Status& status) {
  std::fprintf(stderr, "hlovm: %s\n", std::string(status.message()).c_str());
}

absl::Status WriteResults(const Literal& result, const std::string& dir, const std::string& stem,
                          std::vector<std::string>* written) {
  if (result.shape().IsTuple()) {
    const auto& elements = result.tuple_elements();
    for (size_t i = 0; i < elements.size(); ++i) {
      HLOVM_RETURN_IF_ERROR(WriteResults(elements[i], dir, absl::StrCat(stem, "_", i), written));
    }
    return absl::OkStatus();
  }
  if (!result.shape().IsArray()) return absl::OkStatus();  // tokens
  const std::string path = (std::filesystem::path(dir) / (stem + ".npy")).string();
  HLOVM_RETURN_IF_ERROR(WriteNpy(result, path));
  std::string note;
  if (NpyStorageType(result.shape().element_type()) != result.shape().element_type()) {
    note = absl::StrCat(" (", Sv(ElementTypeName(result.shape().element_type())), " widened to ",
                        Sv(ElementTypeName(NpyStorageType(result.shape().element_type()))), ")");
  }
  written->push_back(path + note);
  return absl::OkStatus();
}

int Run(const std::vector<std::string>& args) {
  if (args.empty()) {
    std::fprintf(stderr, "usage: hlovm run [--random] [--seed=N] [--elided=xla|zeros|error] [--passes=none|default|LIST] "
                         "[--threads=N] [--output=DIR] FILE.hlo [INPUT...]\n");
    return kExitBadInput;
  }
  const std::string& file = args[0];
  auto text = ReadSourceFile(file);
  if (!text.ok()) {
    PrintError(text.status());
    return kExitBadInput;
  }

  CompileOptions compile_options;
  compile_options.file_name = file;
  const std::string elided = absl::GetFlag(FLAGS_elided);
  if (elided == "xla") {
    compile_options.elided = ElidedFill::kXla;
  } else if (elided == "zeros") {
    compile_options.elided = ElidedFill::kZeros;
  } else if (elided == "error") {
    compile_options.elided = ElidedFill::kError;
  } else {
    std::fprintf(stderr, "hlovm: --elided must be xla, zeros or error, not '%s'\n", elided.c_str());
    return kExitBadInput;
  }
  compile_options.passes = absl::GetFlag(FLAGS_passes);
  if (absl::Status s = passes::ValidatePassSpec(compile_options.passes); !s.ok()) {
    PrintError(s);
    return kExitBadInput;
  }
  auto executable = Executable::FromText(*text, compile_options);
  if (!executable.ok()) {
    PrintError(executable.status());
    return ExitCodeFor(executable.status(), /*during_execution=*/false);
  }
  const Executable& exe = **executable;
  if (absl::GetFlag(FLAGS_dump_after_passes)) {
    const std::string dump = exe.PassReport() + PrintModule(exe.module(), PrintOptions::Default());
    std::fwrite(dump.data(), 1, dump.size(), stderr);
  }
  if (const int64_t filled = exe.elided_constants_filled(); filled > 0) {
    std::fprintf(stderr,
                 "hlovm: warning: %s: %lld elided constant%s ({...}) filled with %s; results "
                 "depend on these placeholder values\n",
                 file.c_str(), static_cast<long long>(filled), filled == 1 ? "" : "s",
                 compile_options.elided == ElidedFill::kXla ? "XLA's counter pattern" : "zeros");
  }

  const std::vector<Shape>& parameters = exe.parameter_shapes();
  const std::vector<std::string> inputs(args.begin() + 1, args.end());
  const bool random = absl::GetFlag(FLAGS_random);
  if (random && !inputs.empty()) {
    std::fprintf(stderr, "hlovm: give either --random or %zu input%s, not both\n", parameters.size(),
                 parameters.size() == 1 ? "" : "s");
    return kExitBadInput;
  }
  if (!random && inputs.size() != parameters.size()) {
    std::string expected;
    for (size_t i = 0; i < parameters.size(); ++i) {
      absl::StrAppend(&expected, "\n  parameter ", i, ": ", parameters[i].ToString(false));
    }
    std::fprintf(stderr, "hlovm: %s takes %zu input%s, %zu given (or use --random)%s\n", file.c_str(),
                 parameters.size(), parameters.size() == 1 ? "" : "s", inputs.size(),
                 expected.c_str());
    return kExitBadInput;
  }

  std::vector<Literal> arguments;
  arguments.reserve(parameters.size());
  for (size_t i = 0; i < parameters.size(); ++i) {
    if (random) {
      auto literal = Literal::Create(parameters[i]);
      if (!literal.ok()) {
        std::fprintf(stderr, "hlovm: parameter %zu (%s): %s\n", i, parameters[i].ToString(false).c_str(),
                     std::string(literal.status().message()).c_str());
        return kExitBadInput;
      }
      Random generator{absl::GetFlag(FLAGS_seed) * 0x100000001b3ull + i};
      (void)FillRandom(&*literal, generator);
      arguments.push_back(std::move(*literal));
      continue;
    }
    auto literal = ParseInput(inputs[i], parameters[i]);
    if (!literal.ok()) {
      std::fprintf(stderr, "hlovm: input %zu: %s\n", i, std::string(literal.status().message()).c_str());
      return kExitBadInput;
    }
    if (!literal->shape().Compatible(parameters[i])) {
      std::fprintf(stderr, "hlovm: input %zu is %s, but parameter %zu is %s\n", i,
                   literal->shape().ToString(false).c_str(), i,
                   parameters[i].ToString(false).c_str());
      return kExitBadInput;
    }
    arguments.push_back(std::move(*literal));
  }

  std::vector<const Literal*> argument_ptrs;
  for (const Literal& a : arguments) argument_ptrs.push_back(&a);
  ExecuteOptions execute_options;
  execute_options.threads = absl::GetFlag(FLAGS_threads);
  auto result = exe.Execute(argument_ptrs, execute_options);
  if (!result.ok()) {
    if (auto failure = GetCheckFailure(result.status())) {
      std::fprintf(stderr, "hlovm: %s\n", FormatCheckFailure(*failure).c_str());
      return kExitFailed;
    }
    PrintError(result.status());
    return ExitCodeFor(result.status(), /*during_execution=*/true);
  }

  const std::string output = absl::GetFlag(FLAGS_output);
  if (!output.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(output, ec);
    if (ec) {
      std::fprintf(stderr, "hlovm: --output=%s: %s\n", output.c_str(), ec.message().c_str());
      return kExitBadInput;
    }
    std::vector<std::string> written;
    absl::Status status = WriteResults(*result, output, "result", &written);
    if (!status.ok()) {
      PrintError(status);
      return kExitBadInput;
    }
    for (const std::string& w : written) std::printf("wrote %s\n", w.c_str());
    return kExitOk;
  }
  std::printf("%s\n", result->ToString().c_str());
  return kExitOk;
}

}  // namespace

HLOVM_REGISTER_COMMAND(run, "run",
                       "hlovm run [--random[=SEED]] [--output=DIR] FILE.hlo [INPUT...]",
                       "run the entry computation; inputs are HLO literals ('f32[2] {1, 2}') or "
                       ".npy files; results print as HLO literals",
                       Run);

}  // namespace hlovm
