// ExecuteReplicated: the instances of a multi-device run on threads of their
// own around one collective bus (an InMemoryCollectiveBus unless told).
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "absl/strings/str_cat.h"
#include "core/hlo_ir.h"
#include "vm/api.h"
#include "oneapi/tbb/info.h"
#include "vm/collective_bus.h"
#include "vm/message_bus.h"

namespace hlovm {

std::string InstanceName(int64_t id, int64_t partitions) {
  if (partitions == 1) return absl::StrCat("replica ", id);
  return absl::StrCat("replica ", id / partitions, " partition ", id % partitions);
}

std::vector<absl::StatusOr<Literal>> ExecuteReplicated(
    const Executable& executable, absl::Span<const std::vector<const Literal*>> arguments,
    const ReplicatedOptions& options) {
  const int64_t replicas = std::max<int64_t>(1, executable.module().replica_count);
  const int64_t partitions = std::max<int64_t>(1, executable.module().num_partitions);
  std::vector<absl::StatusOr<Literal>> results;
  // Executable::FromModule has checked the counts; a module changed since
  // gets one error instead of R x P threads.
  if (absl::Status counts = ValidateInstanceCounts(replicas, partitions); !counts.ok()) {
    results.emplace_back(std::move(counts));
    return results;
  }
  const int64_t all = replicas * partitions;
  const int64_t first = options.local_instances > 0 ? options.first_instance : 0;
  const int64_t n = options.local_instances > 0 ? options.local_instances : all;
  if (first < 0 || first + n > all) {
    results.emplace_back(absl::InvalidArgumentError(absl::StrCat(
        "instances ", first, "-", first + n - 1, " are not among the module's ", all)));
    return results;
  }
  results.reserve(n);
  for (int64_t i = 0; i < n; ++i) results.emplace_back(absl::UnknownError("not run"));
  if (arguments.size() != 1 && static_cast<int64_t>(arguments.size()) != all) {
    for (auto& r : results) {
      r = absl::InvalidArgumentError(absl::StrCat(
          "give one set of arguments for all ", all, " instances or one per instance, not ",
          arguments.size()));
    }
    return results;
  }
  std::atomic<bool> own_cancel{false};
  std::atomic<bool>& cancel = options.cancel != nullptr ? *options.cancel : own_cancel;
  CancelCause own_cause;
  CancelCause& cause = options.cancel_cause != nullptr ? *options.cancel_cause : own_cause;
  const auto timeout = std::chrono::duration_cast<std::chrono::nanoseconds>(
      std::chrono::duration<double>(options.collective_timeout_seconds));
  std::unique_ptr<CollectiveBus> own_bus;
  if (options.bus == nullptr && options.message_bus) {
    MessageBusOptions bus_options;
    bus_options.timeout = timeout;
    bus_options.cancel = &cancel;
    bus_options.cancel_cause = &cause;
    own_bus = std::make_unique<MessageCollectiveBus>(replicas, partitions, bus_options);
  } else if (options.bus == nullptr) {
    InMemoryBusOptions bus_options;
    bus_options.timeout = timeout;
    bus_options.cancel = &cancel;
    bus_options.cancel_cause = &cause;
    own_bus = std::make_unique<InMemoryCollectiveBus>(replicas, partitions, bus_options);
  }
  CollectiveBus& bus = options.bus != nullptr ? *options.bus : *own_bus;
  std::vector<std::unique_ptr<FeedQueues>> feeds;
  for (int64_t id = 0; id < n; ++id) {
    feeds.push_back(std::make_unique<FeedQueues>());
    absl::MutexLock lock(&feeds.back()->mu);
    for (const Literal* value : options.infeed) feeds.back()->infeed.push_back(value->Clone());
  }
  // Instances already run in parallel: by default each gets its share of
  // the cores for its kernels (results do not depend on it).
  int threads = options.threads;
  if (threads <= 0 && n > 1) {
    threads = std::max<int>(1, tbb::info::default_concurrency() / static_cast<int>(n));
  }
  auto run = [&](int64_t local) {
    const int64_t id = first + local;
    ExecuteOptions execute;
    execute.threads = threads;
    execute.flush_denormals = options.flush_denormals;
    execute.replica_id = id / partitions;
    execute.partition_id = id % partitions;
    execute.instance = static_cast<int32_t>(id);
    execute.profiler = options.profiler;
    execute.bus = &bus;
    execute.feeds = feeds[local].get();
    execute.cancel = all > 1 || options.interrupt != nullptr ? &cancel : nullptr;
    execute.cancel_cause = &cause;
    if (id == 0) execute.position = options.position;
    const std::vector<const Literal*>& args = arguments.size() == 1 ? arguments[0] : arguments[id];
    results[local] = executable.Execute(args, execute);
    const bool failed = !results[local].ok();
    // The cause comes before the others learn of the failure (the bus
    // tells waiting peers, the flag stops running ones): an instance that
    // fails because of it (a collective naming the failed peer) is not
    // taken for the cause.
    if (failed && !absl::IsCancelled(results[local].status())) {
      cause.Set(absl::StrCat(InstanceName(id, partitions), " failed"));
    }
    if (failed) cancel.store(true, std::memory_order_relaxed);
    bus.InstanceExited(id, failed);
  };
  // The caller's interrupt reaches the instances through their shared
  // cancel flag; a watcher passes it on while they run.
  std::mutex mu;
  std::condition_variable ended;
  bool done = false;
  std::thread watcher;
  if (options.interrupt != nullptr) {
    watcher = std::thread([&] {
      std::unique_lock<std::mutex> lock(mu);
      while (!done) {
        if (options.interrupt->load(std::memory_order_relaxed)) {
          cancel.store(true, std::memory_order_relaxed);
          return;
        }
        ended.wait_for(lock, std::chrono::milliseconds(10));
      }
    });
  }
  if (n == 1) {
    run(0);
  } else {
    std::vector<std::thread> threads;
    threads.reserve(n);
    for (int64_t id = 0; id < n; ++id) threads.emplace_back(run, id);
    for (std::thread& t : threads) t.join();
  }
  if (watcher.joinable()) {
    {
      std::lock_guard<std::mutex> lock(mu);
      done = true;
    }
    ended.notify_all();
    watcher.join();
  }
  if (options.outfeed != nullptr) {
    options.outfeed->clear();
    for (auto& f : feeds) {
      absl::MutexLock lock(&f->mu);
      options.outfeed->push_back(std::move(f->outfeed));
    }
  }
  return results;
}

}  // namespace hlovm
