#include "vm/collective_bus.h"

#include <algorithm>
#include <cstring>
#include <thread>
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

const char* CollectiveKindName(CollectiveKind kind) {
  switch (kind) {
    case CollectiveKind::kAllReduce:
      return "all-reduce";
    case CollectiveKind::kAllGather:
      return "all-gather";
    case CollectiveKind::kReduceScatter:
      return "reduce-scatter";
    case CollectiveKind::kAllToAll:
      return "all-to-all";
    case CollectiveKind::kCollectivePermute:
      return "collective-permute";
    case CollectiveKind::kCollectiveBroadcast:
      return "collective-broadcast";
    case CollectiveKind::kRaggedAllToAll:
      return "ragged-all-to-all";
  }
  return "collective";
}

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

// Small all-reduces are reduced whole by every instance; large ones are
// split: each instance reduces one slice for everyone.
constexpr int64_t kSplitReduceBytes = 16 * 1024;
// How long a waiter polls a meeting's generation before it blocks: long
// enough for peers that are running, short enough not to take the cores
// from peers that are still computing.
constexpr std::chrono::microseconds kSpinTime{50};

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

// Runs the instance at `rank`'s part of the op; `peers` by rank. Reads
// peers' inputs and writes this instance's results (and, for a large
// all-reduce, its slice of every peer's result).
absl::Status RunOp(absl::Span<const CollectiveOp* const> peers, int64_t rank) {
  const CollectiveOp& me = *peers[rank];
  const int64_t n = static_cast<int64_t>(peers.size());
  switch (me.kind) {
    case CollectiveKind::kAllReduce:
      for (size_t a = 0; a < me.in_shapes.size(); ++a) {
        const int eb = ByteWidth(me.in_shapes[a]->element_type());
        const int64_t count = ElementCount(*me.in_shapes[a]);
        if (count * eb <= kSplitReduceBytes) {
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

}  // namespace

absl::Status RunCollectiveAlone(const CollectiveOp& op) {
  const CollectiveOp* peers[1] = {&op};
  return RunOp(peers, 0);
}

//===----------------------------------------------------------------------===//
// InMemoryCollectiveBus.
//===----------------------------------------------------------------------===//

struct InMemoryCollectiveBus::Rendezvous {
  explicit Rendezvous(std::vector<int64_t> members)
      : members(std::move(members)), here(this->members.size()), rounds(this->members.size()) {
    for (int p = 0; p < 2; ++p) {
      view[p].resize(this->members.size());
      staged[p].resize(this->members.size());
    }
  }
  std::vector<int64_t> members;
  // This round's contributions by rank, in two sets used by alternate
  // rounds (a member can be one round ahead of a peer that is still reading).
  std::vector<const CollectiveOp*> view[2];
  // Small ops are copied in (the member need not wait for its peers to
  // finish reading): a copy of the op with `in` pointing at `bytes`.
  struct Staged {
    CollectiveOp op;
    std::vector<uint8_t> bytes;
    std::vector<const uint8_t*> in;
  };
  std::vector<Staged> staged[2];
  std::vector<char> here;                // at the current meeting
  int64_t count = 0;                     // how many are at the current meeting
  std::atomic<int64_t> gen{0};           // meetings completed (written under the lock)
  absl::Status broken;                   // set when the round failed: nobody may wait here
  std::vector<int64_t> rounds;           // rounds each member has entered
};

InMemoryCollectiveBus::InMemoryCollectiveBus(int64_t replicas, int64_t partitions,
                                             InMemoryBusOptions options)
    : replicas_(std::max<int64_t>(1, replicas)),
      partitions_(std::max<int64_t>(1, partitions)),
      options_(options),
      exited_(replicas_ * partitions_, 0),
      waiting_(replicas_ * partitions_, nullptr) {}

InMemoryCollectiveBus::~InMemoryCollectiveBus() = default;

std::string InMemoryCollectiveBus::Describe(int64_t instance) const {
  if (partitions_ == 1) return absl::StrCat("replica ", instance);
  return absl::StrCat("instance ", instance, " (replica ", instance / partitions_, ", partition ",
                      instance % partitions_, ")");
}

std::string InMemoryCollectiveBus::DescribeGroup(absl::Span<const int64_t> group) const {
  return absl::StrCat("group {", absl::StrJoin(group, ","), "}");
}

void InMemoryCollectiveBus::InstanceExited(int64_t self, bool failed) {
  absl::MutexLock lock(&mu_);
  if (self >= 0 && self < static_cast<int64_t>(exited_.size())) exited_[self] = failed ? 2 : 1;
  cv_.SignalAll();
}

void InMemoryCollectiveBus::Interrupt() {
  absl::MutexLock lock(&mu_);
  cv_.SignalAll();
}

absl::Status InMemoryCollectiveBus::Sync(Rendezvous& rv, int64_t rank, bool arrival,
                                         const CollectiveOp& op) {
  const int64_t n = static_cast<int64_t>(rv.members.size());
  const int64_t self = rv.members[rank];
  rv.here[rank] = 1;
  if (++rv.count == n) {
    rv.count = 0;
    std::fill(rv.here.begin(), rv.here.end(), 0);
    rv.gen.fetch_add(1, std::memory_order_release);
    cv_.SignalAll();
    return absl::OkStatus();
  }
  const int64_t gen = rv.gen.load(std::memory_order_relaxed);
  // Peers usually arrive within microseconds: watch the generation for a
  // short while before sleeping on the condition variable.
  mu_.Unlock();
  const auto spin_until = std::chrono::steady_clock::now() + kSpinTime;
  for (int spin = 1; rv.gen.load(std::memory_order_acquire) == gen; ++spin) {
    if (spin % 16 == 0) {
      if (std::chrono::steady_clock::now() >= spin_until) break;
      std::this_thread::yield();
    }
  }
  mu_.Lock();
  const absl::Time deadline = absl::Now() + absl::FromChrono(options_.timeout);
  waiting_[self] = arrival ? &rv : nullptr;
  absl::Status error;
  const std::string what = absl::StrCat(CollectiveKindName(op.kind), " in ",
                                        DescribeGroup(rv.members));
  while (rv.gen == gen) {
    if (!arrival) {
      // The last meeting of a round: no timeout, no cancellation (see Run).
      cv_.Wait(&mu_);
      continue;
    }
    if (!rv.broken.ok()) {
      error = absl::AbortedError(absl::StrCat(what, " failed in a peer: ", rv.broken.message()));
      break;
    }
    if (options_.cancel != nullptr && options_.cancel->load(std::memory_order_relaxed)) {
      error = absl::CancelledError(absl::StrCat(what, " cancelled: another instance failed"));
      break;
    }
    std::vector<std::string> gone, missing;
    for (int64_t k = 0; k < n; ++k) {
      if (rv.here[k]) continue;
      const int64_t m = rv.members[k];
      missing.push_back(Describe(m));
      if (arrival && exited_[m] != 0) {
        gone.push_back(absl::StrCat(Describe(m), exited_[m] == 1 ? " has already finished"
                                                                 : " has already failed"));
      }
    }
    // A member that waits to start another collective for which this
    // instance is missing waits for us while we wait for it.
    if (arrival && gone.empty()) {
      for (int64_t k = 0; k < n && gone.empty(); ++k) {
        const int64_t m = rv.members[k];
        const Rendezvous* other = rv.here[k] ? nullptr : waiting_[m];
        if (other == nullptr || other == &rv) continue;
        for (size_t j = 0; j < other->members.size(); ++j) {
          if (other->members[j] == self && !other->here[j]) {
            error = absl::FailedPreconditionError(absl::StrCat(
                what, " can never complete: ", Describe(m),
                " waits for this instance at another collective, in ",
                DescribeGroup(other->members)));
            break;
          }
        }
        if (!error.ok()) break;
      }
      if (!error.ok()) break;
    }
    if (!gone.empty()) {
      error = absl::FailedPreconditionError(absl::StrCat(
          what, " can never complete: ", absl::StrJoin(gone, ", "), " without taking part"));
      break;
    }
    if (absl::Now() >= deadline) {
      error = absl::DeadlineExceededError(absl::StrCat(
          what, " timed out after ", absl::FormatDuration(absl::FromChrono(options_.timeout)),
          ": ", absl::StrJoin(missing, ", "), " did not arrive"));
      break;
    }
    cv_.WaitWithDeadline(&mu_, deadline);
  }
  waiting_[self] = nullptr;
  if (!error.ok()) {
    rv.here[rank] = 0;
    --rv.count;
    if (rv.broken.ok()) rv.broken = error;
    cv_.SignalAll();
  }
  return error;
}

absl::Status InMemoryCollectiveBus::Run(int64_t self, const CollectiveOp& op) {
  if (op.group.size() <= 1) return RunCollectiveAlone(op);
  const int64_t n = static_cast<int64_t>(op.group.size());
  const int64_t rank = op.rank;
  int64_t in_bytes = 0;
  for (const Shape* s : op.in_shapes) in_bytes += Bytes(*s);
  // Small ops are staged: no second meeting.
  const bool staged = in_bytes <= kSplitReduceBytes;
  int parity = 0;
  Rendezvous* rv = nullptr;
  {
    absl::MutexLock lock(&mu_);
    std::unique_ptr<Rendezvous>& slot = rendezvous_[std::vector<int64_t>(op.group.begin(),
                                                                          op.group.end())];
    if (slot == nullptr) slot = std::make_unique<Rendezvous>(
        std::vector<int64_t>(op.group.begin(), op.group.end()));
    rv = slot.get();
    if (!rv->broken.ok()) {
      return absl::AbortedError(absl::StrCat(CollectiveKindName(op.kind), " in ",
                                             DescribeGroup(rv->members),
                                             " failed earlier: ", rv->broken.message()));
    }
    parity = rv->rounds[rank]++ % 2;
    if (staged) {
      Rendezvous::Staged& mine = rv->staged[parity][rank];
      mine.op = op;
      mine.bytes.resize(in_bytes);
      mine.in.resize(op.in_shapes.size());
      int64_t at = 0;
      for (size_t a = 0; a < op.in_shapes.size(); ++a) {
        const int64_t b = Bytes(*op.in_shapes[a]);
        if (b > 0) std::memcpy(mine.bytes.data() + at, op.in[a], b);
        mine.in[a] = mine.bytes.data() + at;
        at += b;
      }
      mine.op.in = mine.in.data();
      rv->view[parity][rank] = &mine.op;
    } else {
      rv->view[parity][rank] = &op;
    }
    HLOVM_RETURN_IF_ERROR(Sync(*rv, rank, /*arrival=*/true, op));
    // Every member checks the same contributions and reaches the same verdict.
    for (int64_t k = 0; k < n; ++k) {
      const CollectiveOp& peer = *rv->view[parity][k];
      std::string why;
      if (peer.hlo != op.hlo && (peer.kind != op.kind || peer.hlo == nullptr || op.hlo == nullptr ||
                                 peer.hlo->name() != op.hlo->name())) {
        why = absl::StrCat(Describe(rv->members[k]), " is at %",
                           peer.hlo ? peer.hlo->name() : std::string("?"), " (",
                           CollectiveKindName(peer.kind), ")");
      } else if (peer.in_shapes.size() != op.in_shapes.size() ||
                 peer.out_shapes.size() != op.out_shapes.size()) {
        why = absl::StrCat(Describe(rv->members[k]), " brings ", peer.in_shapes.size(),
                           " operands, not ", op.in_shapes.size());
      } else {
        for (size_t a = 0; a < op.in_shapes.size() && why.empty(); ++a) {
          if (!(*peer.in_shapes[a] == *op.in_shapes[a])) {
            why = absl::StrCat(Describe(rv->members[k]), " brings ", peer.in_shapes[a]->ToString(),
                               " where ", Describe(self), " brings ", op.in_shapes[a]->ToString());
          }
        }
      }
      if (!why.empty()) {
        absl::Status error = absl::FailedPreconditionError(
            absl::StrCat(CollectiveKindName(op.kind), " in ", DescribeGroup(rv->members),
                         " does not match: ", why));
        rv->broken = error;
        cv_.SignalAll();
        return error;
      }
    }
  }
  // Peers' buffers are read without the lock: they stay put until the
  // group meets again.
  absl::Status status = RunOp(absl::MakeConstSpan(rv->view[parity]), rank);
  absl::MutexLock lock(&mu_);
  if (!staged) {
    // Peers may still read this instance's buffers or write its results:
    // every member waits for every other here, whatever happened meanwhile
    // (all of them are past the arrival, so all of them come).
    (void)Sync(*rv, rank, /*arrival=*/false, op);
  }
  if (!status.ok()) {
    rv->broken = status;
    cv_.SignalAll();
  }
  return status;
}

absl::Status InMemoryCollectiveBus::Send(int64_t self, int64_t target, int64_t channel,
                                         const HloInstruction* hlo, const uint8_t* data,
                                         int64_t bytes) {
  std::vector<uint8_t> payload(data, data + bytes);
  absl::MutexLock lock(&mu_);
  mail_[{self, target, channel}].push_back(std::move(payload));
  cv_.SignalAll();
  return absl::OkStatus();
}

absl::Status InMemoryCollectiveBus::Recv(int64_t self, int64_t source, int64_t channel,
                                         const HloInstruction* hlo, uint8_t* data,
                                         int64_t bytes) {
  const absl::Time deadline = absl::Now() + absl::FromChrono(options_.timeout);
  absl::MutexLock lock(&mu_);
  const std::string what = absl::StrCat("recv on channel ", channel, " from ", Describe(source));
  while (true) {
    auto it = mail_.find({source, self, channel});
    if (it != mail_.end() && !it->second.empty()) {
      std::vector<uint8_t> payload = std::move(it->second.front());
      it->second.pop_front();
      if (static_cast<int64_t>(payload.size()) != bytes) {
        return absl::FailedPreconditionError(absl::StrCat(
            what, ": the message has ", payload.size(), " bytes, ", bytes, " expected"));
      }
      if (bytes > 0) std::memcpy(data, payload.data(), bytes);
      return absl::OkStatus();
    }
    if (source >= 0 && source < static_cast<int64_t>(exited_.size()) && exited_[source] != 0) {
      return absl::FailedPreconditionError(absl::StrCat(
          what, " can never complete: ", Describe(source),
          exited_[source] == 1 ? " has already finished" : " has already failed",
          " without sending"));
    }
    if (options_.cancel != nullptr && options_.cancel->load(std::memory_order_relaxed)) {
      return absl::CancelledError(absl::StrCat(what, " cancelled: another instance failed"));
    }
    if (absl::Now() >= deadline) {
      return absl::DeadlineExceededError(absl::StrCat(
          what, " timed out after ", absl::FormatDuration(absl::FromChrono(options_.timeout)),
          ": ", Describe(source), " did not send"));
    }
    cv_.WaitWithDeadline(&mu_, deadline);
  }
}

}  // namespace hlovm
