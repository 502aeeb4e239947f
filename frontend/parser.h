// The HLO text parser: turns the text XLA prints (HloModule::ToString, dumps,
// XLA's test modules) into the IR of core/hlo_ir.h.
//
// Accepted forms: a whole module (`HloModule name, attrs...` then
// computations), computations without a header (the ENTRY computation, or the
// last one, is the entry), and a lone instruction (operands it names but does
// not define become parameters). Errors are InvalidArgument statuses reading
// `file:line:col: error: message`, followed by the source line and a caret.
#ifndef HLOVM_FRONTEND_PARSER_H_
#define HLOVM_FRONTEND_PARSER_H_

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "core/hlo_ir.h"

namespace hlovm {

struct ParseOptions {
  // Prefixed to error locations ("file:line:col: error: ...").
  std::string file_name;
  // Line number of the text's first line (for a chunk of a larger file).
  int first_line = 1;
  // Nesting limit for nested instructions, inline computations, tuple shapes
  // and tuple literals; deeper input is an error, never a stack overflow.
  int max_recursion_depth = 200;
  // Accept computations with no `HloModule` header.
  bool allow_missing_header = true;
  // Accept a lone instruction (turning undefined operands into parameters).
  bool allow_single_instruction = true;
  // Keep a copy of the text in HloModule::source_text (for later messages).
  bool keep_source = false;
  // After an error in an instruction the parser skips to the next one and
  // goes on, reporting up to this many errors (1: stop at the first).
  int max_errors = 20;
};

absl::StatusOr<std::unique_ptr<HloModule>> ParseHloModule(std::string_view text,
                                                          const ParseOptions& options = {});

// The known opcode (attribute) name nearest to a word that is none, for a
// "did you mean": at most two edits away (an edit: a character inserted,
// deleted or changed; '-' and '_' count as the same) and fewer edits than a
// third of the word's length. nullopt when no name is that near.
std::optional<std::string_view> NearestOpcodeName(std::string_view word);
std::optional<std::string_view> NearestAttributeName(std::string_view word);
// Whether the parser reads `name=` as an attribute of its own (a name it
// does not know is kept as text, as XLA keeps unknown attributes).
bool IsAttributeName(std::string_view name);

// One part of a file split at `// -----` lines (lit's --split-input-file).
struct TextChunk {
  std::string_view text;  // points into the original text
  int first_line = 1;     // 1-based line of text[0] in the original
};
std::vector<TextChunk> SplitInputFile(std::string_view text);

// True if the chunk holds nothing but whitespace and comments (a split part
// made only of `// CHECK` lines).
bool IsBlankText(std::string_view text);

}  // namespace hlovm

#endif  // HLOVM_FRONTEND_PARSER_H_
