#include "vm/mpi_run.h"

#include <sched.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <thread>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/mutex.h"
#include "vm/message_bus.h"

#if HLOVM_HAVE_MPI
#include <mpi.h>
#include <sys/prctl.h>
#endif

namespace hlovm {

namespace {

// The first of the environment variables `names` that holds an integer of
// at least `least`; 0 when none does.
int LauncherVariable(std::initializer_list<const char*> names, int least) {
  for (const char* name : names) {
    const char* value = std::getenv(name);
    int n = 0;
    if (value != nullptr && absl::SimpleAtoi(value, &n) && n >= least) return n;
  }
  return 0;
}

}  // namespace

int MpiLauncherSize() {
  return LauncherVariable({"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE", "MPI_LOCALNRANKS"}, 1);
}

int MpiLauncherRank() {
  return LauncherVariable({"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"}, 0);
}

std::string BindToLocalCores() {
  const int local_size = LauncherVariable({"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS"}, 1);
  const int local_rank = LauncherVariable({"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID"}, 0);
  if (local_size <= 1 || local_rank >= local_size) return "";
  // The user chose a binding (`mpirun --bind-to ...`, none included).
  if (std::getenv("OMPI_MCA_hwloc_base_binding_policy") != nullptr) return "";
  cpu_set_t mask;
  CPU_ZERO(&mask);
  if (sched_getaffinity(0, sizeof(mask), &mask) != 0) return "";
  std::vector<int> cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (CPU_ISSET(c, &mask)) cpus.push_back(c);
  }
  // Bound already: the launcher (or the user) gave it a part of the machine.
  if (cpus.empty() || static_cast<long>(cpus.size()) < sysconf(_SC_NPROCESSORS_ONLN)) return "";
  const int n = static_cast<int>(cpus.size());
  const int first =
      local_size >= n ? local_rank % n : static_cast<int>(int64_t{local_rank} * n / local_size);
  const int last =
      local_size >= n ? first + 1 : static_cast<int>(int64_t{local_rank + 1} * n / local_size);
  cpu_set_t share;
  CPU_ZERO(&share);
  for (int i = first; i < last; ++i) CPU_SET(cpus[i], &share);
  if (sched_setaffinity(0, sizeof(share), &share) != 0) return "";
  return last - first == 1 ? absl::StrCat(cpus[first])
                           : absl::StrCat(cpus[first], "-", cpus[last - 1]);
}

bool MpiSpeaksForJob() { return MpiLauncherSize() <= 1 || MpiLauncherRank() == 0; }

bool MpiAvailable() { return HLOVM_HAVE_MPI != 0; }

void EndAbandonedProcess(int code) {
  std::fflush(nullptr);
  _exit(code);
}

#if !HLOVM_HAVE_MPI

MpiSession::MpiSession() = default;
MpiSession::~MpiSession() = default;
double MpiSession::Slowest(double seconds) const { return seconds; }

DistributedRun ExecuteOverMpi(const Executable& executable,
                              absl::Span<const std::vector<const Literal*>> arguments,
                              const ReplicatedOptions& options, bool gather) {
  DistributedRun run;
  run.error = absl::UnimplementedError(
      "this hlovm was built without MPI, so it cannot run under mpirun: install Open MPI "
      "(Debian: openmpi-bin libopenmpi-dev, as scripts/setup.sh does) and configure the build "
      "again");
  return run;
}

#else

