#include "differ/service/differ_server.h"

#include <chrono>

#include "base/status_macros.h"
#include "base/thread_pool.h"
#include "differ/service/agents_forwarder.h"
#include "differ/service/differ_service.h"
#include "differ/service/run_store_forwarder.h"
#include "differ/service/store_web_backend.h"
#include "differ/service/stored_runs.h"
#include "differ/web/http_server.h"
#include "differ/web/web_ui.h"
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
  // The web UI: its server stops first.
  std::unique_ptr<StoreWebBackend> web_backend;
  std::unique_ptr<web::WebUi> web_ui;
  std::unique_ptr<web::HttpServer> http;
};

DifferServer::DifferServer(std::unique_ptr<Parts> parts)
    : parts_(std::move(parts)) {}

DifferServer::~DifferServer() { Shutdown(); }

absl::StatusOr<std::unique_ptr<DifferServer>> DifferServer::Start(
    const DifferOptions& options) {
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
  if (!options.http_address.empty()) {
    // The UI checks the token, not client certificates: a differ that asks
    // only for certificates would serve its runs to anyone over HTTP.
    if (options.security.mutual_tls() && !options.security.requires_token()) {
      return absl::InvalidArgumentError(
          "--http with --tls-client-ca-file but no --auth-token-file: the web "
          "UI signs users in with the differ's token; give the differ one");
    }
    parts->web_backend = std::make_unique<StoreWebBackend>(parts->store.get());
    web::WebUiOptions ui;
    ui.token = options.security.token();
    ui.max_concurrent_diffs = options.threads;
    ui.request_timeout = options.store_timeout;
    ui.other_groupings_budget = options.http_groupings_budget;
    parts->web_ui =
        std::make_unique<web::WebUi>(parts->web_backend.get(), std::move(ui));
    web::HttpServerOptions http;
    http.address = options.http_address;
    http.tls_cert_pem = options.security.cert_chain_pem();
    http.tls_key_pem = options.security.private_key_pem();
    web::WebUi* ui_handler = parts->web_ui.get();
    PD_ASSIGN_OR_RETURN(
        parts->http,
        web::HttpServer::Start(http, [ui_handler](const web::HttpRequest& r) {
          return ui_handler->Handle(r);
        }));
  }
  return std::make_unique<DifferServer>(std::move(parts));
}

int DifferServer::http_port() const {
  return parts_->http ? parts_->http->port() : 0;
}

int DifferServer::port() const { return parts_->server.port; }

DigestCacheStats DifferServer::cache_stats() const {
  return parts_->cache->stats();
}

void DifferServer::Shutdown() {
  constexpr auto kGrace = std::chrono::seconds(2);
  if (parts_) parts_->http.reset();  // waits for the pages being sent
  if (parts_ && parts_->server.server) {
    parts_->server.server->Shutdown(std::chrono::system_clock::now() + kGrace);
  }
}

}  // namespace profdiff::differ
