// The collective bus: the transport by which the VM instances of one
// multi-device run (R replicas x P partitions, instance id = replica * P +
// partition) meet at a collective and see each other's contributions. What
// a collective computes from them lives apart, in
// ops/collective/collective_semantics.h. See vm/COLLECTIVES.md.
//
// The VM describes each collective as a CollectiveOp: what kind, which
// instances take part (the group, in rank order, already resolved from
// replica_groups / channel_id / use_global_device_ids), and the buffers it
// sends from and receives into. A bus brings the group's CollectiveOps
// together (Meet) and releases them (Leave):
//
//   InMemoryCollectiveBus  all instances are threads of one process; each
//                          instance reads its peers' registered buffers
//                          directly (no copies in between, no per-element
//                          locks), then the group meets again before any
//                          buffer may change.
//   MessageCollectiveBus   (vm/message_bus.h) members exchange their
//                          contributions as messages: within the process
//                          through a mailbox, between processes through a
//                          link (MPI, vm/mpi_run.h).
#ifndef HLOVM_VM_COLLECTIVE_BUS_H_
#define HLOVM_VM_COLLECTIVE_BUS_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/types/span.h"
#include "core/hlo_ir.h"
#include "core/shape.h"
#include "vm/cancel_cause.h"

namespace hlovm {

namespace vm {
struct Function;
}  // namespace vm

enum class CollectiveKind : uint8_t {
  kAllReduce,
  kAllGather,
  kReduceScatter,
  kAllToAll,           // array form (dimension) or tuple form (one operand per peer)
  kCollectivePermute,  // group: every instance of the permute's domain
  kCollectiveBroadcast,
  // in: (input, output, input_offsets, send_sizes, output_offsets,
  // recv_sizes); out: the output with every peer's rows placed.
  kRaggedAllToAll,
};
const char* CollectiveKindName(CollectiveKind kind);

// How all-reduce and reduce-scatter combine two arrays of n elements:
// out[i] = f(a[i], b[i]). `kernel` is a vectorised kernel when the reducer
// is one binary op; otherwise `fn` is the compiled scalar reducer.
struct CollectiveReducer {
  void (*kernel)(const void* a, const void* b, void* out, int64_t n) = nullptr;
  const vm::Function* fn = nullptr;
  // Applies the reducer; false with `*error` set when the computation failed.
  bool Apply(const void* a, const void* b, void* out, int64_t n, int elem_bytes,
             absl::Status* error) const;
};

// The in-place form of collective-permute (`slice_sizes=`): operands
// (inputs, outputs, input offsets, output offsets) over `arrays` arrays, the
// source_target_pairs cut into `groups` equal runs. For array t and group k
// (entry t * groups + k) a slice of `sizes` is read from the source's input
// at its input offsets and written over a copy of the receiver's output at
// the receiver's output offsets; offsets are one integer scalar a
// dimension, clamped into bounds as dynamic-slice clamps them.
struct InPlacePermute {
  int64_t arrays = 0, groups = 0;
  std::vector<std::vector<int64_t>> sizes;
  // The operand index of the first offset scalar of each entry.
  std::vector<int64_t> in_offsets, out_offsets;
};

// What one instance brings to a collective.
struct CollectiveOp {
  CollectiveKind kind = CollectiveKind::kAllReduce;
  const HloInstruction* hlo = nullptr;  // names the op in errors; ops match by it
  // Instances taking part, in rank order, and this instance's rank in it.
  absl::Span<const int64_t> group;
  int64_t rank = 0;
  // One entry per array operand / result (row-major buffers).
  absl::Span<const Shape* const> in_shapes;
  absl::Span<const Shape* const> out_shapes;
  const uint8_t* const* in = nullptr;
  uint8_t* const* out = nullptr;
  // all-gather, reduce-scatter, all-to-all (array form): the dimension.
  int64_t dimension = -1;
  // all-to-all: true for the tuple form (operand k goes to rank k).
  bool tuple_form = false;
  // collective-permute: this instance receives from `source` (an instance
  // id, -1: nobody; the result is zeros).
  int64_t source = -1;
  // The in-place collective-permute: its form, and what this instance
  // receives, in pair order: (group, source instance).
  const InPlacePermute* in_place = nullptr;
  absl::Span<const std::pair<int64_t, int64_t>> receives;
  const CollectiveReducer* reducer = nullptr;
  // collective-permute: the instances that receive from this one (their
  // `source`, or a source in their `receives`); message transports send
  // this instance's inputs to them only.
  absl::Span<const int64_t> targets;
};

// The key a meeting checks: every member must bring the same collective
// (kind, instruction name and channel id) and the same operand shapes.
// Never an instruction's address: processes each have their own module.
std::string CollectiveKey(const CollectiveOp& op);

// An allocator whose resize leaves new elements uninitialised: a message's
// bytes are written over at once (a received one by MPI), and zeroing them
// first cost a pass over every large all-reduce's data.
template <typename T>
struct UninitializedAllocator : std::allocator<T> {
  template <typename U>
  struct rebind {
    using other = UninitializedAllocator<U>;
  };
  UninitializedAllocator() = default;
  template <typename U>
  UninitializedAllocator(const UninitializedAllocator<U>&) noexcept {}
  template <typename U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

// The bytes of a message between the members of a collective.
using MessageBytes = std::vector<uint8_t, UninitializedAllocator<uint8_t>>;

// Appends `n` bytes from `p` with one memcpy. (The vector's own insert, and
// its copy, construct element by element: its allocator has a construct of
// its own, so the library does not move the bytes as a block; 640 KB of an
// all-reduce went 16 bytes a step.)
inline void AppendBytes(MessageBytes& bytes, const void* p, size_t n) {
  const size_t at = bytes.size();
  bytes.resize(at + n);
  if (n > 0) std::memcpy(bytes.data() + at, p, n);
}

// A message holding a copy of `n` bytes from `p` (AppendBytes).
inline MessageBytes BytesOf(const void* p, size_t n) {
  MessageBytes bytes;
  AppendBytes(bytes, p, n);
  return bytes;
}

// Every member's contribution to one collective, by rank, as a bus hands
// them to the semantics (ops/collective/collective_semantics.h).
struct CollectiveMeeting {
  std::vector<const CollectiveOp*> peers;  // peers[op.rank] is this instance's own
  // The members' `out` buffers may be written by every member (one address
  // space, and the group meets again in Leave before any buffer changes).
  bool shared_results = false;
  // The bus's own state between Meet and Leave.
  void* state = nullptr;
  int parity = 0;
  bool staged = false;
  // Contributions a message bus received: ops whose `in` point into `bytes`.
  std::vector<CollectiveOp> received;
  std::vector<MessageBytes> bytes;
  std::vector<std::vector<const uint8_t*>> in;
};
class InMemoryCollectiveBus;

class CollectiveBus {
 public:
  virtual ~CollectiveBus() = default;
  virtual int64_t replica_count() const = 0;
  virtual int64_t partition_count() const = 0;
  int64_t instance_count() const { return replica_count() * partition_count(); }