namespace {

// The signal the launcher sent to end the job (mpirun sends SIGTERM to
// every process when one of them died); 0 while none came.
volatile std::sig_atomic_t g_end_signal = 0;
void OnEndSignal(int signal) { g_end_signal = signal; }

// Who a process is, so that its peers on the same machine can tell whether
// it still runs: the machine (a hash of the boot id and the PID namespace:
// PIDs mean the same process only within both), its PID and its start time
// (clock ticks after boot: a PID used again is another process).
struct ProcessIdentity {
  uint64_t machine = 0;  // 0: unknown (not watched)
  uint64_t pid = 0;
  uint64_t start = 0;
};

// Reads /proc/<pid>/stat: whether the process runs (not a zombie), and its
// start time.
bool ReadProcess(uint64_t pid, uint64_t* start) {
  std::ifstream in(absl::StrCat("/proc/", pid, "/stat"));
  std::string line;
  if (!in || !std::getline(in, line)) return false;
  // "pid (comm) state ppid ...": the name may hold spaces and parentheses.
  const size_t close = line.rfind(')');
  if (close == std::string::npos) return false;
  std::vector<std::string> fields = absl::StrSplit(line.substr(close + 1), ' ', absl::SkipEmpty());
  // fields[0] is the state (field 3 of the file), fields[19] the start time
  // (field 22).
  if (fields.size() < 20 || fields[0] == "Z" || fields[0] == "X" || fields[0] == "x") return false;
  return absl::SimpleAtoi(fields[19], start);
}

ProcessIdentity ThisProcess() {
  ProcessIdentity id;
  id.pid = static_cast<uint64_t>(getpid());
  std::string boot;
  std::ifstream in("/proc/sys/kernel/random/boot_id");
  char ns[128] = {};
  const ssize_t n = readlink("/proc/self/ns/pid", ns, sizeof(ns) - 1);
  if (!in || !std::getline(in, boot) || boot.empty() || n <= 0 || !ReadProcess(id.pid, &id.start)) {
    return id;  // machine 0: peers do not watch this process
  }
  id.machine = std::hash<std::string>()(absl::StrCat(boot, "/", std::string(ns, n))) | 1;
  return id;
}

// Whether the peer `who` is known to have ended: it runs on this machine
// and its process is gone (or a zombie, or its PID now names another).
bool PeerGone(const ProcessIdentity& self, const ProcessIdentity& who) {
  if (self.machine == 0 || who.machine != self.machine) return false;
  uint64_t start = 0;
  return !ReadProcess(who.pid, &start) || start != who.start;
}

// A run's envelopes have one tag (from one process they arrive in the order
// they were sent: MPI's non-overtaking rule holds per tag), the payloads that
// follow some of them another; successive runs (ExecuteOverMpi calls) take
// turns between two pairs, so that a receive posted for one run never takes
// a message of the next.
constexpr int kEnvelopeTag = 4242;
int EnvelopeTag(int64_t run) { return kEnvelopeTag + 2 * static_cast<int>(run % 2); }
int PayloadTag(int64_t run) { return EnvelopeTag(run) + 1; }

// Envelope: type, then three integers, then the payload.
enum MessageType : uint8_t {
  // a = source instance, b = target instance, c = stream; as the receiver
  // hands a data message on (kDataInline and kDataParts are sent).
  kData = 1,
  kExit = 2,        // a = instance, b = 1 if it failed
  kResult = 3,      // a = instance; its payload (SerializeResult) follows, as kDataParts's
  kDone = 4,        // the sender has sent everything it will send
  kDataInline = 5,  // as kData, with the payload after the envelope
  // As kData, with the payload in the next `parts` messages of the payload
  // tag from the same process (their sizes adding up to `bytes`): after the
  // envelope, parts and bytes as two more integers.
  kDataParts = 6,
};
// Payloads up to this size travel in their envelope's message (one MPI
// message instead of two; the copy costs less than a message).
constexpr size_t kInlinePayloadBytes = 16 * 1024;
constexpr size_t kEnvelope = 1 + 3 * 8;
// The largest message with the envelope tag: an envelope with two more
// integers (kDataParts), or one with its payload inline.
constexpr size_t kEnvelopeMessageBytes = kEnvelope + kInlinePayloadBytes;
// Receives of envelopes posted ahead: a message that finds one is copied
// into it as it arrives, where a probed one waits in MPI's own queue first
// (a scalar all-reduce of 2 processes: 0.36 -> 0.22 us an exchange, bare MPI).
constexpr int kPostedReceives = 4;

MessageBytes Envelope(MessageType type, int64_t a, int64_t b, int64_t c, size_t payload_bytes) {
  MessageBytes bytes;
  bytes.reserve(kEnvelope + payload_bytes);  // one allocation for both
  bytes.resize(kEnvelope);
  bytes[0] = type;
  std::memcpy(bytes.data() + 1, &a, 8);
  std::memcpy(bytes.data() + 9, &b, 8);
  std::memcpy(bytes.data() + 17, &c, 8);
  return bytes;
}

class Writer {
 public:
  explicit Writer(MessageBytes& out) : out_(out) {}
  void U64(uint64_t v) { AppendBytes(out_, &v, 8); }
  void Bytes(const void* p, size_t n) {
    U64(n);
    AppendBytes(out_, p, n);
  }

 private:
  MessageBytes& out_;
};

class Reader {
 public:
  Reader(const uint8_t* p, size_t n) : p_(p), end_(p + n) {}
  bool U64(uint64_t* v) {
    if (end_ - p_ < 8) return false;
    std::memcpy(v, p_, 8);
    p_ += 8;
    return true;
  }
  bool Bytes(const uint8_t** data, size_t* n) {
    uint64_t size = 0;
    if (!U64(&size) || static_cast<uint64_t>(end_ - p_) < size) return false;
    *data = p_;
    *n = size;
    p_ += size;
    return true;
  }

