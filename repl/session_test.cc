// Unit tests of the REPL session: evaluation with inferred shapes, reducers,
// computations, errors that leave the session alone, :save, the debugger and
// interrupting a running program.
#include "repl/session.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <thread>

#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "core/npy.h"
#include "vm/api.h"

namespace hlovm {
namespace repl {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

class SessionTest : public ::testing::Test {
 protected:
  SessionTest() : out_(std::tmpfile()), session_(std::make_unique<Session>(out_)) {}
  ~SessionTest() override {
    session_.reset();
    std::fclose(out_);
  }

  // Handles `input`; returns what the session printed. `ok` gets the result.
  std::string Run(const std::string& input, bool* ok = nullptr) {
    std::fflush(out_);
    const long start = std::ftell(out_);
    const bool result = session_->Handle(input);
    if (ok != nullptr) *ok = result;
    std::fflush(out_);
    const long end = std::ftell(out_);
    std::string text(static_cast<size_t>(end - start), '\0');
    std::fseek(out_, start, SEEK_SET);
    const size_t n = std::fread(text.data(), 1, text.size(), out_);
    text.resize(n);
    std::fseek(out_, 0, SEEK_END);
    return text;
  }

  std::FILE* out_;
  std::unique_ptr<Session> session_;
};

TEST(SessionStatic, IsComplete) {
  EXPECT_TRUE(Session::IsComplete("x = f32[2] constant({1, 2})"));
  EXPECT_FALSE(Session::IsComplete("x = f32[2] constant({1,"));
  EXPECT_FALSE(Session::IsComplete("comp {\n  a = f32[] parameter(0)"));
  EXPECT_TRUE(Session::IsComplete("comp {\n  ROOT a = f32[] parameter(0)\n}"));
  EXPECT_TRUE(Session::IsComplete("x = f32[] constant(1) // {"));
  EXPECT_FALSE(Session::IsComplete("c = custom-call(), custom_call_target=\"a{"));
  EXPECT_FALSE(Session::IsComplete("HloModule m\n\nc {\n ROOT p = f32[] parameter(0)\n}"));
  EXPECT_TRUE(Session::IsComplete("HloModule m\nENTRY e {\n ROOT p = f32[] parameter(0)\n}"));
}

TEST_F(SessionTest, BindsValuesWithInferredShapes) {
  bool ok = false;
  EXPECT_EQ(Run("x = f32[2,3] constant({{1,2,3},{4,5,6}})", &ok),
            "x = f32[2,3] {\n  { 1, 2, 3 },\n  { 4, 5, 6 }\n}\n");
  EXPECT_TRUE(ok);
  EXPECT_THAT(Run("%y = negate(x)"), HasSubstr("y = f32[2,3] {\n  { -1, -2, -3 },"));
  EXPECT_EQ(Run("s = reduce(x, f32[] constant(0)), dimensions={0,1}, to_apply=add"), "s = f32[] 21\n");
  // A bare expression binds only `_`.
  EXPECT_EQ(Run("slice(x), slice={[1:2], [0:3:2]}"), "f32[1,2] {\n  { 4, 6 }\n}\n");
  EXPECT_EQ(Run("_"), "f32[1,2] {\n  { 4, 6 }\n}\n");
  EXPECT_EQ(Run(":type s"), "s : f32[]\n");
  // Rebinding a name from its own old value.
  EXPECT_EQ(Run("s = add(s, s)"), "s = f32[] 42\n");
}

TEST_F(SessionTest, ReducersForEveryType) {
  Run("i = s32[4] constant({3, -7, 5, 1})");
  EXPECT_EQ(Run("reduce(i, s32[] constant(0)), dimensions={0}, to_apply=add"), "s32[] 2\n");
  EXPECT_EQ(Run("reduce(i, s32[] constant(-100)), dimensions={0}, to_apply=max"), "s32[] 5\n");
  EXPECT_EQ(Run("reduce(i, s32[] constant(100)), dimensions={0}, to_apply=minimum"), "s32[] -7\n");
  EXPECT_EQ(Run("reduce(i, s32[] constant(1)), dimensions={0}, to_apply=mul"), "s32[] -105\n");
  Run("b = pred[3] constant({1, 0, 1})");
  EXPECT_EQ(Run("reduce(b, pred[] constant(false)), dimensions={0}, to_apply=or"), "pred[] true\n");
  EXPECT_EQ(Run("reduce(b, pred[] constant(true)), dimensions={0}, to_apply=and"), "pred[] false\n");
  EXPECT_EQ(Run("reduce(f64[2] constant({0.5, 0.25}), f64[] constant(0)), dimensions={0}, to_apply=add"),
            "f64[] 0.75\n");
}

TEST_F(SessionTest, ErrorsPointAtTheMistakeAndChangeNothing) {
  Run("x = f32[2] constant({1, 2})");
  bool ok = true;
  EXPECT_EQ(Run("x = add(x, nothing)", &ok),
            "error: instruction does not exist: nothing\n  x = add(x, nothing)\n             ^\n");
  EXPECT_FALSE(ok);
  EXPECT_THAT(Run("x = f32[3] negate(x)", &ok), HasSubstr("does not match the declared shape f32[3]"));
  EXPECT_FALSE(ok);
  EXPECT_THAT(Run("x = reshape(x)", &ok), HasSubstr("write it: x = SHAPE reshape(...)"));
  EXPECT_EQ(Run("x"), "f32[2] {1, 2}\n");
  EXPECT_THAT(Run(":nonsense", &ok), HasSubstr("unknown command"));
  EXPECT_FALSE(ok);
}

TEST_F(SessionTest, LargeValuesAreSummarized) {
  Run("r = f32[500] iota(), iota_dimension=0");
  const std::string summary = Run("r");
  EXPECT_THAT(summary, HasSubstr("f32[500] (500 elements"));
  EXPECT_THAT(summary, HasSubstr("first: 0, 1, 2, 3, 4"));
  EXPECT_THAT(summary, HasSubstr("last:  495, 496, 497, 498, 499"));
  EXPECT_THAT(summary, HasSubstr("min 0  max 499  mean 249.5  NaN 0  Inf 0"));
  EXPECT_THAT(Run(":print r full"), HasSubstr("497, 498, 499}"));
}

TEST_F(SessionTest, ComputationsAndRuns) {
  Run("x = f32[3] constant({1, 2, 3})");
  EXPECT_EQ(Run("sq {\n  a = f32[] parameter(0)\n  ROOT m = f32[] multiply(a, a)\n}\n"),
            "defined %sq (a: f32[]) -> f32[]\n");
  EXPECT_EQ(Run("map(x), dimensions={0}, to_apply=sq"), "f32[3] {1, 4, 9}\n");
  EXPECT_EQ(Run("call(f32[] constant(5)), to_apply=sq"), "f32[] 25\n");
  EXPECT_EQ(Run(":run sq 7"), "f32[] 49\n");
  EXPECT_THAT(Run(":run sq"), HasSubstr("takes 1 argument, 0 given"));
  EXPECT_THAT(Run(":list"), HasSubstr("%sq (a: f32[]) -> f32[]"));
  EXPECT_THAT(Run(":dis sq"), HasSubstr("multiply"));
  EXPECT_THAT(Run(":load examples/newton_loop.hlo"), HasSubstr("ENTRY %main (a: f32[4]) -> f32[4]"));
  EXPECT_EQ(Run(":run f32[4] {4, 9, 16, 1}"), "f32[4] {2, 3, 4, 1}\n");
}

TEST_F(SessionTest, SaveWritesAModuleThatReproducesTheValues) {
  Run("x = f32[2] constant({1.5, -2})");
  Run("neg {\n  p = f32[] parameter(0)\n  ROOT n = f32[] negate(p)\n}");
  Run("y = map(x), dimensions={0}, to_apply=neg");
  const std::string path = (std::filesystem::temp_directory_path() / "repl_session_test.hlo").string();
  EXPECT_THAT(Run(":save " + path), HasSubstr("saved 2 values and 1 computation"));
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  auto exe = Executable::FromText(text.str());
  ASSERT_TRUE(exe.ok()) << exe.status();
  auto result = (*exe)->Execute({});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->ToString(), "(\nf32[2] {1.5, -2},\nf32[2] {-1.5, 2}\n)");
  std::filesystem::remove(path);
}

TEST_F(SessionTest, DebuggerStepsThroughAWhileLoop) {
  Run(":load examples/newton_loop.hlo");
  Run(":break body y1_b");
  EXPECT_THAT(Run(":run f32[4] {4, 16, 1, 100}"),
              HasSubstr("breakpoint: before %y1_b in %body (while %loop, iteration 1)"));
  EXPECT_TRUE(session_->debugging());
  EXPECT_EQ(session_->Prompt(), "(debug) hlo> ");
  EXPECT_THAT(Run(":step"), HasSubstr("f32[4] {2.5, 8.5, 1, 50.5}"));
  EXPECT_EQ(Run(":where"), "#0 %body (while %loop, iteration 1) at %y1_b\n#1 %main at %loop\n");
  EXPECT_THAT(Run(":print trip_b"), HasSubstr("s32[] 0"));
  EXPECT_THAT(Run(":print a"), HasSubstr("f32[4] {4, 16, 1, 100}"));
  EXPECT_THAT(Run(":continue"), HasSubstr("iteration 2"));
  EXPECT_THAT(Run(":print trip_b"), HasSubstr("s32[] 1"));
  Run(":delete");
  EXPECT_THAT(Run(":continue"), HasSubstr("program finished\nf32[4] {2, 4, 1, 10}"));
  EXPECT_FALSE(session_->debugging());
  EXPECT_EQ(Run("_"), "f32[4] {2, 4, 1, 10}\n");
}

// At a breakpoint, :load and :reset refuse as :run does: each would abandon
// the program being debugged. The program stays stopped where it was.
TEST_F(SessionTest, LoadResetAndRunRefuseWhileDebugging) {
  Run(":load examples/newton_loop.hlo");
  Run(":break body y1_b");
  EXPECT_THAT(Run(":run f32[4] {4, 16, 1, 100}"), HasSubstr("breakpoint: before %y1_b"));
  const std::string refusal = "a program is being debugged: :continue, :finish or :kill it first";
  for (const char* command : {":load examples/relu_affine.hlo", ":reset", ":run {1, 2, 3, 4}"}) {
    bool ok = true;
    EXPECT_THAT(Run(command, &ok), HasSubstr(refusal)) << command;
    EXPECT_FALSE(ok) << command;
    EXPECT_TRUE(session_->debugging()) << command;
  }
  EXPECT_EQ(Run(":where"), "#0 %body (while %loop, iteration 1) at %y1_b\n#1 %main at %loop\n");
  EXPECT_THAT(Run(":kill"), HasSubstr("program stopped"));
  bool ok = false;
  EXPECT_THAT(Run(":reset", &ok), HasSubstr("session reset"));
  EXPECT_TRUE(ok);
}

TEST_F(SessionTest, DebuggerNextStepsOverAWhileAndWatchStops) {
  Run(":load examples/newton_loop.hlo");
  EXPECT_THAT(Run(":debug {4, 16, 1, 100}"), HasSubstr("stopped before"));
  std::string out;
  for (int i = 0; i < 10 && out.find("%loop in %main") == std::string::npos; ++i) out = Run(":next");
  EXPECT_THAT(out, HasSubstr("%loop in %main"));  // the whole loop in one :next
  EXPECT_THAT(out, HasSubstr("s32[] 30"));
  Run(":continue");
  Run(":watch more");
  EXPECT_THAT(Run(":run {4, 16, 1, 100}"), HasSubstr("watch: %more in %cond"));
  EXPECT_THAT(Run(":continue"), HasSubstr("pred[] false"));  // unchanged values do not stop
  EXPECT_THAT(Run(":continue"), HasSubstr("program finished"));
}

TEST_F(SessionTest, InterruptStopsAnEndlessLoopAndKeepsTheSession) {
  Run("x = f32[] constant(1)");
  Run("forever {\n  p = s32[] parameter(0)\n  ROOT t = pred[] constant(true)\n}");
  Run("inc {\n  p = s32[] parameter(0)\n  one = s32[] constant(1)\n  ROOT n = s32[] add(p, one)\n}");
  std::thread interrupter([this] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    session_->cancel().store(true);
  });
  const auto start = std::chrono::steady_clock::now();
  bool ok = true;
  EXPECT_EQ(Run("w = while(s32[] constant(0)), condition=forever, body=inc", &ok), "interrupted\n");
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  interrupter.join();
  EXPECT_FALSE(ok);
  EXPECT_LT(seconds, 30.0);
  EXPECT_EQ(Run("x"), "f32[] 1\n");
  EXPECT_THAT(Run(":type w"), HasSubstr("no value or computation named w"));
}