  // Meets the group of `op` as instance `self`: returns once every
  // member's contribution is in `meeting` (by rank). Fails when a peer
  // brings a different collective or shape (every member fails alike),
  // when a peer has finished or failed before arriving, on timeout, or when
  // cancelled; Leave is then not called.
  virtual absl::Status Meet(int64_t self, const CollectiveOp& op, CollectiveMeeting* meeting) = 0;
  // Ends a meeting after this instance computed its results (`status`: how
  // that went). Returns once no peer reads this instance's buffers or
  // writes its results any more.
  virtual void Leave(int64_t self, const CollectiveOp& op, CollectiveMeeting& meeting,
                     const absl::Status& status) = 0;

  // A message transport also carries byte messages between the members of
  // a collective after its meeting (in order per pair of members): the
  // semantics then move a large all-reduce's data themselves, each member
  // sending (n-1)/n of the array twice instead of all of it to every peer.
  virtual bool CarriesMessages() const { return false; }
  // Posts one message to `peer`: `parts` one after another, after the key
  // of `keyed` where that is given (the first message of a collective to
  // each peer carries it, in place of a meeting). A transport that can
  // reads the parts in place while they travel: the caller keeps them
  // unchanged until FinishSends returns; another copies them at once.
  virtual void PostParts(int64_t self, int64_t peer, const CollectiveOp* keyed,
                         absl::Span<const absl::Span<const uint8_t>> parts) {}
  // Takes the next message from `peer`. With `body` given, the message must
  // begin with the key of `op` (PostParts with `keyed`): a peer that brings
  // another collective fails this wait as a meeting would, and `*body` is
  // where the parts begin.
  virtual absl::StatusOr<MessageBytes> TakeBytes(int64_t self, int64_t peer, const CollectiveOp& op,
                                                 int64_t* body = nullptr) {
    return absl::UnimplementedError("this bus carries no messages");
  }
  // Returns once the parts of every message `self` posted have left (their
  // memory may change), or fails as a wait for a message fails.
  virtual absl::Status FinishSends(int64_t self, const CollectiveOp& op) {
    return absl::OkStatus();
  }