 private:
  const uint8_t* p_;
  const uint8_t* end_;
};

void Leaves(const Literal& value, std::vector<const Literal*>* out) {
  if (value.shape().IsTuple()) {
    for (const Literal& e : value.tuple_elements()) Leaves(e, out);
  } else {
    out->push_back(&value);
  }
}
void MutableLeaves(Literal& value, std::vector<Literal*>* out) {
  if (value.shape().IsTuple()) {
    for (Literal& e : value.tuple_elements()) MutableLeaves(e, out);
  } else {
    out->push_back(&value);
  }
}

// An instance's status, result bytes and printed outfeed.
void SerializeResult(const absl::StatusOr<Literal>& result, const std::vector<std::string>& outfeed,
                     MessageBytes& out) {
  Writer w(out);
  w.U64(static_cast<uint64_t>(result.status().code()));
  const std::string message(result.status().message());
  w.Bytes(message.data(), message.size());
  std::vector<const Literal*> leaves;
  if (result.ok()) Leaves(*result, &leaves);
  w.U64(leaves.size());
  for (const Literal* leaf : leaves) w.Bytes(leaf->untyped_data(), leaf->size_bytes());
  w.U64(outfeed.size());
  for (const std::string& s : outfeed) w.Bytes(s.data(), s.size());
}

absl::Status DeserializeResult(const uint8_t* data, size_t n, const Shape& shape,
                               absl::StatusOr<Literal>* result,
                               std::vector<std::string>* outfeed) {
  Reader r(data, n);
  uint64_t code = 0, leaves = 0, feeds = 0;
  const uint8_t* p = nullptr;
  size_t size = 0;
  const absl::Status malformed = absl::InternalError("a malformed result message");
  if (!r.U64(&code) || !r.Bytes(&p, &size)) return malformed;
  const std::string message(reinterpret_cast<const char*>(p), size);
  if (!r.U64(&leaves)) return malformed;
  if (code != 0) {
    *result = absl::Status(static_cast<absl::StatusCode>(code), message);
  } else {
    auto value = Literal::Create(shape);
    if (!value.ok()) return value.status();
    std::vector<Literal*> targets;
    MutableLeaves(*value, &targets);
    if (targets.size() != leaves) return malformed;
    for (Literal* leaf : targets) {
      if (!r.Bytes(&p, &size) || static_cast<int64_t>(size) != leaf->size_bytes()) {
        return malformed;
      }
      if (size > 0) std::memcpy(leaf->untyped_data(), p, size);
    }
    *result = std::move(*value);
  }
  if (!r.U64(&feeds)) return malformed;
  for (uint64_t i = 0; i < feeds; ++i) {
    if (!r.Bytes(&p, &size)) return malformed;
    outfeed->emplace_back(reinterpret_cast<const char*>(p), size);
  }
  return absl::OkStatus();
}

// Whether MPI's progress loop gives up the core when it finds nothing to
// do: Open MPI's mpi_yield_when_idle, which its launcher's environment
// sets, or which defaults to on where mpirun put more processes on a
// machine than it has slots (OMPI_MCA_mpi_oversubscribe). Other MPIs: no.
// (Not read through the MPI tool interface: with a tool session open,
// Open MPI's progress loop ran slower, 28-35 against 16-20 us a scalar
// all-reduce; and ending the session puts its variables back to their
// defaults.)
bool MpiYieldsWhenIdle() {
  const char* set = std::getenv("OMPI_MCA_mpi_yield_when_idle");
  if (set != nullptr) {
    const std::string v = absl::AsciiStrToLower(set);
    return v == "1" || v == "true" || v == "t" || v == "yes" || v == "y" || v == "enabled";
  }
  const char* oversubscribed = std::getenv("OMPI_MCA_mpi_oversubscribe");
  return oversubscribed != nullptr && std::string(oversubscribed) == "1";
}

// The MPI side of a MessageCollectiveBus. Instance threads queue messages;
// one round of MPI work (Progress) sends them, receives, and hands what
// arrives to `on_message`. The thread that called MPI_Init does rounds
// whenever no instance does: an instance waiting for a message does them
// itself (Pump), and one that posts a message sends it at once, so that no
// hand-off between threads stands in a message's way. One thread at a
// time makes MPI calls (MPI_THREAD_SERIALIZED; with only FUNNELED, the MPI
// thread alone).
class MpiLink final : public MessageLink {
 public:
  // on_message(source rank, envelope, body) gets every message that
  // arrived: its kEnvelope bytes, and what followed them (a data message's
  // payload, inline or not); receiving() says whether more of this run can
  // come.
  using OnMessage = std::function<void(int, const uint8_t*, MessageBytes)>;
  // `run` counts the calls of ExecuteOverMpi in this process (EnvelopeTag).
  MpiLink(int rank, int size, int64_t per_process, bool serialized, int64_t run,
          OnMessage on_message, std::function<bool()> receiving)
      : rank_(rank),
        size_(size),
        per_process_(per_process),
        serialized_(serialized),
        mpi_yields_when_idle_(MpiYieldsWhenIdle()),
        envelope_tag_(EnvelopeTag(run)),
        payload_tag_(PayloadTag(run)),
        on_message_(std::move(on_message)),
        receiving_(std::move(receiving)) {
    for (int i = 0; i < kPostedReceives; ++i) {
      posted_bytes_[i].resize(kEnvelopeMessageBytes);
      PostReceive(i);
    }
  }

  // Withdraws the receives posted ahead (the run is over: every process has
  // sent all it will, and the next run's envelopes have the other tag).
  // Called by the one thread left making MPI calls.
  void CancelReceives() {
    for (MPI_Request& request : posted_) {
      if (request == MPI_REQUEST_NULL) continue;
      MPI_Cancel(&request);
      MPI_Wait(&request, MPI_STATUS_IGNORE);
    }
  }

  // A small payload rides in its envelope's message; a large one follows
  // it as a message of its own (no copy).
  void Post(int64_t source, int64_t target, int64_t stream, MessageBytes payload) override {
    if (payload.size() <= kInlinePayloadBytes) {
      PostCopy(source, target, stream, payload);
      return;
    }
    const int rank = RankOf(target);
    const uint64_t total = payload.size();
    std::vector<Outgoing> following;
    following.push_back(PayloadMessage(rank, std::move(payload)));
    QueueWithParts(rank, Envelope(kDataParts, source, target, stream, 16), total,
                   std::move(following));
  }

  void PostCopy(int64_t source, int64_t target, int64_t stream,
                absl::Span<const uint8_t> payload) override {
    if (payload.size() > kInlinePayloadBytes) {
      Post(source, target, stream, BytesOf(payload.data(), payload.size()));
      return;
    }
    const absl::Span<const uint8_t> pieces[] = {payload};
    QueueInline(source, target, stream, pieces, payload.size());
  }