TEST_F(SessionTest, InterruptStopsAProgramUnderTheDebugger) {
  Run("forever {\n  p = s32[] parameter(0)\n  ROOT t = pred[] constant(true)\n}");
  Run("inc {\n  p = s32[] parameter(0)\n  one = s32[] constant(1)\n  ROOT n = s32[] add(p, one)\n}");
  Run("unused {\n  ROOT nowhere = s32[] parameter(0)\n}");
  Run(":break unused nowhere");  // armed, never hit: the loop runs on the program thread
  std::thread interrupter([this] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    session_->cancel().store(true);
  });
  EXPECT_EQ(Run("while(s32[] constant(0)), condition=forever, body=inc"), "interrupted\n");
  interrupter.join();
  EXPECT_FALSE(session_->debugging());
  Run(":delete");
  EXPECT_EQ(Run("call(s32[] constant(1)), to_apply=inc"), "s32[] 2\n");
}

TEST_F(SessionTest, Completions) {
  Run("my_value = f32[] constant(1)");
  Run("my_comp {\n  ROOT p = f32[] parameter(0)\n}");
  EXPECT_THAT(session_->Completions("exponential"),
              ::testing::ElementsAre("exponential", "exponential-minus-one"));
  EXPECT_THAT(session_->Completions("my_"), ::testing::ElementsAre("my_comp", "my_value"));
  EXPECT_THAT(session_->Completions("%my_v"), ::testing::ElementsAre("%my_value"));
  EXPECT_THAT(session_->Completions(":lo"), ::testing::ElementsAre(":load"));
  EXPECT_THAT(session_->Completions("to_ap"), ::testing::ElementsAre("to_apply"));
}

