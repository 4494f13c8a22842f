// gRPC keepalive for every profdiff channel and server: a connection whose peer
// froze (a dead host, a cut network path that drops packets without a reset) is
// found dead within time + timeout, instead of being reused until a call's
// deadline, or held by the server for as long as a call without deadline lasts.
#ifndef PROFDIFF_RPC_KEEPALIVE_H_
#define PROFDIFF_RPC_KEEPALIVE_H_

#include <absl/time/time.h>

namespace profdiff::rpc {

struct Keepalive {
  absl::Duration
      time;  // a ping after this long without activity on the connection
  absl::Duration timeout;  // the connection is closed when the ping is not
                           // answered in this long
};

// Clients ping every 30 s (answer within 10 s), servers every 60 s (20 s);
// servers accept pings as often as every 5 s. PROFDIFF_GRPC_KEEPALIVE_MS, when
// set (tests, tuning), replaces both times, with timeouts a third of it.
Keepalive ClientKeepalive();
Keepalive ServerKeepalive();
// A duration as a gRPC integer millisecond argument (at least 1).
int GrpcMillis(absl::Duration duration);

// The shortest ping interval servers accept from clients.
absl::Duration MinClientPingInterval();

}  // namespace profdiff::rpc

#endif  // PROFDIFF_RPC_KEEPALIVE_H_
