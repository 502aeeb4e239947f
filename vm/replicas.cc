// ExecuteReplicated: the instances of a multi-device run on threads of their
// own around one InMemoryCollectiveBus.
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

namespace hlovm {

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
  const int64_t n = replicas * partitions;
  results.reserve(n);
  for (int64_t i = 0; i < n; ++i) results.emplace_back(absl::UnknownError("not run"));
  if (arguments.size() != 1 && static_cast<int64_t>(arguments.size()) != n) {
    for (auto& r : results) {
      r = absl::InvalidArgumentError(absl::StrCat(
          "give one set of arguments for all ", n, " instances or one per instance, not ",
          arguments.size()));
    }
    return results;
  }
  std::atomic<bool> cancel{false};
  InMemoryBusOptions bus_options;
  bus_options.timeout = std::chrono::duration_cast<std::chrono::nanoseconds>(
      std::chrono::duration<double>(options.collective_timeout_seconds));
  bus_options.cancel = &cancel;
  InMemoryCollectiveBus bus(replicas, partitions, bus_options);
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
  auto run = [&](int64_t id) {
    ExecuteOptions execute;
    execute.threads = threads;
    execute.flush_denormals = options.flush_denormals;
    execute.replica_id = id / partitions;
    execute.partition_id = id % partitions;
    execute.instance = static_cast<int32_t>(id);
    execute.profiler = options.profiler;
    execute.bus = &bus;
    execute.feeds = feeds[id].get();
    execute.cancel = n > 1 ? &cancel : options.cancel;
    if (id == 0) execute.position = options.position;
    const std::vector<const Literal*>& args = arguments.size() == 1 ? arguments[0] : arguments[id];
    results[id] = executable.Execute(args, execute);
    const bool failed = !results[id].ok();
    if (failed) cancel.store(true, std::memory_order_relaxed);
    bus.InstanceExited(id, failed);
  };
  if (n == 1) {
    run(0);
  } else {
    std::mutex mu;
    std::condition_variable ended;
    int64_t running = n;
    std::vector<std::thread> threads;
    threads.reserve(n);
    for (int64_t id = 0; id < n; ++id) {
      threads.emplace_back([&, id] {
        run(id);
        std::lock_guard<std::mutex> lock(mu);
        if (--running == 0) ended.notify_all();
      });
    }
    // The caller's cancel flag reaches the instances through their shared one.
    if (options.cancel != nullptr) {
      std::unique_lock<std::mutex> lock(mu);
      while (running > 0) {
        if (options.cancel->load(std::memory_order_relaxed)) {
          cancel.store(true, std::memory_order_relaxed);
          break;
        }
        ended.wait_for(lock, std::chrono::milliseconds(10));
      }
    }
    for (std::thread& t : threads) t.join();
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
