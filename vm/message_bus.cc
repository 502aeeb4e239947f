#include "vm/message_bus.h"

#include <algorithm>
#include <cstring>
#include <thread>
#include <utility>

#include "absl/algorithm/container.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "core/element_type.h"
#include "core/status_macros.h"
#include "vm/async_exchange.h"

namespace hlovm {
namespace {

// How long Take polls (yielding the core between rounds) after the last
// message moved before it sleeps. Where processes share cores, a peer may
// answer only after the other threads' time slices; sleeping sooner then
// adds a wake-up to each message (a scalar all-reduce of 4 processes on 2
// cores made 10x the futex calls with 50 us). A count of rounds is no
// bound: a round lasts from a fraction of a microsecond to a time slice.
constexpr absl::Duration kPollTime = absl::Milliseconds(1);
// How long an exchange thread's wait spins before it yields, where
// instances have cores of their own (MessageBusOptions::yield_while_polling):
// its instance's kernels may want the core. An instance's own thread waits
// for nothing else there and spins until it sleeps: a yield gives the core
// to any other process on it for a whole time slice, and the peer, queued
// behind a third process on the other core, does not get it (2000 scalar
// all-reduces of 2 processes on 2 cores beside one busy process took
// 1.7-2.9 s with a yield after 10 us, 5-8 ms without).
constexpr absl::Duration kSpinTime = absl::Microseconds(10);

int64_t Bytes(const Shape& s) {
  int64_t n = ByteWidth(s.element_type());
  for (int64_t i = 0; i < s.rank(); ++i) n *= s.dimensions(i);
  return n;
}

std::string DescribeGroup(absl::Span<const int64_t> group) {
  return absl::StrCat("group {", absl::StrJoin(group, ","), "}");
}

// What errors call a collective: its kind and group, and (`named`) its
// instruction.
std::string DescribeCollective(const CollectiveOp& op, bool named) {
  std::string what = absl::StrCat(CollectiveKindName(op.kind), " in ", DescribeGroup(op.group));
  if (named) absl::StrAppend(&what, " (%", op.hlo ? op.hlo->name() : std::string("?"), ")");
  return what;
}

// Whether the other members read the inputs of the member at `rank`
// (collective-permute: only its targets, see Meet).
bool Read(const CollectiveOp& op, int64_t rank) {
  switch (op.kind) {
    case CollectiveKind::kCollectivePermute:
      // Known on the sending side: the instances that receive from it.
      return false;
    case CollectiveKind::kCollectiveBroadcast:
      return rank == 0;
    default:
      return true;
  }
}

// The inputs follow a message's key, each at a multiple of kInputAlignment
// bytes from the start of the message (whose storage malloc aligns at
// least so), so that kernels read the received arrays at their types'
// alignment.
constexpr int64_t kInputAlignment = 16;
int64_t AlignUp(int64_t at) {
  return (at + kInputAlignment - 1) / kInputAlignment * kInputAlignment;
}

// The key at the start of a message (its length, then its bytes); false
// where the message is too short to hold it.
bool KeyOf(const MessageBytes& bytes, absl::string_view* key) {
  uint64_t length = 0;
  if (bytes.size() >= 8) std::memcpy(&length, bytes.data(), 8);
  if (bytes.size() < 8 || bytes.size() - 8 < length) return false;
  *key = absl::string_view(reinterpret_cast<const char*>(bytes.data()) + 8, length);
  return true;
}

}  // namespace

MessageCollectiveBus::MessageCollectiveBus(int64_t replicas, int64_t partitions,
                                           MessageBusOptions options)
    : replicas_(std::max<int64_t>(1, replicas)),
      partitions_(std::max<int64_t>(1, partitions)),
      options_(options),
      exited_(replicas_ * partitions_, 0),
      keys_(replicas_ * partitions_),
      unsent_(replicas_ * partitions_) {
  if (options_.link != nullptr && options_.local_count > 1) {
    InMemoryBusOptions local;
    local.timeout = options_.timeout;
    local.cancel = options_.cancel;
    local.cancel_cause = options_.cancel_cause;
    local_ = std::make_unique<InMemoryCollectiveBus>(replicas_, partitions_, local);
  }
}

int64_t MessageCollectiveBus::ProcessOf(int64_t instance) const {
  if (options_.link == nullptr || options_.local_count <= 0) return 0;
  return instance / options_.local_count;
}

bool MessageCollectiveBus::IsLocal(int64_t instance) const {
  if (options_.link == nullptr || options_.local_count <= 0) return true;
  return instance >= options_.first_local &&
         instance < options_.first_local + options_.local_count;
}

std::string MessageCollectiveBus::Describe(int64_t instance) const {
  std::string name =
      partitions_ == 1
          ? absl::StrCat("replica ", instance)
          : absl::StrCat("instance ", instance, " (replica ", instance / partitions_,
                         ", partition ", instance % partitions_, ")");
  if (options_.link != nullptr) absl::StrAppend(&name, " on ", options_.link->ProcessOf(instance));
  return name;
}

void MessageCollectiveBus::Put(int64_t self, int64_t target, int64_t stream, MessageBytes payload) {
  if (!IsLocal(target)) {
    options_.link->Post(self, target, stream, std::move(payload));
    return;
  }
  absl::MutexLock lock(&mu_);
  mail_[{self, target, stream}].push_back(std::move(payload));
  cv_.SignalAll();
}

void MessageCollectiveBus::PutCopy(int64_t self, int64_t target, int64_t stream,
                                   absl::Span<const uint8_t> payload) {
  if (!IsLocal(target)) {
    options_.link->PostCopy(self, target, stream, payload);
    return;
  }
  Put(self, target, stream, BytesOf(payload.data(), payload.size()));
}

void MessageCollectiveBus::Deliver(int64_t source, int64_t target, int64_t stream,
                                   MessageBytes payload) {
  absl::MutexLock lock(&mu_);
  mail_[{source, target, stream}].push_back(std::move(payload));
  cv_.SignalAll();
}

void MessageCollectiveBus::RemoteExited(int64_t instance, bool failed) {
  absl::MutexLock lock(&mu_);
  if (instance >= 0 && instance < static_cast<int64_t>(exited_.size())) {
    exited_[instance] = failed ? 2 : 1;
  }
  cv_.SignalAll();
}

void MessageCollectiveBus::InstanceExited(int64_t self, bool failed) {
  RemoteExited(self, failed);
  if (local_ != nullptr) local_->InstanceExited(self, failed);
  if (options_.link != nullptr) options_.link->PostExit(self, failed);
}

void MessageCollectiveBus::Terminate(const std::string& reason) {
  {
    absl::MutexLock lock(&mu_);
    terminated_ = reason;
    cv_.SignalAll();
  }
  if (local_ != nullptr) local_->Interrupt();
}

void MessageCollectiveBus::Interrupt() {
  {
    absl::MutexLock lock(&mu_);
    cv_.SignalAll();
  }
  if (local_ != nullptr) local_->Interrupt();
}

absl::StatusOr<MessageBytes> MessageCollectiveBus::Take(int64_t self, int64_t source,
                                                        int64_t stream, absl::Time deadline,
                                                        absl::FunctionRef<std::string()> what,
                                                        const char* missing) {
  // A message of another process: this thread moves the link's messages
  // itself while it polls (MessageLink::Pump), and tells the link so.
  MessageLink* const link =
      options_.link != nullptr && !IsLocal(source) ? options_.link : nullptr;
  // Declared before the lock: its destructor runs after the lock is
  // released.
  struct Waiting {
    explicit Waiting(MessageLink* l) : link(l) {
      if (link != nullptr) link->WaitStarted();
    }
    ~Waiting() {
      if (link != nullptr) link->WaitEnded();
    }
    MessageLink* const link;
  } waiting(link);
  struct Pumping {
    MessageLink* link = nullptr;  // set while this thread polls the link
    bool got = false;
    void Stop() {
      if (link != nullptr) link->PollingStopped(got);
      link = nullptr;
    }
    ~Pumping() { Stop(); }
  } pumping;
  absl::MutexLock lock(&mu_);
  // A message is usually microseconds away: poll, yielding the core, before
  // sleeping on the condition variable (whose wake-up costs a switch of
  // threads on each side).
  absl::Time poll_until = absl::InfinitePast();
  absl::Time spin_until = absl::InfinitePast();  // see yield_while_polling
  // An instance's own thread never yields where instances have cores of
  // their own; an exchange thread does after kSpinTime (see there).
  const bool exchange_thread = vm::OnExchangeThread();
  bool polled = false;
  // The clock is read every kClockRounds rounds (a read costs as much as
  // the rest of a round that finds nothing).
  constexpr int kClockRounds = 16;
  absl::Time now;
  int rounds = 0;
  while (true) {
    auto it = mail_.find({source, self, stream});
    if (it != mail_.end() && !it->second.empty()) {
      MessageBytes payload = std::move(it->second.front());
      it->second.pop_front();
      pumping.got = true;
      return payload;
    }
    if (source >= 0 && source < static_cast<int64_t>(exited_.size()) && exited_[source] != 0) {
      return absl::FailedPreconditionError(
          absl::StrCat(what(), " can never complete: ", Describe(source),
                       exited_[source] == 1 ? " has already finished" : " has already failed",
                       " without ", missing));
    }
    if (!terminated_.empty()) {
      return absl::AbortedError(
          absl::StrCat(what(), " ended: ", terminated_, "; ", Describe(source), " did not arrive"));
    }
    if (options_.cancel != nullptr && options_.cancel->load(std::memory_order_relaxed)) {
      return CancelledBy(what(), options_.cancel_cause);
    }
    if (rounds++ % kClockRounds == 0) now = absl::Now();
    if (now >= deadline) {
      return absl::DeadlineExceededError(absl::StrCat(
          what(), " timed out after ", absl::FormatDuration(absl::FromChrono(options_.timeout)),
          ": ", Describe(source), " did not arrive"));
    }
    if (!polled) {
      polled = true;
      poll_until = now + kPollTime;
      spin_until = now + kSpinTime;
    }
    if (now < poll_until) {
      mu_.Unlock();
      if (link != nullptr && pumping.link == nullptr) {
        link->PollingStarted();
        pumping.link = link;
      }
      bool yielded = false;
      if (link != nullptr && link->Pump(&yielded)) {
        poll_until = now + kPollTime;  // messages flow: poll on
      } else if (!yielded) {
        if (options_.yield_while_polling || (exchange_thread && now >= spin_until)) {
          std::this_thread::yield();
        } else {
#if defined(__x86_64__) || defined(__i386__)
          __builtin_ia32_pause();
#endif
        }
      }
      mu_.Lock();
      continue;
    }
    if (pumping.link != nullptr) {
      // The link's own thread moves what comes now (told without mu_: the
      // link takes its locks before the bus's).
      mu_.Unlock();
      pumping.Stop();
      mu_.Lock();
      continue;
    }
    cv_.WaitWithDeadline(&mu_, std::min(deadline, absl::Now() + absl::Milliseconds(100)));
    rounds = 0;
  }
}

const MessageBytes& MessageCollectiveBus::Header(int64_t self, const CollectiveOp& op) {
  // An instance meets its collectives one at a time (its own thread, or the
  // exchange thread after it): its slot is its alone.
  KeyCache& cache = keys_[self];
  if (op.hlo != nullptr && cache.hlo == op.hlo && cache.kind == op.kind &&
      absl::c_equal(cache.group, op.group)) {
    return cache.header;
  }
  // The key every member must bring: the group, the collective and its
  // operand shapes.
  const std::string key = absl::StrCat(DescribeGroup(op.group), " ", CollectiveKey(op));
  const uint64_t key_size = key.size();
  MessageBytes& header = cache.header;
  header.assign(AlignUp(8 + static_cast<int64_t>(key_size)), 0);
  std::memcpy(header.data(), &key_size, 8);
  std::memcpy(header.data() + 8, key.data(), key_size);
  cache.hlo = op.hlo;
  cache.kind = op.kind;
  cache.group.assign(op.group.begin(), op.group.end());
  return header;
}

absl::Status MessageCollectiveBus::Meet(int64_t self, const CollectiveOp& op,
                                        CollectiveMeeting* meeting) {
  const int64_t n = static_cast<int64_t>(op.group.size());
  const int64_t rank = op.rank;
  const absl::Time deadline = absl::Now() + absl::FromChrono(options_.timeout);
  const MessageBytes& header = Header(self, op);
  int64_t in_bytes = 0;  // the inputs with the padding between them
  for (const Shape* s : op.in_shapes) in_bytes = AlignUp(in_bytes) + Bytes(*s);
  MessageBytes with_inputs;
  auto reads_mine = [&](int64_t k) {
    if (op.kind == CollectiveKind::kCollectivePermute) {
      return std::find(op.targets.begin(), op.targets.end(), op.group[k]) != op.targets.end();
    }
    return Read(op, rank);
  };
  for (int64_t k = 0; k < n; ++k) {
    if (k == rank) continue;
    if (!reads_mine(k)) {
      PutCopy(self, op.group[k], 0, header);
      continue;
    }
    if (with_inputs.empty()) {
      with_inputs.reserve(header.size() + in_bytes);
      AppendBytes(with_inputs, header.data(), header.size());
      for (size_t a = 0; a < op.in_shapes.size(); ++a) {
        with_inputs.resize(AlignUp(static_cast<int64_t>(with_inputs.size())), 0);
        AppendBytes(with_inputs, op.in[a], Bytes(*op.in_shapes[a]));
      }
    }
    PutCopy(self, op.group[k], 0, with_inputs);
  }
  meeting->received.assign(n, op);
  meeting->bytes.assign(n, {});
  meeting->in.assign(n, {});
  meeting->peers.assign(n, nullptr);
  meeting->shared_results = false;
  // What the errors call this collective (made only for an error).
  auto what = [&] { return DescribeCollective(op, /*named=*/false); };
  auto what_named = [&] { return DescribeCollective(op, /*named=*/true); };
  absl::Status mismatch;
  for (int64_t k = 0; k < n; ++k) {
    if (k == rank) {
      meeting->peers[k] = &op;
      continue;
    }
    auto message = Take(self, op.group[k], 0, deadline, what_named, "taking part");
    // A peer that brought another collective is the cause of what follows
    // (its process's other members may never send: a large all-reduce's
    // followers leave the messages to their leader).
    if (!message.ok() && !mismatch.ok()) return mismatch;
    if (!message.ok()) {
      // Name every other member whose message has not come either.
      std::vector<std::string> also;
      {
        absl::MutexLock lock(&mu_);
        for (int64_t j = k + 1; j < n; ++j) {
          if (j == rank) continue;
          auto it = mail_.find({op.group[j], self, 0});
          if (it == mail_.end() || it->second.empty()) also.push_back(Describe(op.group[j]));
        }
      }
      if (also.empty() || message.status().code() == absl::StatusCode::kCancelled) {
        return message.status();
      }
      return absl::Status(message.status().code(),
                          absl::StrCat(message.status().message(), "; nor did ",
                                       absl::StrJoin(also, ", ")));
    }
    MessageBytes& bytes = *message;
    int64_t start = 0;
    if (absl::Status checked = CheckKey(self, op, op.group[k], header, bytes, &start);
        !checked.ok()) {
      if (checked.code() != absl::StatusCode::kFailedPrecondition) return checked;
      // Every member compares every key with its own: all of them fail.
      if (mismatch.ok()) mismatch = checked;
      continue;
    }
    const int64_t body = static_cast<int64_t>(bytes.size()) - start;
    CollectiveOp& peer = meeting->received[k];
    meeting->in[k].assign(op.in_shapes.size(), nullptr);
    if (body > 0) {
      if (body != in_bytes) {
        return absl::InternalError(absl::StrCat(what(), ": ", Describe(op.group[k]), " sent ", body,
                                                " bytes of inputs, ", in_bytes, " expected"));
      }
      meeting->bytes[k] = std::move(bytes);
      int64_t at = 0;
      for (size_t a = 0; a < op.in_shapes.size(); ++a) {
        at = AlignUp(at);
        meeting->in[k][a] = meeting->bytes[k].data() + start + at;
        at += Bytes(*op.in_shapes[a]);
      }
    }
    peer.in = meeting->in[k].data();
    peer.out = nullptr;
    peer.rank = k;
    meeting->peers[k] = &peer;
  }
  return mismatch;
}

absl::Status MessageCollectiveBus::CheckKey(int64_t self, const CollectiveOp& op, int64_t from,
                                            const MessageBytes& header, const MessageBytes& bytes,
                                            int64_t* body) {
  absl::string_view key, theirs;
  KeyOf(header, &key);
  if (!KeyOf(bytes, &theirs)) {
    return absl::InternalError(absl::StrCat(DescribeCollective(op, /*named=*/false),
                                            ": a malformed message from ", Describe(from)));
  }
  if (theirs != key) {
    return absl::FailedPreconditionError(
        absl::StrCat(DescribeCollective(op, /*named=*/false), " does not match: ", Describe(from),
                     " brings ", theirs, " where ", Describe(self), " brings ", key));
  }
  // A message without a body (a key alone) may end at the key.
  *body = std::min<int64_t>(AlignUp(8 + static_cast<int64_t>(theirs.size())),
                            static_cast<int64_t>(bytes.size()));
  return absl::OkStatus();
}

void MessageCollectiveBus::PostParts(int64_t self, int64_t peer, const CollectiveOp* keyed,
                                     absl::Span<const absl::Span<const uint8_t>> parts) {
  MessageBytes head;
  if (keyed != nullptr) head = Header(self, *keyed);
  if (!IsLocal(peer)) {
    options_.link->PostParts(self, peer, 0, std::move(head), parts, &unsent_[self]);
    return;
  }
  for (absl::Span<const uint8_t> part : parts) AppendBytes(head, part.data(), part.size());
  Put(self, peer, 0, std::move(head));
}

absl::StatusOr<MessageBytes> MessageCollectiveBus::TakeBytes(int64_t self, int64_t peer,
                                                             const CollectiveOp& op,
                                                             int64_t* body) {
  auto what = [&] { return DescribeCollective(op, /*named=*/true); };
  auto message =
      Take(self, peer, 0, absl::Now() + absl::FromChrono(options_.timeout), what, "taking part");
  if (!message.ok() || body == nullptr) return message;
  HLOVM_RETURN_IF_ERROR(CheckKey(self, op, peer, Header(self, op), *message, body));
  return message;
}

absl::Status MessageCollectiveBus::FinishSends(int64_t self, const CollectiveOp& op) {
  std::atomic<int64_t>& unsent = unsent_[self];
  if (unsent.load(std::memory_order_acquire) == 0) return absl::OkStatus();
  // The parts leave as the link moves its messages: this thread moves them
  // while it can, and naps once they have been slow for a while. A
  // cancelled run waits too (its peers' processes still take every message
  // until the job ends); only a job that is ending stops it.
  const absl::Time start = absl::Now();
  const absl::Time deadline = start + absl::FromChrono(options_.timeout);
  int rounds = 0;
  while (unsent.load(std::memory_order_acquire) != 0) {
    bool yielded = false;
    if (options_.link->Pump(&yielded)) continue;
    if (rounds++ % 16 != 0) {
      if (!yielded) std::this_thread::yield();
      continue;
    }
    const absl::Time now = absl::Now();
    {
      absl::MutexLock lock(&mu_);
      if (!terminated_.empty()) {
        return absl::AbortedError(
            absl::StrCat(DescribeCollective(op, /*named=*/true), " ended: ", terminated_));
      }
    }
    if (now >= deadline) {
      return absl::DeadlineExceededError(
          absl::StrCat(DescribeCollective(op, /*named=*/true), " timed out after ",
                       absl::FormatDuration(absl::FromChrono(options_.timeout)),
                       ": its messages were not taken"));
    }
    if (now - start > kPollTime) absl::SleepFor(absl::Microseconds(50));
  }
  return absl::OkStatus();
}

absl::Status MessageCollectiveBus::Send(int64_t self, int64_t target, int64_t channel,
                                        const HloInstruction* hlo, const uint8_t* data,
                                        int64_t bytes) {
  PutCopy(self, target, 1 + channel, absl::MakeConstSpan(data, static_cast<size_t>(bytes)));
  return absl::OkStatus();
}

absl::Status MessageCollectiveBus::Recv(int64_t self, int64_t source, int64_t channel,
                                        const HloInstruction* hlo, uint8_t* data,
                                        int64_t bytes) {
  const absl::Time deadline = absl::Now() + absl::FromChrono(options_.timeout);
  auto what = [&] { return absl::StrCat("recv on channel ", channel, " from ", Describe(source)); };
  auto message = Take(self, source, 1 + channel, deadline, what, "sending");
  if (!message.ok()) return message.status();
  if (static_cast<int64_t>(message->size()) != bytes) {
    return absl::FailedPreconditionError(absl::StrCat(what(), ": the message has ", message->size(),
                                                      " bytes, ", bytes, " expected"));
  }
  if (bytes > 0) std::memcpy(data, message->data(), bytes);
  return absl::OkStatus();
}

}  // namespace hlovm
