// MessageCollectiveBus: a collective bus whose members exchange their
// contributions as messages instead of reading each other's buffers. Each
// member of a collective sends every other member one message (the
// collective's key, and its inputs where that member reads them) and takes
// one from each; ops/collective/collective_semantics.h then computes on the
// received copies, so the results are those of the in-memory bus bit for
// bit. Messages between instances of this process go through a mailbox;
// messages to instances of other processes go through a MessageLink (MPI:
// vm/mpi_run.h). Sends never wait (messages are copied out), receives wait
// with the collective timeout.
//
// Messages between two instances keep their order per stream (stream 0:
// collectives; 1 + channel id: send/recv). Every instance takes part in its
// collectives in program order, so the k-th collective message from a peer
// belongs to this instance's k-th collective with that peer: its key must
// match, or both sides fail at once naming what each brought.
#ifndef HLOVM_VM_MESSAGE_BUS_H_
#define HLOVM_VM_MESSAGE_BUS_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "vm/collective_bus.h"

namespace hlovm {

// Carries messages to the instances of other processes.
class MessageLink {
 public:
  virtual ~MessageLink() = default;
  // Queues `payload` for instance `target` (not of this process); returns
  // at once.
  virtual void Post(int64_t source, int64_t target, int64_t stream, MessageBytes payload) = 0;
  // As Post, with the payload copied (a small one straight into the
  // message that carries it).
  virtual void PostCopy(int64_t source, int64_t target, int64_t stream,
                        absl::Span<const uint8_t> payload) {
    Post(source, target, stream, BytesOf(payload.data(), payload.size()));
  }
  // Queues one message of `head`, then `parts`, for instance `target`,
  // reading the parts in place: `unsent` counts each part until it has
  // left, and the caller keeps the parts unchanged until it is 0 again.
  // (This one copies them.)
  virtual void PostParts(int64_t source, int64_t target, int64_t stream, MessageBytes head,
                         absl::Span<const absl::Span<const uint8_t>> parts,
                         std::atomic<int64_t>* unsent) {
    for (absl::Span<const uint8_t> part : parts) AppendBytes(head, part.data(), part.size());
    Post(source, target, stream, std::move(head));
  }
  // Tells the other processes that instance `instance` (of this process)
  // has returned from Execute.
  virtual void PostExit(int64_t instance, bool failed) = 0;
  // The process that runs `instance`, for messages ("rank 2").
  virtual std::string ProcessOf(int64_t instance) const = 0;
  // Moves messages on the calling thread (sends what is queued, takes what
  // arrived) unless another thread is doing so; returns whether anything
  // moved. An instance waiting for a message drives the link itself, so no
  // hand-off between threads stands between an arrival and its reader.
  // `yielded` (when given) says whether the round ran, moved nothing and
  // gave up the core itself (MPI's progress loop does where it was told to
  // yield when idle): the caller need not yield again.
  virtual bool Pump(bool* yielded = nullptr) {
    if (yielded != nullptr) *yielded = false;
    return false;
  }
  // A thread begins to wait for a message of another process, polling with
  // Pump (the link's own thread need not poll while another does).
  virtual void PollingStarted() {}
  // It stops polling: `got` says whether its message came; if not, it
  // sleeps or gives up, and the link's own thread moves what comes.
  virtual void PollingStopped(bool got) {}
  // A thread begins and ends a wait for a message of another process
  // (polling or asleep): while none waits and nothing is in flight, the
  // link's own thread need not watch for arrivals closely.
  virtual void WaitStarted() {}
  virtual void WaitEnded() {}
};

struct MessageBusOptions {
  std::chrono::nanoseconds timeout = std::chrono::seconds(10);
  // Set to true to make every waiting instance fail (Cancelled).
  const std::atomic<bool>* cancel = nullptr;
  const CancelCause* cancel_cause = nullptr;  // why, for their errors
  // The instances of this process: [first_local, first_local +
  // local_count); local_count 0 means all. Others are reached by `link`.
  int64_t first_local = 0;
  int64_t local_count = 0;
  MessageLink* link = nullptr;
  // Whether an instance that polls for a message yields the core between
  // rounds from the start: needed where instances outnumber the cores (a
  // peer may be the thread it would yield to). Where every instance of the
  // machine has a core, a round's yield only adds a system call to each
  // message, and hands the core to any other process there for a time
  // slice: a wait then spins, an instance's own thread until it sleeps, an
  // exchange thread for its first 10 us (bounding what it takes from the
  // instance's kernels) and yields after.
  bool yield_while_polling = true;
};

class MessageCollectiveBus final : public CollectiveBus {
 public:
  MessageCollectiveBus(int64_t replicas, int64_t partitions, MessageBusOptions options = {});

