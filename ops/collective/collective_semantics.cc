// The semantics of the collectives: what each instance of a group computes
// from every member's contribution (see vm/COLLECTIVES.md), whatever moved
// the contributions. A transport (vm/collective_bus.h: the in-memory bus,
// the message bus the MPI runs use) gathers the members' contributions for
// one collective; ComputeCollective then writes this instance's results.
#include "ops/collective/collective_semantics.h"

#include <algorithm>
#include <cstring>
#include <utility>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/element_type.h"
#include "core/status_macros.h"
#include "core/thread_scratch.h"
#include "vm/computation_call.h"

namespace hlovm {

bool CollectiveReducer::Apply(const void* a, const void* b, void* out, int64_t n, int elem_bytes,
                              absl::Status* error) const {
  if (kernel != nullptr) {
    kernel(a, b, out, n);
    return true;
  }
  auto call = vm::ComputationCall::Create(*fn);
  if (!call.ok()) {
    *error = call.status();
    return false;
  }
  vm::ExecContext ctx;
  ctx.threads = 1;
  const auto* pa = static_cast<const uint8_t*>(a);
  const auto* pb = static_cast<const uint8_t*>(b);
  auto* po = static_cast<uint8_t*>(out);
  for (int64_t i = 0; i < n; ++i) {
    const void* args[2] = {pa + i * elem_bytes, pb + i * elem_bytes};
    if (!call->Run(args, ctx)) {
      *error = ctx.Result();
      return false;
    }
    std::memmove(po + i * elem_bytes, call->result(0), elem_bytes);
  }
  return true;
}

namespace {

int64_t ElementCount(const Shape& s) {
  int64_t n = 1;
  for (int64_t i = 0; i < s.rank(); ++i) n *= s.dimensions(i);
  return n;
}
int64_t Bytes(const Shape& s) { return ElementCount(s) * ByteWidth(s.element_type()); }

// A row-major array seen as [outer, dim, inner] around `dimension`.
struct Split3 {
  int64_t outer = 1, dim = 1, inner = 1;
};
Split3 SplitAt(const Shape& s, int64_t dimension) {
  Split3 v;
  for (int64_t i = 0; i < s.rank(); ++i) {
    if (i < dimension) v.outer *= s.dimensions(i);
    if (i == dimension) v.dim = s.dimensions(i);
    if (i > dimension) v.inner *= s.dimensions(i);
  }
  return v;
}

// Small all-reduces are reduced whole by every instance; large ones, when
// the members' results are shared, are split: each instance reduces one
// slice for everyone.
constexpr int64_t kSplitReduceBytes = 16 * 1024;

// Element range [begin, end) of slice `k` of `count` elements over `n`.
std::pair<int64_t, int64_t> Slice(int64_t count, int64_t n, int64_t k) {
  int64_t per = (count + n - 1) / n;
  per = (per + 15) / 16 * 16;
  const int64_t begin = std::min(count, k * per);
  return {begin, std::min(count, begin + per)};
}

// Copies `bytes` from a cache-resident block to memory nobody reads soon,
// with streaming stores where the target allows (no read-for-ownership of
// the destination: a large all-reduce writes every result once).
void StreamCopy(uint8_t* dst, const uint8_t* src, int64_t bytes) {
#if defined(__SSE2__)
  const int64_t head = std::min<int64_t>(bytes, (16 - reinterpret_cast<uintptr_t>(dst) % 16) % 16);
  std::memcpy(dst, src, head);
  int64_t i = head;
  for (; i + 16 <= bytes; i += 16) {
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i),
                     _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i)));
  }
  std::memcpy(dst + i, src + i, bytes - i);
#else
  std::memcpy(dst, src, bytes);
#endif
}

