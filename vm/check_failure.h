// Structured results of failed `check.*` custom-calls (the self-checking
// conformance cases, ../shared/conformance/FORMAT.md).
//
// When a check fails, the VM returns CheckFailureStatus(failure): a
// FailedPrecondition status whose message is the readable one-line report
// and which carries the structured fields as a payload. The conformance
// runner and `hlovm run` read them back with GetCheckFailure(); a status
// without the payload is still a plain, readable error.
//
// Header-only, so that both sides can use it without a link dependency.
#ifndef HLOVM_VM_CHECK_FAILURE_H_
#define HLOVM_VM_CHECK_FAILURE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/numbers.h"

namespace hlovm {

struct CheckFailure {
  std::string check;  // the instruction's name, e.g. "check.14"
  std::string kind;   // "check.expect_eq", "check.expect_close", "check.expect_almost_eq"
  // Logical index of the first element (row-major order) that failed.
  std::vector<int64_t> index;
  // That element, as literal text ("1.5", "nan", "(1, 2)").
  std::string actual;
  std::string expected;
  // Distance between the two: ULPs for expect_close, absolute for the
  // others (inf when one side is NaN or infinite); -1 when not computed.
  double ulp_difference = -1;
  double abs_difference = -1;
  // The tolerance the check allowed, as text ("max_ulp_difference=3",
  // "tolerance=0.0001", "exact").
  std::string allowed;
  int64_t mismatch_count = 0;  // elements that failed
  int64_t element_count = 0;   // elements compared
  int64_t replica_id = 0;
  int64_t partition_id = 0;
};

inline constexpr std::string_view kCheckFailurePayloadUrl = "hlovm/check_failure";

// "check.expect_close check.14 failed at {3,1}: actual 1.5, expected 1.25
//  (ulp difference 2097152, allowed max_ulp_difference=3); 4 of 72 elements differ"
inline std::string FormatCheckFailure(const CheckFailure& f) {
  std::string text = absl::StrCat(f.kind, " ", f.check, " failed at {",
                                  absl::StrJoin(f.index, ","), "}: actual ", f.actual,
                                  ", expected ", f.expected);
  std::vector<std::string> diffs;
  if (f.ulp_difference >= 0) diffs.push_back(absl::StrCat("ulp difference ", f.ulp_difference));
  if (f.abs_difference >= 0) diffs.push_back(absl::StrCat("abs difference ", f.abs_difference));
  if (!f.allowed.empty()) diffs.push_back(absl::StrCat("allowed ", f.allowed));
  if (!diffs.empty()) absl::StrAppend(&text, " (", absl::StrJoin(diffs, ", "), ")");
  if (f.element_count > 0) {
    absl::StrAppend(&text, "; ", f.mismatch_count, " of ", f.element_count, " elements differ");
  }
  if (f.replica_id != 0 || f.partition_id != 0) {
    absl::StrAppend(&text, " [replica ", f.replica_id, ", partition ", f.partition_id, "]");
  }
  return text;
}

namespace check_failure_internal {
inline std::string Escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else {
      out += c;
    }
  }
  return out;
}
inline std::string Unescape(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size()) {
      const char n = s[++i];
      out += n == 'n' ? '\n' : n == 't' ? '\t' : n;
    } else {
      out += s[i];
    }
  }
  return out;
}
}  // namespace check_failure_internal

// Tab-separated fields; the inverse of ParseCheckFailure.
inline std::string SerializeCheckFailure(const CheckFailure& f) {
  using check_failure_internal::Escape;
  return absl::StrCat(Escape(f.check), "\t", Escape(f.kind), "\t", absl::StrJoin(f.index, ","),
                      "\t", Escape(f.actual), "\t", Escape(f.expected), "\t",
                      absl::StrCat(f.ulp_difference), "\t", absl::StrCat(f.abs_difference), "\t",
                      Escape(f.allowed), "\t", f.mismatch_count, "\t", f.element_count, "\t",
                      f.replica_id, "\t", f.partition_id);
}

inline std::optional<CheckFailure> ParseCheckFailure(std::string_view text) {
  using check_failure_internal::Unescape;
  std::vector<std::string> fields =
      absl::StrSplit(absl::string_view(text.data(), text.size()), '\t');
  if (fields.size() != 12) return std::nullopt;
  CheckFailure f;
  f.check = Unescape(fields[0]);
  f.kind = Unescape(fields[1]);
  if (!fields[2].empty()) {
    for (absl::string_view part : absl::StrSplit(fields[2], ',')) {
      int64_t v;
      if (!absl::SimpleAtoi(part, &v)) return std::nullopt;
      f.index.push_back(v);
    }
  }
  f.actual = Unescape(fields[3]);
  f.expected = Unescape(fields[4]);
  if (!absl::SimpleAtod(fields[5], &f.ulp_difference) ||
      !absl::SimpleAtod(fields[6], &f.abs_difference)) {
    return std::nullopt;
  }
  f.allowed = Unescape(fields[7]);
  if (!absl::SimpleAtoi(fields[8], &f.mismatch_count) ||
      !absl::SimpleAtoi(fields[9], &f.element_count) ||
      !absl::SimpleAtoi(fields[10], &f.replica_id) ||
      !absl::SimpleAtoi(fields[11], &f.partition_id)) {
    return std::nullopt;
  }
  return f;
}

// The status a failed check returns: FailedPrecondition, the readable message,
// and the structured payload.
inline absl::Status CheckFailureStatus(const CheckFailure& failure) {
  absl::Status status = absl::FailedPreconditionError(FormatCheckFailure(failure));
  status.SetPayload(absl::string_view(kCheckFailurePayloadUrl.data(), kCheckFailurePayloadUrl.size()),
                    absl::Cord(SerializeCheckFailure(failure)));
  return status;
}

// The structured failure carried by `status`, if it has one.
inline std::optional<CheckFailure> GetCheckFailure(const absl::Status& status) {
  auto payload = status.GetPayload(
      absl::string_view(kCheckFailurePayloadUrl.data(), kCheckFailurePayloadUrl.size()));
  if (!payload) return std::nullopt;
  return ParseCheckFailure(std::string(*payload));
}

}  // namespace hlovm

#endif  // HLOVM_VM_CHECK_FAILURE_H_
