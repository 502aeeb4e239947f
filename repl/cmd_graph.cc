// `hlovm graph FILE.hlo [-o FILE.svg|.png|.dot] [--profile] [INPUT...]`:
// draws a module's computations with Graphviz. The DOT text is made here;
// svg and png come from running Graphviz's `dot` on it.
//
// Every instruction is a node (name, opcode, shape); operands are edges.
// Computations that loops, conditionals and calls run are clusters, and
// fusion instructions are boxes holding their fused computation; reducers
// and comparators are named in their caller's label instead. Large modules
// (more than kCollapseAbove instructions in all) draw only the entry,
// collapse loop bodies, branches, calls and fusions into one node each, and
// name parameters and constants in the labels of their users instead of
// drawing them, unless --expand; the layout then takes seconds for
// thousands of instructions. With --profile the module runs once (on the INPUTs, or
// random values) and every node is filled by its share of the run time.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/hlo_ir.h"
#include "core/hlo_opcode.h"
#include "core/status_macros.h"
#include "repl/command.h"
#include "repl/inputs.h"
#include "repl/options.h"
#include "repl/source_file.h"
#include "vm/api.h"
#include "vm/profiler.h"

namespace hlovm {
namespace {

// Above this many instructions (all computations together) bodies collapse.
constexpr int64_t kCollapseAbove = 400;
// Labels longer than this are cut (tuple shapes can be very long).
constexpr size_t kMaxLabel = 48;

std::string Escape(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '"' || c == '\\') out.push_back('\\');
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out.push_back(c);
  }
  return out;
}

std::string Cut(std::string text) {
  if (text.size() > kMaxLabel) text = text.substr(0, kMaxLabel - 3) + "...";
  return text;
}

// Computations drawn as clusters: those run by control flow or fusions.
bool DrawsCallee(HloOpcode opcode) {
  return opcode == HloOpcode::kWhile || opcode == HloOpcode::kConditional ||
         opcode == HloOpcode::kCall || opcode == HloOpcode::kFusion ||
         opcode == HloOpcode::kAsyncStart;
}

class GraphWriter {
 public:
  GraphWriter(const HloModule& module, bool collapse,
              const absl::flat_hash_map<std::string, double>* shares)
      : module_(module), collapse_(collapse), shares_(shares) {}

  std::string Write() {
    // Large graphs: straight edges and capped layout iterations (the
    // network-simplex and crossing-minimisation passes otherwise take
    // minutes for a thousand nodes).
    absl::StrAppend(&out_, "digraph \"", Escape(module_.name()), "\" {\n",
                    collapse_ ? "  rankdir=TB; splines=line; nslimit=1; nslimit1=1; mclimit=0.1; "
                                "remincross=false; searchsize=10;\n"
                              : "  compound=true; rankdir=TB; newrank=true;\n",
                    "  graph [fontname=\"Helvetica\", fontsize=11, labeljust=l];\n",
                    "  node [shape=box, style=\"rounded,filled\", fillcolor=white, "
                    "fontname=\"Helvetica\", fontsize=9, margin=\"0.08,0.03\", height=0.3];\n",
                    "  edge [arrowsize=0.5, color=\"#555555\"];\n");
    if (shares_ != nullptr) {
      absl::StrAppend(&out_, "  label=\"", Escape(module_.name()),
                      ": nodes filled by their share of the run time\"; labelloc=t;\n");
    }
    DrawComputation(*module_.entry(), 1);
    absl::StrAppend(&out_, edges_, "}\n");
    return out_;
  }

 private:
  std::string NodeId(const HloInstruction& instr) {
    auto [it, inserted] = ids_.try_emplace(&instr, ids_.size());
    return absl::StrCat("n", it->second);
  }

  // The fill colour for a share of the run time (white to red).
  static std::string Fill(double share, double max_share) {
    if (max_share <= 0) return "white";
    const double s = std::sqrt(std::clamp(share / max_share, 0.0, 1.0));
    return absl::StrFormat("\"0.0 %.3f 1.0\"", 0.85 * s);
  }

