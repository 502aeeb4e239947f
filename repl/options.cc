// The flag table, the parser and the options built from the flags (see
// options.h).
#include "repl/options.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "passes/pipeline.h"

namespace hlovm {
namespace cli {
namespace {

constexpr FlagInfo kFlags[] = {
#define HLOVM_FLAG_INFO(id, name, type, default_value, range, group, value, help) \
  {FlagId::id, #name, FlagType::type, range, FlagGroup::group, value, help},
    HLOVM_FLAG_LIST(HLOVM_FLAG_INFO)
#undef HLOVM_FLAG_INFO
};
static_assert(sizeof(kFlags) / sizeof(kFlags[0]) == kFlagCount);
static_assert(kFlagCount <= 256, "FlagId is a uint8_t");

absl::string_view Sv(std::string_view s) { return absl::string_view(s.data(), s.size()); }

std::string Flag(std::string_view name) { return absl::StrCat("--", Sv(name)); }

// Abseil's spellings of a boolean.
std::optional<bool> ParseBool(std::string_view text) {
  const std::string lower = absl::AsciiStrToLower(Sv(text));
  if (lower == "true" || lower == "t" || lower == "yes" || lower == "y" || lower == "1") return true;
  if (lower == "false" || lower == "f" || lower == "no" || lower == "n" || lower == "0") return false;
  return std::nullopt;
}

bool ParseValue(std::string_view text, bool* out) {
  std::optional<bool> b = ParseBool(text);
  if (b.has_value()) *out = *b;
  return b.has_value();
}
bool ParseValue(std::string_view text, int* out) { return absl::SimpleAtoi(Sv(text), out); }
bool ParseValue(std::string_view text, int64_t* out) { return absl::SimpleAtoi(Sv(text), out); }
bool ParseValue(std::string_view text, uint64_t* out) { return absl::SimpleAtoi(Sv(text), out); }
bool ParseValue(std::string_view text, double* out) { return absl::SimpleAtod(Sv(text), out); }
bool ParseValue(std::string_view text, std::string* out) {
  *out = std::string(text);
  return true;
}

// Sets flag `id` from `text`; false when the text is not a value of its type.
bool SetFlag(Flags& flags, FlagId id, std::string_view text) {
  switch (id) {
#define HLOVM_FLAG_SET(id, name, ...) \
  case FlagId::id:                    \
    return ParseValue(text, &flags.name);
    HLOVM_FLAG_LIST(HLOVM_FLAG_SET)
#undef HLOVM_FLAG_SET
  }
  return false;
}

std::string FormatValue(bool v) { return v ? "true" : "false"; }
template <typename T>
std::string FormatValue(const T& v) {
  return absl::StrCat(v);
}

// A numeric flag's value as a double (exact for every bound in the table);
// nullopt for the other types.
std::optional<double> NumericValue(bool) { return std::nullopt; }
std::optional<double> NumericValue(const std::string&) { return std::nullopt; }
template <typename T>
std::optional<double> NumericValue(T v) {
  return static_cast<double>(v);
}

std::optional<double> GetNumericValue(const Flags& flags, FlagId id) {
  switch (id) {
#define HLOVM_FLAG_NUMERIC(id, name, ...) \
  case FlagId::id:                        \
    return NumericValue(flags.name);
    HLOVM_FLAG_LIST(HLOVM_FLAG_NUMERIC)
#undef HLOVM_FLAG_NUMERIC
  }
  return std::nullopt;
}

std::string ValueText(const Flags& flags, FlagId id) {
  switch (id) {
#define HLOVM_FLAG_VALUE_TEXT(id, name, ...) \
  case FlagId::id:                           \
    return FormatValue(flags.name);
    HLOVM_FLAG_LIST(HLOVM_FLAG_VALUE_TEXT)
#undef HLOVM_FLAG_VALUE_TEXT
  }
  return "";
}

// NaN compares false with everything, so it is never inside.
bool InRange(double v, const FlagRange& range) {
  const bool above_min = range.min_open ? v > range.min : v >= range.min;
  return above_min && v <= range.max;
}

// A bound without an exponent: 1000000 rather than StrCat's 1e+06.
std::string BoundText(double v) {
  if (std::abs(v) < 1e15 && v == std::trunc(v)) return absl::StrCat(static_cast<int64_t>(v));
  return absl::StrCat(v);
}

std::string_view TypeName(FlagType type) {
  switch (type) {
    case FlagType::kBool: return "a boolean (true or false)";
    case FlagType::kInt:
    case FlagType::kInt64: return "an integer";
    case FlagType::kUint64: return "a non-negative integer";
    case FlagType::kDouble: return "a number";
    case FlagType::kString:
    case FlagType::kPath: return "a string";
  }
  return "";
}

bool IsDigits(std::string_view s) {
  return !s.empty() && s.find_first_not_of("0123456789") == std::string_view::npos;
}

// A word that is a flag: `-x` or `--x`, not `-` or `--`.
bool IsFlagWord(std::string_view arg) {
  return arg.size() > 1 && arg[0] == '-' && arg != "--";
}

// Splits `--some-name=value` into the name with underscores ("some_name")
// and, when there is an `=`, the value.
void SplitFlagWord(std::string_view arg, std::string* name, std::optional<std::string>* value) {
  arg.remove_prefix(arg.size() > 1 && arg[1] == '-' ? 2 : 1);
  const size_t eq = arg.find('=');
  *name = std::string(arg.substr(0, eq));
  std::replace(name->begin(), name->end(), '-', '_');
  if (eq != std::string_view::npos) {
    *value = std::string(arg.substr(eq + 1));
  } else {
    value->reset();
  }
}

// The flag a name stands for, and whether it was the `--noNAME` form of a
// boolean.
const FlagInfo* ResolveFlag(const std::string& name, bool* negated) {
  *negated = false;
  if (const FlagInfo* info = FindFlag(name)) return info;
  if (name.size() > 2 && name.compare(0, 2, "no") == 0) {
    const FlagInfo* info = FindFlag(std::string_view(name).substr(2));
    if (info != nullptr && info->type == FlagType::kBool) {
      *negated = true;
      return info;
    }
  }
  return nullptr;
}

}  // namespace

absl::Span<const FlagInfo> AllFlags() { return kFlags; }

const FlagInfo& GetFlagInfo(FlagId id) { return kFlags[static_cast<size_t>(id)]; }

const FlagInfo* FindFlag(std::string_view name) {
  for (const FlagInfo& info : kFlags) {
    if (info.name == name) return &info;
  }
  return nullptr;
}

std::string DefaultValueText(FlagId id) { return ValueText(Flags(), id); }

std::string RangeText(const FlagRange& range, FlagType type) {
  if (!range.checked) return "";
  const std::string min = BoundText(range.min), max = BoundText(range.max);
  std::string text;
  if (range.max == kNoMax) {
    text = range.min_open ? absl::StrCat("more than ", min) : absl::StrCat(min, " or more");
    if (type == FlagType::kDouble) absl::StrAppend(&text, ", finite");
  } else {
    text = range.min_open ? absl::StrCat("more than ", min, ", at most ", max)
                          : absl::StrCat(min, " to ", max);
  }
  return text;
}

absl::Status CheckFlagRanges(const Flags& flags) {
  for (const FlagInfo& info : kFlags) {
    if (!info.range.checked) continue;
    const std::optional<double> value = GetNumericValue(flags, info.id);
    if (!value.has_value() || InRange(*value, info.range)) continue;
    return absl::InvalidArgumentError(absl::StrCat(Flag(info.name), "=", ValueText(flags, info.id),
                                                   " is out of range (accepted: ",
                                                   RangeText(info.range, info.type), ")"));
  }
  return absl::OkStatus();
}

std::string_view FlagGroupName(FlagGroup group) {
  switch (group) {
    case FlagGroup::kCompile: return "compile";
    case FlagGroup::kExecute: return "execution";
    case FlagGroup::kInstances: return "replica";
    case FlagGroup::kInputs: return "input";
    case FlagGroup::kCommand: return "command";
  }
  return "";
}

FlagSet::FlagSet(std::initializer_list<Item> items) {
  for (const Item& item : items) {
    if (!item.is_group) {
      bits_.set(static_cast<size_t>(item.flag));
      continue;
    }
    for (const FlagInfo& info : kFlags) {
      if (info.group == item.group) bits_.set(static_cast<size_t>(info.id));
    }
  }
}

std::vector<FlagId> FlagSet::Ids() const {
  std::vector<FlagId> ids;
  for (const FlagInfo& info : kFlags) {
    if (Contains(info.id)) ids.push_back(info.id);
  }
  return ids;
}

absl::StatusOr<ParsedArgs> ParseArgs(absl::Span<const std::string> args, const FlagSet& accepted,
                                     std::string_view command) {
  const std::string who = absl::StrCat("hlovm ", Sv(command));
  auto usage_error = [&](const std::string& message) {
    return absl::InvalidArgumentError(absl::StrCat(who, ": ", message));
  };
  ParsedArgs parsed;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--") {
      parsed.positional.insert(parsed.positional.end(), args.begin() + i + 1, args.end());
      break;
    }
    if (!IsFlagWord(arg)) {
      parsed.positional.push_back(arg);
      continue;
    }
    std::string name;
    std::optional<std::string> value;
    SplitFlagWord(arg, &name, &value);
    bool negated = false;
    const FlagInfo* info = ResolveFlag(name, &negated);
    if (info == nullptr || !accepted.Contains(info->id)) {
      const std::string written = arg.substr(0, arg.find('='));
      return usage_error(absl::StrCat(
          "unknown flag ", written, " (", who,
          accepted.empty() ? " takes no flags)" : absl::StrCat(" takes: ", FlagNames(accepted), ")")));
    }
    const std::string flag = Flag(info->name);
    if (info->type == FlagType::kBool) {
      if (negated) {
        if (value.has_value()) {
          return usage_error(absl::StrCat(arg.substr(0, arg.find('=')), " takes no value"));
        }
        SetFlag(parsed.flags, info->id, "false");
        continue;
      }
      if (!value.has_value()) {
        SetFlag(parsed.flags, info->id, "true");
        continue;
      }
      // `--mpi=N` is `--mpi --mpi_instances=N`.
      if (info->id == FlagId::kMpi && IsDigits(*value)) {
        SetFlag(parsed.flags, FlagId::kMpi, "true");
        if (!SetFlag(parsed.flags, FlagId::kMpiInstances, *value)) {
          return usage_error(absl::StrCat(flag, ": '", *value, "' is out of range"));
        }
        continue;
      }
      // `--random=SEED` is `--random --seed=SEED`.
      if (info->id == FlagId::kRandom && IsDigits(*value)) {
        SetFlag(parsed.flags, FlagId::kRandom, "true");
        if (!SetFlag(parsed.flags, FlagId::kSeed, *value)) {
          return usage_error(absl::StrCat(flag, ": the seed '", *value, "' is out of range"));
        }
        continue;
      }
    } else if (!value.has_value()) {
      if (info->type == FlagType::kPath) {
        return usage_error(absl::StrCat(flag, " takes its ", Sv(info->value), " only as ", flag, "=",
                                        Sv(info->value)));
      }
      if (i + 1 >= args.size()) return usage_error(absl::StrCat(flag, " needs a value"));
      value = args[++i];
    }
    if (!SetFlag(parsed.flags, info->id, *value)) {
      return usage_error(
          absl::StrCat(flag, ": '", *value, "' is not ", Sv(TypeName(info->type))));
    }
  }
  return parsed;
}

std::optional<size_t> FindFirstPositional(absl::Span<const std::string> args) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--") return i + 1 < args.size() ? std::optional<size_t>(i + 1) : std::nullopt;
    if (!IsFlagWord(arg)) return i;
    std::string name;
    std::optional<std::string> value;
    SplitFlagWord(arg, &name, &value);
    bool negated = false;
    const FlagInfo* info = ResolveFlag(name, &negated);
    // `--threads 4`: the 4 is the flag's value, not the command.
    if (info != nullptr && !value.has_value() && info->type != FlagType::kBool &&
        info->type != FlagType::kPath) {
      ++i;
    }
  }
  return std::nullopt;
}