// Reduces [begin, end) of array `a` over every peer (in rank order) into
// `out`, and into each of `copies` (other results that receive the same
// elements, at the same offset as `out`).
absl::Status ReduceRange(absl::Span<const CollectiveOp* const> peers, size_t a, int64_t src_off,
                         uint8_t* out, int64_t count, int elem_bytes,
                         const CollectiveReducer& reducer,
                         absl::Span<uint8_t* const> copies = {}) {
  if (count <= 0) return absl::OkStatus();
  // Blocks that stay in cache while every peer's contribution is added: the
  // inputs are read once and each result written once. The order of the
  // reduction (by rank) is the same for every element.
  const int64_t block = std::max<int64_t>(1, (32 * 1024) / elem_bytes);
  absl::Status error;
  struct AllReduceStaging;
  uint8_t* staging = copies.empty() ? nullptr : ThreadScratch<AllReduceStaging>(block * elem_bytes);
  for (int64_t b = 0; b < count; b += block) {
    const int64_t m = std::min(block, count - b);
    const int64_t off = src_off + b * elem_bytes;
    // With copies, the block is reduced in a staging buffer and streamed
    // out to every result.
    uint8_t* dst = copies.empty() ? out + b * elem_bytes : staging;
    std::memcpy(dst, peers[0]->in[a] + off, m * elem_bytes);
    for (size_t r = 1; r < peers.size(); ++r) {
      if (!reducer.Apply(dst, peers[r]->in[a] + off, dst, m, elem_bytes, &error)) return error;
    }
    if (!copies.empty()) {
      StreamCopy(out + b * elem_bytes, dst, m * elem_bytes);
      for (uint8_t* c : copies) StreamCopy(c + b * elem_bytes, dst, m * elem_bytes);
    }
  }
#if defined(__SSE2__)
  if (!copies.empty()) _mm_sfence();
#endif
  return absl::OkStatus();
}

// Operand `index` of `op`, an integer scalar.
int64_t ScalarOperand(const CollectiveOp& op, int64_t index) {
  const uint8_t* p = op.in[index];
  switch (op.in_shapes[index]->element_type()) {
    case ElementType::kS8: return *reinterpret_cast<const int8_t*>(p);
    case ElementType::kU8: return *p;
    case ElementType::kS16: return *reinterpret_cast<const int16_t*>(p);
    case ElementType::kU16: return *reinterpret_cast<const uint16_t*>(p);
    case ElementType::kS32: return *reinterpret_cast<const int32_t*>(p);
    case ElementType::kU32: return *reinterpret_cast<const uint32_t*>(p);
    case ElementType::kU64: {
      const uint64_t v = *reinterpret_cast<const uint64_t*>(p);
      return v > static_cast<uint64_t>(INT64_MAX) ? INT64_MAX : static_cast<int64_t>(v);
    }
    default: return *reinterpret_cast<const int64_t*>(p);
  }
}

// Copies the box `sizes` at `src_at` of the row-major `src` to `dst_at` of
// `dst`; the box lies inside both.
void CopyBox(const uint8_t* src, const Shape& src_shape, const int64_t* src_at, uint8_t* dst,
             const Shape& dst_shape, const int64_t* dst_at, const int64_t* sizes, int eb) {
  const int64_t rank = src_shape.rank();
  for (int64_t d = 0; d < rank; ++d) {
    if (sizes[d] == 0) return;
  }
  if (rank == 0) {
    std::memcpy(dst, src, eb);
    return;
  }
  // Strides in bytes; the innermost dimension is copied whole.
  std::vector<int64_t> src_stride(rank), dst_stride(rank);
  int64_t ss = eb, ds = eb;
  for (int64_t d = rank - 1; d >= 0; --d) {
    src_stride[d] = ss;
    dst_stride[d] = ds;
    ss *= src_shape.dimensions(d);
    ds *= dst_shape.dimensions(d);
  }
  const uint8_t* s0 = src;
  uint8_t* d0 = dst;
  for (int64_t d = 0; d < rank; ++d) {
    s0 += src_at[d] * src_stride[d];
    d0 += dst_at[d] * dst_stride[d];
  }
  const int64_t row = sizes[rank - 1] * eb;
  std::vector<int64_t> index(rank, 0);
  while (true) {
    int64_t so = 0, dof = 0;
    for (int64_t d = 0; d + 1 < rank; ++d) {
      so += index[d] * src_stride[d];
      dof += index[d] * dst_stride[d];
    }
    std::memcpy(d0 + dof, s0 + so, row);
    int64_t d = rank - 2;
    while (d >= 0 && ++index[d] == sizes[d]) index[d--] = 0;
    if (d < 0) return;
  }
}