// Every `:` command comes from the one table: it has help text, :help lists
// it, Tab completes its name, and its arguments have a completion kind.
TEST(SessionStatic, EveryCommandHasHelpAndCompletion) {
  std::FILE* out = std::tmpfile();
  Session session(out);
  const std::string help = Session::HelpText();
  std::set<std::string> names;
  for (const Session::CommandInfo& command : Session::Commands()) {
    const std::string name(command.name);
    SCOPED_TRACE(name);
    EXPECT_TRUE(names.insert(name).second) << "listed twice";
    EXPECT_FALSE(command.help.empty());
    EXPECT_NE(command.handler, nullptr);
    EXPECT_THAT(help, HasSubstr("  :" + name + (command.arguments.empty() ? "" : " ")));
    EXPECT_THAT(session.Completions(":" + name), ::testing::Contains(":" + name));
    EXPECT_EQ(Session::FindCommand(name), &command);
    for (absl::string_view alias : absl::StrSplit(command.aliases, ' ', absl::SkipEmpty())) {
      EXPECT_TRUE(names.insert(std::string(alias)).second) << "alias used twice: " << alias;
      EXPECT_EQ(Session::FindCommand(alias), &command);
    }
    // A command without arguments completes none; one with arguments says
    // how they complete (a number has nothing to offer).
    std::string arguments(command.arguments);
    arguments.erase(std::remove_if(arguments.begin(), arguments.end(),
                                   [](char c) { return c == '[' || c == ']'; }),
                    arguments.end());
    bool numbers = true;
    for (absl::string_view word : absl::StrSplit(arguments, ' ', absl::SkipEmpty())) {
      numbers = numbers && (word == "N" || word == "PARTITIONS");
    }
    if (numbers) {
      EXPECT_EQ(command.completion, Session::ArgumentCompletion::kNone);
    } else {
      EXPECT_NE(command.completion, Session::ArgumentCompletion::kNone);
    }
  }
  EXPECT_THAT(session.Completions(":ki"), ::testing::ElementsAre(":kill"));
  std::fclose(out);
}