  // The parts are sent from where they lie, but for small ones, copied
  // into one message with their neighbours (a message costs more than
  // copying them), and a small message, copied into its envelope's.
  void PostParts(int64_t source, int64_t target, int64_t stream, MessageBytes head,
                 absl::Span<const absl::Span<const uint8_t>> parts,
                 std::atomic<int64_t>* unsent) override {
    size_t bytes = head.size();
    for (absl::Span<const uint8_t> part : parts) bytes += part.size();
    if (bytes <= kInlinePayloadBytes) {
      std::vector<absl::Span<const uint8_t>> pieces = {head};
      pieces.insert(pieces.end(), parts.begin(), parts.end());
      QueueInline(source, target, stream, pieces, bytes);
      return;
    }
    const int rank = RankOf(target);
    std::vector<Outgoing> following;
    MessageBytes copied = std::move(head);
    for (absl::Span<const uint8_t> part : parts) {
      if (part.size() <= kInlinePayloadBytes) {
        AppendBytes(copied, part.data(), part.size());
        continue;
      }
      if (!copied.empty()) following.push_back(PayloadMessage(rank, std::move(copied)));
      copied.clear();
      Outgoing borrowed = PayloadMessage(rank, {});
      borrowed.borrowed = part.data();
      borrowed.borrowed_bytes = part.size();
      borrowed.unsent = unsent;
      following.push_back(std::move(borrowed));
    }
    if (!copied.empty()) following.push_back(PayloadMessage(rank, std::move(copied)));
    QueueWithParts(rank, Envelope(kDataParts, source, target, stream, 16), bytes,
                   std::move(following));
  }

  bool Pump(bool* yielded = nullptr) override {
    bool ran = false;
    const bool moved = TryRound(/*receive=*/true, &ran);
    if (yielded != nullptr) *yielded = ran && !moved && mpi_yields_when_idle_;
    return moved;
  }

  // One round of MPI work by the MPI thread (after the round an instance
  // may be doing).
  bool Step() {
    absl::MutexLock lock(&pump_mu_);
    return Progress();
  }

  void PollingStarted() override {
    if (serialized_) pollers_.fetch_add(1);
  }
  void PollingStopped(bool got) override {
    // The last poller gone: the MPI thread takes over where an instance
    // still waits (it sleeps now).
    if (serialized_ && pollers_.fetch_sub(1) == 1 && !got) Wake();
  }

  // Whether an instance thread is polling the link (the MPI thread then
  // sleeps: its rounds would only take the core from the ones that wait).
  bool InstancesPolling() const { return pollers_.load() > 0; }

  void WaitStarted() override { waiters_.fetch_add(1); }
  void WaitEnded() override { waiters_.fetch_sub(1); }
  // Whether an instance thread waits for a message of another process.
  bool InstancesWaiting() const { return waiters_.load() > 0; }

  // Instance threads make no more MPI calls (the job is breaking up; a
  // round in progress ends as it would).
  void Close() { closed_.store(true, std::memory_order_release); }

  // Queues instance `instance`'s result (SerializeResult) for rank 0.
  void PostResult(int64_t instance, MessageBytes result) {
    const uint64_t bytes = result.size();
    std::vector<Outgoing> following;
    following.push_back(PayloadMessage(0, std::move(result)));
    QueueWithParts(0, Envelope(kResult, instance, 0, 0, 16), bytes, std::move(following));
  }

  void PostExit(int64_t instance, bool failed) override {
    for (int r = 0; r < size_; ++r) {
      if (r != rank_) Queue(r, Envelope(kExit, instance, failed ? 1 : 0, 0, 0));
    }
  }

  std::string ProcessOf(int64_t instance) const override {
    return absl::StrCat("rank ", instance / per_process_);
  }

  // Queues a message for the MPI thread's next round (`signal`: wakes it).
  void Queue(int rank, MessageBytes bytes, bool signal = true) {
    absl::MutexLock lock(&mu_);
    queue_.push_back({rank, std::move(bytes)});
    queued_.store(queue_.size(), std::memory_order_release);
    if (signal) cv_.Signal();
  }

  // After an instance queued a message: sent at once where no other thread
  // is doing MPI work; else the MPI thread is told, as it is of a send left
  // in flight (a large message needs rounds on this side until it is
  // through). The round sends only: a receive that finds nothing may yield
  // the core inside MPI (mpi_yield_when_idle), which here would hold this
  // instance's other messages back.
  void Sent() {
    bool ran = false;
    TryRound(/*receive=*/false, &ran);
    if (!ran || SendsPending()) Wake();
  }

  // A round of MPI work on the calling thread (Progress), unless another
  // thread is doing one, the instance threads may make no MPI calls
  // (FUNNELED), or the job is breaking up (Close); `ran` says whether it
  // did. Returns whether anything moved.
  bool TryRound(bool receive, bool* ran) {
    *ran = false;
    if (!serialized_ || closed_.load(std::memory_order_acquire) || !pump_mu_.TryLock()) {
      return false;
    }
    *ran = !closed_.load(std::memory_order_relaxed);
    const bool moved = *ran && Progress(receive);
    pump_mu_.Unlock();
    return moved;
  }

  // Wakes the MPI thread from Idle.
  void Wake() {
    absl::MutexLock lock(&mu_);
    woken_ = true;
    cv_.Signal();
  }

  // Waits a little for queued messages (MPI has no way to wait for either
  // an arrival or a queued message: the MPI thread polls).
  void Idle(absl::Duration d) {
    absl::MutexLock lock(&mu_);
    if (queue_.empty() && !woken_) cv_.WaitWithTimeout(&mu_, d);
    woken_ = false;
  }

  // Whether a message waits to be handed to MPI; whether one waits or is
  // in flight. (Counts kept beside the lists: a poller need not take the
  // locks of the thread doing a round.)
  bool SendsQueued() const { return queued_.load(std::memory_order_relaxed) > 0; }
  bool SendsPending() const {
    return SendsQueued() || in_flight_.load(std::memory_order_relaxed) > 0;
  }