  // A message transport over several processes: the bus on which the
  // instances of this process meet in memory (their buffers read in place),
  // and the process each instance lives in (equal for instances that share
  // memory). nullptr and 0 where every instance shares one process.
  virtual InMemoryCollectiveBus* LocalBus() { return nullptr; }
  virtual int64_t ProcessOf(int64_t instance) const { return 0; }

  // Point to point (send / recv on a channel): Send hands `bytes` of `data`
  // to the bus and returns; Recv waits for the message `source` sent on
  // `channel` and copies it into `data` (same size, else an error).
  virtual absl::Status Send(int64_t self, int64_t target, int64_t channel,
                            const HloInstruction* hlo, const uint8_t* data, int64_t bytes) = 0;
  virtual absl::Status Recv(int64_t self, int64_t source, int64_t channel,
                            const HloInstruction* hlo, uint8_t* data, int64_t bytes) = 0;

  // An instance has returned from Execute (`failed`: with an error). Peers
  // waiting for it fail at once.
  virtual void InstanceExited(int64_t self, bool failed) = 0;
};

struct InMemoryBusOptions {
  std::chrono::nanoseconds timeout = std::chrono::seconds(10);
  // Set to true to make every waiting instance fail (Cancelled).
  const std::atomic<bool>* cancel = nullptr;
  const CancelCause* cancel_cause = nullptr;  // why, for their errors
};

class InMemoryCollectiveBus final : public CollectiveBus {
 public:
  InMemoryCollectiveBus(int64_t replicas, int64_t partitions, InMemoryBusOptions options = {});
  ~InMemoryCollectiveBus() override;

  int64_t replica_count() const override { return replicas_; }
  int64_t partition_count() const override { return partitions_; }
  absl::Status Meet(int64_t self, const CollectiveOp& op, CollectiveMeeting* meeting) override;
  void Leave(int64_t self, const CollectiveOp& op, CollectiveMeeting& meeting,
             const absl::Status& status) override;
  absl::Status Send(int64_t self, int64_t target, int64_t channel, const HloInstruction* hlo,
                    const uint8_t* data, int64_t bytes) override;
  absl::Status Recv(int64_t self, int64_t source, int64_t channel, const HloInstruction* hlo,
                    uint8_t* data, int64_t bytes) override;
  void InstanceExited(int64_t self, bool failed) override;
  // Wakes every waiter so that it sees `options.cancel`.
  void Interrupt();
  // Leave for a meeting whose members share one outcome (one of them moved
  // the data for all): every member waits for every other, and each gets
  // the first error any of them brought (`status`), or OK.
  absl::Status LeaveTogether(int64_t self, const CollectiveOp& op, CollectiveMeeting& meeting,
                             const absl::Status& status);

 private:
  struct Rendezvous;
  // Waits until the rendezvous reaches the next generation; checks peers
  // that have not arrived (`arrival`) for exits and deadlocks.
  absl::Status Sync(Rendezvous& rv, int64_t rank, bool arrival, const CollectiveOp& op)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  std::string Describe(int64_t instance) const;
  std::string DescribeGroup(absl::Span<const int64_t> group) const;

  const int64_t replicas_, partitions_;
  const InMemoryBusOptions options_;
  absl::Mutex mu_;
  absl::CondVar cv_;
  std::map<std::vector<int64_t>, std::unique_ptr<Rendezvous>> rendezvous_ ABSL_GUARDED_BY(mu_);
  // Per instance: 0 running, 1 finished, 2 failed.
  std::vector<int> exited_ ABSL_GUARDED_BY(mu_);
  // Messages in flight: (source, target, channel) -> queue of payloads.
  std::map<std::tuple<int64_t, int64_t, int64_t>, std::deque<std::vector<uint8_t>>> mail_
      ABSL_GUARDED_BY(mu_);
  // Per instance: the rendezvous it waits at (null: none).
  std::vector<Rendezvous*> waiting_ ABSL_GUARDED_BY(mu_);
};

}  // namespace hlovm

#endif  // HLOVM_VM_COLLECTIVE_BUS_H_