TEST_F(SessionTest, ArgumentsCompleteByTheCommandsKind) {
  Run("my_value = f32[] constant(1)");
  Run("my_comp {\n  my_param = f32[] parameter(0)\n  ROOT my_neg = f32[] negate(my_param)\n}");
  size_t start = 0;
  EXPECT_THAT(session_->CompleteLine(":type my_", &start),
              ::testing::ElementsAre("my_comp", "my_value"));
  EXPECT_EQ(start, 6u);
  EXPECT_THAT(session_->CompleteLine(":dis my_", &start), ::testing::ElementsAre("my_comp"));
  EXPECT_THAT(session_->CompleteLine(":break my_comp %my_n", &start),
              ::testing::ElementsAre("%my_neg"));
  EXPECT_THAT(session_->CompleteLine(":run my_comp --r", &start),
              ::testing::ElementsAre("--random"));
  EXPECT_THAT(session_->CompleteLine(":help tan", &start), ::testing::ElementsAre("tan", "tanh"));
  EXPECT_THAT(session_->CompleteLine(":help :ru", &start), ::testing::ElementsAre(":run"));
  EXPECT_THAT(session_->CompleteLine(":time negate(my_v", &start),
              ::testing::ElementsAre("my_value"));
  EXPECT_THAT(session_->CompleteLine(":list my", &start), ::testing::IsEmpty());
  // Without a command: the first word.
  EXPECT_THAT(session_->CompleteLine("y = exponential", &start),
              ::testing::ElementsAre("exponential", "exponential-minus-one"));
  EXPECT_EQ(start, 4u);
  // Paths: the word runs to the last space, directories end in '/'.
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("hlovm_complete_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir / "sub");
  std::ofstream(dir / "model.hlo") << "";
  const std::string line = ":load " + dir.string() + "/";
  EXPECT_THAT(session_->CompleteLine(line + "m", &start),
              ::testing::ElementsAre(dir.string() + "/model.hlo"));
  EXPECT_EQ(start, 6u);
  EXPECT_THAT(session_->CompleteLine(line + "s", &start),
              ::testing::ElementsAre(dir.string() + "/sub/"));
  std::filesystem::remove_all(dir);
}

TEST_F(SessionTest, HelpForOneCommand) {
  EXPECT_THAT(Run(":help :kill"), HasSubstr(":kill"));
  EXPECT_THAT(Run(":help :r"), HasSubstr(":run [COMPUTATION] ARGS"));
  EXPECT_THAT(Run(":help :r"), Not(HasSubstr(":load")));
  bool ok = false;
  EXPECT_EQ(Run(":frobnicate", &ok), "error: unknown command :frobnicate (:help lists them)\n");
  EXPECT_FALSE(ok);
}

TEST_F(SessionTest, HelpForOpcodes) {
  EXPECT_THAT(Run(":help reduce"),
              HasSubstr("reduce(x..., init...), dimensions={D,...}, to_apply=REDUCER\n"));
  EXPECT_THAT(Run(":help reduce"),
              HasSubstr("example:\n  x = f32[2,3] constant({{1, 2, 3}, {4, 5, 6}})\n"));
  EXPECT_THAT(Run(":help"), HasSubstr(":break [COMPUTATION] INSTRUCTION"));
  bool ok = true;
  EXPECT_THAT(Run(":help frobnicate", &ok), HasSubstr("no opcode named frobnicate"));
  EXPECT_FALSE(ok);
  EXPECT_THAT(Session::OpcodeHelp("add"), Not(::testing::IsEmpty()));
}

TEST_F(SessionTest, RunsTheModulesReplicaCount) {
  EXPECT_THAT(Run(":load examples/allreduce_4.hlo"), HasSubstr("runs as 4 replicas"));
  EXPECT_EQ(Run(":run {1,2,0.5}"), "replicas 0-3: f32[3] {6, 12, 3}\n");
  EXPECT_EQ(Run(":replicas 2"), "replicas: 2\n");
  EXPECT_EQ(Run(":run {1,2,0.5}"), "replicas 0-1: f32[3] {1, 2, 0.5}\n");
  EXPECT_EQ(Run("r = u32[] replica-id()"),
            "replica 0: r = u32[] 0\nreplica 1: r = u32[] 1\n(r and _ hold replica 0's value)\n");
  EXPECT_EQ(Run("r"), "u32[] 0\n");
  bool ok = true;
  EXPECT_THAT(Run(":debug {1,2,0.5}", &ok), HasSubstr("the debugger runs one instance"));
  EXPECT_FALSE(ok);
  EXPECT_THAT(Run(":replicas 0", &ok), HasSubstr("at least 1"));
  EXPECT_FALSE(ok);
  Run(":replicas 1");
  EXPECT_EQ(Run(":run {1,2,0.5}"), "f32[3] {0, 0, 0}\n");
  Run(":reset");
  EXPECT_EQ(Run(":replicas"), "replicas: 1\n");
}

TEST_F(SessionTest, InterruptStopsAReplicatedRun) {
  Run("forever {\n  p = s32[] parameter(0)\n  ROOT t = pred[] constant(true)\n}");
  Run("inc {\n  p = s32[] parameter(0)\n  one = s32[] constant(1)\n  ROOT n = s32[] add(p, one)\n}");
  Run(":replicas 3");
  std::thread interrupter([this] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    session_->cancel().store(true);
  });
  EXPECT_EQ(Run("while(s32[] constant(0)), condition=forever, body=inc"), "interrupted\n");
  interrupter.join();
  EXPECT_EQ(Run("call(s32[] constant(1)), to_apply=inc"), "replicas 0-2: s32[] 2\n");
}

