// How `hlovm run` shows results (--print) and writes them (--output): text
// summarized as NumPy summarizes large arrays, every element, nothing, or a
// JSON object for scripts; .npy files, an .npz archive or a JSON file.
#ifndef HLOVM_REPL_RESULT_OUTPUT_H_
#define HLOVM_REPL_RESULT_OUTPUT_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/literal.h"

namespace hlovm {

enum class PrintMode { kSummary, kFull, kNone, kJson };

// The mode --print=TEXT names; InvalidArgument names the flag and the choices.
absl::StatusOr<PrintMode> ParsePrintMode(std::string_view text);

// Arrays of more than this many elements print summarized (NumPy's
// threshold), with this many entries at each end of a dimension.
inline constexpr int64_t kSummaryThreshold = 1000;
inline constexpr int64_t kSummaryEdgeItems = 3;

// The result as text: SummaryString for kSummary, Literal::ToString for
// kFull.
std::string FormatResult(const Literal& result, PrintMode mode);

// One result of a run; `replica`/`partition` are -1 for a run of one
// instance.
struct RunResult {
  int64_t replica = -1;
  int64_t partition = -1;
  const Literal* value = nullptr;
};

// The results as one JSON object:
//   {"result": VALUE}                                   one instance
//   {"instances": [{"replica": R, "partition": P, "result": VALUE}, ...]}
// where VALUE is {"dtype": "f32", "shape": [2, 3], "data": [[...], ...]}
// (data nested per dimension, row-major; a scalar's data is the number),
// {"tuple": [VALUE, ...]} or {"token": true}. Numbers are JSON numbers
// printed as HLO text prints them (shortest round-trip form); NaN and the
// infinities, which JSON lacks, are the strings "NaN", "Infinity" and
// "-Infinity"; pred elements are true/false; complex ones [re, im].
std::string ResultsJson(const std::vector<RunResult>& results);

}  // namespace hlovm

#endif  // HLOVM_REPL_RESULT_OUTPUT_H_