// The in-place collective-permute: the result starts as the output operand,
// then each slice this instance receives is written over it.
absl::Status PermuteSlices(absl::Span<const CollectiveOp* const> peers, int64_t rank) {
  const CollectiveOp& me = *peers[rank];
  const InPlacePermute& form = *me.in_place;
  for (int64_t t = 0; t < form.arrays; ++t) {
    std::memcpy(me.out[t], me.in[form.arrays + t], Bytes(*me.out_shapes[t]));
  }
  for (const auto& [group, source] : me.receives) {
    const CollectiveOp* src = nullptr;
    for (size_t k = 0; k < peers.size(); ++k) {
      if (me.group[k] == source) src = peers[k];
    }
    if (src == nullptr) return absl::InternalError("in-place permute source outside its group");
    for (int64_t t = 0; t < form.arrays; ++t) {
      const int64_t entry = t * form.groups + group;
      const std::vector<int64_t>& sizes = form.sizes[entry];
      const Shape& in_shape = *src->in_shapes[t];
      const Shape& out_shape = *me.out_shapes[t];
      const int64_t r = in_shape.rank();
      std::vector<int64_t> from(r), to(r);
      for (int64_t d = 0; d < r; ++d) {
        from[d] = std::clamp<int64_t>(ScalarOperand(*src, form.in_offsets[entry] + d), 0,
                                      in_shape.dimensions(d) - sizes[d]);
        to[d] = std::clamp<int64_t>(ScalarOperand(me, form.out_offsets[entry] + d), 0,
                                    out_shape.dimensions(d) - sizes[d]);
      }
      CopyBox(src->in[t], in_shape, from.data(), me.out[t], out_shape, to.data(), sizes.data(),
              ByteWidth(in_shape.element_type()));
    }
  }
  return absl::OkStatus();
}

}  // namespace