std::string FlagsHelp(const FlagSet& set) {
  std::string text;
  for (FlagGroup group : {FlagGroup::kCommand, FlagGroup::kCompile, FlagGroup::kExecute,
                          FlagGroup::kInstances, FlagGroup::kInputs}) {
    std::string block;
    for (FlagId id : set.Ids()) {
      const FlagInfo& info = GetFlagInfo(id);
      if (info.group != group) continue;
      absl::StrAppend(&block, "  ", Flag(info.name));
      if (!info.value.empty()) absl::StrAppend(&block, "=", Sv(info.value));
      const std::string default_text = DefaultValueText(id);
      absl::StrAppend(&block, "\n      ", Sv(info.help));
      const std::string range_text = RangeText(info.range, info.type);
      if (info.type != FlagType::kBool && !default_text.empty()) {
        absl::StrAppend(&block, " (default: ", default_text,
                        range_text.empty() ? "" : absl::StrCat("; accepted: ", range_text), ")");
      }
      block.push_back('\n');
    }
    if (block.empty()) continue;
    std::string title(FlagGroupName(group));
    title[0] = absl::ascii_toupper(title[0]);
    absl::StrAppend(&text, text.empty() ? "" : "\n", title, " flags:\n", block);
  }
  return text;
}

std::string FlagNames(const FlagSet& set) {
  std::string names;
  for (FlagId id : set.Ids()) {
    absl::StrAppend(&names, names.empty() ? "" : ", ", Flag(GetFlagInfo(id).name));
  }
  return names;
}