TEST_F(SessionTest, BreakAndWatchTakeOnlyNamesThatExist) {
  bool ok = true;
  EXPECT_EQ(Run(":break y", &ok),
            "error: no instruction named %y (define or :load a computation first)\n");
  EXPECT_FALSE(ok);
  Run(":load examples/newton_loop.hlo");
  EXPECT_EQ(Run(":break body y1_bb", &ok),
            "error: no instruction named %y1_bb in %body (did you mean %y1_b?)\n");
  EXPECT_FALSE(ok);
  EXPECT_EQ(Run(":break bdoy y1_b", &ok), "error: no computation named %bdoy (did you mean %body?)\n");
  EXPECT_FALSE(ok);
  EXPECT_THAT(Run(":watch morr", &ok), HasSubstr("(did you mean %more?)"));
  EXPECT_FALSE(ok);
  EXPECT_EQ(Run(":break", &ok), "no breakpoints\n");
  EXPECT_EQ(Run(":break body y1_b", &ok), "breakpoint before %y1_b in %body\n");
  EXPECT_TRUE(ok);
  EXPECT_EQ(Run(":watch more", &ok), "watching %more\n");
  EXPECT_TRUE(ok);
}

TEST_F(SessionTest, ALineThatIsNotHloGivesOneError) {
  Run("x = f32[2] constant({1, 2})");
  bool ok = true;
  const std::string out = Run("x * 2", &ok);
  EXPECT_FALSE(ok);
  EXPECT_EQ(out,
            "error: not an HLO instruction; in HLO: c = f32[2] broadcast(f32[] constant(2)), "
            "dimensions={} then multiply(x, c)\n  x * 2\n  ^\n");
  EXPECT_EQ(Run("y = x - x"),
            "error: not an HLO instruction (did you mean subtract(x, x)?)\n  y = x - x\n      ^\n");
  EXPECT_EQ(Run("exponentail(x)"),
            "error: unknown opcode exponentail (did you mean exponential?)\n  exponentail(x)\n  ^\n");
  EXPECT_THAT(Run("zzzzqqq(x)"), HasSubstr("unknown opcode zzzzqqq (Tab completes opcode names)"));
  // The suggestions run.
  Run("c = f32[2] broadcast(f32[] constant(2)), dimensions={}");
  EXPECT_EQ(Run("multiply(x, c)"), "f32[2] {2, 4}\n");
}