// Runs the instance at `rank`'s part of the op; `peers` by rank. Reads
// peers' inputs and writes this instance's results (and, for a large
// all-reduce with `shared_results`, its slice of every peer's result).
absl::Status ComputeCollective(absl::Span<const CollectiveOp* const> peers, int64_t rank,
                               bool shared_results) {
  const CollectiveOp& me = *peers[rank];
  const int64_t n = static_cast<int64_t>(peers.size());
  switch (me.kind) {
    case CollectiveKind::kAllReduce:
      for (size_t a = 0; a < me.in_shapes.size(); ++a) {
        const int eb = ByteWidth(me.in_shapes[a]->element_type());
        const int64_t count = ElementCount(*me.in_shapes[a]);
        if (count * eb <= kSplitReduceBytes || !shared_results) {
          // Reduced whole here, in the same order by rank as the split
          // path below: the same bits either way.
          HLOVM_RETURN_IF_ERROR(ReduceRange(peers, a, 0, me.out[a], count, eb, *me.reducer));
          continue;
        }
        // Each instance reduces its own slice from every peer's input and
        // writes it straight into every peer's result.
        auto [b, e] = Slice(count, n, rank);
        std::vector<uint8_t*> copies;
        for (int64_t k = 0; k < n; ++k) {
          if (k != rank) copies.push_back(peers[k]->out[a] + b * eb);
        }
        HLOVM_RETURN_IF_ERROR(ReduceRange(peers, a, b * eb, me.out[a] + b * eb, e - b, eb,
                                          *me.reducer, copies));
      }
      return absl::OkStatus();
    case CollectiveKind::kReduceScatter:
      for (size_t a = 0; a < me.in_shapes.size(); ++a) {
        const int eb = ByteWidth(me.in_shapes[a]->element_type());
        const Split3 v = SplitAt(*me.out_shapes[a], me.dimension);
        const int64_t block = v.dim * v.inner;  // elements per outer index
        for (int64_t o = 0; o < v.outer; ++o) {
          const int64_t src = (o * n + rank) * block * eb;
          HLOVM_RETURN_IF_ERROR(
              ReduceRange(peers, a, src, me.out[a] + o * block * eb, block, eb, *me.reducer));
        }
      }
      return absl::OkStatus();
    case CollectiveKind::kAllGather:
      for (size_t a = 0; a < me.in_shapes.size(); ++a) {
        const int eb = ByteWidth(me.in_shapes[a]->element_type());
        const Split3 v = SplitAt(*me.in_shapes[a], me.dimension);
        const int64_t block = v.dim * v.inner * eb;
        for (int64_t o = 0; o < v.outer; ++o) {
          for (int64_t k = 0; k < n; ++k) {
            std::memcpy(me.out[a] + (o * n + k) * block, peers[k]->in[a] + o * block, block);
          }
        }
      }
      return absl::OkStatus();
    case CollectiveKind::kAllToAll:
      if (me.tuple_form) {
        for (int64_t k = 0; k < n; ++k) {
          std::memcpy(me.out[k], peers[k]->in[rank], Bytes(*me.out_shapes[k]));
        }
        return absl::OkStatus();
      }
      for (size_t a = 0; a < me.in_shapes.size(); ++a) {
        const int eb = ByteWidth(me.in_shapes[a]->element_type());
        const Split3 v = SplitAt(*me.in_shapes[a], me.dimension);
        const int64_t chunk = v.dim / n * v.inner * eb;
        for (int64_t o = 0; o < v.outer; ++o) {
          for (int64_t k = 0; k < n; ++k) {
            std::memcpy(me.out[a] + (o * n + k) * chunk, peers[k]->in[a] + (o * n + rank) * chunk,
                        chunk);
          }
        }
      }
      return absl::OkStatus();
    case CollectiveKind::kCollectivePermute: {
      if (me.in_place != nullptr) return PermuteSlices(peers, rank);
      const CollectiveOp* src = nullptr;
      for (int64_t k = 0; k < n; ++k) {
        if (me.group[k] == me.source) src = peers[k];
      }
      for (size_t a = 0; a < me.out_shapes.size(); ++a) {
        const int64_t bytes = Bytes(*me.out_shapes[a]);
        if (src != nullptr) {
          std::memcpy(me.out[a], src->in[a], bytes);
        } else {
          std::memset(me.out[a], 0, bytes);
        }
      }
      return absl::OkStatus();
    }
    case CollectiveKind::kCollectiveBroadcast:
      for (size_t a = 0; a < me.out_shapes.size(); ++a) {
        std::memcpy(me.out[a], peers[0]->in[a], Bytes(*me.out_shapes[a]));
      }
      return absl::OkStatus();
    case CollectiveKind::kRaggedAllToAll: {
      const Shape& in_shape = *me.in_shapes[0];
      const Shape& out_shape = *me.out_shapes[0];
      const int eb = ByteWidth(in_shape.element_type());
      const int64_t in_rows = in_shape.rank() == 0 ? 1 : in_shape.dimensions(0);
      const int64_t out_rows = out_shape.rank() == 0 ? 1 : out_shape.dimensions(0);
      const int64_t row = in_rows == 0 ? 0 : Bytes(in_shape) / in_rows;
      std::memcpy(me.out[0], me.in[1], Bytes(out_shape));
      auto read = [](const CollectiveOp& op, int which, int64_t index) -> int64_t {
        const Shape& s = *op.in_shapes[which];
        const int64_t count = ElementCount(s);
        if (index >= count) return -1;
        if (s.element_type() == ElementType::kS64) {
          int64_t v;
          std::memcpy(&v, op.in[which] + index * 8, 8);
          return v;
        }
        int32_t v;
        std::memcpy(&v, op.in[which] + index * 4, 4);
        return v;
      };
      for (int64_t k = 0; k < n; ++k) {
        const CollectiveOp& src = *peers[k];
        const int64_t off = read(src, 2, rank), size = read(src, 3, rank),
                      dst = read(src, 4, rank);
        if (off < 0 || size < 0 || dst < 0 || off + size > in_rows || dst + size > out_rows) {
          return absl::OutOfRangeError(absl::StrCat(
              "ragged-all-to-all: rank ", k, " sends rows [", off, ", ", off + size,
              ") of ", in_rows, " to rows [", dst, ", ", dst + size, ") of ", out_rows,
              " at rank ", rank));
        }
        if (size > 0) std::memcpy(me.out[0] + dst * row, src.in[0] + off * row, size * row);
      }
      (void)eb;
      return absl::OkStatus();
    }
  }
  return absl::InternalError("unknown collective");
}