  // One round of MPI work (`receive`: taking one message too); returns
  // whether anything moved. Called with pump_mu_ held.
  bool Progress(bool receive = true) ABSL_EXCLUSIVE_LOCKS_REQUIRED(pump_mu_) {
    bool moved = false;
    // The queue's lock is taken only where something is queued (most rounds
    // of a waiting instance find nothing to send); a message queued as the
    // count is read goes in the next round.
    if (queued_.load(std::memory_order_acquire) != 0) {
      absl::MutexLock lock(&mu_);
      out_.swap(queue_);  // both keep their storage: a round allocates nothing
      queued_.store(0, std::memory_order_relaxed);
    }
    for (Outgoing& message : out_) {
      pending_.push_back({MPI_REQUEST_NULL, std::move(message.bytes), message.unsent});
      Pending& p = pending_.back();
      const bool borrowed = message.borrowed != nullptr;
      MPI_Isend(borrowed ? message.borrowed : p.bytes.data(),
                static_cast<int>(borrowed ? message.borrowed_bytes : p.bytes.size()), MPI_BYTE,
                message.rank, message.payload ? payload_tag_ : envelope_tag_, MPI_COMM_WORLD,
                &p.request);
      moved = true;
    }
    out_.clear();
    // One message a round: the caller checks its condition between two
    // (a message of the next run may follow the last one of this run).
    // The receives posted ahead take the envelopes in the order they were
    // posted: the oldest is the one to look at.
    if (receive && receiving_()) {
      int flag = 0;
      MPI_Status status;
      MPI_Test(&posted_[next_], &flag, &status);
      if (flag) {
        int count = 0;
        MPI_Get_count(&status, MPI_BYTE, &count);
        const uint8_t* bytes = posted_bytes_[next_].data();
        const int source = status.MPI_SOURCE;
        const bool whole = count >= static_cast<int>(kEnvelope);
        uint8_t envelope[kEnvelope] = {};
        // A message whose payload follows it (WithParts): how many parts,
        // and their bytes in all.
        bool with_parts = false;
        uint64_t parts = 0, total = 0;
        MessageBytes body;
        if (whole) {
          std::memcpy(envelope, bytes, kEnvelope);
          with_parts = (envelope[0] == kDataParts || envelope[0] == kResult) &&
                       count == static_cast<int>(kEnvelope + 16);
          if (with_parts) {
            std::memcpy(&parts, bytes + kEnvelope, 8);
            std::memcpy(&total, bytes + kEnvelope + 8, 8);
          } else {
            // The rest of the message.
            body.resize(count - kEnvelope);
            if (!body.empty()) std::memcpy(body.data(), bytes + kEnvelope, body.size());
          }
        }
        // Posted again at once: its buffer is free.
        PostReceive(next_);
        next_ = (next_ + 1) % kPostedReceives;
        if (with_parts) {
          // The parts are the next payloads from the same process, one
          // after another in the body.
          body.resize(total);
          uint64_t at = 0;
          for (uint64_t i = 0; i < parts; ++i) {
            MPI_Probe(source, payload_tag_, MPI_COMM_WORLD, &status);
            MPI_Get_count(&status, MPI_BYTE, &count);
            // A part past the total (which a sender never makes) is taken
            // and dropped, leaving the body short: its reader finds it
            // malformed.
            const bool fits = count >= 0 && at + count <= total;
            MessageBytes dropped(fits ? 0 : count);
            MPI_Recv(fits ? body.data() + at : dropped.data(), count, MPI_BYTE, source,
                     payload_tag_, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (!fits) total = 0;
            at += fits ? count : 0;
          }
          body.resize(std::min(at, total));
        }
        if (envelope[0] == kDataParts || envelope[0] == kDataInline) envelope[0] = kData;
        if (whole) on_message_(source, envelope, std::move(body));
        moved = true;
      }
    }
    // Completed sends leave the list, the others keep their order.
    size_t kept = 0;
    for (size_t i = 0; i < pending_.size(); ++i) {
      int done = 0;
      MPI_Test(&pending_[i].request, &done, MPI_STATUS_IGNORE);
      if (done) {
        if (pending_[i].unsent != nullptr) {
          pending_[i].unsent->fetch_sub(1, std::memory_order_release);
        }
        moved = true;
        continue;
      }
      if (kept != i) pending_[kept] = std::move(pending_[i]);
      ++kept;
    }
    pending_.resize(kept);
    in_flight_.store(static_cast<int64_t>(pending_.size()), std::memory_order_relaxed);
    return moved;
  }

 private:
  // A message to send: its bytes, or (`borrowed`) bytes it reads in place,
  // counted in `unsent` until they have left.
  struct Outgoing {
    int rank = 0;
    MessageBytes bytes;
    const uint8_t* borrowed = nullptr;
    size_t borrowed_bytes = 0;
    std::atomic<int64_t>* unsent = nullptr;
    bool payload = false;  // follows an envelope (its tag: payload_tag_)
  };
  // The process of instance `instance`.
  int RankOf(int64_t instance) const { return static_cast<int>(instance / per_process_); }

  // A message of the payload tag for process `rank`.
  static Outgoing PayloadMessage(int rank, MessageBytes bytes) {
    return {rank, std::move(bytes), nullptr, 0, nullptr, /*payload=*/true};
  }

  // Queues a data message whose payload, `bytes` in all, is `pieces` one
  // after another, copied into its envelope's message, and sends it where
  // it can (Sent).
  void QueueInline(int64_t source, int64_t target, int64_t stream,
                   absl::Span<const absl::Span<const uint8_t>> pieces, size_t bytes) {
    MessageBytes message = Envelope(kDataInline, source, target, stream, bytes);
    for (absl::Span<const uint8_t> piece : pieces) {
      AppendBytes(message, piece.data(), piece.size());
    }
    Queue(RankOf(target), std::move(message), /*signal=*/false);
    Sent();
  }

  // Queues for process `rank` a message whose payload, `bytes` in all, is
  // the messages `following` (of the payload tag) after `envelope` (of a
  // kDataParts or kResult message, with room for two more integers), and
  // sends them where it can (Sent). The borrowed ones are counted in their
  // `unsent` until they have left.
  void QueueWithParts(int rank, MessageBytes envelope, uint64_t bytes,
                      std::vector<Outgoing> following) {
    const uint64_t count = following.size();
    AppendBytes(envelope, &count, 8);
    AppendBytes(envelope, &bytes, 8);
    {
      absl::MutexLock lock(&mu_);
      queue_.push_back({rank, std::move(envelope)});
      for (Outgoing& message : following) {
        if (message.unsent != nullptr) message.unsent->fetch_add(1, std::memory_order_relaxed);
        queue_.push_back(std::move(message));
      }
      queued_.store(queue_.size(), std::memory_order_release);
    }
    Sent();
  }

  // Posts the receive of the next envelope into posted_bytes_[i].
  void PostReceive(int i) {
    MPI_Irecv(posted_bytes_[i].data(), static_cast<int>(kEnvelopeMessageBytes), MPI_BYTE,
              MPI_ANY_SOURCE, envelope_tag_, MPI_COMM_WORLD, &posted_[i]);
  }
  struct Pending {
    MPI_Request request = MPI_REQUEST_NULL;
    MessageBytes bytes;
    std::atomic<int64_t>* unsent = nullptr;
  };
  const int rank_, size_;
  const int64_t per_process_;
  const bool serialized_;
  // Whether a round that finds nothing has yielded the core (Pump).
  const bool mpi_yields_when_idle_;
  const int envelope_tag_, payload_tag_;
  const OnMessage on_message_;
  const std::function<bool()> receiving_;
  // Held by the thread doing a round of MPI work.
  absl::Mutex pump_mu_;
  std::atomic<bool> closed_{false};
  std::atomic<int> pollers_{0};  // instance threads polling (PollingStarted)
  std::atomic<int> waiters_{0};  // instance threads waiting (WaitStarted)
  std::atomic<int64_t> queued_{0};     // queue_.size()
  std::atomic<int64_t> in_flight_{0};  // pending_.size()
  absl::Mutex mu_;
  absl::CondVar cv_;
  std::deque<Outgoing> queue_ ABSL_GUARDED_BY(mu_);
  bool woken_ ABSL_GUARDED_BY(mu_) = false;
  // Sends in flight, and the queue's messages a round is sending.
  std::vector<Pending> pending_ ABSL_GUARDED_BY(pump_mu_);
  std::deque<Outgoing> out_ ABSL_GUARDED_BY(pump_mu_);
  // The receives posted ahead, in a ring whose oldest is posted_[next_].
  MPI_Request posted_[kPostedReceives] ABSL_GUARDED_BY(pump_mu_);
  MessageBytes posted_bytes_[kPostedReceives] ABSL_GUARDED_BY(pump_mu_);
  int next_ ABSL_GUARDED_BY(pump_mu_) = 0;
};

// Initialises MPI unless it is already; returns whether it did (the caller
// then finalises it). Instance threads make MPI calls of their own where
// MPI grants calls from several threads, one at a time (MpiLink).
bool InitializeMpi() {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized) return false;
  int provided = 0;
  MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided);
  return true;
}

}  // namespace

