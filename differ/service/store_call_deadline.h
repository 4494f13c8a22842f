// The deadline of a call the differ makes to its aggregator on behalf of a
// client: the client's own deadline, but never more than the differ's
// --store-timeout (a client without a deadline must not hold a call to the
// aggregator open forever).
#ifndef PROFDIFF_DIFFER_SERVICE_STORE_CALL_DEADLINE_H_
#define PROFDIFF_DIFFER_SERVICE_STORE_CALL_DEADLINE_H_

#include <algorithm>

#include <absl/time/clock.h>
#include <absl/time/time.h>
#include <grpcpp/server_context.h>

namespace profdiff::differ {

inline absl::Time StoreCallDeadline(
    const grpc::CallbackServerContext& client_call,
    absl::Duration store_timeout) {
  return std::min(absl::FromChrono(client_call.deadline()),
                  absl::Now() + store_timeout);
}

}  // namespace profdiff::differ

#endif  // PROFDIFF_DIFFER_SERVICE_STORE_CALL_DEADLINE_H_