absl::Status RunCollectiveAlone(const CollectiveOp& op) {
  const CollectiveOp* peers[1] = {&op};
  return ComputeCollective(peers, 0, /*shared_results=*/true);
}

namespace {

// All-reduces of more bytes than this over a message transport move their
// data as a reduce-scatter and an all-gather (AllReduceByMessages).
constexpr int64_t kMessageSplitBytes = 64 * 1024;

// Messages of a large all-reduce carry at most this many bytes: a member
// reduces a chunk of its slice as soon as every member's copy of it came,
// while the next chunks travel, and sends it on at once; buffers this size
// are reused by malloc where larger ones would be fresh pages each time.
constexpr int64_t kChunkBytes = 1 << 20;

// The members of a group by process (CollectiveBus::ProcessOf): homes in
// the order of their first members' ranks, each home's ranks in order.
// Without a local bus every member is a home of its own.
struct Homes {
  std::vector<std::vector<int64_t>> ranks;  // by home
  std::vector<int64_t> home;                // by rank: its home
  std::vector<int64_t> place;               // by rank: its index in its home
  int64_t mine = 0;                         // this member's home
};

Homes HomesOf(CollectiveBus& bus, const CollectiveOp& op) {
  const int64_t n = static_cast<int64_t>(op.group.size());
  const bool by_process = bus.LocalBus() != nullptr;
  Homes h;
  h.home.resize(n);
  h.place.resize(n);
  std::vector<int64_t> processes;
  for (int64_t k = 0; k < n; ++k) {
    const int64_t process = by_process ? bus.ProcessOf(op.group[k]) : k;
    const int64_t at = std::find(processes.begin(), processes.end(), process) - processes.begin();
    if (at == static_cast<int64_t>(processes.size())) {
      processes.push_back(process);
      h.ranks.emplace_back();
    }
    h.home[k] = at;
    h.place[k] = static_cast<int64_t>(h.ranks[at].size());
    h.ranks[at].push_back(k);
  }
  h.mine = h.home[op.rank];
  return h;
}

// A large all-reduce over a message transport, led in each process by the
// member of the group with the lowest rank there (the others meet it in
// memory and wait; `local` holds every local member's op by its place in
// the home). Leader j reduces slice j (Slice, over the homes) of every
// array from every member's input, folded in rank order as
// ComputeCollective folds it, and sends the reduced slice to every other
// leader; each leader writes what it reduced and received into the results
// of its home's members. The inputs of a leader's own home are read in
// place; another home's come in one message per chunk, its members' ranges
// one after another in rank order. A slice (its arrays' ranges one after
// another) travels in chunks of whole elements (kChunkBytes); every leader
// cuts it alike, and from each leader the messages come in the order sent:
// all of its chunks of this leader's slice, then its reduced chunks. The
// leaders check each other's keys on the first of them (no meeting first:
// a round of messages less). Messages are sent from the members' inputs
// and the leader's results in place (CollectiveBus::PostParts), and the
// leader returns only once they have left: a reduced chunk from leader j
// comes only after j took this home's chunks of slice j, so results written
// over inputs (an all-reduce in place) are never sent.
absl::Status LeadAllReduce(CollectiveBus& bus, int64_t self, const CollectiveOp& op,
                           const Homes& homes, absl::Span<const CollectiveOp* const> local) {
  const int64_t n = static_cast<int64_t>(op.group.size());
  const int64_t m = static_cast<int64_t>(homes.ranks.size());
  const int64_t me = homes.mine;
  const int64_t local_count = static_cast<int64_t>(local.size());
  std::vector<int64_t> leaders(m);
  for (int64_t j = 0; j < m; ++j) leaders[j] = homes.ranks[j][0];
  auto leader = [&](int64_t j) { return op.group[leaders[j]]; };
  const size_t arrays = op.in_shapes.size();
  std::vector<int> eb(arrays);
  std::vector<int64_t> count(arrays);
  for (size_t a = 0; a < arrays; ++a) {
    eb[a] = ByteWidth(op.in_shapes[a]->element_type());
    count[a] = ElementCount(*op.in_shapes[a]);
  }
  // Elements [begin, end) of array `a`.
  struct Run {
    size_t a;
    int64_t begin, end;
  };
  using Chunk = std::vector<Run>;
  // The chunks of slice j (one, maybe empty, at least).
  auto chunks_of = [&](int64_t j) {
    std::vector<Chunk> chunks(1);
    int64_t bytes = 0;
    for (size_t a = 0; a < arrays; ++a) {
      auto [b, e] = Slice(count[a], m, j);
      while (b < e) {
        const int64_t room = (kChunkBytes - bytes) / eb[a];
        if (room <= 0) {
          chunks.emplace_back();
          bytes = 0;
          continue;
        }
        const int64_t take = std::min(e - b, room);
        chunks.back().push_back(Run{a, b, b + take});
        bytes += take * eb[a];
        b += take;
      }
    }
    return chunks;
  };
  auto chunk_bytes = [&](const Chunk& chunk) {
    int64_t bytes = 0;
    for (const Run& r : chunk) bytes += (r.end - r.begin) * eb[r.a];
    return bytes;
  };
  // Adds the chunk's ranges of the arrays `from` to `parts`.
  auto ranges = [&](const Chunk& chunk, auto from, std::vector<absl::Span<const uint8_t>>& parts) {
    for (const Run& r : chunk) {
      parts.emplace_back(from[r.a] + r.begin * eb[r.a], (r.end - r.begin) * eb[r.a]);
    }
  };
  // Writes the chunk's ranges of `bytes` (laid out one after another) into
  // the results of every local member but `skip`; a null `bytes` means this
  // leader's own results.
  auto unpack = [&](const Chunk& chunk, const uint8_t* bytes, int64_t skip) {
    for (int64_t l = 0; l < local_count; ++l) {
      if (l == skip) continue;
      int64_t offset = 0;
      for (const Run& r : chunk) {
        const int64_t size = (r.end - r.begin) * eb[r.a];
        const uint8_t* from = bytes != nullptr ? bytes + offset : op.out[r.a] + r.begin * eb[r.a];
        std::memcpy(local[l]->out[r.a] + r.begin * eb[r.a], from, size);
        offset += size;
      }
    }
  };
  std::vector<absl::Span<const uint8_t>> parts;
  absl::Status status = [&]() -> absl::Status {
    // Reduce-scatter: leader j gets the chunks of slice j of every input,
    // the first with this leader's key.
    for (int64_t j = 0; j < m; ++j) {
      if (j == me) continue;
      bool first = true;
      for (const Chunk& chunk : chunks_of(j)) {
        parts.clear();
        for (int64_t l = 0; l < local_count; ++l) ranges(chunk, local[l]->in, parts);
        bus.PostParts(self, leader(j), first ? &op : nullptr, parts);
        first = false;
      }
    }
    absl::Status error;
    std::vector<MessageBytes> got(m);
    std::vector<int64_t> body(m, 0);  // where a message's ranges begin
    bool first = true;
    const int64_t place = homes.place[op.rank];
    for (const Chunk& chunk : chunks_of(me)) {
      const int64_t want = chunk_bytes(chunk);
      for (int64_t j = 0; j < m; ++j) {
        if (j == me) continue;
        body[j] = 0;
        auto bytes = bus.TakeBytes(self, leader(j), op, first ? &body[j] : nullptr);
        if (!bytes.ok()) return bytes.status();
        const int64_t expected = want * static_cast<int64_t>(homes.ranks[j].size());
        if (static_cast<int64_t>(bytes->size()) - body[j] != expected) {
          return absl::InternalError(absl::StrCat("all-reduce: member ", leaders[j], " sent ",
                                                  static_cast<int64_t>(bytes->size()) - body[j],
                                                  " bytes of a chunk of slice ", me, ", ", expected,
                                                  " expected"));
        }
        got[j] = std::move(*bytes);
      }
      first = false;
      int64_t at = 0;  // the run's place in the chunk
      for (const Run& r : chunk) {
        const int64_t len = r.end - r.begin;
        const int w = eb[r.a];
        uint8_t* dst = op.out[r.a] + r.begin * w;
        auto from = [&](int64_t k) -> const uint8_t* {
          const int64_t j = homes.home[k];
          if (j == me) return local[homes.place[k]]->in[r.a] + r.begin * w;
          return got[j].data() + body[j] + homes.place[k] * want + at;
        };
        std::memcpy(dst, from(0), len * w);
        for (int64_t k = 1; k < n; ++k) {
          if (!op.reducer->Apply(dst, from(k), dst, len, w, &error)) return error;
        }
        at += len * w;
      }
      // All-gather, chunk by chunk: every leader gets every reduced chunk,
      // sent from this leader's results.
      unpack(chunk, nullptr, place);
      parts.clear();
      ranges(chunk, op.out, parts);
      for (int64_t j = 0; j < m; ++j) {
        if (j != me) bus.PostParts(self, leader(j), nullptr, parts);
      }
    }
    for (int64_t j = 0; j < m; ++j) {
      if (j == me) continue;
      for (const Chunk& chunk : chunks_of(j)) {
        auto bytes = bus.TakeBytes(self, leader(j), op);
        if (!bytes.ok()) return bytes.status();
        if (static_cast<int64_t>(bytes->size()) != chunk_bytes(chunk)) {
          return absl::InternalError(absl::StrCat("all-reduce: member ", leaders[j], " sent ",
                                                  bytes->size(),
                                                  " bytes of a chunk of its reduced slice"));
        }
        unpack(chunk, bytes->data(), -1);
      }
    }
    return absl::OkStatus();
  }();
  // Whatever happened, the messages leave before the buffers they are sent
  // from may change.
  absl::Status sent = bus.FinishSends(self, op);
  return status.ok() ? sent : status;
}

// A large all-reduce over a message transport: the members of each process
// meet in memory (CollectiveBus::LocalBus), and its leader moves the data
// for all of them (LeadAllReduce); each member gets the leader's outcome.
absl::Status AllReduceByMessages(CollectiveBus& bus, int64_t self, const CollectiveOp& op) {
  const Homes homes = HomesOf(bus, op);
  const std::vector<int64_t>& mine = homes.ranks[homes.mine];
  if (mine.size() == 1) {
    const CollectiveOp* alone[1] = {&op};
    return LeadAllReduce(bus, self, op, homes, alone);
  }
  InMemoryCollectiveBus& local = *bus.LocalBus();
  std::vector<int64_t> members(mine.size());
  for (size_t l = 0; l < mine.size(); ++l) members[l] = op.group[mine[l]];
  CollectiveOp local_op = op;
  local_op.group = members;
  local_op.rank = homes.place[op.rank];
  CollectiveMeeting meeting;
  if (absl::Status met = local.Meet(self, local_op, &meeting); !met.ok()) {
    return absl::Status(met.code(), absl::StrCat(met.message(), " (the members in this process of ",
                                                 "group {", absl::StrJoin(op.group, ","), "})"));
  }
  absl::Status status;
  if (local_op.rank == 0) status = LeadAllReduce(bus, self, op, homes, meeting.peers);
  return local.LeaveTogether(self, local_op, meeting, status);
}

}  // namespace

