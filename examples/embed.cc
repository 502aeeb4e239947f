// Embedding hlovm in a C++ program: compile HLO text once, then run it with
// literals as arguments. Build target `embed_example`; run it with no
// arguments. It computes softmax(x * w) for a small row vector and prints the
// result, then checks that the probabilities sum to one.
#include <cmath>
#include <cstdio>
#include <memory>

#include "core/literal.h"
#include "core/status_macros.h"
#include "vm/api.h"

namespace {

constexpr char kModule[] = R"(
HloModule softmax_scale, entry_computation_layout={(f32[4]{0}, f32[])->f32[4]{0}}

%max (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %m = f32[] maximum(f32[] %a, f32[] %b)
}

%sum (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(f32[] %a, f32[] %b)
}

ENTRY %main (x: f32[4], w: f32[]) -> f32[4] {
  %x = f32[4]{0} parameter(0)
  %w = f32[] parameter(1)
  %wb = f32[4]{0} broadcast(f32[] %w), dimensions={}
  %scaled = f32[4]{0} multiply(f32[4]{0} %x, f32[4]{0} %wb)
  %ninf = f32[] constant(-inf)
  %peak = f32[] reduce(f32[4]{0} %scaled, f32[] %ninf), dimensions={0}, to_apply=%max
  %peakb = f32[4]{0} broadcast(f32[] %peak), dimensions={}
  %shifted = f32[4]{0} subtract(f32[4]{0} %scaled, f32[4]{0} %peakb)
  %e = f32[4]{0} exponential(f32[4]{0} %shifted)
  %zero = f32[] constant(0)
  %total = f32[] reduce(f32[4]{0} %e, f32[] %zero), dimensions={0}, to_apply=%sum
  %totalb = f32[4]{0} broadcast(f32[] %total), dimensions={}
  ROOT %p = f32[4]{0} divide(f32[4]{0} %e, f32[4]{0} %totalb)
}
)";

absl::Status Run() {
  hlovm::CompileOptions options;
  options.file_name = "softmax_scale.hlo";
  HLOVM_ASSIGN_OR_RETURN(std::unique_ptr<hlovm::Executable> exe,
                         hlovm::Executable::FromText(kModule, options));
  HLOVM_ASSIGN_OR_RETURN(hlovm::Literal x, hlovm::ParseLiteral("f32[4] {1, 2, 3, 4}"));
  HLOVM_ASSIGN_OR_RETURN(hlovm::Literal w, hlovm::ParseLiteral("f32[] 0.5"));
  HLOVM_ASSIGN_OR_RETURN(hlovm::Literal p, exe->Execute({&x, &w}));
  std::printf("%s\n", p.ToString().c_str());
  double total = 0;
  for (float v : p.data<float>()) total += v;
  if (std::fabs(total - 1.0) > 1e-6) {
    return absl::InternalError("softmax does not sum to one");
  }
  return absl::OkStatus();
}

}  // namespace

int main() {
  absl::Status status = Run();
  if (!status.ok()) {
    std::fprintf(stderr, "embed_example: %s\n", std::string(status.message()).c_str());
    return 1;
  }
  return 0;
}
