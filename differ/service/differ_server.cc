#include "differ/service/differ_server.h"

#include <chrono>

#include "base/status_macros.h"
#include "base/thread_pool.h"
#include "differ/service/agents_forwarder.h"
#include "differ/service/differ_service.h"
#include "differ/service/run_store_forwarder.h"
#include "differ/service/stored_runs.h"
#include "rpc/server.h"

namespace profdiff::differ {

// Destroyed in reverse order: the server stops, then the pool runs out what it
// holds, and only then go the services its work calls into, the aggregator
// client and the cache.
struct DifferServer::Parts {
  std::unique_ptr<DigestCache> cache;
  std::unique_ptr<StoredRuns> store;
  std::unique_ptr<DifferService> differ;
  std::unique_ptr<RunStoreForwarder> run_store;
  std::unique_ptr<AgentsForwarder> agents;
  std::unique_ptr<base::ThreadPool> pool;
  rpc::RunningServer server;
};

DifferServer::DifferServer(std::unique_ptr<Parts> parts)
    : parts_(std::move(parts)) {}

DifferServer::~DifferServer() { Shutdown(); }

absl::StatusOr<std::unique_ptr<DifferServer>> DifferServer::Start(
    DifferOptions options) {
  auto parts = std::make_unique<Parts>();
  parts->cache = std::make_unique<DigestCache>(options.cache_bytes);
  parts->store = std::make_unique<StoredRuns>(
      options.store_address, options.store_security, parts->cache.get());
  parts->pool = std::make_unique<base::ThreadPool>(options.threads);
  parts->differ = std::make_unique<DifferService>(
      parts->store.get(), parts->pool.get(), options.store_timeout);
  parts->run_store = std::make_unique<RunStoreForwarder>(parts->store.get(),
                                                         options.store_timeout);
  parts->agents = std::make_unique<AgentsForwarder>(
      options.store_address, options.store_security, parts->store.get(),
      options.store_timeout, options.agents_access);
  PD_ASSIGN_OR_RETURN(parts->server, rpc::StartServer(options.listen_address,
                                                      {parts->differ.get(),
                                                       parts->run_store.get(),
                                                       parts->agents.get()},
                                                      options.security));
  return std::make_unique<DifferServer>(std::move(parts));
}

int DifferServer::port() const { return parts_->server.port; }

DigestCacheStats DifferServer::cache_stats() const {
  return parts_->cache->stats();
}

void DifferServer::Shutdown() {
  constexpr auto kGrace = std::chrono::seconds(2);
  if (parts_ && parts_->server.server) {
    parts_->server.server->Shutdown(std::chrono::system_clock::now() + kGrace);
  }
}

}  // namespace profdiff::differ
