// profdiff-aggregator: receives spans from agents (Collector) and serves what
// it stored (RunStore). Stops on SIGINT/SIGTERM.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include <absl/flags/flag.h>
#include <absl/time/time.h>

#include "aggregator/aggregator_server.h"
#include "base/flag_names.h"
#include "base/log.h"
#include "base/str_cat.h"
#include "base/termination_signals.h"
#include "rpc/server_security_flags.h"

ABSL_FLAG(std::string, listen, "",
          "HOST:PORT to serve Collector and RunStore on (default "
          "127.0.0.1:50052 in plaintext, "
          "0.0.0.0:50052 with TLS)");
ABSL_FLAG(std::string, data_dir, "",
          "run store folder (default $XDG_STATE_HOME/profdiff-aggregator or "
          "~/.local/state/profdiff-aggregator)");
ABSL_FLAG(std::string, store, "local",
          "where runs are stored: \"local\" (--data-dir) or "
          "clickhouse://HOST:HTTP_PORT[,HOST:HTTP_PORT...]/DB, one address per "
          "shard, for "
          "stateless replicas over a ClickHouse cluster");
ABSL_FLAG(std::string, clickhouse_cluster, "profdiff",
          "the remote_servers cluster of the ClickHouse servers (its shards in "
          "--store order)");
ABSL_FLAG(
    absl::Duration, partial_after, absl::Minutes(10),
    "a run missing workers turns PARTIAL after this long without activity");
ABSL_FLAG(
    int, io_threads, 4,
    "threads for chunk appends (fsync), and as many again for RunStore reads");
ABSL_FLAG(int, build_threads, 1,
          "threads building profiles when spans close (CPU-bound)");
ABSL_FLAG(int, max_streams_per_agent, 64,
          "Upload streams one agent id may hold open at once");
ABSL_FLAG(int, max_streams, 4096,
          "Upload streams all agents together may hold open at once");
ABSL_FLAG(absl::Duration, stream_idle_timeout, absl::Minutes(2),
          "an Upload stream whose agent sends nothing (or reads no ack) for "
          "this long is ended, "
          "releasing its span");
ABSL_FLAG(uint64_t, max_span_bytes, uint64_t{16} << 30,
          "stored bytes one span may take");
ABSL_FLAG(std::string, port_file, "",
          "write the bound port here once serving (for scripts)");
ABSL_FLAG(int, v, 0, "log verbosity");

namespace {

std::string DefaultDataDir() {
  if (const char* state = std::getenv("XDG_STATE_HOME");
      state != nullptr && *state != '\0') {
    return profdiff::base::StrCat(state, "/profdiff-aggregator");
  }
  const char* home = std::getenv("HOME");
  return profdiff::base::StrCat(home != nullptr ? home : ".",
                                "/.local/state/profdiff-aggregator");
}

int Run() {
  using profdiff::aggregator::AggregatorOptions;
  using profdiff::aggregator::AggregatorServer;
  profdiff::base::SetLogVerbosity(absl::GetFlag(FLAGS_v));
  AggregatorOptions options;
  absl::StatusOr<profdiff::rpc::ServerSecurity> security =
      profdiff::rpc::ServerSecurityFromFlags();
  if (!security.ok()) {
    std::fprintf(stderr, "profdiff-aggregator: error: %s\n",
                 security.status().ToString().c_str());
    return 2;
  }
  options.security = *std::move(security);
  options.listen_address = absl::GetFlag(FLAGS_listen);
  if (options.listen_address.empty()) {
    options.listen_address =
        profdiff::rpc::DefaultListenAddress(options.security, 50052);
  }
  const std::string store = absl::GetFlag(FLAGS_store);
  if (store != "local") {
    if (!store.starts_with("clickhouse://")) {
      std::fprintf(stderr,
                   "profdiff-aggregator: error: --store \"%s\": must be local "
                   "or clickhouse://...\n",
                   store.c_str());
      return 2;
    }
    if (!absl::GetFlag(FLAGS_data_dir).empty()) {
      std::fprintf(
          stderr,
          "profdiff-aggregator: error: --data-dir is for --store local only\n");
      return 2;
    }
    options.store.clickhouse_url = store;
    options.store.clickhouse_cluster = absl::GetFlag(FLAGS_clickhouse_cluster);
  } else {
    options.store.data_dir = absl::GetFlag(FLAGS_data_dir);
    if (options.store.data_dir.empty())
      options.store.data_dir = DefaultDataDir();
  }
  options.store.partial_after = absl::GetFlag(FLAGS_partial_after);
  options.store.max_span_bytes = absl::GetFlag(FLAGS_max_span_bytes);
  options.io_threads = std::max(1, absl::GetFlag(FLAGS_io_threads));
  options.build_threads = std::max(1, absl::GetFlag(FLAGS_build_threads));
  options.collector.max_streams_per_agent =
      std::max(1, absl::GetFlag(FLAGS_max_streams_per_agent));
  options.collector.max_streams = std::max(1, absl::GetFlag(FLAGS_max_streams));
  options.collector.stream_idle_timeout = std::max(
      absl::Milliseconds(100), absl::GetFlag(FLAGS_stream_idle_timeout));

  const profdiff::base::TerminationSignals signals;  // before any thread starts

  absl::StatusOr<std::unique_ptr<AggregatorServer>> server =
      AggregatorServer::Start(options);
  if (!server.ok()) {
    std::fprintf(stderr, "profdiff-aggregator: error: %s\n",
                 server.status().ToString().c_str());
    return 1;
  }
  for (const std::string& note : (*server)->store().recovery_notes()) {
    PD_LOG(WARNING, "recovery %s", note);
  }
  PD_LOG(INFO, "serving address=%s port=%d store=%s security=%s",
         options.listen_address, (*server)->port(),
         (*server)->store().Describe(), options.security.Describe());
  profdiff::rpc::LogListening(options.listen_address, options.security);
  return signals.ServeUntilSignal("profdiff-aggregator", (*server)->port(),
                                  absl::GetFlag(FLAGS_port_file),
                                  [&] { (*server)->Shutdown(); });
}

}  // namespace

int main(int argc, char** argv) {
  profdiff::base::ParseFlags(
      argc, argv,
      "profdiff-aggregator --listen HOST:PORT [--data-dir DIR | --store "
      "clickhouse://H:P[,H:P...]/DB]\n"
      "Receives profiler spans from profdiff-agent and serves the runs it "
      "stored.");
  return Run();
}