  void DrawNode(const HloInstruction& instr, const std::string& indent, std::string extra) {
    const HloOpcode opcode = instr.opcode();
    std::string label = absl::StrCat(Cut(instr.name()), "\n", std::string(HloOpcodeName(opcode)),
                                     " ", Cut(instr.shape().ToString(false)));
    for (const HloComputation* called : instr.called_computations()) {
      if (!DrawsCallee(opcode) || collapse_ || drawn_.contains(called)) {
        absl::StrAppend(&label, "\n", Cut(absl::StrCat("%", called->name())));
        if (DrawsCallee(opcode) && collapse_) {
          absl::StrAppend(&label, " (", called->instruction_count(), " instructions)");
        }
      }
    }
    if (collapse_) {
      // Folded inputs and long edges: named in their user's label instead.
      std::string folded;
      for (const HloInstruction* operand : instr.operands()) {
        if (!Folded(*operand) && !LongEdge(*operand, instr)) continue;
        absl::StrAppend(&folded, folded.empty() ? "" : ", ", operand->name());
      }
      if (!folded.empty()) absl::StrAppend(&label, "\n", Cut(absl::StrCat("reads ", folded)));
    }
    std::string attrs;
    if (opcode == HloOpcode::kParameter) {
      attrs = ", shape=ellipse";
    } else if (opcode == HloOpcode::kConstant) {
      attrs = ", shape=ellipse, style=\"filled\", fontsize=8";
    } else if (DrawsCallee(opcode) && collapse_) {
      attrs = ", shape=box3d, style=\"filled\"";
    }
    if (instr.parent() != nullptr && instr.parent()->root() == &instr) attrs += ", penwidth=2";
    std::string fill = "white";
    if (shares_ != nullptr) {
      auto it = shares_->find(instr.name());
      if (it != shares_->end() && it->second > 0) {
        fill = Fill(it->second, max_share_);
        absl::StrAppend(&label, "\n", absl::StrFormat("%.1f%%", 100 * it->second));
      }
    }
    absl::StrAppend(&out_, indent, NodeId(instr), " [label=\"", Escape(label), "\", fillcolor=",
                    fill, attrs, extra, "];\n");
  }

  // In large modules parameters and constants are not drawn (their edges
  // would span the whole graph and dominate Graphviz's layout time); the
  // instructions reading them name them.
  bool Folded(const HloInstruction& instr) const {
    return collapse_ && (instr.opcode() == HloOpcode::kParameter ||
                         instr.opcode() == HloOpcode::kConstant) &&
           instr.parent() != nullptr && instr.parent()->root() != &instr;
  }

  // In large modules, an edge spanning more than kMaxEdgeSpan levels (of
  // the longest path from the computation's inputs) is not drawn either: a
  // value read far downstream (a mask every layer reads) would cross
  // every level between, and such edges make the layout take minutes.
  static constexpr int64_t kMaxEdgeSpan = 12;
  int64_t Level(const HloInstruction& instr) {
    if (auto it = levels_.find(&instr); it != levels_.end()) return it->second;
    // One pass in the text's order (XLA prints operands before users).
    for (const auto& owned : instr.parent()->instructions()) {
      int64_t level = 0;
      for (const HloInstruction* operand : owned->operands()) {
        if (Folded(*operand)) continue;
        auto it = levels_.find(operand);
        if (it != levels_.end()) level = std::max(level, it->second + 1);
      }
      levels_[owned.get()] = level;
    }
    return levels_[&instr];
  }
  bool LongEdge(const HloInstruction& operand, const HloInstruction& user) {
    return collapse_ && !Folded(operand) && Level(user) - Level(operand) > kMaxEdgeSpan;
  }

  // Draws `comp` as nodes (inside a cluster unless it is the entry) and
  // then the clusters of the computations its instructions run.
  void DrawComputation(const HloComputation& comp, int depth) {
    drawn_.insert(&comp);
    if (shares_ != nullptr && max_share_ == 0) {
      for (const auto& [name, share] : *shares_) max_share_ = std::max(max_share_, share);
    }
    const std::string indent(2 * depth, ' ');
    for (const auto& owned : comp.instructions()) {
      const HloInstruction& instr = *owned;
      if (Folded(instr)) continue;
      DrawNode(instr, indent, "");
      for (const HloInstruction* operand : instr.operands()) {
        if (Folded(*operand) || LongEdge(*operand, instr)) continue;
        absl::StrAppend(&edges_, "  ", NodeId(*operand), " -> ", NodeId(instr), ";\n");
      }
      if (collapse_ || !DrawsCallee(instr.opcode())) continue;
      for (const HloComputation* called : instr.called_computations()) {
        if (drawn_.contains(called)) continue;
        const bool fusion = instr.opcode() == HloOpcode::kFusion;
        absl::StrAppend(&out_, indent, "subgraph cluster_", clusters_++, " {\n", indent,
                        "  label=\"", Escape(absl::StrCat(fusion ? "fusion " : "%",
                                                          called->name())),
                        "\"; style=\"", fusion ? "filled,rounded" : "dashed,rounded",
                        "\"; fillcolor=\"#eef3fb\"; color=\"#7a8fb5\";\n");
        DrawComputation(*called, depth + 1);
        absl::StrAppend(&out_, indent, "}\n");
        if (called->root() != nullptr) {
          absl::StrAppend(&edges_, "  ", NodeId(*called->root()), " -> ", NodeId(instr),
                          " [style=dashed, color=\"#7a8fb5\"];\n");
        }
      }
    }
  }

