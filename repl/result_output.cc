#include "repl/result_output.h"

#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/element_type.h"

namespace hlovm {
namespace {

absl::string_view Sv(std::string_view s) { return absl::string_view(s.data(), s.size()); }

// A real element as a JSON value.
std::string JsonNumber(ElementType type, const uint8_t* p) {
  std::string text = ElementToString(type, p, /*pred_as_digit=*/false);
  if (type == ElementType::kPred) return text;  // true / false
  if (absl::StrContains(text, "nan")) return "\"NaN\"";
  if (text == "inf") return "\"Infinity\"";
  if (text == "-inf") return "\"-Infinity\"";
  return text;
}

std::string JsonElement(ElementType type, const uint8_t* p) {
  if (!IsComplex(type)) return JsonNumber(type, p);
  const ElementType part = ComplexComponentType(type);
  return absl::StrCat("[", JsonNumber(part, p), ", ", JsonNumber(part, p + ByteWidth(part)), "]");
}

void AppendArray(const Literal& literal, int64_t level, std::vector<int64_t>& index,
                 std::string* out) {
  const Shape& shape = literal.shape();
  if (level == shape.rank()) {
    const ElementType type = shape.element_type();
    out->append(JsonElement(type, literal.untyped_data() +
                                      literal.PhysicalIndex(index) * ByteWidth(type)));
    return;
  }
  out->push_back('[');
  for (int64_t i = 0; i < shape.dimensions(level); ++i) {
    if (i > 0) out->append(", ");
    index[level] = i;
    AppendArray(literal, level + 1, index, out);
  }
  out->push_back(']');
}

void AppendValue(const Literal& literal, std::string* out) {
  const Shape& shape = literal.shape();
  if (shape.IsTuple()) {
    out->append("{\"tuple\": [");
    for (size_t i = 0; i < literal.tuple_elements().size(); ++i) {
      if (i > 0) out->append(", ");
      AppendValue(literal.tuple_elements()[i], out);
    }
    out->append("]}");
    return;
  }
  if (!shape.IsArray()) {
    out->append("{\"token\": true}");
    return;
  }
  absl::StrAppend(out, "{\"dtype\": \"", Sv(ElementTypeName(shape.element_type())),
                  "\", \"shape\": [");
  for (int64_t d = 0; d < shape.rank(); ++d) absl::StrAppend(out, d ? ", " : "", shape.dimensions(d));
  out->append("], \"data\": ");
  std::vector<int64_t> index(shape.rank(), 0);
  AppendArray(literal, 0, index, out);
  out->push_back('}');
}

}  // namespace

absl::StatusOr<PrintMode> ParsePrintMode(std::string_view text) {
  if (text == "summary") return PrintMode::kSummary;
  if (text == "full") return PrintMode::kFull;
  if (text == "none") return PrintMode::kNone;
  if (text == "json") return PrintMode::kJson;
  return absl::InvalidArgumentError(
      absl::StrCat("--print must be summary, full, none or json, not '", Sv(text), "'"));
}

std::string FormatResult(const Literal& result, PrintMode mode) {
  if (mode == PrintMode::kFull) return result.ToString();
  return SummaryString(result, kSummaryThreshold, kSummaryEdgeItems);
}

std::string ResultsJson(const std::vector<RunResult>& results) {
  std::string out;
  if (results.size() == 1 && results[0].replica < 0) {
    out = "{\"result\": ";
    AppendValue(*results[0].value, &out);
    out.append("}\n");
    return out;
  }
  out = "{\"instances\": [";
  for (size_t i = 0; i < results.size(); ++i) {
    absl::StrAppend(&out, i ? ",\n  " : "\n  ", "{\"replica\": ", results[i].replica,
                    ", \"partition\": ", results[i].partition, ", \"result\": ");
    AppendValue(*results[i].value, &out);
    out.push_back('}');
  }
  out.append("\n]}\n");
  return out;
}

}  // namespace hlovm
