#include "vm/collective_bus.h"

#include <algorithm>
#include <cstring>
#include <thread>
#include <vector>


#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/element_type.h"
#include "core/status_macros.h"

namespace hlovm {

std::string CollectiveKey(const CollectiveOp& op) {
  std::string key = absl::StrCat(CollectiveKindName(op.kind), " %",
                                 op.hlo != nullptr ? op.hlo->name() : std::string("?"));
  if (op.hlo != nullptr && op.hlo->attrs().channel_id.has_value()) {
    absl::StrAppend(&key, " channel ", *op.hlo->attrs().channel_id);
  }
  absl::StrAppend(&key, " (");
  for (size_t a = 0; a < op.in_shapes.size(); ++a) {
    absl::StrAppend(&key, a == 0 ? "" : ", ", op.in_shapes[a]->ToString());
  }
  absl::StrAppend(&key, ")");
  return key;
}

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

namespace {

int64_t Bytes(const Shape& s) {
  int64_t n = ByteWidth(s.element_type());
  for (int64_t i = 0; i < s.rank(); ++i) n *= s.dimensions(i);
  return n;
}

// Contributions of at most this many bytes are copied in at the meeting
// (no second meeting); larger ones are read in place.
constexpr int64_t kStageBytes = 16 * 1024;
// How long a waiter polls a meeting's generation before it blocks: long
// enough for peers that are running, short enough not to take the cores
// from peers that are still computing.
constexpr std::chrono::microseconds kSpinTime{50};

}  // namespace

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
  absl::Status outcome[2];               // the round's first error (LeaveTogether)
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
      error = CancelledBy(what, options_.cancel_cause);
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

absl::Status InMemoryCollectiveBus::Meet(int64_t self, const CollectiveOp& op,
                                         CollectiveMeeting* meeting) {
  const int64_t n = static_cast<int64_t>(op.group.size());
  const int64_t rank = op.rank;
  int64_t in_bytes = 0;
  for (const Shape* s : op.in_shapes) in_bytes += Bytes(*s);
  // Small ops are staged: no second meeting.
  const bool staged = in_bytes <= kStageBytes;
  int parity = 0;
  Rendezvous* rv = nullptr;
  absl::MutexLock lock(&mu_);
  // One meeting place per group; the collective's key is checked there.
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
  // Every member clears it before the round's arrival completes; errors
  // come only after it (LeaveTogether).
  rv->outcome[parity] = absl::OkStatus();
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
    // The same collective: kind, instruction name and channel id (each
    // process of a distributed run has its own copy of the module).
    const bool same =
        peer.kind == op.kind && (peer.hlo == nullptr) == (op.hlo == nullptr) &&
        (op.hlo == nullptr || (peer.hlo->name() == op.hlo->name() &&
                               peer.hlo->attrs().channel_id == op.hlo->attrs().channel_id));
    if (!same) {
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
  // Peers' buffers are read without the lock: they stay put until the
  // group meets again in Leave.
  meeting->peers.assign(rv->view[parity].begin(), rv->view[parity].end());
  meeting->shared_results = !staged;
  meeting->state = rv;
  meeting->parity = parity;
  meeting->staged = staged;
  return absl::OkStatus();
}

void InMemoryCollectiveBus::Leave(int64_t self, const CollectiveOp& op,
                                  CollectiveMeeting& meeting, const absl::Status& status) {
  auto* rv = static_cast<Rendezvous*>(meeting.state);
  absl::MutexLock lock(&mu_);
  if (!meeting.staged) {
    // Peers may still read this instance's buffers or write its results:
    // every member waits for every other here, whatever happened meanwhile
    // (all of them are past the arrival, so all of them come).
    (void)Sync(*rv, op.rank, /*arrival=*/false, op);
  }
  if (!status.ok()) {
    rv->broken = status;
    cv_.SignalAll();
  }
}

absl::Status InMemoryCollectiveBus::LeaveTogether(int64_t self, const CollectiveOp& op,
                                                  CollectiveMeeting& meeting,
                                                  const absl::Status& status) {
  auto* rv = static_cast<Rendezvous*>(meeting.state);
  absl::MutexLock lock(&mu_);
  absl::Status& outcome = rv->outcome[meeting.parity];
  if (!status.ok() && outcome.ok()) outcome = status;
  // Staged or not: the members' outcome is known once all of them are here.
  (void)Sync(*rv, op.rank, /*arrival=*/false, op);
  absl::Status result = outcome;
  if (!result.ok()) {
    rv->broken = result;
    cv_.SignalAll();
  }
  return result;
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
      return CancelledBy(what, options_.cancel_cause);
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
