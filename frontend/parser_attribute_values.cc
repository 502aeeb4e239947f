// Parsing HLO text: the structured attribute values (window, dim_labels,
// padding, slice, replica_groups, result_accuracy, sharding, instruction
// aliasing; see frontend/parser_internal.h).
#include <algorithm>
#include <array>
#include <charconv>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/hash/hash.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/element_type.h"
#include "core/hlo_ir.h"
#include "core/hlo_opcode.h"
#include "core/literal.h"
#include "core/shape.h"
#include "core/status_macros.h"
#include "core/text_cursor.h"

#include "frontend/parser_internal.h"

namespace hlovm {
namespace parser_internal {
namespace {

//===----------------------------------------------------------------------===//
// Attribute value forms.
//===----------------------------------------------------------------------===//

// Splits "2x3x4" (or "1_1x0_0") style text at `sep` into integers.
bool SplitInts(std::string_view text, char sep, std::vector<int64_t>* out) {
  out->clear();
  size_t start = 0;
  while (true) {
    size_t end = text.find(sep, start);
    std::string_view part = text.substr(start, end == std::string_view::npos ? end : end - start);
    if (part.empty()) return false;
    int64_t v = 0;
    auto [ptr, ec] = std::from_chars(part.data(), part.data() + part.size(), v);
    if (ec != std::errc() || ptr != part.data() + part.size()) return false;
    out->push_back(v);
    if (end == std::string_view::npos) return true;
    start = end + 1;
  }
}

}  // namespace

absl::Status Parser::ParseWindow(Window* window) {
  HLOVM_RETURN_IF_ERROR(Expect('{', "expects '{' to start window"));
  std::vector<int64_t> size, stride, lhs_dilate, rhs_dilate, reversal;
  std::vector<std::vector<int64_t>> pad;
  bool have_size = false;
  while (Peek() != '}') {
    if (pos_ >= n_) return ErrorHere("expects '}' to end window");
    Skip();
    size_t field_offset = pos_;
    std::string_view field = LexIdent();
    if (field.empty() || !Eat('=')) return Error(field_offset, "expects window sub-attribute");
    Skip();
    size_t value_offset = pos_;
    size_t p = pos_;
    while (p < n_ && (IsDigit(s_[p]) || s_[p] == 'x' || s_[p] == '_' || s_[p] == '-')) ++p;
    std::string_view value = s_.substr(pos_, p - pos_);
    pos_ = p;
    auto dxd = [&](std::vector<int64_t>* out) -> absl::Status {
      if (!out->empty()) {
        return Error(field_offset, Cat("sub-attribute '", field, "=' already exists"));
      }
      if (!SplitInts(value, 'x', out)) {
        return Error(value_offset, Cat("expects sub-attribute '", field, "=ixj...'"));
      }
      return absl::OkStatus();
    };
    if (field == "size") {
      HLOVM_RETURN_IF_ERROR(dxd(&size));
      have_size = true;
    } else if (field == "stride") {
      HLOVM_RETURN_IF_ERROR(dxd(&stride));
    } else if (field == "lhs_dilate") {
      HLOVM_RETURN_IF_ERROR(dxd(&lhs_dilate));
    } else if (field == "rhs_dilate") {
      HLOVM_RETURN_IF_ERROR(dxd(&rhs_dilate));
    } else if (field == "rhs_reversal") {
      HLOVM_RETURN_IF_ERROR(dxd(&reversal));
    } else if (field == "pad") {
      if (!pad.empty()) return Error(field_offset, "sub-attribute 'pad=' already exists");
      size_t start = 0;
      while (true) {
        size_t end = value.find('x', start);
        std::string_view part =
            value.substr(start, end == std::string_view::npos ? end : end - start);
        std::vector<int64_t> low_high;
        if (!SplitInts(part, '_', &low_high) || low_high.size() != 2) {
          return Error(value_offset, "expects padding_low and padding_high separated by '_'");
        }
        pad.push_back(low_high);
        if (end == std::string_view::npos) break;
        start = end + 1;
      }
    } else {
      return Error(field_offset, Cat("unknown attribute ", field, " in window"));
    }
  }
  ++pos_;
  if (!have_size && (!stride.empty() || !pad.empty() || !lhs_dilate.empty() ||
                     !rhs_dilate.empty() || !reversal.empty())) {
    return ErrorHere("sub-attribute 'size=' is required");
  }
  size_t rank = size.size();
  auto check = [&](size_t n, std::string_view field) -> absl::Status {
    if (n != 0 && n != rank) {
      return ErrorHere(Cat("expects 'size' and '", field,
                                    "' to have the same number of dimensions"));
    }
    return absl::OkStatus();
  };
  HLOVM_RETURN_IF_ERROR(check(stride.size(), "stride"));
  HLOVM_RETURN_IF_ERROR(check(pad.size(), "pad"));
  HLOVM_RETURN_IF_ERROR(check(lhs_dilate.size(), "lhs_dilate"));
  HLOVM_RETURN_IF_ERROR(check(rhs_dilate.size(), "rhs_dilate"));
  HLOVM_RETURN_IF_ERROR(check(reversal.size(), "rhs_reversal"));
  window->assign(rank, WindowDimension{});
  for (size_t i = 0; i < rank; ++i) {
    WindowDimension& d = (*window)[i];
    d.size = size[i];
    if (!stride.empty()) d.stride = stride[i];
    if (!pad.empty()) {
      d.padding_low = pad[i][0];
      d.padding_high = pad[i][1];
    }
    if (!lhs_dilate.empty()) d.base_dilation = lhs_dilate[i];
    if (!rhs_dilate.empty()) d.window_dilation = rhs_dilate[i];
    if (!reversal.empty()) d.window_reversal = reversal[i] != 0;
  }
  return absl::OkStatus();
}

absl::Status Parser::ParseDimLabels(ConvolutionDimensionNumbers* dnums) {
  Skip();
  size_t start = pos_;
  size_t p = pos_;
  while (p < n_ && (IsNameChar(s_[p]) || s_[p] == '?' || s_[p] == '>')) ++p;
  std::string_view text = s_.substr(pos_, p - pos_);
  pos_ = p;
  size_t underscore = text.find('_');
  size_t arrow = text.find("->");
  if (underscore == std::string_view::npos || arrow == std::string_view::npos ||
      arrow < underscore) {
    return Error(start, Cat("expects convolution dimension numbers like "
                                     "'bf01_oi01->bf01', but sees ", text));
  }
  std::string_view lhs = text.substr(0, underscore);
  std::string_view rhs = text.substr(underscore + 1, arrow - underscore - 1);
  std::string_view out = text.substr(arrow + 2);
  // Each side first on its own: labels from [0-(rank-1)], the two letters
  // and '?', each at most once.
  auto check_side = [&](std::string_view labels, char a, char b) -> absl::Status {
    const int64_t rank = static_cast<int64_t>(labels.size());
    bool seen[256] = {};
    for (char c : labels) {
      bool ok = c == a || c == b || c == '?' || (IsDigit(c) && c - '0' < rank);
      if (!ok) {
        return Error(start, Cat("expects [0-", rank - 1, std::string(1, a), std::string(1, b),
                                "?], but sees ", std::string(1, c),
                                " in convolution dimension numbers"));
      }
      if (c != '?' && seen[static_cast<unsigned char>(c)]) {
        return Error(start, Cat("expects unique labels in convolution dimension numbers, but "
                                "sees '", std::string(1, c), "' twice in ", labels));
      }
      seen[static_cast<unsigned char>(c)] = true;
    }
    return absl::OkStatus();
  };
  HLOVM_RETURN_IF_ERROR(check_side(lhs, 'b', 'f'));
  HLOVM_RETURN_IF_ERROR(check_side(rhs, 'i', 'o'));
  HLOVM_RETURN_IF_ERROR(check_side(out, 'b', 'f'));
  if (lhs.size() != rhs.size() || lhs.size() != out.size()) {
    return Error(start, "convolution lhs, rhs, and output must have same number of spatial "
                        "dimensions (convolution dimension numbers)");
  }
  const int64_t rank = static_cast<int64_t>(lhs.size());
  const int64_t spatial = rank - 2;
  if (spatial < 0) return Error(start, "convolution dimension numbers need at least 2 dimensions");
  auto parse_side = [&](std::string_view labels, char a, char b, int64_t* a_dim, int64_t* b_dim,
                        std::vector<int64_t>* spatial_dims) -> absl::Status {
    spatial_dims->assign(spatial, -1);
    bool seen_a = false, seen_b = false;
    for (int64_t i = 0; i < rank; ++i) {
      char c = labels[i];
      if (c == a) {
        seen_a = true;
        *a_dim = i;
      } else if (c == b) {
        seen_b = true;
        *b_dim = i;
      } else if (IsDigit(c)) {
        int64_t d = c - '0';
        if (d >= spatial) {
          return Error(start, Cat("spatial dimension ", d, " of ", labels,
                                  " out of range in convolution dimension numbers"));
        }
        (*spatial_dims)[d] = i;
      }
    }
    if (!seen_a || !seen_b) {
      return Error(start, Cat("expects '", std::string(1, a), "' and '", std::string(1, b),
                              "' in ", labels, " (convolution dimension numbers)"));
    }
    return absl::OkStatus();
  };
  HLOVM_RETURN_IF_ERROR(parse_side(lhs, 'b', 'f', &dnums->input_batch_dimension,
                                   &dnums->input_feature_dimension,
                                   &dnums->input_spatial_dimensions));
  HLOVM_RETURN_IF_ERROR(parse_side(rhs, 'i', 'o', &dnums->kernel_input_feature_dimension,
                                   &dnums->kernel_output_feature_dimension,
                                   &dnums->kernel_spatial_dimensions));
  HLOVM_RETURN_IF_ERROR(parse_side(out, 'b', 'f', &dnums->output_batch_dimension,
                                   &dnums->output_feature_dimension,
                                   &dnums->output_spatial_dimensions));
  return absl::OkStatus();
}

absl::Status Parser::ParsePaddingConfig(PaddingConfig* padding) {
  Skip();
  size_t start = pos_;
  size_t p = pos_;
  while (p < n_ && (IsDigit(s_[p]) || s_[p] == 'x' || s_[p] == '_' || s_[p] == '-')) ++p;
  std::string_view text = s_.substr(pos_, p - pos_);
  if (text.empty()) return Error(start, "expects padding config, e.g., '0_0_0x3_3_1'");
  pos_ = p;
  padding->clear();
  size_t from = 0;
  while (true) {
    size_t end = text.find('x', from);
    std::string_view part = text.substr(from, end == std::string_view::npos ? end : end - from);
    std::vector<int64_t> dims;
    if (!SplitInts(part, '_', &dims) || (dims.size() != 2 && dims.size() != 3)) {
      return Error(start,
                   "expects padding config pattern like 'low_high_interior' or 'low_high'");
    }
    padding->push_back(PaddingDimension{dims[0], dims[1], dims.size() == 3 ? dims[2] : 0});
    if (end == std::string_view::npos) break;
    from = end + 1;
  }
  return absl::OkStatus();
}

absl::Status Parser::ParseSliceRanges(SliceAttr* slice) {
  HLOVM_RETURN_IF_ERROR(Expect('{', "expects '{' to start slice ranges"));
  if (Eat('}')) return absl::OkStatus();
  do {
    HLOVM_RETURN_IF_ERROR(Expect('[', "expects '[' to start a slice range"));
    std::vector<int64_t> parts;
    do {
      int64_t v = 0;
      HLOVM_RETURN_IF_ERROR(ParseInt64(&v));
      parts.push_back(v);
    } while (Eat(':'));
    HLOVM_RETURN_IF_ERROR(Expect(']', "expects ']' to end a slice range"));
    if (parts.size() != 2 && parts.size() != 3) {
      return ErrorHere("expects [start:limit] or [start:limit:stride] in slice");
    }
    slice->starts.push_back(parts[0]);
    slice->limits.push_back(parts[1]);
    slice->strides.push_back(parts.size() == 3 ? parts[2] : 1);
  } while (Eat(','));
  return Expect('}', "expects '}' to end slice ranges");
}

absl::Status Parser::ParseReplicaGroups(ReplicaGroups* groups) {
  Skip();
  size_t start = pos_;
  char c = PeekAt(pos_);
  if (c == '{') return ParseInt64ListList(&groups->groups);
  if (c == '[') {
    // [G,S]<=[dims]T(perm)
    std::vector<int64_t> tile, reshape, perm;
    HLOVM_RETURN_IF_ERROR(ParseInt64List(&tile, '[', ']'));
    Skip();
    if (s_.substr(pos_, 2) != "<=") return ErrorHere("expects '<=' in iota replica groups");
    pos_ += 2;
    HLOVM_RETURN_IF_ERROR(ParseInt64List(&reshape, '[', ']'));
    if (PeekAt(pos_) == 'T') {
      ++pos_;
      HLOVM_RETURN_IF_ERROR(ParseInt64List(&perm, '(', ')'));
    }
    if (tile.size() != 2) {
      return Error(start, "expects iota replica groups with 2 tile assignment dimensions");
    }
    int64_t total = 1, reshape_total = 1;
    for (int64_t d : tile) {
      if (d < 0 || d > (int64_t{1} << 20)) return Error(start, "replica group size out of range");
      total *= d;
      if (total > (int64_t{1} << 20)) return Error(start, "replica group size out of range");
    }
    for (int64_t d : reshape) {
      if (d < 0 || d > (int64_t{1} << 20)) return Error(start, "replica group size out of range");
      reshape_total *= d;
      if (reshape_total > (int64_t{1} << 20))
        return Error(start, "replica group size out of range");
    }
    if (total != reshape_total) {
      return Error(start, Cat("iota reshape dimensions product ", reshape_total,
                                       " does not match the tile assignment dimensions product ",
                                       total));
    }
    if (perm.empty()) {
      for (size_t i = 0; i < reshape.size(); ++i) perm.push_back(static_cast<int64_t>(i));
    }
    if (perm.size() != reshape.size()) {
      return Error(start, "iota transpose permutation has the wrong size");
    }
    std::vector<bool> used(perm.size(), false);
    for (int64_t p : perm) {
      if (p < 0 || p >= static_cast<int64_t>(perm.size()) || used[p]) {
        return Error(start, "iota transpose is not a permutation");
      }
      used[p] = true;
    }
    // Device ids: iota over `reshape`, transposed by `perm`, row-major.
    const size_t rank = reshape.size();
    std::vector<int64_t> strides(rank, 1);
    for (size_t i = rank; i-- > 1;) strides[i - 1] = strides[i] * reshape[i];
    std::vector<int64_t> dims(rank), index(rank, 0);
    for (size_t i = 0; i < rank; ++i) dims[i] = reshape[perm[i]];
    std::vector<int64_t> ids;
    ids.reserve(total);
    for (int64_t n = 0; n < total; ++n) {
      int64_t id = 0;
      for (size_t i = 0; i < rank; ++i) id += index[i] * strides[perm[i]];
      ids.push_back(id);
      for (size_t i = rank; i-- > 0;) {
        if (++index[i] < dims[i]) break;
        index[i] = 0;
      }
    }
    groups->groups.assign(tile[0], {});
    for (int64_t g = 0; g < tile[0]; ++g) {
      groups->groups[g].assign(ids.begin() + g * tile[1], ids.begin() + (g + 1) * tile[1]);
    }
    groups->iota_text.assign(s_.substr(start, pos_ - start));
    return absl::OkStatus();
  }
  if (s_.substr(pos_, 4) == "mesh") {
    // mesh['a'=2,'b'=2, device_ids=(...)] {'a'}: kept as text, axis names
    // checked against the mesh.
    size_t p = pos_ + 4;
    pos_ = p;
    HLOVM_RETURN_IF_ERROR(Expect('[', "expected '[' after mesh"));
    std::vector<std::string_view> axes;
    std::vector<int64_t> sizes;
    int64_t device_ids = -1;
    while (Peek() != ']') {
      if (Peek() == '\'') {
        size_t q = s_.find('\'', pos_ + 1);
        if (q == std::string_view::npos) return ErrorHere("unterminated axis name");
        axes.push_back(s_.substr(pos_ + 1, q - pos_ - 1));
        pos_ = q + 1;
        HLOVM_RETURN_IF_ERROR(Expect('=', "expects '='"));
        int64_t size = 0;
        HLOVM_RETURN_IF_ERROR(ParseInt64(&size));
        sizes.push_back(size);
      } else if (EatWord("device_ids")) {
        HLOVM_RETURN_IF_ERROR(Expect('=', "expects '='"));
        std::vector<int64_t> ids;
        HLOVM_RETURN_IF_ERROR(ParseInt64List(&ids, '(', ')'));
        device_ids = static_cast<int64_t>(ids.size());
      } else {
        return ErrorHere("expects mesh axis");
      }
      if (!Eat(',')) break;
    }
    HLOVM_RETURN_IF_ERROR(Expect(']', "expected ']' to end mesh axes"));
    int64_t total = 1;
    for (int64_t s : sizes) total *= std::max<int64_t>(s, 1);
    if (device_ids >= 0 && device_ids != total) {
      return Error(start, Cat("Expected ", total,
                                       " device_ids based on mesh axes, but got ", device_ids));
    }
    HLOVM_RETURN_IF_ERROR(Expect('{', "expects '{'"));
    while (Peek() != '}') {
      Skip();
      size_t axis_offset = pos_;
      std::string_view axis;
      if (PeekAt(pos_) == '\'') {
        size_t q = s_.find('\'', pos_ + 1);
        if (q == std::string_view::npos) return ErrorHere("unterminated axis name");
        axis = s_.substr(pos_ + 1, q - pos_ - 1);
        pos_ = q + 1;
      } else {
        axis = LexIdent();
      }
      bool found = std::find(axes.begin(), axes.end(), axis) != axes.end();
      if (!found) {
        int64_t index = -1;
        auto [ptr, ec] = std::from_chars(axis.data(), axis.data() + axis.size(), index);
        if (ec != std::errc() || ptr != axis.data() + axis.size()) {
          return Error(axis_offset, Cat("axis '", axis,
                                                 "' is not a valid axis name or index in mesh"));
        }
        if (index < 0 || index >= static_cast<int64_t>(axes.size())) {
          return Error(axis_offset,
                       Cat("axis index ", index, " is out of bounds for mesh"));
        }
      }
      if (Peek() == '(') HLOVM_RETURN_IF_ERROR(SkipValue());
      if (!Eat(',')) break;
    }
    HLOVM_RETURN_IF_ERROR(Expect('}', "expects '}'"));
    groups->iota_text.assign(s_.substr(start, pos_ - start));
    return absl::OkStatus();
  }
  return ErrorHere("expects replica groups");
}

absl::Status Parser::ParseResultAccuracy() {
  HLOVM_RETURN_IF_ERROR(Expect('{', "expected '{' to start result precision list"));
  Skip();
  size_t name_offset = pos_;
  std::string_view name = LexIdent();
  if (name.empty() || !Eat('=')) return Error(name_offset, "expects attribute name");
  if (name == "mode") {
    std::string_view mode = LexIdent();
    std::string lower = Lower(mode);
    if (lower != "default" && lower != "highest" && lower != "tolerance") {
      return Error(name_offset, Cat("expects ResultAccuracy type but sees: ", mode));
    }
  } else if (name == "tolerance") {
    HLOVM_RETURN_IF_ERROR(Expect('{', "expected '{' to start result accuracy list"));
    if (Peek() != '}') {
      do {
        Skip();
        size_t field_offset = pos_;
        std::string_view field = LexIdent();
        if (field.empty() || !Eat('=')) {
          return Error(field_offset, "expects string for result_accuracy tolerance type");
        }
        if (field != "ulps" && field != "rtol" && field != "atol") {
          return Error(field_offset, Cat("invalid attribute name: ", field));
        }
        double v = 0;
        HLOVM_RETURN_IF_ERROR(ParseDouble(&v));
      } while (Eat(','));
    }
    HLOVM_RETURN_IF_ERROR(Expect('}', "expects '}' at the end of result precision"));
  } else {
    return Error(name_offset, Cat("invalid attribute name: ", name));
  }
  return Expect('}', "expected '}' to end result_accuracy");
}

// Checks `devices=[dims]...` in a sharding: the device list (or the iota
// reshape) must cover exactly the tile assignment.
absl::Status Parser::ValidateSharding(size_t start, size_t end) {
  std::string_view text = s_.substr(start, end - start);
  size_t at = 0;
  while ((at = text.find("devices=[", at)) != std::string_view::npos) {
    size_t p = at + 9;
    at = p;
    auto read_ints = [&](char close, std::vector<int64_t>* out) -> bool {
      out->clear();
      while (p < text.size()) {
        while (p < text.size() && text[p] == ' ') ++p;
        int64_t v = 0;
        auto [ptr, ec] = std::from_chars(text.data() + p, text.data() + text.size(), v);
        if (ec != std::errc()) return false;
        p = ptr - text.data();
        out->push_back(v);
        while (p < text.size() && text[p] == ' ') ++p;
        if (p < text.size() && text[p] == ',') {
          ++p;
          continue;
        }
        break;
      }
      if (p >= text.size() || text[p] != close) return false;
      ++p;
      return true;
    };
    std::vector<int64_t> dims;
    if (!read_ints(']', &dims)) continue;
    int64_t product = 1;
    for (int64_t d : dims) {
      if (d < 0 || d > (int64_t{1} << 30)) return Error(start, "tile assignment out of range");
      product *= d;
      if (product > (int64_t{1} << 30)) return Error(start, "tile assignment out of range");
    }
    if (text.substr(p, 3) == "<=[") {
      p += 3;
      std::vector<int64_t> reshape;
      if (!read_ints(']', &reshape)) return Error(start, "expects iota reshape dimensions");
      int64_t reshape_product = 1;
      for (int64_t d : reshape) {
        reshape_product *= d;
        if (reshape_product > (int64_t{1} << 30) || d < 0) {
          return Error(start, "tile assignment out of range");
        }
      }
      if (reshape_product != product) {
        return Error(start, Cat("iota reshape dimensions product ", reshape_product,
                                         " does not match the tile assignment dimensions product ",
                                         product));
      }
      continue;
    }
    int64_t count = 0;
    while (p < text.size() && (IsDigit(text[p]) || text[p] == ',')) {
      if (IsDigit(text[p])) {
        ++count;
        while (p < text.size() && IsDigit(text[p])) ++p;
      } else {
        ++p;
      }
    }
    if (count != product) {
      return Error(start, Cat("device list size ", count,
                                       " does not match the tile assignment size ", product));
    }
  }
  return absl::OkStatus();
}

absl::Status Parser::ParseInstructionAliasing(std::vector<OutputOperandAlias>* out) {
  HLOVM_RETURN_IF_ERROR(
      Expect('{', "Expects '{' at the start of instruction aliasing description"));
  const char* kFormat =
      "Expected format: <output_shape_index>: (<operand_index>, <operand_shape_index>)";
  while (Peek() != '}') {
    OutputOperandAlias alias;
    HLOVM_RETURN_IF_ERROR(ParseShapeIndex(&alias.output_index));
    HLOVM_RETURN_IF_ERROR(Expect(':', kFormat));
    HLOVM_RETURN_IF_ERROR(Expect('(', kFormat));
    HLOVM_RETURN_IF_ERROR(ParseInt64(&alias.operand));
    HLOVM_RETURN_IF_ERROR(Expect(',', kFormat));
    HLOVM_RETURN_IF_ERROR(ParseShapeIndex(&alias.operand_index));
    HLOVM_RETURN_IF_ERROR(Expect(')', kFormat));
    out->push_back(std::move(alias));
    if (!Eat(',')) break;
  }
  return Expect('}', "Expects '}' at the end of instruction aliasing description");
}

}  // namespace parser_internal
}  // namespace hlovm