  const HloModule& module_;
  const bool collapse_;
  const absl::flat_hash_map<std::string, double>* shares_;
  double max_share_ = 0;
  absl::flat_hash_map<const HloInstruction*, int64_t> ids_;
  absl::flat_hash_set<const HloComputation*> drawn_;
  absl::flat_hash_map<const HloInstruction*, int64_t> levels_;
  int64_t clusters_ = 0;
  std::string out_, edges_;
};

// Runs `dot -T<format>` on `dot_text`, writing `path`.
int RunDot(const std::string& dot_text, const std::string& format, const std::string& path) {
  char tmpl[] = "/tmp/hlovm-graph-XXXXXX";
  const int fd = mkstemp(tmpl);
  if (fd < 0) {
    std::perror("hlovm graph: a temporary file");
    return kExitFailed;
  }
  const std::string dot_path = tmpl;
  {
    FILE* f = fdopen(fd, "w");
    std::fwrite(dot_text.data(), 1, dot_text.size(), f);
    std::fclose(f);
  }
  const pid_t pid = fork();
  if (pid == 0) {
    const std::string type = absl::StrCat("-T", format);
    const std::string out = absl::StrCat("-o", path);
    execlp("dot", "dot", type.c_str(), out.c_str(), dot_path.c_str(), static_cast<char*>(nullptr));
    std::fprintf(stderr,
                 "hlovm graph: cannot run Graphviz's `dot` (Debian: graphviz); write .dot "
                 "instead\n");
    _exit(127);
  }
  int status = 0;
  if (pid > 0) waitpid(pid, &status, 0);
  unlink(dot_path.c_str());
  if (pid < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    if (pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 127) return kExitFailed;
    std::fprintf(stderr, "hlovm graph: dot failed\n");
    return kExitFailed;
  }
  return kExitOk;
}

// Each instruction's share of one run's time, by name.
absl::StatusOr<absl::flat_hash_map<std::string, double>> ProfileShares(
    const Executable& exe, const std::vector<std::string>& inputs, const cli::Options& options) {
  const cli::Flags& flags = options.flags;
  std::vector<std::string> names;
  for (const HloInstruction* p : exe.module().entry()->parameters()) names.push_back(p->name());
  HLOVM_ASSIGN_OR_RETURN(std::vector<Literal> arguments,
                         MakeArguments(exe.parameter_shapes(), names, inputs,
                                       InputOptions{flags.random || inputs.empty(), flags.seed,
                                                    flags.convert_inputs},
                                       "the module"));
  std::vector<const Literal*> pointers;
  for (const Literal& a : arguments) pointers.push_back(&a);
  // One run first, so that the profiled run finds warm caches and pages.
  const int64_t instances = exe.module().replica_count * exe.module().num_partitions;
  Profiler profiler;
  for (Profiler* p : {static_cast<Profiler*>(nullptr), &profiler}) {
    if (instances > 1) {
      ReplicatedOptions replicated = options.replicated;
      replicated.profiler = p;
      for (auto& result : ExecuteReplicated(exe, {pointers}, replicated)) {
        HLOVM_RETURN_IF_ERROR(result.status());
      }
    } else {
      ExecuteOptions execute = options.execute;
      execute.profiler = p;
      HLOVM_RETURN_IF_ERROR(exe.Execute(pointers, execute).status());
    }
  }
  const std::vector<ProfileEvent> events = profiler.TakeEvents();
  const int64_t overhead = Profiler::EventOverheadNs();
  const int64_t total = TotalSelfNs(events, overhead);
  absl::flat_hash_map<std::string, double> shares;
  for (const ProfileRow& row :
       AggregateProfile(events, ProfileGrouping::kInstruction, 2, overhead)) {
    shares[row.key] += total > 0 ? static_cast<double>(row.self_ns) / total : 0;
  }
  return shares;
}

