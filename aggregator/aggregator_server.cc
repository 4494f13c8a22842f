#include "aggregator/aggregator_server.h"

#include <unistd.h>

#include <chrono>

#include "aggregator/agents_service.h"
#include "aggregator/capture_coordinator.h"
#include "aggregator/collector_service.h"
#include "aggregator/open_store.h"
#include "aggregator/run_digests.h"
#include "aggregator/run_store_service.h"
#include "base/hostname.h"
#include "base/status_macros.h"
#include "base/str_cat.h"
#include "base/thread_pool.h"
#include "rpc/server.h"

namespace profdiff::aggregator {

// Destroyed in reverse order: the server stops before the pool and the store it
// calls into.
struct AggregatorServer::Parts {
  std::unique_ptr<Store> store;
  std::unique_ptr<ControlStore> control;
  std::unique_ptr<base::ThreadPool> pool;  // Collector: headers and chunks
  std::unique_ptr<base::ThreadPool> build_pool;  // Collector: span ends
  std::unique_ptr<base::ThreadPool> read_pool;   // RunStore, Agents
  std::unique_ptr<RunDigests> digests;           // reads store
  std::unique_ptr<CaptureCoordinator> captures;  // reads store and control
  std::unique_ptr<CollectorService> collector;
  std::unique_ptr<RunStoreService> run_store;
  std::unique_ptr<AgentsService> agents;
  rpc::RunningServer server;
};

AggregatorServer::AggregatorServer(std::unique_ptr<Parts> parts)
    : parts_(std::move(parts)) {}

AggregatorServer::~AggregatorServer() { Shutdown(); }

absl::StatusOr<std::unique_ptr<AggregatorServer>> AggregatorServer::Start(
    const AggregatorOptions& options) {
  auto parts = std::make_unique<Parts>();
  PD_ASSIGN_OR_RETURN(parts->store, OpenStore(options.store));
  PD_ASSIGN_OR_RETURN(parts->control, OpenControlStore(options.store));
  parts->pool = std::make_unique<base::ThreadPool>(options.io_threads);
  parts->build_pool = std::make_unique<base::ThreadPool>(options.build_threads);
  parts->digests = std::make_unique<RunDigests>(parts->store.get(),
                                                options.digest_cache_bytes);
  CollectorHooks hooks;
  // A run whose last span closed gets its digest made ahead of the first
  // diff.
  hooks.span_closed = [digests = parts->digests.get()](const std::string& run) {
    digests->Prepare(run);
  };
  parts->collector = std::make_unique<CollectorService>(
      parts->store.get(), parts->pool.get(), parts->build_pool.get(),
      options.collector, std::move(hooks));
  // Reads get their own threads: a chunk append may wait for room in a slow
  // ClickHouse shard's queue, and reads must not queue behind it.
  parts->read_pool = std::make_unique<base::ThreadPool>(options.io_threads);
  parts->run_store = std::make_unique<RunStoreService>(
      parts->store.get(), parts->digests.get(), parts->read_pool.get());
  CaptureCoordinatorOptions capture = options.capture;
  if (capture.replica.empty()) {
    capture.replica = base::StrCat(base::LocalHostname(), "/", ::getpid());
  }
  parts->captures = std::make_unique<CaptureCoordinator>(
      parts->control.get(), parts->store.get(), std::move(capture));
  parts->agents = std::make_unique<AgentsService>(parts->captures.get(),
                                                  parts->read_pool.get());
  PD_ASSIGN_OR_RETURN(parts->server, rpc::StartServer(options.listen_address,
                                                      {parts->collector.get(),
                                                       parts->run_store.get(),
                                                       parts->agents.get()},
                                                      options.security));
  return std::make_unique<AggregatorServer>(std::move(parts));
}

int AggregatorServer::port() const { return parts_->server.port; }
const Store& AggregatorServer::store() const { return *parts_->store; }
RunDigests& AggregatorServer::digests() const { return *parts_->digests; }

void AggregatorServer::Wait() { parts_->server.server->Wait(); }

void AggregatorServer::Shutdown() {
  constexpr auto kGrace = std::chrono::seconds(2);
  if (parts_ && parts_->server.server) {
    parts_->server.server->Shutdown(std::chrono::system_clock::now() + kGrace);
  }
}

}  // namespace profdiff::aggregator