TEST_F(SessionTest, SaveValueWritesNpy) {
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("hlovm_save_value_" + std::to_string(::getpid()) + ".npy"))
                               .string();
  Run("x = bf16[2,2] constant({{1, 2}, {3, 4.5}})");
  bool ok = false;
  EXPECT_EQ(Run(":save-value x " + path, &ok), "wrote " + path + " (bf16[2,2] stored as f32)\n");
  EXPECT_TRUE(ok);
  absl::StatusOr<Literal> back = ReadNpy(path);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->ToString(), "f32[2,2] {\n  { 1, 2 },\n  { 3, 4.5 }\n}");
  std::filesystem::remove(path);
  EXPECT_THAT(Run(":save-value y " + path, &ok), HasSubstr("no value named y"));
  EXPECT_FALSE(ok);
  Run("t = tuple(x, x)");
  EXPECT_THAT(Run(":save-value t " + path, &ok), HasSubstr("a .npy file holds one array"));
  EXPECT_FALSE(ok);
  // A saved f32 value given to an s32 parameter is refused, naming both
  // types and what converts it (the REPL itself converts nothing).
  Run("f = f32[2] constant({1, 2})");
  ASSERT_THAT(Run(":save-value f " + path, &ok), HasSubstr("wrote " + path));
  Run("twice {\n  a = s32[2] parameter(0)\n  ROOT m = s32[2] add(a, a)\n}\n");
  const std::string refused = Run(":run twice " + path, &ok);
  EXPECT_FALSE(ok);
  EXPECT_THAT(refused, HasSubstr("is f32[2], but parameter 0 is s32[2]"));
  EXPECT_THAT(refused, HasSubstr("the REPL does not convert inputs"));
  std::filesystem::remove(path);
}

TEST_F(SessionTest, FileArgumentsCompleteAsPaths) {
  Run("my_value = f32[] constant(1)");
  size_t start = 0;
  EXPECT_THAT(session_->CompleteLine(":load examples/sc", &start),
              ::testing::ElementsAre("examples/scan_loop.hlo"));
  EXPECT_EQ(start, 6u);
  EXPECT_THAT(session_->CompleteLine(":save examples/sc", &start),
              ::testing::ElementsAre("examples/scan_loop.hlo"));
  EXPECT_THAT(session_->CompleteLine(":run examples/sc", &start),
              ::testing::ElementsAre("examples/scan_loop.hlo"));
  EXPECT_EQ(start, 5u);
  EXPECT_THAT(session_->CompleteLine(":run my_v", &start), ::testing::ElementsAre("my_value"));
  EXPECT_THAT(session_->CompleteLine(":save-value my_v", &start),
              ::testing::ElementsAre("my_value"));
  EXPECT_THAT(session_->CompleteLine(":save-value my_value examples/sc", &start),
              ::testing::ElementsAre("examples/scan_loop.hlo"));
  EXPECT_EQ(start, 21u);
}

}  // namespace
}  // namespace repl
}  // namespace hlovm