int Graph(const std::vector<std::string>& args, const cli::Options& options) {
  if (args.empty()) {
    std::fprintf(stderr,
                 "usage: hlovm graph [-o FILE.svg|.png|.dot] [--profile] [--expand] FILE.hlo "
                 "[INPUT...]\n");
    return kExitBadInput;
  }
  const cli::Flags& flags = options.flags;
  const std::string& path = flags.o;
  std::string format = "dot";
  if (!path.empty()) {
    const size_t dot = path.rfind('.');
    format = dot == std::string::npos ? "" : path.substr(dot + 1);
    if (format != "dot" && format != "gv" && format != "svg" && format != "png") {
      std::fprintf(stderr, "hlovm graph: -o %s: the name must end in .dot, .svg or .png\n",
                   path.c_str());
      return kExitBadInput;
    }
    if (format == "gv") format = "dot";
  }
  if (!flags.profile && args.size() > 1) {
    std::fprintf(stderr, "hlovm graph: inputs are only read with --profile\n");
    return kExitBadInput;
  }
  absl::StatusOr<std::string> text = ReadSourceFile(args[0]);
  if (!text.ok()) {
    std::fprintf(stderr, "hlovm graph: %s\n", std::string(text.status().message()).c_str());
    return kExitBadInput;
  }
  CompileOptions compile = options.compile;
  compile.file_name = args[0];
  auto exe = Executable::FromText(*text, compile);
  if (!exe.ok()) {
    std::fprintf(stderr, "hlovm: %s\n", std::string(exe.status().message()).c_str());
    return ExitCodeForStatus(exe.status()) == 1 ? kExitFailed : kExitBadInput;
  }
  const HloModule& module = (*exe)->module();
  absl::flat_hash_map<std::string, double> shares;
  if (flags.profile) {
    auto profiled = ProfileShares(**exe, std::vector<std::string>(args.begin() + 1, args.end()),
                                  options);
    if (!profiled.ok()) {
      std::fprintf(stderr, "hlovm graph: %s\n", std::string(profiled.status().message()).c_str());
      return ExitCodeForStatus(profiled.status()) == 1 ? kExitFailed : kExitBadInput;
    }
    shares = std::move(profiled).value();
  }
  int64_t instructions = 0;
  for (const auto& comp : module.computations()) instructions += comp->instruction_count();
  const bool collapse = !flags.expand && instructions > kCollapseAbove;
  const std::string dot_text =
      GraphWriter(module, collapse, flags.profile ? &shares : nullptr).Write();
  if (collapse) {
    std::fprintf(stderr,
                 "hlovm graph: %lld instructions: loop bodies, calls and fusions collapsed "
                 "(--expand draws them)\n",
                 static_cast<long long>(instructions));
  }
  if (path.empty()) {
    std::fwrite(dot_text.data(), 1, dot_text.size(), stdout);
    return kExitOk;
  }
  if (format == "dot") {
    std::ofstream out(path, std::ios::binary);
    out << dot_text;
    if (!out.good()) {
      std::fprintf(stderr, "hlovm graph: cannot write %s\n", path.c_str());
      return kExitFailed;
    }
    return kExitOk;
  }
  return RunDot(dot_text, format, path);
}

HLOVM_REGISTER_COMMAND(graph, "graph",
                       "hlovm graph [-o FILE.svg|.png|.dot] [--profile] [--expand] [FLAGS] "
                       "FILE.hlo [INPUT...]",
                       "draw a module's computations with Graphviz (DOT on stdout, or -o FILE); "
                       "--profile: nodes filled by their share of the run time",
                       {cli::FlagGroup::kCompile, cli::FlagGroup::kExecute,
                        cli::FlagGroup::kInstances, cli::FlagGroup::kInputs, cli::FlagId::kO,
                        cli::FlagId::kExpand, cli::FlagId::kProfile},
                       Graph);

}  // namespace
}  // namespace hlovm
