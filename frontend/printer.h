// The canonical HLO text printer: prints modules, computations and
// instructions the way XLA's HloModule::ToString does, under print options
// that mirror XLA's HloPrintOptions (the default long form, ShortParsable and
// Canonical).
//
// Instructions that came from text keep their attributes in the order they
// were written (values verbatim, whitespace collapsed); instructions built in
// code print their typed attribute fields in XLA's order for the opcode.
#ifndef HLOVM_FRONTEND_PRINTER_H_
#define HLOVM_FRONTEND_PRINTER_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "core/hlo_ir.h"
#include "core/shape.h"

namespace hlovm {

class SourceComments;

struct PrintOptions {
  // `%` before instruction and computation names.
  bool print_percent = true;
  // Operand shapes before operand names: `add(f32[2]{0} %a, ...)`.
  bool print_operand_shape = true;
  // Operand names (the Canonical form prints shapes only at top level).
  bool print_operand_names = true;
  // The computation signature `(p: f32[2]) -> f32[2]`.
  bool print_program_shape = true;
  bool print_metadata = true;
  bool print_backend_config = true;
  bool print_control_dependencies = true;
  // Print every constant's value; otherwise constants with more than 10
  // elements (and tuple constants) print as `{...}`.
  bool print_large_constants = false;
  // `/*index=N*/` before every N-th operand; 0 turns it off.
  int operand_index_annotation_interval = 5;
  // `add-start(...)` for async ops whose wrapped computation holds a single
  // instruction; the wrapped computations are then not printed.
  bool syntax_sugar_async_ops = true;
  // Name instructions tmp_0, tmp_1, ... (Canonical form).
  bool canonicalize_instruction_names = false;
  // Print called computations inline as bodies (Canonical form).
  bool print_subcomputation_bodies = false;
  // `} // name` after computations with more than 5 instructions.
  bool print_name_after_closing_brace = false;
  // Leave get-tuple-element instructions out and name their values
  // `%tuple#index` where they are used (XLA's compact_gte).
  bool compact_gte = false;
  // Print instructions in XLA's post order (operands before users, control
  // predecessors first); otherwise, and always in scheduled modules, in the
  // order they were written.
  bool post_order = true;
  // Default layouts are added to shapes that have none.
  bool include_layout_in_shapes = true;
  // When set: the comments of the text the module was parsed from, printed
  // where SourceComments placed them (`hlovm fmt` keeps a file's comments).
  const SourceComments* comments = nullptr;

  // XLA's HloPrintOptions() (the long form).
  static PrintOptions Default() { return PrintOptions(); }
  // The form `hlovm fmt` prints: the long form with every constant in full.
  static PrintOptions Long() {
    PrintOptions o;
    o.print_large_constants = true;
    return o;
  }
  // XLA's HloPrintOptions::ShortParsable().
  static PrintOptions ShortParsable();
  // XLA's HloPrintOptions::Canonical().
  static PrintOptions Canonical();
};

// The `//` and `/* */` comments of a module's source text, each tied to what
// it belongs to so that a printer can write it there again, whatever order
// the printer puts computations and instructions in:
//  - comments before the module's first line go before the `HloModule` line;
//  - a comment on a line of its own goes before the computation or
//    instruction that follows it (after the last one: at the end);
//  - a comment after code on the same line goes at the end of the printed
//    line of the instruction (or computation header) that line belongs to.
// Blank lines between a comment and what follows it are kept (one each).
// `/*index=N*/` operand annotations are left out: the printer writes its own.
// Comments tied to something the printer leaves out (an async op's wrapped
// computation printed as `op-start`) are not printed: placed() tells.
class SourceComments {
 public:
  SourceComments(std::string_view text, const HloModule& module);

  struct Comment {
    std::string text;           // verbatim, `//` or `/*` included
    bool blank_before = false;  // a blank line separated it from the one before
  };
  struct Leading {
    std::vector<Comment> comments;
    bool blank_after = false;  // a blank line before what the comments precede
  };

  // How many comments the text holds, and how many printing has written so
  // far (a counter the printer advances).
  int64_t count() const { return count_; }
  int64_t placed() const { return placed_; }

  // Appends the comments before `anchor` (a computation or instruction),
  // each on a line indented by `indent`; the trailing comment of its line
  // is Trailing's. Both count what they write as placed.
  void AppendLeading(const void* anchor, std::string_view indent, std::string& out) const;
  void AppendTrailing(const void* anchor, std::string& out) const;
  // Before the module's first line, and after everything else.
  void AppendHeader(std::string& out) const;
  void AppendFooter(std::string& out) const;

 private:
  void AppendGroup(const Leading& group, std::string_view indent, std::string& out) const;

  Leading header_, footer_;
  absl::flat_hash_map<const void*, Leading> leading_;
  absl::flat_hash_map<const void*, std::string> trailing_;
  absl::flat_hash_map<const void*, int> trailing_count_;
  int64_t count_ = 0;
  mutable int64_t placed_ = 0;
};

// The whole module: header line, then every computation followed by a blank
// line.
std::string PrintModule(const HloModule& module, const PrintOptions& options = PrintOptions::Long());

// One computation with its instructions (indented), without the ENTRY
// keyword unless `with_entry_keyword` and it is the entry.
std::string PrintComputation(const HloComputation& computation, const PrintOptions& options,
                             bool with_entry_keyword = true);

// One instruction as XLA's HloInstruction::ToString (no ROOT, no indent).
// With Canonical options the name is omitted and operands print as shapes.
std::string PrintInstruction(const HloInstruction& instruction, const PrintOptions& options);

// The shape as the printer writes it: with a layout (the default row-major
// one where the shape has none) unless `with_layout` is false.
std::string PrintShape(const Shape& shape, bool with_layout = true);

// Collapses each run of whitespace outside string literals to one space and
// trims the ends. Used for attribute values taken from text.
std::string NormalizeAttributeValue(std::string_view value);

}  // namespace hlovm

#endif  // HLOVM_FRONTEND_PRINTER_H_