  int64_t replica_count() const override { return replicas_; }
  int64_t partition_count() const override { return partitions_; }
  absl::Status Meet(int64_t self, const CollectiveOp& op, CollectiveMeeting* meeting) override;
  void Leave(int64_t self, const CollectiveOp& op, CollectiveMeeting& meeting,
             const absl::Status& status) override {}
  absl::Status Send(int64_t self, int64_t target, int64_t channel, const HloInstruction* hlo,
                    const uint8_t* data, int64_t bytes) override;
  absl::Status Recv(int64_t self, int64_t source, int64_t channel, const HloInstruction* hlo,
                    uint8_t* data, int64_t bytes) override;
  void InstanceExited(int64_t self, bool failed) override;
  bool CarriesMessages() const override { return true; }
  void PostParts(int64_t self, int64_t peer, const CollectiveOp* keyed,
                 absl::Span<const absl::Span<const uint8_t>> parts) override;
  absl::StatusOr<MessageBytes> TakeBytes(int64_t self, int64_t peer, const CollectiveOp& op,
                                         int64_t* body = nullptr) override;
  absl::Status FinishSends(int64_t self, const CollectiveOp& op) override;
  // Over several processes (a link), this process's instances also meet in
  // memory, where the semantics read each other's buffers in place.
  InMemoryCollectiveBus* LocalBus() override { return local_.get(); }
  int64_t ProcessOf(int64_t instance) const override;

  // From the link: a message of a remote instance for a local one, and the
  // end of a remote instance.
  void Deliver(int64_t source, int64_t target, int64_t stream, MessageBytes payload);
  void RemoteExited(int64_t instance, bool failed);
  // Wakes every waiter so that it sees `options.cancel`.
  void Interrupt();
  // Makes every wait fail at once with `reason` (the job is ending).
  void Terminate(const std::string& reason);

  bool IsLocal(int64_t instance) const;
  // An instance as this bus's messages name it: "replica 2 on rank 1".
  std::string Describe(int64_t instance) const;

 private:
  // Sends `payload` from `self` to `target` on `stream`.
  void Put(int64_t self, int64_t target, int64_t stream, MessageBytes payload);
  // The same with a copy of `payload`.
  void PutCopy(int64_t self, int64_t target, int64_t stream, absl::Span<const uint8_t> payload);
  // The start of this instance's messages for `op`: its key (the group, the
  // collective, its operand shapes) after its length, padded to the
  // inputs' alignment; kept for the next op of the same instruction.
  const MessageBytes& Header(int64_t self, const CollectiveOp& op);
  // Checks that the message `bytes` from instance `from` begins with the
  // key of `header` (this instance's, Header); sets `*body` to where the
  // rest begins. A different key is a mismatch (every member finds it); a
  // message too short for its key is malformed.
  absl::Status CheckKey(int64_t self, const CollectiveOp& op, int64_t from,
                        const MessageBytes& header, const MessageBytes& bytes, int64_t* body);
  // Waits for the next message from `source` to `self` on `stream`;
  // `what` names the wait in errors, `missing` what the source failed to do.
  absl::StatusOr<MessageBytes> Take(int64_t self, int64_t source, int64_t stream,
                                    absl::Time deadline, absl::FunctionRef<std::string()> what,
                                    const char* missing);

  const int64_t replicas_, partitions_;
  const MessageBusOptions options_;
  // Where several instances of this process share a link (else null).
  std::unique_ptr<InMemoryCollectiveBus> local_;
  absl::Mutex mu_;
  absl::CondVar cv_;
  // Per instance: 0 running, 1 finished, 2 failed.
  std::vector<int> exited_ ABSL_GUARDED_BY(mu_);
  std::string terminated_ ABSL_GUARDED_BY(mu_);
  std::map<std::tuple<int64_t, int64_t, int64_t>, std::deque<MessageBytes>> mail_
      ABSL_GUARDED_BY(mu_);
  // Per instance: the header of its last collective (Header).
  struct KeyCache {
    const HloInstruction* hlo = nullptr;
    CollectiveKind kind = CollectiveKind::kAllReduce;
    std::vector<int64_t> group;
    MessageBytes header;
  };
  std::vector<KeyCache> keys_;
  // Per instance: the parts of its messages that the link still reads in
  // place (PostParts, FinishSends).
  std::vector<std::atomic<int64_t>> unsent_;
};

}  // namespace hlovm

#endif  // HLOVM_VM_MESSAGE_BUS_H_
