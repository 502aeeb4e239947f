// Asynchronous exchanges: how a collective's -start begins its exchange and
// returns, and how its -done waits for it (see vm/COLLECTIVES.md).
//
// Each run (one ExecContext: one instance of a multi-device run) that
// begins an exchange gets a worker thread of its own, started at its first
// -start and stopped when the run's entry function returns. The worker runs
// the run's exchanges one at a time in the order they began, so an
// instance still meets its collectives in program order (the message bus
// relies on it: the k-th collective message from a peer belongs to the k-th
// collective with that peer). A synchronous collective first waits until
// every exchange begun before it has ended (QuiesceExchanges), for the same
// reason. Meanwhile the instance's own thread goes on with the instructions
// between the -start and its -done; the buffer plan keeps a start's operands
// and results live until its done (the done reads them).
//
// An exchange runs with the floating-point environment (flush-to-zero
// modes) of the thread that began it.
#ifndef HLOVM_VM_ASYNC_EXCHANGE_H_
#define HLOVM_VM_ASYNC_EXCHANGE_H_

#include <functional>

#include "absl/status/status.h"
#include "vm/bytecode.h"

namespace hlovm {
namespace vm {

// Begins `exchange` for the run of `ctx`: queued behind the run's earlier
// exchanges on its worker thread. `key` names what a -done waits for (the
// start's plan).
void BeginExchange(ExecContext& ctx, const void* key, std::function<absl::Status()> exchange);

// Waits for the oldest exchange of `ctx` begun with `key` that no -done has
// waited for yet, and returns how it ended. `*found` says whether there was
// one (a start that ran its exchange at once leaves none).
absl::Status AwaitExchange(ExecContext& ctx, const void* key, bool* found);

// Waits until every exchange `ctx` has begun has ended; their outcomes stay
// for their -done. Returns at once when the run has none in flight.
void QuiesceExchanges(ExecContext& ctx);

// Ends the run's exchanges when its entry function returns: waits for every
// one still in flight (a run that failed between a -start and its -done;
// their buffers must not be given back while a peer may still read them),
// stops the worker, and returns the first error among those no -done
// waited for.
absl::Status FinishExchanges(ExecContext& ctx);

// Whether this thread has begun exchanges that FinishExchanges has not
// ended yet (a cheap check: kernels' threads and runs without -starts never
// have).
bool ThreadBeganExchanges();

// Whether this thread is one that runs a run's exchanges (its instance's
// kernels may be computing meanwhile, on the same cores).
bool OnExchangeThread();

}  // namespace vm
}  // namespace hlovm

#endif  // HLOVM_VM_ASYNC_EXCHANGE_H_
