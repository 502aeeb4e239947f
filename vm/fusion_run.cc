// Loop fusion, running: the handlers of a `fusion` instruction compute its
// region tile by tile (or band by band where it reads a transpose that moves
// the innermost dimension), chunks of tiles in parallel, and fold the root
// into a fused reduce or reduce-window as it is computed; the handler of a
// convolution with its region runs the region over each unit's sums.
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "core/thread_scratch.h"
#include "ops/dot/conv.h"
#include "ops/dot/unit_kernel.h"
#include "ops/elementwise/f32_program.h"
#include "ops/shape/transpose.h"
#include "vm/fusion_internal.h"
#include "vm/lowering.h"

namespace hlovm {
namespace vm {
namespace fusion_internal {
namespace {

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

}  // namespace

// Elements [begin, end) of the region; `rows` holds the root's elements
// from `rows_origin` on (fused reduce).
void RunTiles(const FusedPlan& p, const RegionBuffers& io, int64_t begin, int64_t end,
              uint8_t* rows, int64_t rows_origin) {
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
      case Src::kInput: return const_cast<uint8_t*>(io.in[s.index]) + offset * s.size;
      case Src::kScalar: return const_cast<uint8_t*>(io.in[s.index]);
      case Src::kOutput: return io.out[s.index] + offset * s.size;
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
        GatherTransposed(p.transposes[op.transpose], op.dst.size, io.in[op.src[0].index], d, offset,
                         len);
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
              GatherColumns(p.transposes[op.transpose], g.size, io.in[op.src[0].index], offset, len,
                            width, g.band, block);
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

RegionBuffers::RegionBuffers(const Instr& instr, uint8_t* const* regs) {
  in_ptrs.resize(instr.num_in);
  for (uint32_t k = 0; k < instr.num_in; ++k) in_ptrs[k] = regs[instr.in[k]];
  out_ptrs.resize(instr.num_out);
  for (uint32_t k = 0; k < instr.num_out; ++k) out_ptrs[k] = regs[instr.out[k]];
  in = in_ptrs.data();
  out = out_ptrs.data();
}

bool FusedHandler(const Instr& instr, uint8_t* const* regs, ExecContext& ctx) {
  const auto& p = *static_cast<const FusedPlan*>(instr.plan);
  const RegionBuffers io(instr, regs);
  // Elements in tiles, or units of bands.
  const bool bands = p.bands.has_value();
  ForEachChunk(ctx, bands ? p.bands->units() : p.n, bands ? p.bands->units_per_task : p.chunk,
               [&](int64_t b, int64_t e) { RunTiles(p, io, b, e); });
  return true;
}

// A convolution with its region: per unit, the convolution's sums, then
// the region over the unit's result runs, reading the sums where the unit
// left them (the result itself, written over, or its tile buffer) and
// writing the region's values to the result.
bool ConvEpilogueHandler(const Instr& instr, uint8_t* const* regs, ExecContext& ctx) {
  const auto& e = *static_cast<const ConvEpilogue*>(instr.plan);
  const ConvPlan& p = e.conv;
  const FusedPlan& region = *e.region;
  uint8_t* out = regs[instr.out[0]];
  const uint8_t* lhs = regs[instr.in[0]];
  const uint8_t* rhs = regs[instr.in[1]];
  RegionBuffers io;
  io.in_ptrs.resize(instr.num_in - 1);
  for (uint32_t k = 0, j = 2; k < io.in_ptrs.size(); ++k) {
    io.in_ptrs[k] = k == e.conv_input ? out : regs[instr.in[j++]];
  }
  io.out_ptrs.push_back(out);
  io.in = io.in_ptrs.data();
  io.out = io.out_ptrs.data();
  if (!e.steps.empty()) {
    ConvEpilogueStep steps[kMaxConvEpilogueSteps];
    for (size_t k = 0; k < e.steps.size(); ++k) {
      steps[k].op = e.steps[k].op;
      steps[k].kind = e.steps[k].kind;
      steps[k].reversed = e.steps[k].reversed;
      steps[k].data = reinterpret_cast<const float*>(io.in_ptrs[e.steps[k].input]);
    }
    const int count = static_cast<int>(e.steps.size());
    return RunUnitKernel(
        ctx, p, "convolution", kParallelConvFlops,
        [&](uint8_t* scratch) { return ConvPrepare(p, lhs, rhs, out, scratch); },
        [&](const auto& bufs, int64_t b, int64_t end) {
          ConvUnitsWithEpilogue(p, bufs, b, end, steps, count);
        },
        [&](const auto& bufs) { ConvFinish(p, bufs, out); });
  }
  return RunUnitKernel(
      ctx, p, "convolution", kParallelConvFlops,
      [&](uint8_t* scratch) { return ConvPrepare(p, lhs, rhs, out, scratch); },
      [&](const auto& bufs, int64_t b, int64_t end) {
        // This thread's view of the inputs: the sums where the sink finds
        // them (the result itself, or a tile not copied into it).
        RegionBuffers mine;
        mine.in_ptrs = io.in_ptrs;
        mine.out_ptrs = io.out_ptrs;
        mine.in = mine.in_ptrs.data();
        mine.out = mine.out_ptrs.data();
        ConvUnitsTo(p, bufs, b, end, [&](const float* sums, int64_t first, int64_t last) {
          mine.in_ptrs[e.conv_input] = reinterpret_cast<const uint8_t*>(
              reinterpret_cast<uintptr_t>(sums) - static_cast<uintptr_t>(first) * sizeof(float));
          RunTiles(region, mine, first, last);
        });
      },
      [&](const auto& bufs) { ConvFinish(p, bufs, out); });
}

// A region whose root feeds a row reduce: per chunk of output rows, the
// region computes the rows, then each row folds as the op-by-op reduce
// folds it.
bool FusedReduceHandler(const Instr& instr, uint8_t* const* regs, ExecContext& ctx) {
  const auto& p = *static_cast<const FusedPlan*>(instr.plan);
  const RegionBuffers io(instr, regs);
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
        RunTiles(p, io, b * inner, e * inner);
        ReduceRunsBlock(r.g, r.elem_size, r.op, r.fold, regs[instr.out[p.rows_output]], init, out,
                        b, e);
        continue;
      }
      struct ReduceRows;
      uint8_t* rows = ThreadScratch<ReduceRows>((e - b) * inner * p.root_size);
      RunTiles(p, io, b * inner, e * inner, rows, b * inner);
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
  const RegionBuffers io(instr, regs);
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
          RunTiles(p, io, at, at + cols);
          return regs[instr.out[p.rows_output]] + at * p.root_size;
        }
        uint8_t* dst = scratch + k * p.col_block * p.root_size;
        RunTiles(p, io, at, at + cols, dst, at);
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
  const RegionBuffers io(instr, regs);
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
        RunTiles(p, io, first * row, (last + 1) * row, band, first * row);
      }
      FoldWindowRows(w.g, w.rows, w.elem_size, w.op, band, first, init, out, q0, q1);
    }
  });
  return true;
}

}  // namespace fusion_internal
}  // namespace vm
}  // namespace hlovm
