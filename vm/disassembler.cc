// `hlovm dis`: the bytecode of every function, readable.
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "vm/buffer_plan.h"
#include "vm/compiler.h"

namespace hlovm {
namespace vm {
namespace {

std::string RegText(const Function& fn, Reg r) { return absl::StrCat("r", r); }

std::string RegList(const Function& fn, const Reg* regs, uint32_t n) {
  std::vector<std::string> parts;
  for (uint32_t i = 0; i < n; ++i) parts.push_back(RegText(fn, regs[i]));
  return absl::StrJoin(parts, ", ");
}

std::string BufferText(const Function& fn, Reg r) {
  const RegInfo& info = fn.regs[r];
  switch (info.kind) {
    case RegKind::kParam: return absl::StrCat("r", r, ":param");
    case RegKind::kConst: return absl::StrCat("r", r, ":const+", info.bytes);
    case RegKind::kToken: return absl::StrCat("r", r, ":token");
    case RegKind::kOwned:
      if (info.slot < 0) return absl::StrCat("r", r, ":none");
      if (const int32_t leaf = fn.ResultOfSlot(info.slot); leaf >= 0) {
        return absl::StrCat("r", r, ":result", leaf, "+", info.bytes);
      }
      return absl::StrCat("r", r, "@", fn.slot_offset[info.slot], "+", info.bytes);
  }
  return "?";
}

void DisassembleFunction(const Program& program, const Function& fn, std::string* out) {
  int64_t params = static_cast<int64_t>(fn.param_begin.size()) - 1;
  absl::StrAppend(out, "function %", fn.name, &fn == program.entry ? " (entry)" : "", ": ",
                  params, " parameter", params == 1 ? "" : "s", ", ", fn.regs.size(),
                  " registers, ", fn.code.size(), " instructions, ", fn.slot_size.size(),
                  " buffers, arena ", fn.arena_bytes, " bytes, ",
                  fn.parallel ? "parallel" : "sequential", "\n");
  for (size_t p = 0; p + 1 < fn.param_begin.size(); ++p) {
    std::vector<std::string> leaves;
    for (uint32_t i = fn.param_begin[p]; i < fn.param_begin[p + 1]; ++i) {
      const Reg r = fn.param_regs[i];
      leaves.push_back(absl::StrCat("r", r, " ", fn.regs[r].shape.ToString(false)));
    }
    absl::StrAppend(out, "  param ", p, ": ", absl::StrJoin(leaves, ", "), "\n");
  }
  for (Reg r = 0; r < fn.regs.size(); ++r) {
    if (fn.regs[r].kind == RegKind::kConst) {
      absl::StrAppend(out, "  const r", r, " ", fn.regs[r].shape.ToString(false), "\n");
    }
  }
  for (size_t pc = 0; pc < fn.code.size(); ++pc) {
    const Instr& instr = fn.code[pc];
    const InstrInfo& info = fn.info[pc];
    std::string lhs = RegList(fn, instr.out, instr.num_out);
    std::string text = absl::StrCat(lhs.empty() ? "" : lhs + " = ", InstrMnemonic(info), " ",
                                    RegList(fn, instr.in, instr.num_in));
    std::string shapes;
    for (uint32_t i = 0; i < instr.num_out; ++i) {
      absl::StrAppend(&shapes, i ? ", " : "", fn.regs[instr.out[i]].shape.ToString(false));
    }
    std::vector<std::string> buffers;
    for (uint32_t i = 0; i < instr.num_out; ++i) buffers.push_back(BufferText(fn, instr.out[i]));
    std::string origin;
    if (info.hlo != nullptr) {
      origin = absl::StrCat("%", info.hlo->name());
      if (info.hlo->location().line > 0) absl::StrAppend(&origin, ":", info.hlo->location().line);
    }
    absl::StrAppend(out, absl::StrFormat("  %4d  %-36s %-20s %-28s %-28s ; %s\n", pc, text, shapes,
                                         info.variant, absl::StrJoin(buffers, " "), origin));
    absl::StrAppend(out, info.detail);
  }
  std::vector<std::string> results;
  for (size_t i = 0; i < fn.result_regs.size(); ++i) {
    std::string r = RegText(fn, fn.result_regs[i]);
    if (i < fn.result_passthrough.size() && fn.result_passthrough[i]) r += " (unchanged)";
    results.push_back(r);
  }
  absl::StrAppend(out, "  return ", absl::StrJoin(results, ", "), "\n\n");
}

}  // namespace

std::string DisassembleProgram(const Program& program) {
  std::string out;
  // Callees are compiled first; print the entry first.
  DisassembleFunction(program, *program.entry, &out);
  // Loop and branch frames are in their caller's arena; other functions
  // (reducers, comparators) get an arena of their own per call.
  const absl::flat_hash_set<const Function*> in_caller = FunctionsInCallerArenas(program);
  int64_t arenas = program.entry->arena_bytes;
  const int64_t results = program.entry->ResultSlotBytes();
  for (const auto& fn : program.functions) {
    if (fn.get() == program.entry) continue;
    DisassembleFunction(program, *fn, &out);
    if (!in_caller.contains(fn.get())) arenas += fn->arena_bytes;
  }
  absl::StrAppend(&out, "peak memory: ", program.entry->arena_bytes,
                  " bytes (entry arena, loop and branch frames included), ", arenas,
                  " bytes with every function active, plus ", results, " bytes of results and ",
                  program.constant_bytes, " bytes of constants\n");
  return out;
}

}  // namespace vm
}  // namespace hlovm