MpiSession::MpiSession() : owns_(InitializeMpi()) {}

MpiSession::~MpiSession() {
  if (owns_) MPI_Finalize();
}

double MpiSession::Slowest(double seconds) const {
  double slowest = seconds;
  MPI_Allreduce(&seconds, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return slowest;
}

DistributedRun ExecuteOverMpi(const Executable& executable,
                              absl::Span<const std::vector<const Literal*>> arguments,
                              const ReplicatedOptions& options, bool gather) {
  DistributedRun run;
  // A caller that initialised MPI finalises it too (MpiSession).
  const bool owns_mpi = InitializeMpi();
  // Whatever initialised MPI, the thread level it granted decides whether
  // instance threads make MPI calls of their own.
  int thread_level = MPI_THREAD_SINGLE;
  MPI_Query_thread(&thread_level);
  // MPI errors come back as codes (a dead peer must not abort this process
  // before it has said what it was waiting for).
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  struct sigaction action = {};
  action.sa_handler = &OnEndSignal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGTERM, &action, nullptr);
  sigaction(SIGINT, &action, nullptr);
  MPI_Comm_rank(MPI_COMM_WORLD, &run.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &run.processes);
  const int64_t replicas = std::max<int64_t>(1, executable.module().replica_count);
  const int64_t partitions = std::max<int64_t>(1, executable.module().num_partitions);
  const int64_t all = replicas * partitions;
  if (all % run.processes != 0) {
    run.error = absl::InvalidArgumentError(absl::StrCat(
        "the module's ", replicas, " replicas x ", partitions, " partitions (", all,
        " instances) cannot be spread evenly over ", run.processes,
        " processes: run mpirun -n N with N dividing ", all));
    if (owns_mpi) MPI_Finalize();
    return run;
  }
  // Every process learns who the others are: one that dies on this machine
  // is seen at once (ProcessIdentity), not only when the launcher ends the
  // job (Open MPI's mpirun sends SIGTERM only after its kill delay).
  const ProcessIdentity self = ThisProcess();
  std::vector<ProcessIdentity> peers(run.processes);
  {
    // Not a blocking MPI_Allgather: a process killed before it took part
    // would hold the others in it until the launcher's SIGKILL; polled,
    // they see the launcher's SIGTERM and end.
    const uint64_t mine[3] = {self.machine, self.pid, self.start};
    std::vector<uint64_t> all_ids(3 * run.processes);
    MPI_Request request = MPI_REQUEST_NULL;
    int done = 0;
    int status = MPI_Iallgather(mine, 3, MPI_UINT64_T, all_ids.data(), 3, MPI_UINT64_T,
                                MPI_COMM_WORLD, &request);
    // Polled (yielding) for a while before napping: the others usually
    // come within the time of a run's end (naps doubling from 5 us
    // overslept by up to their last length every run).
    const absl::Time poll_until = absl::Now() + absl::Milliseconds(1);
    absl::Duration nap = absl::Microseconds(5);
    while (status == MPI_SUCCESS && !done) {
      status = MPI_Test(&request, &done, MPI_STATUS_IGNORE);
      if (done || status != MPI_SUCCESS) break;
      if (g_end_signal != 0) {
        // No MPI_Finalize: a peer is gone (as in the run's end below).
        run.abandoned = true;
        run.error = absl::AbortedError(absl::StrCat(
            "rank ", run.rank, ": the launcher ended the job (signal ", int{g_end_signal},
            ") before the run began; another process died or was killed"));
        return run;
      }
      if (absl::Now() < poll_until) {
        std::this_thread::yield();
        continue;
      }
      absl::SleepFor(nap);
      nap = std::min(nap * 2, absl::Milliseconds(1));
    }
    if (status == MPI_SUCCESS) {
      for (int r = 0; r < run.processes; ++r) {
        peers[r] = {all_ids[3 * r], all_ids[3 * r + 1], all_ids[3 * r + 2]};
      }
    }
  }
  const int64_t per = all / run.processes;
  const int64_t first = run.rank * per;
  run.local.assign(all, 0);
  for (int64_t i = first; i < first + per; ++i) run.local[i] = 1;

  std::atomic<bool> cancel{false};
  CancelCause cancel_cause;
  std::atomic<bool> finished{false};
  run.results.clear();
  for (int64_t i = 0; i < all; ++i) run.results.emplace_back(absl::UnavailableError("not here"));
  run.outfeed.assign(all, {});
  // What arrives is handled on whichever thread does the round of MPI work
  // (the MPI thread or an instance's), one at a time.
  std::atomic<int> done_from{0};
  std::vector<std::atomic<bool>> done_by(run.processes);
  absl::Status receive_error;
  MessageCollectiveBus* bus_of_link = nullptr;  // set once the bus exists
  auto on_message = [&](int source, const uint8_t* envelope, MessageBytes body) {
    int64_t a = 0, b = 0, c = 0;
    std::memcpy(&a, envelope + 1, 8);
    std::memcpy(&b, envelope + 9, 8);
    std::memcpy(&c, envelope + 17, 8);
    switch (envelope[0]) {
      case kData:
        bus_of_link->Deliver(a, b, c, std::move(body));
        break;
      case kExit:
        // The cause first: the instances that fail on learning of it (a
        // collective naming the failed peer) are not taken for it.
        if (b != 0) cancel_cause.Set(absl::StrCat(bus_of_link->Describe(a), " failed"));
        bus_of_link->RemoteExited(a, b != 0);
        if (b != 0) {
          cancel.store(true);
          bus_of_link->Interrupt();
        }
        break;
      case kResult:
        if (a >= 0 && a < all) {
          run.outfeed[a].clear();
          absl::Status s = DeserializeResult(body.data(), body.size(), executable.result_shape(),
                                             &run.results[a], &run.outfeed[a]);
          if (!s.ok() && receive_error.ok()) receive_error = s;
        }
        break;
      case kDone:
        if (source >= 0 && source < run.processes) done_by[source].store(true);
        done_from.fetch_add(1);
        break;
    }
  };
  // Once every other process is done, nothing more of this run can come.
  auto receiving = [&] { return done_from.load() < run.processes - 1 || !finished.load(); };
  // Every process of the job makes its calls in the same order (EnvelopeTag).
  static std::atomic<int64_t> runs{0};
  MpiLink link(run.rank, run.processes, per, thread_level >= MPI_THREAD_SERIALIZED, runs++,
               on_message, receiving);
  MessageBusOptions bus_options;
  bus_options.timeout = std::chrono::duration_cast<std::chrono::nanoseconds>(
      std::chrono::duration<double>(options.collective_timeout_seconds));
  bus_options.cancel = &cancel;
  bus_options.cancel_cause = &cancel_cause;
  bus_options.first_local = first;
  bus_options.local_count = per;
  bus_options.link = &link;
  {
    // Instances poll without yielding where every instance on this machine
    // has a core of its own (processes of unknown machines count as here).
    int64_t here = 0;
    for (const ProcessIdentity& p : peers) {
      here += self.machine == 0 || p.machine == 0 || p.machine == self.machine;
    }
    // The machine's cores, not this process's affinity: the launcher may
    // bind each process to a core of its own.
    const int64_t cores = std::max<long>(1, sysconf(_SC_NPROCESSORS_ONLN));
    bus_options.yield_while_polling = here * per > cores;
  }
  MessageCollectiveBus bus(replicas, partitions, bus_options);
  bus_of_link = &bus;

  ReplicatedOptions local = options;
  local.bus = &bus;
  local.first_instance = first;
  local.local_instances = per;
  local.cancel = &cancel;
  local.cancel_cause = &cancel_cause;
  std::vector<std::vector<Literal>> local_outfeed;
  local.outfeed = &local_outfeed;
  std::vector<absl::StatusOr<Literal>> local_results;
  std::thread worker([&] {
    local_results = ExecuteReplicated(executable, arguments, local);
    finished.store(true);
    link.Wake();
  });

  // The MPI thread (pump, below): while instances poll the link it sleeps;
  // else it polls again at once after anything moved; when nothing did, it
  // polls on yielding the core for a while (kSpinTime), then sleeps a
  // little longer each idle round, up to 50 us, or kIdleNap while the
  // instances compute (processes share the cores; a sleeping poller leaves
  // them to the instances).
  bool ended = false;
  // Ends the run in this process: MPI is left alone from here on, every
  // instance is cancelled (a long loop stops at its next trip) and every
  // wait fails at once naming whom it waits for.
  auto end_run = [&](const std::string& reason) {
    ended = true;
    link.Close();
    cancel_cause.Set(reason);
    cancel.store(true);
    bus.Terminate(reason);
  };
  // Peers on this machine are looked at every so often.
  absl::Time next_watch = absl::Now();
  auto watch_peers = [&] {
    const absl::Time now = absl::Now();
    if (now < next_watch) return;
    next_watch = now + absl::Milliseconds(20);
    std::vector<std::string> gone;
    for (int r = 0; r < run.processes; ++r) {
      // A peer done with the run may end (it has sent all it will send).
      if (r == run.rank || done_by[r].load() || !PeerGone(self, peers[r])) continue;
      gone.push_back(absl::StrCat("rank ", r, " (pid ", peers[r].pid, ")"));
    }
    if (!gone.empty()) {
      end_run(absl::StrCat("the process of ", absl::StrJoin(gone, ", "),
                           " ended before the run did (killed, or it failed)"));
    }
  };
  // After traffic the MPI thread polls on, yielding the core between
  // rounds, before it naps: a collective's next message usually follows
  // within microseconds, and each nap would add its length (and a wake-up)
  // to every exchange: a scalar all-reduce of 2 processes took 120 us a
  // round with naps alone, 10 us with these rounds first.
  constexpr absl::Duration kSpinTime = absl::Milliseconds(1);
  // While the instances compute (none waits for a message of another
  // process, no send in flight), the MPI thread naps up to kIdleNap: each
  // wake-up takes the core from an instance's kernel (with 50 us naps, a
  // 1024^3 dot on each of 2 processes took 30-41 ms against 21 ms). An
  // instance that waits polls the link itself, and wakes this thread when
  // it stops; what else comes (a peer's failure) waits for the next round.
  constexpr absl::Duration kIdleNap = absl::Milliseconds(2);
  // `during_run`: the instances still run (after them, only this thread
  // receives the others' results and ends).
  auto pump = [&](auto&& until, bool during_run) {
    absl::Duration nap = absl::Microseconds(5);
    absl::Time spin_until = absl::Now() + kSpinTime;
    while (!until()) {
      if (g_end_signal != 0 && !ended) {
        // The launcher ends the job: another process died.
        end_run(absl::StrCat("the launcher ended the job (signal ", int{g_end_signal},
                             "; another process died or was killed)"));
      }
      if (!ended) watch_peers();
      if (ended) {
        link.Idle(absl::Milliseconds(1));
        if (until()) break;
        continue;
      }
      if (link.InstancesPolling() && !link.SendsPending()) {
        // They move the messages. Woken when the last one stops without
        // its message, or a send is left in flight.
        link.Idle(absl::Milliseconds(1));
        continue;
      }
      if (link.Step()) {
        nap = absl::Microseconds(5);
        spin_until = absl::Now() + kSpinTime;
        continue;
      }
      if (absl::Now() < spin_until && !link.SendsQueued()) {
        std::this_thread::yield();
        continue;
      }
      const absl::Duration most = during_run && !link.InstancesWaiting() && !link.SendsPending()
                                      ? kIdleNap
                                      : absl::Microseconds(50);
      nap = std::min(nap, most);
      link.Idle(nap);
      nap = std::min(nap * 2, most);
    }
  };
  // The naps are microseconds: the kernel's default timer slack (50 us)
  // would round each up to that.
  prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
  pump([&] { return finished.load(); }, /*during_run=*/true);
  worker.join();
  if (ended) {
    // No MPI_Finalize: the job is going down and a peer is gone.
    run.abandoned = true;
    for (int64_t i = 0; i < per; ++i) run.results[first + i] = std::move(local_results[i]);
    return run;
  }

  for (int64_t i = 0; i < per; ++i) {
    std::vector<std::string> printed;
    if (i < static_cast<int64_t>(local_outfeed.size())) {
      for (const Literal& v : local_outfeed[i]) printed.push_back(v.ToString());
    }
    if (run.rank != 0 && gather) {
      MessageBytes bytes;
      SerializeResult(local_results[i], printed, bytes);
      link.PostResult(first + i, std::move(bytes));
    } else {
      run.outfeed[first + i] = std::move(printed);
    }
    run.results[first + i] = std::move(local_results[i]);
  }
  for (int r = 0; r < run.processes; ++r) {
    if (r != run.rank) link.Queue(r, Envelope(kDone, run.rank, 0, 0, 0));
  }
  // Everyone keeps receiving until every other process has sent all it
  // will send, so that every send finds its receive.
  pump([&] { return ended || (done_from.load() == run.processes - 1 && !link.SendsPending()); },
       /*during_run=*/false);
  if (ended) {  // no MPI_Finalize: a peer is gone
    run.abandoned = true;
    return run;
  }
  link.CancelReceives();
  if (owns_mpi) MPI_Finalize();
  if (!receive_error.ok()) run.error = receive_error;
  return run;
}

#endif  // HLOVM_HAVE_MPI

}  // namespace hlovm
