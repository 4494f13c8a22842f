// profdiff-differ assembled: the digest cache, the aggregator client, the diff
// threads, and the Differ and forwarding RunStore services on one gRPC server;
// with `http_address`, the web UI beside it.
// The binary and the tests run this same object.
#ifndef PROFDIFF_DIFFER_SERVICE_DIFFER_SERVER_H_
#define PROFDIFF_DIFFER_SERVICE_DIFFER_SERVER_H_

#include <cstddef>
#include <memory>
#include <string>

#include <absl/status/statusor.h>
#include <absl/time/time.h>

#include "differ/service/agents_forwarder.h"
#include "differ/service/digest_cache.h"
#include "rpc/credentials.h"

namespace profdiff::differ {

struct DifferOptions {
  std::string listen_address = "127.0.0.1:50051";
  rpc::ServerSecurity security;  // how clients reach this server
  std::string store_address = "127.0.0.1:50052";  // the aggregator
  rpc::ChannelSecurity
      store_security;  // how this server reaches the aggregator
  int threads = 2;     // concurrent diffs (CPU-bound), >= 1
  size_t cache_bytes = size_t{1} << 30;  // digests of COMPLETE runs
  absl::Duration store_timeout =
      absl::Minutes(2);  // longest call to the aggregator
  // Whether ListAgents and the capture calls go on to the aggregator.
  AgentsAccess agents_access = AgentsAccess::kForwarded;
  // The web UI's HOST:PORT (differ/web/web_ui.h); empty: none. It takes
  // `security`'s token and TLS certificate.
  std::string http_address;
  // How long a web UI page waits for its group-by toggle's diff
  // (web::WebUiOptions::other_groupings_budget).
  absl::Duration http_groupings_budget = absl::Milliseconds(400);
};

class DifferServer {
 public:
  // Starts serving; Unavailable when the address cannot be bound. The
  // aggregator is not contacted here: it may start later, and each call reports
  // it when it does not answer.
  static absl::StatusOr<std::unique_ptr<DifferServer>> Start(
      const DifferOptions& options);
  ~DifferServer();

  int port() const;
  int http_port() const;  // 0 without a web UI
  DigestCacheStats cache_stats() const;
  void Shutdown();

 private:
  struct Parts;

 public:
  // Use Start(); `Parts` cannot be named outside.
  explicit DifferServer(std::unique_ptr<Parts> parts);

 private:
  std::unique_ptr<Parts> parts_;
};

}  // namespace profdiff::differ

#endif  // PROFDIFF_DIFFER_SERVICE_DIFFER_SERVER_H_