absl::StatusOr<Options> BuildOptions(const Flags& flags) {
  if (absl::Status s = CheckFlagRanges(flags); !s.ok()) return s;
  Options options;
  options.flags = flags;
  CompileOptions& compile = options.compile;
  if (flags.elided == "xla") {
    compile.elided = ElidedFill::kXla;
  } else if (flags.elided == "zeros") {
    compile.elided = ElidedFill::kZeros;
  } else if (flags.elided == "error") {
    compile.elided = ElidedFill::kError;
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("--elided must be xla, zeros or error, not '", flags.elided, "'"));
  }
  if (flags.print != "summary" && flags.print != "full" && flags.print != "none" &&
      flags.print != "json") {
    return absl::InvalidArgumentError(
        absl::StrCat("--print must be summary, full, none or json, not '", flags.print, "'"));
  }
  if (flags.by != "instruction" && flags.by != "op_name") {
    return absl::InvalidArgumentError(
        absl::StrCat("--by must be instruction or op_name, not '", flags.by, "'"));
  }
  // Both messages name their flag.
  if (absl::Status s = passes::ValidatePassSpec(flags.passes); !s.ok()) return s;
  compile.passes = flags.passes;
  compile.fusion = !flags.no_fusion;
  compile.replica_count = flags.replicas;
  compile.num_partitions = flags.partitions;
  absl::StatusOr<FftPlanMode> fft_plan = ParseFftPlanMode(flags.fft_plan);
  if (!fft_plan.ok()) return fft_plan.status();
  compile.fft_plan = *fft_plan;
  options.execute.threads = flags.threads;
  options.execute.flush_denormals = flags.flush_denormals;
  options.replicated.threads = flags.threads;
  options.replicated.flush_denormals = flags.flush_denormals;
  options.replicated.collective_timeout_seconds = flags.collective_timeout;
  return options;
}

}  // namespace cli
}  // namespace hlovm