absl::Status RunCollective(CollectiveBus& bus, int64_t self, const CollectiveOp& op) {
  if (op.group.size() <= 1) return RunCollectiveAlone(op);
  if (InMemoryCollectiveBus* local = bus.LocalBus()) {
    // A group within this process meets in memory.
    const int64_t process = bus.ProcessOf(self);
    bool here = true;
    for (int64_t member : op.group) here = here && bus.ProcessOf(member) == process;
    if (here) {
      CollectiveMeeting meeting;
      HLOVM_RETURN_IF_ERROR(local->Meet(self, op, &meeting));
      absl::Status status = ComputeCollective(meeting.peers, op.rank, meeting.shared_results);
      local->Leave(self, op, meeting, status);
      return status;
    }
  }
  if (op.kind == CollectiveKind::kAllReduce && bus.CarriesMessages()) {
    int64_t bytes = 0;
    for (const Shape* s : op.in_shapes) bytes += Bytes(*s);
    if (bytes > kMessageSplitBytes) return AllReduceByMessages(bus, self, op);
  }
  CollectiveMeeting meeting;
  HLOVM_RETURN_IF_ERROR(bus.Meet(self, op, &meeting));
  absl::Status status = ComputeCollective(meeting.peers, op.rank, meeting.shared_results);
  bus.Leave(self, op, meeting, status);
  return status;
}

}  // namespace hlovm
