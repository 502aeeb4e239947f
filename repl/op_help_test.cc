// Every opcode's `:help` entry: it exists, its example runs in a fresh REPL
// session (or, for the opcodes hlovm cannot run yet, fails saying so) and
// uses the opcode, and the attributes its syntax names are those of the
// attribute table (frontend/attribute_table.h) that the opcode's row
// (frontend/op_spec.h) lets it carry, its required ones among them; every
// word Tab offers is a real opcode, attribute or predefined reducer.
#include "repl/op_help.h"

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "frontend/attribute_table.h"
#include "frontend/op_spec.h"
#include "frontend/parser.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "repl/session.h"

namespace hlovm {
namespace repl {
namespace {

using ::testing::HasSubstr;

// Runs `script` (REPL inputs, one per line; a computation continues until
// it closes) in a fresh session; returns its output, and in `*failed` the
// inputs that failed.
std::string RunScript(absl::string_view script, std::vector<std::string>* failed) {
  std::FILE* out = std::tmpfile();
  std::string output;
  {
    Session session(out);
    std::string buffer;
    for (absl::string_view line : absl::StrSplit(script, '\n')) {
      absl::StrAppend(&buffer, line, "\n");
      if (!Session::IsComplete(buffer)) continue;
      if (!session.Handle(buffer)) failed->push_back(buffer);
      buffer.clear();
    }
    if (!buffer.empty()) failed->push_back("(unfinished) " + buffer);
  }
  std::fflush(out);
  std::rewind(out);
  char chunk[4096];
  size_t n;
  while ((n = std::fread(chunk, 1, sizeof(chunk), out)) > 0) output.append(chunk, n);
  std::fclose(out);
  return output;
}

TEST(OpHelp, EveryOpcodeHasAnEntryWithARunningExample) {
  ASSERT_EQ(OpHelpEntries().size(), static_cast<size_t>(HloOpcodeCount()));
  for (int i = 0; i < HloOpcodeCount(); ++i) {
    const HloOpcode opcode = static_cast<HloOpcode>(i);
    const std::string name(HloOpcodeName(opcode));
    SCOPED_TRACE(name);
    const OpHelp& help = FindOpHelp(opcode);
    EXPECT_EQ(help.opcode, opcode);
    EXPECT_FALSE(help.meaning.empty());
    // The example uses the opcode.
    EXPECT_TRUE(absl::StrContains(help.example, name + "(")) << help.example;
    std::vector<std::string> failed;
    const std::string output = RunScript(help.example, &failed);
    if (help.implemented) {
      EXPECT_THAT(failed, ::testing::IsEmpty()) << output;
    } else {
      // Runs once hlovm implements it: then mark the entry implemented.
      ASSERT_EQ(failed.size(), 1u) << output;
      EXPECT_THAT(output, HasSubstr("is not implemented yet"));
    }
    // :help shows the operands, the attribute syntax and the example.
    const std::string text = Session::OpcodeHelp(name);
    EXPECT_THAT(text, HasSubstr(name + "(" + std::string(help.operands) + ")"));
    EXPECT_THAT(text, HasSubstr(std::string(help.attributes)));
    EXPECT_THAT(text, HasSubstr("example:\n  "));
  }
}

TEST(OpHelp, AttributeSyntaxNamesRealAttributes) {
  // Each `name=` outside braces in an entry's attribute syntax is one the
  // parser knows.
  for (const OpHelp& help : OpHelpEntries()) {
    const absl::string_view text = help.attributes;
    int depth = 0;
    for (size_t i = 0; i < text.size(); ++i) {
      const char c = text[i];
      if (c == '{' || c == '(' || c == '[') ++depth;
      if (c == '}' || c == ')' || c == ']') --depth;
      if (c != '=' || depth != 0) continue;
      size_t start = i;
      while (start > 0 && (absl::ascii_isalnum(text[start - 1]) || text[start - 1] == '_')) {
        --start;
      }
      const absl::string_view name = text.substr(start, i - start);
      SCOPED_TRACE(absl::StrCat(std::string(HloOpcodeName(help.opcode)), ": ", name));
      EXPECT_TRUE(Session::IsKnownAttribute(name));
    }
  }
}

// The `name=` words outside braces of an attribute syntax.
std::vector<std::string> SyntaxAttributeNames(absl::string_view text) {
  std::vector<std::string> names;
  int depth = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '{' || c == '(' || c == '[') ++depth;
    if (c == '}' || c == ')' || c == ']') --depth;
    if (c != '=' || depth != 0) continue;
    size_t start = i;
    while (start > 0 && (absl::ascii_isalnum(text[start - 1]) || text[start - 1] == '_' ||
                         text[start - 1] == '-')) {
      --start;
    }
    names.emplace_back(text.substr(start, i - start));
  }
  return names;
}

TEST(OpHelp, AttributeSyntaxAgreesWithTheOpcodesRow) {
  for (const OpHelp& help : OpHelpEntries()) {
    SCOPED_TRACE(std::string(HloOpcodeName(help.opcode)));
    const std::vector<std::string> names = SyntaxAttributeNames(help.attributes);
    // Each attribute named is in the table and one the opcode may carry (in
    // some form: a conditional's computations depend on its index type).
    for (const std::string& name : names) {
      SCOPED_TRACE(name);
      const AttrId id = AttributeFromName(name);
      ASSERT_NE(id, AttrId::kUnknown);
      bool allowed = false;
      for (OpForm form :
           {OpForm::kDefault, OpForm::kScalarOperand, OpForm::kShorthand, OpForm::kPredicate}) {
        allowed |= GetOpSpec(help.opcode, form).Allows(id);
      }
      EXPECT_TRUE(allowed);
    }
    // The attributes the text must carry are shown, for at least one form.
    bool some_form_complete = false;
    for (OpForm form :
         {OpForm::kDefault, OpForm::kScalarOperand, OpForm::kShorthand, OpForm::kPredicate}) {
      bool complete = true;
      for (AttrId required : GetOpSpec(help.opcode, form).required) {
        complete &= std::find(names.begin(), names.end(), std::string(AttributeName(required))) !=
                    names.end();
      }
      some_form_complete |= complete;
    }
    EXPECT_TRUE(some_form_complete) << help.attributes;
  }
}

TEST(OpHelp, EntriesAreInTheOrderOfTheOpcodeList) {
  for (int i = 0; i < HloOpcodeCount(); ++i) {
    const HloOpcode opcode = static_cast<HloOpcode>(i);
    EXPECT_EQ(OpHelpEntries()[i].opcode, opcode) << HloOpcodeName(opcode);
    EXPECT_EQ(FindOpHelp(opcode).opcode, opcode) << HloOpcodeName(opcode);
  }
}

// The parser stores a known attribute's value in the instruction and so
// rejects a value of the wrong form; one it does not know it keeps as text.
TEST(OpHelp, KnownAttributesAreThoseTheParserReads) {
  EXPECT_TRUE(Session::IsKnownAttribute("dimensions"));
  EXPECT_TRUE(Session::IsKnownAttribute("to_apply"));
  EXPECT_FALSE(Session::IsKnownAttribute("dimensionz"));
  EXPECT_FALSE(Session::IsKnownAttribute("frobnicate"));
}

TEST(OpHelp, EveryCompletionWordIsAnOpcodeAttributeOrReducer) {
  std::FILE* out = std::tmpfile();
  Session session(out);
  const std::vector<std::string> words = session.Completions("");
  EXPECT_GT(words.size(), static_cast<size_t>(HloOpcodeCount()));
  const std::vector<std::string> reducers = Session::ReducerNames();
  for (const std::string& word : words) {
    SCOPED_TRACE(word);
    const bool opcode = HloOpcodeFromName(word).has_value();
    const bool reducer = std::find(reducers.begin(), reducers.end(), word) != reducers.end();
    const bool attribute = AttributeFromName(word) != AttrId::kUnknown;
    EXPECT_TRUE(opcode || reducer || attribute);
    EXPECT_EQ(attribute, Session::IsKnownAttribute(word));
  }
  // Every attribute of the table is offered.
  for (int i = 0; i < AttributeCount(); ++i) {
    EXPECT_THAT(words, ::testing::Contains(std::string(AttributeName(AttributeAt(i)))));
  }
  // Every opcode is offered.
  for (int i = 0; i < HloOpcodeCount(); ++i) {
    EXPECT_THAT(words, ::testing::Contains(std::string(HloOpcodeName(static_cast<HloOpcode>(i)))));
  }
  std::fclose(out);
}

}  // namespace
}  // namespace repl
}  // namespace hlovm
