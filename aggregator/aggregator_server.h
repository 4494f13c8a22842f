// profdiff-aggregator assembled: the store (local or ClickHouse), the I/O
// threads and the Collector and RunStore services on one gRPC server. The
// binary and the tests run this same object.
#ifndef PROFDIFF_AGGREGATOR_AGGREGATOR_SERVER_H_
#define PROFDIFF_AGGREGATOR_AGGREGATOR_SERVER_H_

#include <memory>
#include <string>

#include <absl/status/statusor.h>

#include "aggregator/capture_coordinator.h"
#include "aggregator/collector_service.h"
#include "aggregator/store/store.h"
#include "rpc/credentials.h"

namespace profdiff::aggregator {

class RunDigests;

struct AggregatorOptions {
  std::string listen_address = "127.0.0.1:50052";
  rpc::ServerSecurity security;  // plaintext unless TLS files were given
  StoreOptions store;
  // Threads that handle Upload messages (chunk appends, fsync on the local
  // store; span opens, which wait on a state lookup on ClickHouse: more in
  // flight go in one lookup), and as many again for reads. Waiting, not
  // computing: 16 let the opens of 16 agents' streams share lookups.
  int io_threads = 16;
  int build_threads = 1;  // CPU-bound: profile builds when spans close
  CollectorLimits
      collector;  // open Upload streams: per agent, in total, idle timeout
  CaptureCoordinatorOptions capture;  // on-demand captures; replica: host/pid
  // Run digests kept for the differ (aggregator/run_digests.h), serialized.
  size_t digest_cache_bytes = size_t{256} << 20;
};

class AggregatorServer {
 public:
  // Opens the store (recovering what it holds) and starts serving. Unavailable
  // when the address cannot be bound or the data folder cannot be used.
  static absl::StatusOr<std::unique_ptr<AggregatorServer>> Start(
      const AggregatorOptions& options);
  // Shuts down: refuses new calls, cancels those still running after a short
  // grace period.
  ~AggregatorServer();

  int port() const;
  const Store& store() const;
  // The run digests it serves (aggregator/run_digests.h).
  RunDigests& digests() const;
  // Blocks until the server is shut down (from another thread).
  void Wait();
  void Shutdown();

 private:
  struct Parts;

 public:
  // Use Start(); `Parts` cannot be named outside.
  explicit AggregatorServer(std::unique_ptr<Parts> parts);

 private:
  std::unique_ptr<Parts> parts_;
};

}  // namespace profdiff::aggregator

#endif  // PROFDIFF_AGGREGATOR_AGGREGATOR_SERVER_H_
