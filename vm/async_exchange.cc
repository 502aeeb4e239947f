#include "vm/async_exchange.h"

#include <atomic>
#include <cfenv>
#include <deque>
#include <memory>
#include <thread>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"

namespace hlovm {
namespace vm {
namespace {

// Set on the threads that run exchanges (OnExchangeThread).
thread_local bool exchange_thread = false;

struct Exchange {
  const void* key = nullptr;
  std::function<absl::Status()> run;
  std::fenv_t env;
  bool started = false;
  bool ended = false;
  absl::Status status;
};

// The exchanges of one run and the worker thread that runs them.
class RunExchanges {
 public:
  RunExchanges() : worker_([this] { Work(); }) {}
  ~RunExchanges() {
    {
      absl::MutexLock lock(&mu_);
      stop_ = true;
      cv_.SignalAll();
    }
    worker_.join();
  }

  void Begin(const void* key, std::function<absl::Status()> run) {
    auto exchange = std::make_shared<Exchange>();
    exchange->key = key;
    exchange->run = std::move(run);
    std::fegetenv(&exchange->env);
    absl::MutexLock lock(&mu_);
    pending_.push_back(std::move(exchange));
    cv_.SignalAll();
  }

  absl::Status Await(const void* key, bool* found) {
    absl::MutexLock lock(&mu_);
    for (auto it = pending_.begin(); it != pending_.end(); ++it) {
      if ((*it)->key != key) continue;
      std::shared_ptr<Exchange> exchange = *it;
      while (!exchange->ended) cv_.Wait(&mu_);
      // The worker may have moved on: find it again to remove it.
      for (auto jt = pending_.begin(); jt != pending_.end(); ++jt) {
        if (*jt == exchange) {
          pending_.erase(jt);
          break;
        }
      }
      *found = true;
      return exchange->status;
    }
    *found = false;
    return absl::OkStatus();
  }

  void Quiesce() {
    absl::MutexLock lock(&mu_);
    while (true) {
      bool busy = false;
      for (const auto& e : pending_) busy |= !e->ended;
      if (!busy) return;
      cv_.Wait(&mu_);
    }
  }

  // Waits for every exchange; the first error among them.
  absl::Status Finish() {
    Quiesce();
    absl::MutexLock lock(&mu_);
    absl::Status first;
    for (const auto& e : pending_) {
      if (first.ok() && !e->status.ok()) first = e->status;
    }
    pending_.clear();
    return first;
  }

 private:
  void Work() {
    exchange_thread = true;
    absl::MutexLock lock(&mu_);
    while (true) {
      std::shared_ptr<Exchange> next;
      for (const auto& e : pending_) {
        if (!e->started) {
          next = e;
          break;
        }
      }
      if (next == nullptr) {
        if (stop_) return;
        cv_.Wait(&mu_);
        continue;
      }
      next->started = true;
      mu_.Unlock();
      std::fesetenv(&next->env);
      absl::Status status = next->run();
      next->run = nullptr;  // drops what the exchange held
      mu_.Lock();
      next->status = std::move(status);
      next->ended = true;
      cv_.SignalAll();
    }
  }

  absl::Mutex mu_;
  absl::CondVar cv_;
  // Begun and not yet awaited, in the order they began; the worker runs
  // them in that order.
  std::deque<std::shared_ptr<Exchange>> pending_ ABSL_GUARDED_BY(mu_);
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  std::thread worker_;
};

absl::Mutex registry_mu(absl::kConstInit);
std::atomic<int> live_runs{0};
thread_local bool began_exchanges = false;

absl::flat_hash_map<const ExecContext*, std::shared_ptr<RunExchanges>>& Registry() {
  static auto* registry =
      new absl::flat_hash_map<const ExecContext*, std::shared_ptr<RunExchanges>>();
  return *registry;
}

std::shared_ptr<RunExchanges> Find(const ExecContext& ctx) {
  if (live_runs.load(std::memory_order_acquire) == 0) return nullptr;
  absl::MutexLock lock(&registry_mu);
  auto it = Registry().find(&ctx);
  return it == Registry().end() ? nullptr : it->second;
}

}  // namespace

void BeginExchange(ExecContext& ctx, const void* key, std::function<absl::Status()> exchange) {
  std::shared_ptr<RunExchanges> run = Find(ctx);
  if (run == nullptr) {
    run = std::make_shared<RunExchanges>();
    absl::MutexLock lock(&registry_mu);
    Registry()[&ctx] = run;
    live_runs.fetch_add(1, std::memory_order_release);
  }
  began_exchanges = true;
  run->Begin(key, std::move(exchange));
}

absl::Status AwaitExchange(ExecContext& ctx, const void* key, bool* found) {
  std::shared_ptr<RunExchanges> run = Find(ctx);
  if (run == nullptr) {
    *found = false;
    return absl::OkStatus();
  }
  return run->Await(key, found);
}

void QuiesceExchanges(ExecContext& ctx) {
  if (std::shared_ptr<RunExchanges> run = Find(ctx)) run->Quiesce();
}

absl::Status FinishExchanges(ExecContext& ctx) {
  began_exchanges = false;
  std::shared_ptr<RunExchanges> run = Find(ctx);
  if (run == nullptr) return absl::OkStatus();
  absl::Status status = run->Finish();
  {
    absl::MutexLock lock(&registry_mu);
    Registry().erase(&ctx);
    live_runs.fetch_sub(1, std::memory_order_release);
  }
  run.reset();  // the last reference: joins the worker
  return status;
}

bool ThreadBeganExchanges() { return began_exchanges; }

bool OnExchangeThread() { return exchange_thread; }

}  // namespace vm
}  // namespace hlovm
