#include "vm/fusion.h"

#include <algorithm>
#include <iterator>
#include <optional>
#include <cstring>
#include <queue>
#include <string>
#include <tuple>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "core/status_macros.h"
#include "core/thread_scratch.h"
#include "ops/elementwise/elementwise_hwy.h"
#include "ops/elementwise/elementwise_internal.h"
#include "ops/elementwise/elementwise_lower.h"
#include "ops/elementwise/f32_program.h"
#include "ops/reduce/reduce_lower.h"
#include "ops/shape/iota.h"
#include "ops/shape/transpose.h"
#include "vm/profiler.h"

namespace hlovm {
namespace vm {
namespace {

//===----------------------------------------------------------------------===//
// Finding regions.
//===----------------------------------------------------------------------===//

enum class Role : uint8_t {
  kNone,       // not fusible
  kCompute,    // elementwise op: a micro-op
  kAlias,      // reshape (or a broadcast that only adds 1-sized dimensions)
  kBroadcast,  // broadcast read tile by tile from its operand
  kIota,       // iota computed tile by tile
  kTranspose,  // transpose gathered tile by tile from its operand
};

// Transposes a region reads through, a run along the result's innermost
// dimension at a time: runs of at least kMinTransposeRun elements. One that
// keeps the innermost dimension innermost copies each run whole (a head
// shuffle [b,s,h,d] -> [b,h,s,d] moves runs of d). One that moves it has a
// `column` dimension, the result dimension the operand's innermost lands
// on, and `lines`, the elements of the result dimensions after it: each
// column's runs read one element of each of `lines` operand lines (a
// stride of pages apart), whose neighbours the next columns read. Such a
// region runs in bands (FusedPlan::bands): up to kBandLines lines, and per
// band a cache line's worth of columns gathered at once as 2-D register
// blocks into an L1/L2-sized block (GatherColumns), then the band computed
// column by column reading it. Measured on a 4096x4096 f32 transpose into
// two ops: 1.3x faster than op by op on one thread (gathering run by run
// with a stride, 5x slower). Below kMinBandLines lines the runs per column
// are too short for either (the transpose stays op by op). A row, column
// or window reduce takes the root in order, so it does not join a banded
// region.
constexpr int64_t kMinTransposeRun = 16;
constexpr int64_t kBandLines = 512;
constexpr int64_t kMinBandLines = 128;
constexpr int64_t kCacheLine = 64;  // bytes of operand a block of columns spans
constexpr int kMaxTransposeRank = 8;

// The result dimension a transpose's operand's innermost dimension lands on.
int TransposeColumn(const HloInstruction& transpose) {
  const auto& dims = transpose.dimensions;
  return static_cast<int>(std::find(dims.begin(), dims.end(), static_cast<int64_t>(dims.size()) - 1) -
                          dims.begin());
}

// The elements after a transpose's column dimension: the lines a column
// reads where it moves the innermost dimension.
int64_t TransposeLines(const HloInstruction& transpose) {
  int64_t lines = 1;
  const Shape& s = transpose.shape();
  for (int64_t d = TransposeColumn(transpose) + 1; d < s.rank(); ++d) lines *= s.dimensions(d);
  return lines;
}

// Whether a transpose moves the innermost dimension (its region then runs
// in bands).
bool MovesInnermost(const HloInstruction& transpose) {
  return TransposeColumn(transpose) != transpose.shape().rank() - 1;
}

bool FusibleTranspose(const HloInstruction& instr) {
  const Shape& s = instr.shape();
  const int rank = static_cast<int>(s.rank());
  return instr.operand_count() == 1 && rank >= 2 && rank <= kMaxTransposeRank &&
         instr.dimensions.size() == static_cast<size_t>(rank) &&
         instr.operand(0)->shape().element_type() == s.element_type() &&
         s.dimensions(rank - 1) >= kMinTransposeRun &&
         (!MovesInnermost(instr) || TransposeLines(instr) >= kMinBandLines);
}

// For a broadcast whose operand dimensions of size > 1 land on a run of
// result dimensions with nothing but 1-sized ones between them: result
// element f reads operand element (f / repeat) % period. False otherwise.
bool BroadcastPattern(const HloInstruction& bcast, int64_t* repeat, int64_t* period) {
  const Shape& in = bcast.operand(0)->shape();
  const Shape& out = bcast.shape();
  if (bcast.dimensions.size() != static_cast<size_t>(in.rank())) return false;
  int64_t last = -1;
  for (int64_t i = 0; i < in.rank(); ++i) {
    const int64_t d = bcast.dimensions[i];
    if (d < 0 || d >= out.rank() || out.dimensions(d) != in.dimensions(i)) return false;
    if (in.dimensions(i) == 1) continue;
    if (last >= 0) {
      if (d <= last) return false;
      for (int64_t g = last + 1; g < d; ++g) {
        if (out.dimensions(g) != 1) return false;
      }
    }
    last = d;
  }
  *period = in.element_count();
  *repeat = 1;
  if (last >= 0) {
    for (int64_t g = last + 1; g < out.rank(); ++g) *repeat *= out.dimensions(g);
  }
  return true;
}

Role RoleOf(const HloInstruction& instr) {
  if (!instr.shape().IsArray() || !instr.control_predecessors().empty()) return Role::kNone;
  for (const HloInstruction* op : instr.operands()) {
    if (!op->shape().IsArray()) return Role::kNone;
  }
  const HloOpcode opcode = instr.opcode();
  if (opcode == HloOpcode::kReshape) return Role::kAlias;
  if (opcode == HloOpcode::kIota) {
    const Shape& s = instr.shape();
    return instr.iota_dimension >= 0 && instr.iota_dimension < s.rank() &&
                   SelectIotaKernel(s.element_type()).ok()
               ? Role::kIota
               : Role::kNone;
  }
  if (opcode == HloOpcode::kBroadcast) {
    if (instr.operand_count() != 1 ||
        instr.operand(0)->shape().element_type() != instr.shape().element_type()) {
      return Role::kNone;
    }
    int64_t repeat, period;
    if (!BroadcastPattern(instr, &repeat, &period)) return Role::kNone;
    // One that only adds 1-sized dimensions reads its operand as it is.
    return period == instr.shape().element_count() ? Role::kAlias : Role::kBroadcast;
  }
  if (opcode == HloOpcode::kTranspose) {
    return FusibleTranspose(instr) ? Role::kTranspose : Role::kNone;
  }
  const OpFamily family = HloOpcodeFamily(opcode);
  const bool elementwise = family == OpFamily::kUnary || family == OpFamily::kBinary ||
                           family == OpFamily::kTernary || opcode == HloOpcode::kConvert ||
                           opcode == HloOpcode::kReducePrecision;
  if (!elementwise) return Role::kNone;
  return SelectElementwiseKernel(instr).ok() ? Role::kCompute : Role::kNone;
}

// Below this many elements a region runs op by op: a fused region costs a
// little more to start than a few dispatches, and small arrays stay in
// cache between ops anyway (scalar loops of while bodies).
constexpr int64_t kMinFusedElements = 1024;

// Rows longer than this are reduced op by op (the fused form keeps a chunk
// of rows in a scratch buffer).
constexpr int64_t kMaxFusedRowBytes = 1 << 20;

// A column reduce joins a region when its rows have at least this many
// elements: the region then runs row segments of the columns at a time,
// and shorter ones would cost more in starts than the array in memory.
constexpr int64_t kMinFusedColumns = 128;

// The reduce of the region's root `reduce` can take the root as the region
// computes it: a row reduce, or a column reduce over rows long enough.
std::optional<RowReduce> FusibleReduce(const HloInstruction& reduce) {
  std::optional<RowReduce> r = SelectRowReduce(reduce);
  if (r.has_value()) {
    if (r->g.inner * r->elem_size > kMaxFusedRowBytes) return std::nullopt;
    return r;
  }
  r = SelectColumnReduce(reduce);
  if (r.has_value() && r->g.inner >= kMinFusedColumns) return r;
  return std::nullopt;
}

// A reduce-window of the root joins the region when it folds whole rows
// (SelectWindowRows) and computing, for each band of output rows (those
// differing in their last leading dimension only), every input row the band
// reads costs at most three times the operand: rows that two bands read are
// computed for each.
bool FusibleWindow(const HloInstruction& reduce_window) {
  const std::optional<WindowReduce> w = SelectWindowRows(reduce_window);
  if (!w.has_value() || w->rows.out_rows == 0) return false;
  const int64_t band = w->g.out_dims[w->rows.lead - 1];
  const int64_t bands = w->rows.out_rows / band;
  const int64_t in_rows = reduce_window.operand(0)->shape().element_count() / w->rows.row;
  int64_t widest = 0;
  for (int64_t b : {int64_t{0}, bands / 2, bands - 1}) {
    int64_t first, last;
    WindowRowSpan(w->g, w->rows, b * band, (b + 1) * band, &first, &last);
    widest = std::max(widest, last - first + 1);
  }
  return widest * bands <= 3 * in_rows;
}

}  // namespace

FusionPlan PlanFusion(absl::Span<const HloInstruction* const> order,
                      const HloComputation& computation) {
  FusionPlan plan;
  const int64_t count = static_cast<int64_t>(order.size());
  absl::flat_hash_map<const HloInstruction*, int64_t> pos;
  for (int64_t i = 0; i < count; ++i) pos[order[i]] = i;
  // Positions of each instruction's users; the computation's ROOT counts as
  // used after everything.
  std::vector<std::vector<int64_t>> users(count);
  std::vector<bool> pinned(count, false);
  for (int64_t i = 0; i < count; ++i) {
    for (const HloInstruction* op : order[i]->operands()) {
      if (auto it = pos.find(op); it != pos.end()) users[it->second].push_back(i);
    }
    for (const HloInstruction* p : order[i]->control_predecessors()) {
      if (auto it = pos.find(p); it != pos.end()) pinned[it->second] = true;
    }
  }
  if (auto it = pos.find(computation.root()); it != pos.end()) users[it->second].push_back(count);
  std::vector<Role> role(count);
  for (int64_t i = 0; i < count; ++i) role[i] = pinned[i] ? Role::kNone : RoleOf(*order[i]);

  std::vector<int> region_of(count, -1);
  // Broadcasts and iotas that regions recompute while others read them
  // from memory: the regions that hold them.
  absl::flat_hash_map<int64_t, std::vector<int>> shared_in;
  for (int64_t r = count - 1; r >= 0; --r) {
    if (region_of[r] != -1 || role[r] != Role::kCompute) continue;
    const int64_t n = order[r]->shape().element_count();
    if (n < kMinFusedElements) continue;
    absl::flat_hash_set<int64_t> in_region{r}, decided{r}, shared_members;
    std::vector<int64_t> members{r};
    std::vector<int64_t> outputs;
    bool banded = false;  // the region runs in bands (a transpose's)
    std::priority_queue<int64_t> frontier;  // latest first: users decide before producers
    auto push_operands = [&](int64_t i) {
      for (const HloInstruction* op : order[i]->operands()) {
        if (auto it = pos.find(op); it != pos.end()) frontier.push(it->second);
      }
    };
    push_operands(r);
    int computes = 1, broadcasts = 0;
    while (!frontier.empty()) {
      const int64_t i = frontier.top();
      frontier.pop();
      if (!decided.insert(i).second || region_of[i] != -1) continue;
      if (role[i] == Role::kNone || order[i]->shape().element_count() != n) continue;
      bool output = false, fits = true, shared = false;
      for (int64_t u : users[i]) {
        if (in_region.contains(u)) continue;
        // Used outside: a computed value only after the ROOT (a further
        // output); a broadcast or iota is recomputed here and stays for
        // the others (shared).
        if (role[i] == Role::kCompute && u > r) {
          output = true;
        } else if (role[i] == Role::kBroadcast || role[i] == Role::kIota) {
          shared = true;
        } else {
          fits = false;
        }
      }
      if (!fits) continue;
      in_region.insert(i);
      members.push_back(i);
      if (shared) shared_members.insert(i);
      if (output) outputs.push_back(i);
      if (role[i] == Role::kCompute) ++computes;
      if (role[i] == Role::kTranspose) {
        // It gathers from its whole operand, which must then be in memory:
        // never a region value.
        if (auto it = pos.find(order[i]->operand(0)); it != pos.end()) decided.insert(it->second);
        banded |= MovesInnermost(*order[i]);
      }
      if (role[i] == Role::kBroadcast || role[i] == Role::kIota || role[i] == Role::kTranspose) {
        ++broadcasts;
      } else {
        push_operands(i);
      }
    }
    // A row or column reduce of the ROOT takes it as the region computes
    // it, when every other outside use comes after the reduce.
    int64_t reduce = -1;
    bool root_stored = false;
    for (int64_t u : users[r]) {
      if (banded || u >= count || pinned[u] || region_of[u] != -1 ||
          order[u]->operand_count() != 2 || order[u]->operand(0) != order[r]) {
        continue;
      }
      auto init = pos.find(order[u]->operand(1));
      if (FusibleReduce(*order[u]).has_value() &&
          (init == pos.end() || !in_region.contains(init->second))) {
        reduce = u;
        break;
      }
    }
    if (reduce >= 0) {
      // The region is emitted at the reduce: every other outside use of a
      // member must come after it.
      bool after = true;
      for (int64_t u : users[r]) {
        if (u == reduce) continue;
        root_stored = true;
        after &= u > reduce;
      }
      for (int64_t o : outputs) {
        for (int64_t u : users[o]) after &= in_region.contains(u) || u > reduce;
      }
      if (!after) reduce = -1;
    }
    // Else a reduce-window over whole rows, when it alone reads the root
    // and the root is the region's only value read outside (bands of rows
    // are computed more than once).
    if (reduce < 0 && !banded && outputs.empty() && users[r].size() == 1) {
      const int64_t u = users[r][0];
      if (u < count && !pinned[u] && region_of[u] == -1 &&
          order[u]->opcode() == HloOpcode::kReduceWindow && order[u]->operand_count() == 2 &&
          order[u]->operand(0) == order[r]) {
        auto init = pos.find(order[u]->operand(1));
        if ((init == pos.end() || !in_region.contains(init->second)) && FusibleWindow(*order[u])) {
          reduce = u;
        }
      }
    }
    if (reduce < 0 && computes < 2 && broadcasts == 0) continue;
    const int id = static_cast<int>(plan.regions.size());
    FusedRegion region;
    region.root = order[r];
    std::sort(members.begin(), members.end());
    std::sort(outputs.begin(), outputs.end());
    for (int64_t m : members) {
      region.members.push_back(order[m]);
      if (shared_members.contains(m)) {
        shared_in[m].push_back(id);
        continue;
      }
      region_of[m] = id;
      plan.region_of[order[m]] = id;
    }
    if (reduce < 0 || root_stored) region.outputs.push_back(order[r]);
    for (int64_t o : outputs) region.outputs.push_back(order[o]);
    if (reduce >= 0) {
      region.reduce = order[reduce];
      region_of[reduce] = id;
      plan.region_of[order[reduce]] = id;
    }
    plan.regions.push_back(std::move(region));
  }
  // A shared broadcast or iota that only members of regions holding it read
  // is not written to memory at all.
  for (const auto& [i, ids] : shared_in) {
    bool read_outside = false;
    for (int64_t u : users[i]) {
      read_outside |= u >= count || region_of[u] < 0 ||
                      std::find(ids.begin(), ids.end(), region_of[u]) == ids.end() ||
                      order[u] == plan.regions[region_of[u]].reduce;
    }
    if (!read_outside) plan.elided.insert(order[i]);
  }
  return plan;
}

//===----------------------------------------------------------------------===//
// The micro-program.
//===----------------------------------------------------------------------===//

namespace {

struct Src {
  // kRows: the root's rows a fused reduce reads, in a per-chunk scratch.
  enum Kind : uint8_t { kTile, kInput, kScalar, kOutput, kRows };
  Kind kind = kTile;
  uint8_t size = 0;     // element width in bytes
  uint32_t index = 0;   // tile value (then slot), input or output number
};

enum class MicroKind : uint8_t {
  kUnary, kBinary, kTernary, kReducePrecision, kBroadcast, kIota,
  kTranspose,  // gathers the tile from the whole operand (FusedPlan::transposes)
  kProgram,  // a register program over f32 streams
};

struct MicroOp {
  MicroKind kind = MicroKind::kUnary;
  UnaryKernel unary = nullptr;
  BinaryKernel binary = nullptr;
  TernaryKernel ternary = nullptr;
  ReducePrecisionKernel reduce_precision;
  unsigned scalar_mask = 0;
  int arity = 0;
  Src src[3];
  Src dst;
  int64_t repeat = 1, period = 1;  // broadcast: element f reads (f / repeat) % period
  IotaKernel iota = nullptr;       // kIota: element f is (f / repeat) % period
  int program = -1;                // kProgram: index into FusedPlan::programs
  int transpose = -1;              // kTranspose: index into FusedPlan::transposes
};

// A transpose read tile by tile: the result's dimensions and, per result
// dimension, the operand's stride in elements. The `banded` one, the
// transpose that gave its region FusedPlan::bands, is read a block of
// columns at a time (GatherColumns).
struct TransposeGather {
  int rank = 0;
  int64_t dims[kMaxTransposeRank];
  int64_t strides[kMaxTransposeRank];
  bool banded = false;
};

// Calls fn(src, run) for result elements [begin, begin + len) of `t`, a run
// along the innermost dimension at a time: the operand elements src,
// src + stride, ... (stride: the innermost dimension's).
template <class Fn>
void ForEachTransposedRun(const TransposeGather& t, int64_t begin, int64_t len, Fn&& fn) {
  int64_t index[kMaxTransposeRank];
  int64_t rest = begin, src = 0;
  for (int d = t.rank - 1; d >= 0; --d) {
    index[d] = rest % t.dims[d];
    rest /= t.dims[d];
    src += index[d] * t.strides[d];
  }
  const int last = t.rank - 1;
  while (len > 0) {
    const int64_t run = std::min(len, t.dims[last] - index[last]);
    fn(src, run);
    len -= run;
    // The next run: the innermost dimension wraps to 0, the ones above
    // count on like an odometer.
    src -= index[last] * t.strides[last];
    index[last] = 0;
    for (int d = last - 1; d >= 0; --d) {
      src += t.strides[d];
      if (++index[d] < t.dims[d]) break;
      src -= index[d] * t.strides[d];
      index[d] = 0;
    }
  }
}

// Result elements [begin, begin + len) of the transpose `t` of `in` into
// `out`: each run copied whole where the transpose keeps the innermost
// dimension innermost, element by element with a stride otherwise (a
// one-column 2-D transpose).
void GatherTransposed(const TransposeGather& t, int size, const uint8_t* in, uint8_t* out,
                      int64_t begin, int64_t len) {
  const int64_t stride = t.strides[t.rank - 1];
  ForEachTransposedRun(t, begin, len, [&](int64_t src, int64_t run) {
    if (stride == 1) {
      std::memcpy(out, in + src * size, run * size);
    } else {
      TransposeBlock(size, in + src * size, out, 1, run, stride, run);
    }
    out += run * size;
  });
}

// For the banded transpose `t` of `in`: the runs of `len` lines of columns
// [c, c + width) (result elements offset + k * lines + r, column c at
// `offset`) into `block`, column c + k's run at k * pitch elements. The
// operand holds each line's columns side by side: each run is a 2-D
// transpose, done in the op-by-op transpose's register blocks.
void GatherColumns(const TransposeGather& t, int size, const uint8_t* in, int64_t offset,
                   int64_t len, int width, int64_t pitch, uint8_t* block) {
  const int64_t stride = t.strides[t.rank - 1];
  int64_t done = 0;
  ForEachTransposedRun(t, offset, len, [&](int64_t src, int64_t run) {
    TransposeBlock(size, in + src * size, block + done * size, width, run, stride, pitch);
    done += run;
  });
}

struct RegisterProgram {
  std::vector<F32ProgramOp> code;
  std::vector<Src> streams;  // stream k of the code
  F32Stream kinds[kF32ProgramMaxStreams];  // of stream k
  std::vector<const HloInstruction*> origin;  // per op of the code, for the listing
};

struct FusedPlan {
  std::vector<MicroOp> ops;  // the first `num_invariant` run once per chunk
  int num_invariant = 0;
  int64_t n = 0;
  int64_t tile = 0;   // elements per tile
  int64_t chunk = 0;  // elements per parallel chunk (a multiple of tile)
  int64_t slot_bytes = 0;
  int num_slots = 0;
  std::vector<RegisterProgram> programs;
  std::vector<TransposeGather> transposes;
  // A region reading a transpose that MovesInnermost: its result seen as
  // [outer, columns, lines] (the transpose's column dimension in the
  // middle), computed in units of one outer index and `band` lines, each
  // unit a run of the band per column in turn; units_per_task units a
  // parallel task. Absent, the region runs tile by tile in order.
  // The banded transpose is gathered `width` columns at a time (a cache
  // line of its operand) into a per-thread block of `width` runs; its tile
  // register `slot` is never given to another value, and a read of it
  // reads the column's run in the block.
  struct Bands {
    int64_t outer = 0, columns = 0, lines = 0, band = 0, units_per_task = 1;
    int width = 1;
    int size = 0;   // bytes an element
    int slot = -1;  // the banded transpose's tile register
    int64_t bands_per_outer() const { return (lines + band - 1) / band; }
    int64_t units() const { return outer * bands_per_outer(); }
  };
  std::optional<Bands> bands;
  // A fused row reduce of the root: output rows per chunk, where the rows
  // are (an output of the region, or -1: the scratch), the init's input
  // number and the reduce's output number.
  std::optional<RowReduce> reduce;
  // The reduce's geometry over a chunk's rows in the scratch (row q of the
  // chunk at q * inner): only the kept size differs.
  ReduceGeometry chunk_rows;
  int64_t rows_per_chunk = 0;
  // A column reduce: units of (output row, block of columns), col_block
  // columns a block, units_per_task units a parallel task.
  int64_t col_block = 0, col_blocks = 0, units_per_task = 1;
  int rows_output = -1;
  // A fused reduce-window: bands of unit_rows output rows, units_per_task
  // bands a parallel task.
  std::optional<WindowReduce> window;
  int64_t unit_rows = 0;
  uint32_t init_input = 0;
  uint32_t reduce_output = 0;
  int root_size = 0;
};

template <typename T>
void BroadcastRange(const T* in, T* out, int64_t begin, int64_t len, int64_t repeat,
                    int64_t period) {
  if (period == 1) {
    std::fill_n(out, len, in[0]);
    return;
  }
  int64_t f = begin;
  int64_t done = 0;
  if (repeat == 1) {
    while (done < len) {
      const int64_t j = f % period;
      const int64_t run = std::min(period - j, len - done);
      std::memcpy(out + done, in + j, run * sizeof(T));
      done += run;
      f += run;
    }
    return;
  }
  while (done < len) {
    const int64_t j = (f / repeat) % period;
    const int64_t run = std::min(repeat - f % repeat, len - done);
    std::fill_n(out + done, run, in[j]);
    done += run;
    f += run;
  }
}

struct Bytes16 {
  uint64_t lo, hi;
};

void Broadcast(int size, const uint8_t* in, uint8_t* out, int64_t begin, int64_t len,
               int64_t repeat, int64_t period) {
  switch (size) {
    case 1:
      BroadcastRange(in, out, begin, len, repeat, period);
      break;
    case 2:
      BroadcastRange(reinterpret_cast<const uint16_t*>(in), reinterpret_cast<uint16_t*>(out),
                     begin, len, repeat, period);
      break;
    case 4:
      BroadcastRange(reinterpret_cast<const uint32_t*>(in), reinterpret_cast<uint32_t*>(out),
                     begin, len, repeat, period);
      break;
    case 8:
      BroadcastRange(reinterpret_cast<const uint64_t*>(in), reinterpret_cast<uint64_t*>(out),
                     begin, len, repeat, period);
      break;
    default:
      BroadcastRange(reinterpret_cast<const Bytes16*>(in), reinterpret_cast<Bytes16*>(out),
                     begin, len, repeat, period);
      break;
  }
}

// Elements [begin, end) of the region; `rows` holds the root's elements
// from `rows_origin` on (fused reduce).
void RunTiles(const FusedPlan& p, const Instr& instr, uint8_t* const* regs, int64_t begin,
              int64_t end, uint8_t* rows = nullptr, int64_t rows_origin = 0) {
  struct TileRegisters;
  uint8_t* scratch = ThreadScratch<TileRegisters>(p.num_slots * p.slot_bytes);
  // In bands, the banded transpose's tile is its column's run in the block
  // of columns gathered.
  int64_t column_slot = -1;
  uint8_t* column_run = nullptr;
  auto at = [&](const Src& s, int64_t offset) -> uint8_t* {
    switch (s.kind) {
      case Src::kTile:
        return s.index == column_slot ? column_run : scratch + s.index * p.slot_bytes;
      case Src::kInput: return regs[instr.in[s.index]] + offset * s.size;
      case Src::kScalar: return regs[instr.in[s.index]];
      case Src::kOutput: return regs[instr.out[s.index]] + offset * s.size;
      case Src::kRows: return rows + (offset - rows_origin) * s.size;
    }
    return nullptr;
  };
  auto apply = [&](const MicroOp& op, int64_t offset, int64_t len) {
    uint8_t* d = op.kind == MicroKind::kProgram ? nullptr : at(op.dst, offset);
    switch (op.kind) {
      case MicroKind::kUnary:
        op.unary(at(op.src[0], offset), d, len);
        break;
      case MicroKind::kBinary:
        op.binary(at(op.src[0], offset), at(op.src[1], offset), d, len);
        break;
      case MicroKind::kTernary:
        op.ternary(at(op.src[0], offset), at(op.src[1], offset), at(op.src[2], offset), d, len,
                   op.scalar_mask);
        break;
      case MicroKind::kReducePrecision:
        op.reduce_precision(at(op.src[0], offset), d, len);
        break;
      case MicroKind::kBroadcast:
        Broadcast(op.dst.size, at(op.src[0], offset), d, offset, len, op.repeat, op.period);
        break;
      case MicroKind::kIota:
        op.iota(d, offset, offset + len, op.period, op.repeat);
        break;
      case MicroKind::kTranspose:
        GatherTransposed(p.transposes[op.transpose], op.dst.size, regs[instr.in[op.src[0].index]], d,
                         offset, len);
        break;
      case MicroKind::kProgram: {
        const RegisterProgram& rp = p.programs[op.program];
        void* streams[kF32ProgramMaxStreams];
        for (size_t k = 0; k < rp.streams.size(); ++k) streams[k] = at(rp.streams[k], offset);
        RunF32Program(rp.code.data(), static_cast<int>(rp.code.size()), streams, rp.kinds,
                      static_cast<int>(rp.streams.size()), offset, len);
        break;
      }
    }
  };
  const size_t num_ops = p.ops.size();
  if (p.bands.has_value()) {  // [begin, end) are units of bands
    const FusedPlan::Bands& g = *p.bands;
    const int64_t per_outer = g.bands_per_outer();
    struct Columns;
    uint8_t* block = ThreadScratch<Columns>(kCacheLine * g.band);  // width columns of band lines
    column_slot = g.slot;
    for (int64_t u = begin; u < end; ++u) {
      const int64_t first = u % per_outer * g.band;
      const int64_t len = std::min(g.band, g.lines - first);
      int64_t offset = u / per_outer * g.columns * g.lines + first;
      if (u == begin) {
        for (int i = 0; i < p.num_invariant; ++i) apply(p.ops[i], offset, g.band);
      }
      for (int64_t c0 = 0; c0 < g.columns; c0 += g.width) {
        const int width = static_cast<int>(std::min<int64_t>(g.width, g.columns - c0));
        for (int k = 0; k < width; ++k, offset += g.lines) {
          column_run = block + k * g.band * g.size;
          for (size_t i = p.num_invariant; i < num_ops; ++i) {
            const MicroOp& op = p.ops[i];
            if (op.kind != MicroKind::kTranspose || !p.transposes[op.transpose].banded) {
              apply(op, offset, len);
            } else if (k == 0) {
              GatherColumns(p.transposes[op.transpose], g.size, regs[instr.in[op.src[0].index]],
                            offset, len, width, g.band, block);
            }
          }
        }
      }
    }
    return;
  }
  const int64_t first = std::min(p.tile, end - begin);
  for (int i = 0; i < p.num_invariant; ++i) apply(p.ops[i], begin, first);
  for (int64_t t = begin; t < end; t += p.tile) {
    const int64_t len = std::min(p.tile, end - t);
    for (size_t i = p.num_invariant; i < num_ops; ++i) apply(p.ops[i], t, len);
  }
}

bool FusedHandler(const Instr& instr, uint8_t* const* regs, ExecContext& ctx) {
  const auto& p = *static_cast<const FusedPlan*>(instr.plan);
  // Elements in tiles, or units of bands.
  const bool bands = p.bands.has_value();
  ForEachChunk(ctx, bands ? p.bands->units() : p.n, bands ? p.bands->units_per_task : p.chunk,
               [&](int64_t b, int64_t e) { RunTiles(p, instr, regs, b, e); });
  return true;
}

// A region whose root feeds a row reduce: per chunk of output rows, the
// region computes the rows, then each row folds as the op-by-op reduce
// folds it.
bool FusedReduceHandler(const Instr& instr, uint8_t* const* regs, ExecContext& ctx) {
  const auto& p = *static_cast<const FusedPlan*>(instr.plan);
  const RowReduce& r = *p.reduce;
  const int64_t inner = r.g.inner;
  const uint8_t* init = regs[instr.in[p.init_input]];
  uint8_t* out = regs[instr.out[p.reduce_output]];
  ForEachChunk(ctx, r.g.out_count, p.rows_per_chunk, [&](int64_t begin, int64_t end) {
    // A thread running alone gets the whole range: it still goes a chunk of
    // rows at a time, so that the rows are in cache when they are reduced.
    for (int64_t b = begin; b < end; b += p.rows_per_chunk) {
      const int64_t e = std::min(end, b + p.rows_per_chunk);
      if (p.rows_output >= 0) {
        RunTiles(p, instr, regs, b * inner, e * inner);
        ReduceRunsBlock(r.g, r.elem_size, r.op, r.fold, regs[instr.out[p.rows_output]], init, out,
                        b, e);
        continue;
      }
      struct ReduceRows;
      uint8_t* rows = ThreadScratch<ReduceRows>((e - b) * inner * p.root_size);
      RunTiles(p, instr, regs, b * inner, e * inner, rows, b * inner);
      ReduceRunsBlock(p.chunk_rows, r.elem_size, r.op, r.fold, rows, init, out + b * r.elem_size,
                      0, e - b);
    }
  });
  return true;
}

// A region whose root feeds a column reduce: per output row and block of
// columns, the region computes the root's segment of each reduced row in
// turn (four at a time where the reducer has a four-row fold) and folds it
// into the outputs, in the order of the op-by-op reduce, so each output
// element folds its column from the first reduced row to the last.
bool FusedColumnReduceHandler(const Instr& instr, uint8_t* const* regs, ExecContext& ctx) {
  const auto& p = *static_cast<const FusedPlan*>(instr.plan);
  const RowReduce& r = *p.reduce;
  const ReduceGeometry& g = r.g;
  const int es = r.elem_size;
  const uint8_t* init = regs[instr.in[p.init_input]];
  uint8_t* out = regs[instr.out[p.reduce_output]];
  ForEachChunk(ctx, g.outer * p.col_blocks, p.units_per_task, [&](int64_t begin, int64_t end) {
    struct ColumnRows;
    uint8_t* scratch = ThreadScratch<ColumnRows>(4 * p.col_block * p.root_size);
    for (int64_t u = begin; u < end; ++u) {
      const int64_t row = u / p.col_blocks;
      const int64_t c0 = u % p.col_blocks * p.col_block;
      const int64_t cols = std::min(g.inner, c0 + p.col_block) - c0;
      uint8_t* o = out + (row * g.inner + c0) * es;
      for (int64_t c = 0; c < cols; ++c) std::memcpy(o + c * es, init, es);
      const int64_t base = OffsetOf(g.kept_sizes, g.kept_strides, row) + c0;
      // Segment k of the reduced rows from `r0`: computed, and where it is.
      auto segment = [&](int64_t r0, int k) -> const uint8_t* {
        const int64_t at = base + OffsetOf(g.red_sizes, g.red_strides, r0 + k);
        if (p.rows_output >= 0) {
          RunTiles(p, instr, regs, at, at + cols);
          return regs[instr.out[p.rows_output]] + at * p.root_size;
        }
        uint8_t* dst = scratch + k * p.col_block * p.root_size;
        RunTiles(p, instr, regs, at, at + cols, dst, at);
        return dst;
      };
      int64_t q = 0;
      if (r.fold4 != nullptr) {
        const void* rows[4];
        for (; q + 4 <= g.red_count; q += 4) {
          for (int k = 0; k < 4; ++k) rows[k] = segment(q, k);
          r.fold4(o, rows, cols);
        }
      }
      for (; q < g.red_count; ++q) r.op(o, segment(q, 0), o, cols);
    }
  });
  return true;
}

// A region whose root feeds a reduce-window over whole rows: per band of
// output rows, the region computes the input rows the band's windows read
// into a scratch buffer and the band's rows are folded from it, each in
// window order as the op-by-op reduce-window folds them.
bool FusedWindowHandler(const Instr& instr, uint8_t* const* regs, ExecContext& ctx) {
  const auto& p = *static_cast<const FusedPlan*>(instr.plan);
  const WindowReduce& w = *p.window;
  const int64_t row = w.rows.row;
  const uint8_t* init = regs[instr.in[p.init_input]];
  uint8_t* out = regs[instr.out[p.reduce_output]];
  ForEachChunk(ctx, w.rows.out_rows / p.unit_rows, p.units_per_task, [&](int64_t begin, int64_t end) {
    struct WindowBand;
    for (int64_t u = begin; u < end; ++u) {
      const int64_t q0 = u * p.unit_rows, q1 = q0 + p.unit_rows;
      int64_t first, last;
      WindowRowSpan(w.g, w.rows, q0, q1, &first, &last);
      uint8_t* band = nullptr;
      if (first <= last) {
        band = ThreadScratch<WindowBand>((last - first + 1) * row * p.root_size);
        RunTiles(p, instr, regs, first * row, (last + 1) * row, band, first * row);
      }
      FoldWindowRows(w.g, w.rows, w.elem_size, w.op, band, first, init, out, q0, q1);
    }
  });
  return true;
}

// Bytes of tile registers the live tiles of a region may take: small enough
// for L1 next to the tiles of the arrays the region streams.
constexpr int64_t kTileBudgetBytes = 24 * 1024;
constexpr int64_t kMinTile = 256, kMaxTile = 4096;

std::string SrcText(const Src& s) {
  switch (s.kind) {
    case Src::kTile: return absl::StrCat("t", s.index);
    case Src::kInput: return absl::StrCat("in", s.index);
    case Src::kScalar: return absl::StrCat("s", s.index);
    case Src::kOutput: return absl::StrCat("out", s.index);
    case Src::kRows: return "rows";
  }
  return "?";
}

//===----------------------------------------------------------------------===//
// Register programs: runs of f32 micro-ops with their values in registers.
//===----------------------------------------------------------------------===//

// The register-program op of an elementwise instruction, when its op-by-op
// kernel is that same f32 Highway function (or the f32 compare/select), or
// the bf16 kernel that widens to it (then the result rounds to bf16).
struct ProgramCode {
  F32Code code;
  bool round_bf16 = false;
};

std::optional<ProgramCode> F32CodeOf(const HloInstruction& instr, const ElementwiseKernel& k) {
  namespace ei = elementwise_internal;
  using ET = ElementType;
  auto real_type = [](ElementType t) { return t == ET::kF32 || t == ET::kBF16; };
  if (k.kind == ElementwiseKernel::kUnary) {
    if (k.unary == &ei::HwyBF16ToF32) return ProgramCode{F32Code::kNop};
    if (k.unary == &ei::HwyF32ToBF16) return ProgramCode{F32Code::kRoundBF16};
    static const std::tuple<UnaryKernel, UnaryKernel, F32Code> kUnary[] = {
        {&ei::HwyAbsF32, &ei::WidenUnary<ET::kBF16, &ei::HwyAbsF32>, F32Code::kAbs},
        {&ei::HwyNegF32, &ei::WidenUnary<ET::kBF16, &ei::HwyNegF32>, F32Code::kNeg},
        {&ei::HwySqrtF32, &ei::WidenUnary<ET::kBF16, &ei::HwySqrtF32>, F32Code::kSqrt},
        {&ei::HwyRsqrtF32, &ei::WidenUnary<ET::kBF16, &ei::HwyRsqrtF32>, F32Code::kRsqrt},
        {&ei::HwyFloorF32, &ei::WidenUnary<ET::kBF16, &ei::HwyFloorF32>, F32Code::kFloor},
        {&ei::HwyCeilF32, &ei::WidenUnary<ET::kBF16, &ei::HwyCeilF32>, F32Code::kCeil},
        {&ei::HwyRoundEvenF32, &ei::WidenUnary<ET::kBF16, &ei::HwyRoundEvenF32>,
         F32Code::kRoundEven},
        {&ei::HwyExpF32K, &ei::WidenUnary<ET::kBF16, &ei::HwyExpF32K>, F32Code::kExp},
        {&ei::HwyLogisticF32, &ei::WidenUnary<ET::kBF16, &ei::HwyLogisticF32>,
         F32Code::kLogistic},
        {&ei::HwyTanhF32, &ei::WidenUnary<ET::kBF16, &ei::HwyTanhF32>, F32Code::kTanh}};
    for (const auto& [f32, bf16, code] : kUnary) {
      if (k.unary == f32) return ProgramCode{code};
      if (k.unary == bf16) return ProgramCode{code, true};
    }
    return std::nullopt;
  }
  if (k.kind == ElementwiseKernel::kBinary) {
    if (instr.opcode() == HloOpcode::kCompare) {
      if (!real_type(instr.operand(0)->shape().element_type()) ||
          instr.comparison_type == ComparisonType::kTotalOrder) {
        return std::nullopt;
      }
      switch (instr.comparison_direction) {
        case ComparisonDirection::kEq: return ProgramCode{F32Code::kEq};
        case ComparisonDirection::kNe: return ProgramCode{F32Code::kNe};
        case ComparisonDirection::kGe: return ProgramCode{F32Code::kGe};
        case ComparisonDirection::kGt: return ProgramCode{F32Code::kGt};
        case ComparisonDirection::kLe: return ProgramCode{F32Code::kLe};
        case ComparisonDirection::kLt: return ProgramCode{F32Code::kLt};
      }
      return std::nullopt;
    }
    static const std::tuple<BinaryKernel, BinaryKernel, F32Code> kBinary[] = {
        {&ei::HwyAddF32, &ei::WidenBinary<ET::kBF16, &ei::HwyAddF32>, F32Code::kAdd},
        {&ei::HwySubF32, &ei::WidenBinary<ET::kBF16, &ei::HwySubF32>, F32Code::kSub},
        {&ei::HwyMulF32, &ei::WidenBinary<ET::kBF16, &ei::HwyMulF32>, F32Code::kMul},
        {&ei::HwyDivF32, &ei::WidenBinary<ET::kBF16, &ei::HwyDivF32>, F32Code::kDiv},
        {&ei::HwyMaxF32, &ei::WidenBinary<ET::kBF16, &ei::HwyMaxF32>, F32Code::kMax},
        {&ei::HwyMinF32, &ei::WidenBinary<ET::kBF16, &ei::HwyMinF32>, F32Code::kMin}};
    for (const auto& [f32, bf16, code] : kBinary) {
      if (k.binary == f32) return ProgramCode{code};
      if (k.binary == bf16) return ProgramCode{code, true};
    }
    return std::nullopt;
  }
  if (k.kind == ElementwiseKernel::kTernary && instr.opcode() == HloOpcode::kSelect &&
      k.scalar_mask == 0 && real_type(instr.shape().element_type())) {
    return ProgramCode{F32Code::kSelect};
  }
  return std::nullopt;
}

bool IsCompare(F32Code c) { return c >= F32Code::kEq && c <= F32Code::kLt; }

// One key per value a micro-op reads or writes.
int64_t KeyOf(const Src& s) {
  return (static_cast<int64_t>(s.kind) << 32) | s.index;
}

struct Segment {
  std::vector<int> ops;  // micro-ops (indices into the op list), in order
  std::vector<uint32_t> tile_reads, tile_writes;
  RegisterProgram program;
};

// Translates the micro-ops of `seg` to accumulator code. `needed_outside`:
// values some micro-op outside the segment reads. False when the program
// needs more spill slots or streams than the machine has.
bool TranslateSegment(const std::vector<MicroOp>& ops, const std::vector<std::optional<ProgramCode>>& codes,
                      const std::vector<const HloInstruction*>& origin,
                      const absl::flat_hash_set<int64_t>& needed_outside, Segment* seg) {
  RegisterProgram& rp = seg->program;
  rp = RegisterProgram();
  seg->tile_reads.clear();
  seg->tile_writes.clear();
  absl::flat_hash_set<int64_t> produced;
  absl::flat_hash_map<int64_t, int> remaining;
  for (int i : seg->ops) {
    for (int j = 0; j < ops[i].arity; ++j) ++remaining[KeyOf(ops[i].src[j])];
    produced.insert(KeyOf(ops[i].dst));
  }
  absl::flat_hash_map<int64_t, F32Operand> home;
  absl::flat_hash_map<int64_t, int> stream_of;
  std::vector<int> free_spills;
  for (int j = kF32ProgramMaxSpills - 1; j >= 0; --j) free_spills.push_back(j);
  bool ok = true;
  // Tiles that broadcast a scalar, or scalars each repeated along a run of
  // whole blocks (a row's value): the program reads the scalars instead.
  absl::flat_hash_map<int64_t, const MicroOp*> splat_of;
  for (const MicroOp& op : ops) {
    if (op.kind == MicroKind::kBroadcast && op.src[0].kind == Src::kScalar &&
        op.dst.kind == Src::kTile && (op.dst.size == 4 || op.dst.size == 2) &&
        (op.period == 1 || op.repeat % kF32ProgramRepeatQuantum == 0)) {
      splat_of[KeyOf(op.dst)] = &op;
    }
  }
  auto stream = [&](const Src& value) -> F32Operand {
    Src src = value;
    F32Stream kind{.half = src.size == 2, .far = src.kind == Src::kInput};
    if (auto it = splat_of.find(KeyOf(value)); it != splat_of.end()) {
      const MicroOp& b = *it->second;
      src = b.src[0];
      kind = F32Stream{.half = src.size == 2, .splat = true, .far = false,
                       .repeat = b.period == 1 ? 0 : b.repeat, .period = b.period};
    }
    auto [it, added] = stream_of.try_emplace(KeyOf(value), static_cast<int>(rp.streams.size()));
    if (added) {
      if (rp.streams.size() < static_cast<size_t>(kF32ProgramMaxStreams)) {
        rp.kinds[rp.streams.size()] = kind;
      }
      rp.streams.push_back(src);
      if (rp.streams.size() > static_cast<size_t>(kF32ProgramMaxStreams)) ok = false;
      if (src.kind == Src::kTile && !produced.contains(KeyOf(src))) seg->tile_reads.push_back(src.index);
    }
    return F32Operand{F32Operand::kStream, static_cast<uint8_t>(it->second)};
  };
  int64_t acc = -1;
  auto operand = [&](const Src& src) -> F32Operand {
    const int64_t key = KeyOf(src);
    if (key == acc) return F32Operand{F32Operand::kAcc, 0};
    if (!produced.contains(key)) return stream(src);
    auto it = home.find(key);
    if (it == home.end()) {
      ok = false;  // a value produced here but neither in a register nor stored
      return F32Operand{};
    }
    return it->second;
  };
  auto emit = [&](F32ProgramOp op, const HloInstruction* hlo) {
    rp.code.push_back(op);
    rp.origin.push_back(hlo);
  };
  for (int i : seg->ops) {
    const MicroOp& mop = ops[i];
    const F32Code code = codes[i]->code;
    const HloInstruction* hlo = origin[i];
    int p = 0;  // the operand the accumulator holds
    if (mop.arity == 2 && KeyOf(mop.src[0]) != acc && KeyOf(mop.src[1]) == acc) p = 1;
    if (acc != -1) {
      int uses_here = 0;
      for (int j = 0; j < mop.arity; ++j) uses_here += KeyOf(mop.src[j]) == acc;
      if (remaining[acc] - uses_here > 0 && !home.contains(acc)) {
        if (free_spills.empty()) return false;
        const int slot = free_spills.back();
        free_spills.pop_back();
        emit(F32ProgramOp{F32Code::kSpill, false, {F32Operand::kSpill, static_cast<uint8_t>(slot)}, {}},
             hlo);
        home[acc] = F32Operand{F32Operand::kSpill, static_cast<uint8_t>(slot)};
      }
    }
    if (KeyOf(mop.src[p]) != acc) {
      const F32Operand a = operand(mop.src[p]);
      emit(F32ProgramOp{F32Code::kLoad, false, a, {}}, hlo);
      acc = KeyOf(mop.src[p]);
    }
    F32ProgramOp op{code, p == 1, {}, {}};
    if (code == F32Code::kSelect) {
      op.a = operand(mop.src[1]);
      op.b = operand(mop.src[2]);
    } else if (mop.arity == 2) {
      op.a = operand(mop.src[1 - p]);
    }
    emit(op, hlo);
    if (codes[i]->round_bf16) emit(F32ProgramOp{F32Code::kRoundBF16, false, {}, {}}, hlo);
    for (int j = 0; j < mop.arity; ++j) {
      const int64_t key = KeyOf(mop.src[j]);
      if (--remaining[key] == 0) {
        auto it = home.find(key);
        if (it != home.end() && it->second.kind == F32Operand::kSpill) {
          free_spills.push_back(it->second.index);
        }
      }
    }
    acc = KeyOf(mop.dst);
    if (mop.dst.kind == Src::kOutput || mop.dst.kind == Src::kRows ||
        needed_outside.contains(acc)) {
      const F32Operand s = stream(mop.dst);
      emit(F32ProgramOp{F32Code::kStore, false, s, {}}, hlo);
      home[acc] = s;
      if (mop.dst.kind == Src::kTile) seg->tile_writes.push_back(mop.dst.index);
    }
    if (!ok) return false;
  }
  return ok && rp.code.size() <= static_cast<size_t>(kF32ProgramMaxOps);
}

// Whether a program of one micro-op beats its kernel: it reads a broadcast
// as scalars instead of a tile, or computes a bf16 op without widening
// whole tiles through memory.
bool WorthAlone(const RegisterProgram& rp) {
  bool half = false;
  for (size_t k = 0; k < rp.streams.size(); ++k) {
    if (rp.kinds[k].splat) return true;
    half |= rp.kinds[k].half;
  }
  for (const F32ProgramOp& op : rp.code) {
    const bool moves = op.code == F32Code::kLoad || op.code == F32Code::kStore ||
                       op.code == F32Code::kSpill || op.code == F32Code::kNop ||
                       op.code == F32Code::kRoundBF16;
    if (half && !moves) return true;
  }
  return false;
}

// Groups the runs of register-program micro-ops among the non-invariant ones
// of `sequence` into segments, each translated (one micro-op alone only
// where WorthAlone); a run that needs more spill slots than there are is
// split. A compare and the selects reading its mask must land in one
// segment; otherwise they run as micro-ops of their own.
std::vector<Segment> FindSegments(const std::vector<MicroOp>& ops,
                                  const std::vector<std::optional<ProgramCode>>& codes,
                                  const std::vector<const HloInstruction*>& origin,
                                  const std::vector<size_t>& sequence, int num_invariant) {
  const size_t num_ops = ops.size();
  std::vector<bool> eligible(num_ops, false);
  absl::flat_hash_map<int64_t, std::vector<int>> readers;
  absl::flat_hash_map<int64_t, int> producer;  // each value has one
  for (size_t i = 0; i < num_ops; ++i) {
    for (int j = 0; j < ops[i].arity; ++j) readers[KeyOf(ops[i].src[j])].push_back(static_cast<int>(i));
    producer[KeyOf(ops[i].dst)] = static_cast<int>(i);
  }
  // The segment of the micro-op producing `key`, or -1.
  auto producer_segment = [&](const std::vector<int>& segment_of, int64_t key) {
    auto it = producer.find(key);
    return it == producer.end() ? -1 : segment_of[it->second];
  };
  for (size_t s = num_invariant; s < sequence.size(); ++s) {
    const size_t i = sequence[s];
    const MicroOp& op = ops[i];
    if (!codes[i].has_value()) continue;
    bool ok = true;
    for (int j = 0; j < op.arity; ++j) {
      const bool mask = codes[i]->code == F32Code::kSelect && j == 0;
      if (op.src[j].kind == Src::kScalar) ok = false;
      // f32, or bf16 (the code was chosen for a bf16 kernel or type).
      if (!mask && op.src[j].size != 4 && op.src[j].size != 2) ok = false;
      if (mask && op.src[j].kind != Src::kTile) ok = false;
    }
    if (IsCompare(codes[i]->code)) {
      // Its mask lives in registers only: every reader a select's predicate.
      if (op.dst.kind != Src::kTile) ok = false;
      for (int r : readers[KeyOf(op.dst)]) {
        if (!codes[r].has_value() || codes[r]->code != F32Code::kSelect ||
            KeyOf(ops[r].src[0]) != KeyOf(op.dst) || KeyOf(ops[r].src[1]) == KeyOf(op.dst) ||
            KeyOf(ops[r].src[2]) == KeyOf(op.dst)) {
          ok = false;
        }
      }
    }
    eligible[i] = ok;
  }
  std::vector<bool> break_before(num_ops, false);  // a segment starts here
  std::vector<Segment> segments;
  for (int round = 0; round < 64; ++round) {
    segments.clear();
    std::vector<int> segment_of(num_ops, -1);
    for (size_t s = num_invariant; s < sequence.size(); ++s) {
      const int i = static_cast<int>(sequence[s]);
      if (!eligible[i]) continue;
      const bool continues = s > static_cast<size_t>(num_invariant) &&
                             eligible[sequence[s - 1]] && !break_before[i];
      if (!continues) segments.emplace_back();
      segments.back().ops.push_back(i);
      segment_of[i] = static_cast<int>(segments.size() - 1);
    }
    bool changed = false;
    // A select whose mask comes from elsewhere, or a compare read across
    // segments, leaves the programs.
    for (size_t i = 0; i < num_ops; ++i) {
      if (!eligible[i] || !codes[i].has_value()) continue;
      if (codes[i]->code == F32Code::kSelect) {
        if (producer_segment(segment_of, KeyOf(ops[i].src[0])) != segment_of[i]) {
          eligible[i] = false;
          changed = true;
        }
      } else if (IsCompare(codes[i]->code)) {
        for (int r : readers[KeyOf(ops[i].dst)]) {
          if (!eligible[r] || segment_of[r] != segment_of[i]) {
            eligible[i] = false;
            changed = true;
          }
        }
      }
    }
    if (changed) continue;
    // Values read outside their segment are stored.
    absl::flat_hash_set<int64_t> needed_outside;
    for (size_t i = 0; i < num_ops; ++i) {
      for (int j = 0; j < ops[i].arity; ++j) {
        const int64_t key = KeyOf(ops[i].src[j]);
        if (producer.contains(key) && producer_segment(segment_of, key) != segment_of[i]) {
          needed_outside.insert(key);
        }
      }
    }
    for (Segment& seg : segments) {
      if (TranslateSegment(ops, codes, origin, needed_outside, &seg) &&
          (seg.ops.size() >= 2 || WorthAlone(seg.program))) {
        continue;
      }
      // Too many live values for the spill slots: split the run in two.
      if (seg.ops.size() >= 4) {
        break_before[seg.ops[seg.ops.size() / 2]] = true;
      } else {
        for (int i : seg.ops) eligible[i] = false;
      }
      changed = true;
    }
    if (!changed) return segments;
  }
  return {};
}

std::string OperandText(const F32Operand& o, const std::vector<Src>& streams) {
  switch (o.kind) {
    case F32Operand::kStream: return SrcText(streams[o.index]);
    case F32Operand::kSpill: return absl::StrCat("spill", static_cast<int>(o.index));
    case F32Operand::kAcc: return "acc";
    case F32Operand::kNone: break;
  }
  return "?";
}

std::string ProgramOpText(const F32ProgramOp& op, const std::vector<Src>& streams) {
  static constexpr const char* kNames[] = {
      "load", "store", "spill", "abs", "negate", "sqrt", "rsqrt", "floor", "ceil",
      "round-nearest-even", "exponential", "logistic", "tanh", "add", "subtract", "multiply",
      "divide", "maximum", "minimum", "compare EQ", "compare NE", "compare GE", "compare GT",
      "compare LE", "compare LT", "select", "round-bf16", "nop"};
  const std::string name = kNames[static_cast<int>(op.code)];
  switch (op.code) {
    case F32Code::kLoad: return absl::StrCat("acc = ", OperandText(op.a, streams));
    case F32Code::kStore: return absl::StrCat(SrcText(streams[op.a.index]), " = acc");
    case F32Code::kSpill: return absl::StrCat("spill", static_cast<int>(op.a.index), " = acc");
    case F32Code::kSelect:
      return absl::StrCat("acc = select acc, ", OperandText(op.a, streams), ", ",
                          OperandText(op.b, streams));
    default:
      break;
  }
  if (op.a.kind == F32Operand::kNone) return absl::StrCat("acc = ", name, " acc");
  return op.reversed ? absl::StrCat("acc = ", name, " ", OperandText(op.a, streams), ", acc")
                     : absl::StrCat("acc = ", name, " acc, ", OperandText(op.a, streams));
}

}  // namespace

absl::Status LowerFusedRegion(FunctionBuilder& b, const FusedRegion& region,
                              absl::flat_hash_map<const HloInstruction*, ValueDesc>* values) {
  const int64_t n = region.root->shape().element_count();
  absl::flat_hash_set<const HloInstruction*> members(region.members.begin(),
                                                     region.members.end());
  absl::flat_hash_map<const HloInstruction*, int> output_of;
  for (size_t k = 0; k < region.outputs.size(); ++k) {
    output_of[region.outputs[k]] = static_cast<int>(k);
  }
  std::vector<Reg> in_regs;
  absl::flat_hash_map<Reg, uint32_t> input_of;
  auto input = [&](const HloInstruction* op) -> absl::StatusOr<uint32_t> {
    auto it = values->find(op);
    if (it == values->end() || it->second.size() != 1) {
      return absl::InternalError(absl::StrCat("fused region reads %", op->name(),
                                              ", which has no array register"));
    }
    const Reg r = it->second[0];
    auto [slot, added] = input_of.try_emplace(r, static_cast<uint32_t>(in_regs.size()));
    if (added) in_regs.push_back(r);
    return slot->second;
  };

  FusedPlan plan;
  plan.n = n;
  std::vector<const HloInstruction*> origin;  // per micro-op, for the listing
  std::vector<std::string> names;             // per micro-op
  std::vector<std::optional<ProgramCode>> f32_code;  // per micro-op
  absl::flat_hash_map<const HloInstruction*, Src> src_of;
  uint32_t tile_values = 0;
  for (const HloInstruction* m : region.members) {
    const uint8_t width = static_cast<uint8_t>(ByteWidth(m->shape().element_type()));
    auto dst_for = [&]() {
      Src d;
      d.size = width;
      if (auto it = output_of.find(m); it != output_of.end()) {
        d.kind = Src::kOutput;
        d.index = static_cast<uint32_t>(it->second);
      } else if (m == region.root) {
        d.kind = Src::kRows;
      } else {
        d.kind = Src::kTile;
        d.index = tile_values++;
      }
      return d;
    };
    // Appends micro-op `op` computing member m.
    auto add = [&](MicroOp op, std::optional<ProgramCode> code, std::string name) {
      op.dst = dst_for();
      src_of[m] = op.dst;
      plan.ops.push_back(op);
      origin.push_back(m);
      f32_code.push_back(code);
      names.push_back(std::move(name));
    };
    auto operand_src = [&](int j, bool scalar) -> absl::StatusOr<Src> {
      const HloInstruction* op = m->operand(j);
      if (members.contains(op)) return src_of.at(op);
      Src s;
      s.kind = scalar ? Src::kScalar : Src::kInput;
      s.size = static_cast<uint8_t>(ByteWidth(op->shape().element_type()));
      HLOVM_ASSIGN_OR_RETURN(s.index, input(op));
      return s;
    };
    if (m->opcode() == HloOpcode::kIota) {
      MicroOp op;
      op.kind = MicroKind::kIota;
      HLOVM_ASSIGN_OR_RETURN(op.iota, SelectIotaKernel(m->shape().element_type()));
      op.period = m->shape().dimensions(m->iota_dimension);
      op.repeat = 1;
      for (int64_t g = m->iota_dimension + 1; g < m->shape().rank(); ++g) {
        op.repeat *= m->shape().dimensions(g);
      }
      op.repeat = std::max<int64_t>(op.repeat, 1);
      add(op, std::nullopt, absl::StrCat("iota (repeat ", op.repeat, ", period ", op.period, ")"));
      continue;
    }
    if (m->opcode() == HloOpcode::kTranspose) {
      const Shape& s = m->shape();
      const Shape& in = m->operand(0)->shape();
      TransposeGather t;
      t.rank = static_cast<int>(s.rank());
      int64_t in_strides[kMaxTransposeRank];
      int64_t stride = 1;
      for (int d = t.rank - 1; d >= 0; --d) {
        in_strides[d] = stride;
        stride *= in.dimensions(d);
      }
      for (int d = 0; d < t.rank; ++d) {
        t.dims[d] = s.dimensions(d);
        t.strides[d] = in_strides[m->dimensions[d]];
      }
      MicroOp op;
      op.kind = MicroKind::kTranspose;
      op.arity = 1;
      HLOVM_ASSIGN_OR_RETURN(op.src[0], operand_src(0, false));
      op.src[0].kind = Src::kScalar;  // the whole operand, not its tile
      op.transpose = static_cast<int>(plan.transposes.size());
      if (!plan.bands.has_value() && region.reduce == nullptr && MovesInnermost(*m)) {
        t.banded = true;
        const int column = TransposeColumn(*m);
        FusedPlan::Bands g;
        g.outer = 1;
        for (int d = 0; d < column; ++d) g.outer *= s.dimensions(d);
        g.columns = s.dimensions(column);
        g.lines = TransposeLines(*m);
        g.size = ByteWidth(s.element_type());
        g.width = std::max<int>(1, kCacheLine / g.size);
        plan.bands = g;
      }
      plan.transposes.push_back(t);
      add(op, std::nullopt, absl::StrCat("transpose dimensions={", absl::StrJoin(m->dimensions, ","), "}"));
      continue;
    }
    if (m->opcode() == HloOpcode::kReshape || m->opcode() == HloOpcode::kBroadcast) {
      if (m->operand(0)->shape().element_count() == n) {  // an alias
        HLOVM_ASSIGN_OR_RETURN(src_of[m], operand_src(0, false));
        continue;
      }
      MicroOp op;
      op.kind = MicroKind::kBroadcast;
      op.arity = 1;
      if (!BroadcastPattern(*m, &op.repeat, &op.period)) {
        return absl::InternalError("fused broadcast lost its pattern");
      }
      HLOVM_ASSIGN_OR_RETURN(op.src[0], operand_src(0, true));
      add(op, std::nullopt,
          op.period == 1 ? "broadcast (splat)"
                         : absl::StrCat("broadcast (repeat ", op.repeat, ", period ", op.period, ")"));
      continue;
    }
    HLOVM_ASSIGN_OR_RETURN(ElementwiseKernel k, SelectElementwiseKernel(*m));
    MicroOp op;
    op.arity = k.arity;
    op.scalar_mask = k.scalar_mask;
    switch (k.kind) {
      case ElementwiseKernel::kUnary: op.kind = MicroKind::kUnary; op.unary = k.unary; break;
      case ElementwiseKernel::kBinary: op.kind = MicroKind::kBinary; op.binary = k.binary; break;
      case ElementwiseKernel::kTernary: op.kind = MicroKind::kTernary; op.ternary = k.ternary; break;
      case ElementwiseKernel::kReducePrecision:
        op.kind = MicroKind::kReducePrecision;
        op.reduce_precision = k.reduce_precision;
        break;
    }
    for (int j = 0; j < k.arity; ++j) {
      HLOVM_ASSIGN_OR_RETURN(op.src[j], operand_src(j, (k.scalar_mask >> j & 1) != 0));
    }
    add(op, F32CodeOf(*m, k), absl::StrCat(std::string(HloOpcodeName(m->opcode())), " ", k.variant));
  }

  // Invariant micro-ops (same tile whatever the offset) move to the front.
  const size_t num_ops = plan.ops.size();
  std::vector<bool> invariant_value(tile_values, false);
  std::vector<bool> invariant(num_ops, false);
  for (size_t i = 0; i < num_ops; ++i) {
    const MicroOp& op = plan.ops[i];
    if (op.dst.kind != Src::kTile) continue;
    // An iota changes with the offset; a broadcast only when it has a period.
    bool inv = op.kind == MicroKind::kBroadcast
                   ? op.period == 1
                   : op.kind != MicroKind::kIota && op.kind != MicroKind::kTranspose;
    if (op.kind != MicroKind::kBroadcast) {
      for (int j = 0; j < op.arity; ++j) {
        const Src& s = op.src[j];
        inv &= s.kind == Src::kScalar || (s.kind == Src::kTile && invariant_value[s.index]);
      }
    }
    invariant[i] = inv;
    if (inv) invariant_value[op.dst.index] = true;
  }
  std::vector<size_t> sequence;
  for (size_t i = 0; i < num_ops; ++i) {
    if (invariant[i]) sequence.push_back(i);
  }
  plan.num_invariant = static_cast<int>(sequence.size());
  for (size_t i = 0; i < num_ops; ++i) {
    if (!invariant[i]) sequence.push_back(i);
  }

  // Runs of f32 micro-ops become register programs (f32_program.h).
  std::vector<Segment> segments =
      FindSegments(plan.ops, f32_code, origin, sequence, plan.num_invariant);

  // The steps of the tile loop: single micro-ops and register programs. Per
  // step, the tile values it reads and writes.
  struct Step {
    int op = -1;       // index into plan.ops, or
    int segment = -1;  // into segments
    std::vector<uint32_t> reads, writes;
    bool in_place_ok = false;  // a single op may overwrite a same-width operand
  };
  absl::flat_hash_map<int, int> segment_starting_at;  // first micro-op -> segment
  for (size_t g = 0; g < segments.size(); ++g) {
    segment_starting_at[segments[g].ops.front()] = static_cast<int>(g);
  }
  std::vector<Step> steps;
  for (size_t s = 0; s < sequence.size();) {
    const auto starts = segment_starting_at.find(static_cast<int>(sequence[s]));
    Step step;
    if (starts != segment_starting_at.end()) {
      const int seg = starts->second;
      step.segment = seg;
      step.reads = segments[seg].tile_reads;
      step.writes = segments[seg].tile_writes;
      s += segments[seg].ops.size();
    } else {
      const MicroOp& op = plan.ops[sequence[s]];
      step.op = static_cast<int>(sequence[s]);
      for (int j = 0; j < op.arity; ++j) {
        if (op.src[j].kind == Src::kTile) step.reads.push_back(op.src[j].index);
      }
      if (op.dst.kind == Src::kTile) step.writes.push_back(op.dst.index);
      step.in_place_ok = true;
      ++s;
    }
    steps.push_back(std::move(step));
  }

  // A micro-op whose tile nothing reads any more goes (a splat the register
  // programs read as scalars), and so may, in turn, its operands': one pass
  // from the last step back.
  {
    absl::flat_hash_set<uint32_t> needed;
    std::vector<Step> kept;
    for (size_t s = steps.size(); s-- > 0;) {
      Step& step = steps[s];
      if (step.op >= 0 && plan.ops[step.op].dst.kind == Src::kTile &&
          !needed.contains(step.writes[0])) {
        if (static_cast<int>(s) < plan.num_invariant) --plan.num_invariant;
        continue;
      }
      needed.insert(step.reads.begin(), step.reads.end());
      kept.push_back(std::move(step));
    }
    steps.assign(std::make_move_iterator(kept.rbegin()), std::make_move_iterator(kept.rend()));
  }

  // Tile registers: a value's slot is free after its last reader (invariant
  // values stay); a single micro-op may write the slot of a same-width
  // operand it reads last (the kernels allow in place).
  std::vector<int64_t> last_use(tile_values, -1);
  for (size_t s = 0; s < steps.size(); ++s) {
    for (uint32_t v : steps[s].reads) last_use[v] = static_cast<int64_t>(s);
  }
  std::vector<int> slot_of(tile_values, -1);
  std::vector<uint8_t> width_of(tile_values, 1);
  for (const MicroOp& op : plan.ops) {
    if (op.dst.kind == Src::kTile) width_of[op.dst.index] = op.dst.size;
  }
  // Slots never freed: invariant values' and the banded transpose's.
  int64_t banded_value = -1;
  for (const MicroOp& op : plan.ops) {
    if (op.kind == MicroKind::kTranspose && plan.transposes[op.transpose].banded) {
      banded_value = op.dst.index;
    }
  }
  std::vector<bool> kept = invariant_value;
  if (banded_value >= 0) kept[banded_value] = true;
  std::vector<int> free_slots;
  int max_width = 1;
  for (size_t s = 0; s < steps.size(); ++s) {
    const Step& step = steps[s];
    auto release = [&](bool same_width_only) {
      for (uint32_t v : step.reads) {
        if (kept[v] || last_use[v] != static_cast<int64_t>(s) || slot_of[v] < 0) continue;
        if (same_width_only &&
            (!step.in_place_ok || step.writes.empty() || width_of[v] != width_of[step.writes[0]])) {
          continue;
        }
        free_slots.push_back(slot_of[v]);
        last_use[v] = -2;  // released
      }
    };
    release(true);
    for (uint32_t v : step.writes) {
      max_width = std::max<int>(max_width, width_of[v]);
      if (free_slots.empty()) {
        slot_of[v] = plan.num_slots++;
      } else {
        slot_of[v] = free_slots.back();
        free_slots.pop_back();
      }
    }
    release(false);
    // A value nobody reads (cannot happen for a needed member) frees at once.
    for (uint32_t v : step.writes) {
      if (last_use[v] == -1 && !kept[v]) free_slots.push_back(slot_of[v]);
    }
  }
  if (plan.bands.has_value()) plan.bands->slot = slot_of[banded_value];
  auto remap = [&](Src& src) {
    if (src.kind == Src::kTile) src.index = static_cast<uint32_t>(slot_of[src.index]);
  };
  for (MicroOp& op : plan.ops) {
    for (int j = 0; j < op.arity; ++j) remap(op.src[j]);
    remap(op.dst);
  }
  for (Segment& seg : segments) {
    for (Src& src : seg.program.streams) remap(src);
  }

  // Tile and chunk sizes.
  int64_t bytes_per_element = 0;  // streamed through memory
  for (Reg r : in_regs) {
    const RegInfo& info = b.function().regs[r];
    if (info.shape.element_count() == n) bytes_per_element += ByteWidth(info.shape.element_type());
  }
  for (const HloInstruction* o : region.outputs) bytes_per_element += ByteWidth(o->shape().element_type());
  const int64_t tile_row = std::max<int64_t>(1, plan.num_slots) * max_width;
  int64_t tile = kTileBudgetBytes / tile_row / 64 * 64;
  tile = std::clamp(tile, kMinTile, kMaxTile);
  plan.tile = std::max<int64_t>(1, std::min(tile, n));
  plan.slot_bytes = (plan.tile * max_width + 63) / 64 * 64;
  const int64_t stream = std::max<int64_t>(bytes_per_element, 1);
  if (n * stream < kParallelKernelBytes) {
    plan.chunk = std::max<int64_t>(n, 1);
  } else {
    const int64_t tiles = std::max<int64_t>(1, 4 * kChunkBytes / stream / plan.tile);
    plan.chunk = tiles * plan.tile;
  }
  if (plan.bands.has_value()) {
    FusedPlan::Bands& g = *plan.bands;
    g.band = std::min({kBandLines, plan.tile, g.lines});
    g.units_per_task = std::max<int64_t>(1, plan.chunk / (g.columns * g.band));
  }

  // The final micro-op list, with the listing.
  std::vector<MicroOp> ordered;
  std::string detail;
  auto list = [&](const std::string& line, const HloInstruction* hlo) {
    absl::StrAppend(&detail, absl::StrFormat("          %-62s ; %%%s\n", line, hlo->name()));
  };
  int listed = 0;
  for (const Step& step : steps) {
    if (step.op >= 0) {
      const MicroOp& op = plan.ops[step.op];
      ordered.push_back(op);
      std::string args;
      for (int j = 0; j < op.arity; ++j) absl::StrAppend(&args, j ? ", " : "", SrcText(op.src[j]));
      list(absl::StrCat(SrcText(op.dst), " = ", names[step.op], " ", args,
                        listed < plan.num_invariant ? "  (once per chunk)" : ""),
           origin[step.op]);
      ++listed;
      continue;
    }
    Segment& seg = segments[step.segment];
    MicroOp op;
    op.kind = MicroKind::kProgram;
    op.program = static_cast<int>(plan.programs.size());
    ordered.push_back(op);
    std::vector<std::string> streams;
    for (size_t k = 0; k < seg.program.streams.size(); ++k) {
      const F32Stream& kind = seg.program.kinds[k];
      streams.push_back(kind.repeat > 0 ? absl::StrCat(SrcText(seg.program.streams[k]), " (repeat ",
                                                       kind.repeat, ", period ", kind.period, ")")
                                        : SrcText(seg.program.streams[k]));
    }
    absl::StrAppend(&detail, "          f32 register program over ", absl::StrJoin(streams, ", "),
                    ":\n");
    for (size_t pc = 0; pc < seg.program.code.size(); ++pc) {
      absl::StrAppend(&detail,
                      absl::StrFormat("            %-60s ; %%%s\n",
                                      ProgramOpText(seg.program.code[pc], seg.program.streams),
                                      seg.program.origin[pc]->name()));
    }
    plan.programs.push_back(std::move(seg.program));
    listed += static_cast<int>(seg.ops.size());
  }
  plan.ops = std::move(ordered);

  // Outputs.
  FunctionBuilder::EmitSpec spec;
  std::vector<Reg> outs;
  int64_t out_bytes = 0;
  for (const HloInstruction* o : region.outputs) {
    HLOVM_ASSIGN_OR_RETURN(Reg r, b.NewReg(RegKind::kOwned, o->shape()));
    outs.push_back(r);
    out_bytes += b.function().regs[r].bytes;
  }
  const bool window = region.reduce != nullptr &&
                      region.reduce->opcode() == HloOpcode::kReduceWindow;
  if (region.reduce != nullptr) {
    HLOVM_ASSIGN_OR_RETURN(plan.init_input, input(region.reduce->operand(1)));
    HLOVM_ASSIGN_OR_RETURN(Reg r, b.NewReg(RegKind::kOwned, region.reduce->shape()));
    plan.reduce_output = static_cast<uint32_t>(outs.size());
    outs.push_back(r);
    out_bytes += b.function().regs[r].bytes;
    plan.root_size = ByteWidth(region.root->shape().element_type());
  }
  if (window) {
    plan.window = SelectWindowRows(*region.reduce);
    if (!plan.window.has_value()) return absl::InternalError("fused reduce-window lost its form");
    const WindowReduce& w = *plan.window;
    plan.unit_rows = w.g.out_dims[w.rows.lead - 1];
    const int64_t band_bytes =
        std::max<int64_t>(1, plan.unit_rows * w.rows.row * w.elem_size * std::max<int64_t>(1, w.g.window_count));
    plan.units_per_task = std::max<int64_t>(1, kChunkBytes / band_bytes);
    absl::StrAppend(&detail, "          rows -> reduce-window ", std::string(HloOpcodeName(w.opcode)),
                    " over rows of ", w.rows.row, ", bands of ", plan.unit_rows,
                    " output rows -> out", plan.reduce_output, "\n");
  } else if (region.reduce != nullptr) {
    plan.reduce = FusibleReduce(*region.reduce);
    if (!plan.reduce.has_value()) return absl::InternalError("fused reduce lost its form");
    if (auto it = output_of.find(region.root); it != output_of.end()) plan.rows_output = it->second;
  }
  // A reduce keeping the innermost dimension folds columns.
  const bool columns = plan.reduce.has_value() && !plan.reduce->g.runs;
  if (columns) {
    const ReduceGeometry& g = plan.reduce->g;
    // Blocks of columns whose four segments stay in L1 next to the tiles,
    // and enough of them (8 where the rows are long enough) that the
    // threads share an output row: a column's fold order is fixed, so only
    // columns can be split.
    const int64_t eighth = (g.inner / 8 + 63) / 64 * 64;
    plan.col_block = std::min<int64_t>(g.inner, std::clamp<int64_t>(eighth, 512, 1024));
    plan.col_blocks = (g.inner + plan.col_block - 1) / plan.col_block;
    const int64_t unit_bytes =
        std::max<int64_t>(1, plan.col_block * stream * std::max<int64_t>(1, g.red_count));
    plan.units_per_task = std::max<int64_t>(1, kChunkBytes / unit_bytes);
    absl::StrAppend(&detail, "          ",
                    plan.rows_output >= 0 ? absl::StrCat("out", plan.rows_output) : "rows",
                    " -> reduce ", std::string(HloOpcodeName(plan.reduce->opcode)), " over ",
                    g.red_count, " rows of ", g.inner, " columns, blocks of ", plan.col_block,
                    " -> out", plan.reduce_output, "\n");
  } else if (region.reduce != nullptr && !window) {
    const int64_t rows = plan.reduce->g.out_count;
    const int64_t row_bytes = std::max<int64_t>(1, plan.reduce->g.inner * stream);
    plan.rows_per_chunk = rows * row_bytes < kParallelKernelBytes
                              ? std::max<int64_t>(rows, 1)
                              : std::max<int64_t>(1, 4 * kChunkBytes / row_bytes);
    plan.chunk_rows = plan.reduce->g;
    if (!plan.chunk_rows.kept_sizes.empty()) plan.chunk_rows.kept_sizes[0] = plan.rows_per_chunk;
    plan.chunk_rows.outer = plan.chunk_rows.out_count = plan.rows_per_chunk;
    absl::StrAppend(&detail, "          ",
                    plan.rows_output >= 0 ? absl::StrCat("out", plan.rows_output) : "rows",
                    " -> reduce ", std::string(HloOpcodeName(plan.reduce->opcode)), " over runs of ",
                    plan.reduce->g.inner, " -> out", plan.reduce_output, "\n");
  }
  int64_t in_bytes = 0;
  for (Reg r : in_regs) in_bytes += b.function().regs[r].bytes;
  // One output may take the buffer of an input it streams through: every
  // tile reads its inputs before the last micro-op writes that output's
  // tile. With several outputs, written at different micro-ops, none may.
  if (outs.size() == 1 && region.reduce == nullptr) {
    const int out_width = ByteWidth(region.root->shape().element_type());
    std::vector<bool> streamed(in_regs.size(), false), other_use(in_regs.size(), false);
    for (const MicroOp& op : plan.ops) {
      std::vector<Src> reads(op.src, op.src + op.arity);
      if (op.kind == MicroKind::kProgram) reads = plan.programs[op.program].streams;
      for (const Src& s : reads) {
        if (s.kind == Src::kInput && s.size == out_width) {
          streamed[s.index] = true;
        } else if (s.kind == Src::kInput || s.kind == Src::kScalar) {
          other_use[s.index] = true;
        }
      }
    }
    for (size_t k = 0; k < in_regs.size() && k < 32; ++k) {
      if (streamed[k] && !other_use[k]) spec.inplace_mask |= 1u << k;
    }
  }
  spec.handler = window                     ? &FusedWindowHandler
                 : columns                  ? &FusedColumnReduceHandler
                 : region.reduce != nullptr ? &FusedReduceHandler
                                            : &FusedHandler;
  FusedWork work;
  work.bytes = static_cast<double>(in_bytes + out_bytes);
  work.ops = static_cast<int64_t>(num_ops) + (region.reduce != nullptr ? 1 : 0);
  for (const HloInstruction* m : region.members) {
    const HloOpcode op = m->opcode();
    if (op != HloOpcode::kReshape && op != HloOpcode::kBroadcast && op != HloOpcode::kIota &&
        op != HloOpcode::kTranspose) {
      work.flops += static_cast<double>(n);
    }
  }
  if (window) {
    work.flops += static_cast<double>(plan.window->g.out_count * plan.window->g.window_count);
  } else if (region.reduce != nullptr) {
    work.flops += static_cast<double>(n);
  }
  spec.fused = b.program().AddPlan(work);
  spec.in = in_regs;
  spec.out = outs;
  spec.mnemonic = "fusion";
  spec.variant = absl::StrCat(num_ops, " ops, tile ", plan.tile);
  if (window) {
    absl::StrAppend(&spec.variant, ", reduce-window");
  } else if (columns) {
    absl::StrAppend(&spec.variant, ", column reduce");
  } else if (plan.reduce.has_value()) {
    absl::StrAppend(&spec.variant, ", reduce");
    if (plan.rows_per_chunk < plan.reduce->g.out_count) {
      absl::StrAppend(&spec.variant, ", chunks of ", plan.rows_per_chunk, " rows");
    }
  } else if (plan.bands.has_value()) {
    const FusedPlan::Bands& g = *plan.bands;
    absl::StrAppend(&spec.variant, ", bands of ", g.band, " of ", g.lines, " lines, ", g.width,
                    " columns a block");
  } else if (plan.chunk < n) {
    absl::StrAppend(&spec.variant, ", chunks of ", plan.chunk);
  }
  spec.detail = std::move(detail);
  spec.cost = in_bytes + out_bytes;
  spec.plan = b.program().AddPlan(std::move(plan));
  b.Emit(region.root, std::move(spec));
  for (size_t k = 0; k < region.outputs.size(); ++k) {
    (*values)[region.outputs[k]] = ValueDesc{outs[k]};
  }
  if (region.reduce != nullptr) (*values)[region.reduce] = ValueDesc{outs.back()};
  return absl::OkStatus();
}

}  // namespace vm
}  // namespace hlovm
