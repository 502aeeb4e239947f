#include "passes/pipeline.h"

#include <time.h>

#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "core/status_macros.h"
#include "passes/algsimp.h"
#include "passes/cse.h"
#include "passes/dce.h"
#include "passes/inline_calls.h"
#include "passes/ir_util.h"
#include "passes/pass.h"
#include "passes/while_dead_elements.h"
#include "passes/while_licm.h"
#include "passes/while_unroll.h"
#include "passes/while_zero_trip.h"

namespace hlovm::passes {
namespace {

// CPU time of this thread: the passes run on one thread, and on a busy
// machine wall time says more about the neighbours than about the passes.
double ThreadSeconds() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

// A pass of the pipeline: the module, the options, and the uniquer that
// every pass creating instructions shares (collected once, not per pass).
using PassFn = absl::StatusOr<PassResult> (*)(HloModule&, const PipelineOptions&, NameUniquer&);

struct PassInfo {
  const char* name;
  PassFn run;
};

template <absl::StatusOr<PassResult> (*F)(HloModule&)>
absl::StatusOr<PassResult> Plain(HloModule& module, const PipelineOptions&, NameUniquer&) {
  return F(module);
}

template <absl::StatusOr<PassResult> (*F)(HloModule&, NameUniquer*)>
absl::StatusOr<PassResult> Naming(HloModule& module, const PipelineOptions&, NameUniquer& names) {
  return F(module, &names);
}

absl::StatusOr<PassResult> Fold(HloModule& module, const PipelineOptions& options,
                                NameUniquer& names) {
  ConstantFoldingOptions fold;
  fold.evaluate = options.evaluate;
  fold.names = &names;
  return RunConstantFolding(module, fold);
}

absl::StatusOr<PassResult> Cse(HloModule& module, const PipelineOptions&, NameUniquer&) {
  return RunCse(module);
}

absl::StatusOr<PassResult> ZeroTrip(HloModule& module, const PipelineOptions& options,
                                    NameUniquer&) {
  return RunWhileZeroTrip(module, options.evaluate);
}

absl::StatusOr<PassResult> Unroll(HloModule& module, const PipelineOptions& options,
                                  NameUniquer& names) {
  return RunWhileUnroll(module, options.evaluate, &names);
}

constexpr PassInfo kPasses[] = {
    {"inline", &Naming<&RunInlineCalls>}, {"algsimp", &Plain<&RunAlgebraicSimplifier>},
    {"fold", &Fold},                     {"cse", &Cse},
    {"zerotrip", &ZeroTrip},             {"unroll", &Unroll},
    {"licm", &Naming<&RunWhileLicm>},
    {"whiledce", &Naming<&RunWhileDeadElements>}, {"dce", &Plain<&RunDce>},
};

const PassInfo* Find(std::string_view name) {
  for (const PassInfo& p : kPasses) {
    if (name == p.name) return &p;
  }
  return nullptr;
}

absl::StatusOr<std::vector<const PassInfo*>> Parse(std::string_view spec) {
  std::vector<const PassInfo*> list;
  if (spec.empty() || spec == "none") return list;
  if (spec == "default") {
    for (const PassInfo& p : kPasses) list.push_back(&p);
    return list;
  }
  for (absl::string_view piece :
       absl::StrSplit(absl::string_view(spec.data(), spec.size()), ',', absl::SkipEmpty())) {
    const std::string name(piece);
    const PassInfo* p = Find(name);
    if (p == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat("unknown pass '", name, "' in --passes=",
                                                     std::string(spec), "; use none, default or a list of ",
                                                     absl::StrJoin(PassNames(), ",")));
    }
    list.push_back(p);
  }
  return list;
}

}  // namespace

std::vector<std::string> PassNames() {
  std::vector<std::string> names;
  for (const PassInfo& p : kPasses) names.push_back(p.name);
  return names;
}

absl::Status ValidatePassSpec(std::string_view spec) { return Parse(spec).status(); }

absl::StatusOr<PipelineReport> RunPipeline(HloModule& module, std::string_view spec,
                                           const PipelineOptions& options) {
  HLOVM_ASSIGN_OR_RETURN(std::vector<const PassInfo*> list, Parse(spec));
  PipelineReport report;
  const double start = ThreadSeconds();
  NameUniquer names(module, options.name_keys);
  auto record = [&](const char* name, double t0, const PassResult& r) {
    report.entries.push_back({name, r.changes, r.detail, ThreadSeconds() - t0});
  };
  for (const PassInfo* p : list) {
    const double t0 = ThreadSeconds();
    HLOVM_ASSIGN_OR_RETURN(PassResult r, p->run(module, options, names));
    record(p->name, t0, r);
    // Instructions hoisted out of loops may repeat ones already in the
    // loops' callers; nothing else changed, so cse looks at those alone.
    if (spec == "default" && std::string_view(p->name) == "licm" && r.changes > 0) {
      const double t1 = ThreadSeconds();
      HLOVM_ASSIGN_OR_RETURN(PassResult again, RunCse(module, &r.grown));
      record("cse", t1, again);
    }
  }
  report.seconds = ThreadSeconds() - start;
  return report;
}

std::string PipelineReport::ToString() const {
  if (entries.empty()) return "// passes: none\n";
  std::string out;
  std::vector<std::string> order;
  std::map<std::string, std::vector<const Entry*>> by_pass;
  for (const Entry& e : entries) {
    if (!by_pass.contains(e.pass)) order.push_back(e.pass);
    by_pass[e.pass].push_back(&e);
  }
  absl::StrAppendFormat(&out, "// passes: %s (%.3f ms CPU)\n", absl::StrJoin(order, ","),
                        seconds * 1e3);
  for (const std::string& name : order) {
    // The runs that changed something (or the first, when none did).
    std::vector<std::string> details;
    double t = 0;
    for (const Entry* e : by_pass[name]) {
      if (e->changes > 0) details.push_back(e->detail);
      t += e->seconds;
    }
    if (details.empty()) details.push_back(by_pass[name].front()->detail);
    absl::StrAppendFormat(&out, "//   %-8s %s (%d runs, %.3f ms)\n", name,
                          absl::StrJoin(details, "; "), by_pass[name].size(), t * 1e3);
  }
  return out;
}

}  // namespace hlovm::passes
