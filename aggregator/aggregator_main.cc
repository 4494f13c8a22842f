// profdiff-aggregator: receives spans from agents (Collector) and serves what
// it stored (RunStore). Parses flags, builds an AggregatorServer and runs it
// until SIGINT/SIGTERM.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <absl/strings/string_view.h>
#include <absl/time/time.h>

#include "aggregator/aggregator_server.h"
#include "base/command_line.h"
#include "base/log.h"
#include "base/status_annotate.h"
#include "base/str_cat.h"
#include "base/termination_signals.h"
#include "rpc/credentials.h"
#include "rpc/security_flags.h"

namespace {

using profdiff::aggregator::AggregatorOptions;
using profdiff::aggregator::AggregatorServer;
using profdiff::aggregator::StoreOptions;

constexpr char kProgram[] = "profdiff-aggregator";
using profdiff::base::kExitFailed;
using profdiff::base::kExitUsage;
constexpr int kDefaultPort = 50052;
constexpr char kLocalStore[] = "local";
// A shorter --stream-idle-timeout is raised to this (0 would end every stream
// at once).
constexpr absl::Duration kMinStreamIdleTimeout = absl::Milliseconds(100);

constexpr char kSynopsis[] =
    "usage: profdiff-aggregator --listen HOST:PORT [--data-dir DIR | --store "
    "clickhouse://H:P[,H:P...]/DB]\n"
    "Receives profiler spans from profdiff-agent and serves the runs it "
    "stored.\n"
    "Flag names may be written with '-' or '_' (--data-dir = --data_dir).\n\n";

// Every flag's value; the defaults are AggregatorOptions' own.
struct AggregatorCommandLine {
  AggregatorOptions options;
  std::string listen;  // empty: rpc::DefaultListenAddress
  std::string store = kLocalStore;
  profdiff::rpc::ServerSecurityFiles security;
  std::string port_file;
  int verbosity = 0;
};

profdiff::base::FlagSet FlagsOf(AggregatorCommandLine& line) {
  profdiff::base::FlagSet flags;
  AggregatorOptions& options = line.options;
  flags.AddString("listen", &line.listen, "HOST:PORT",
                  "serve Collector and RunStore here (default "
                  "127.0.0.1:50052 in plaintext, 0.0.0.0:50052 with TLS)");
  flags.AddString("data-dir", &options.store.data_dir, "DIR",
                  "run store folder (default $XDG_STATE_HOME/"
                  "profdiff-aggregator or ~/.local/state/profdiff-aggregator)");
  flags.AddString("store", &line.store, "STORE",
                  "where runs are stored: \"local\" (--data-dir) or "
                  "clickhouse://HOST:HTTP_PORT[,HOST:HTTP_PORT...]/DB, one "
                  "address per shard, for stateless replicas over a "
                  "ClickHouse cluster");
  flags.AddString("clickhouse-cluster", &options.store.clickhouse_cluster,
                  "NAME",
                  "the remote_servers cluster of the ClickHouse servers (its "
                  "shards in --store order)");
  flags.AddDuration(
      "partial-after", &options.store.partial_after, "D",
      "a run missing workers turns PARTIAL after this long without activity");
  flags.AddDuration("events-repair-interval",
                    &options.store.events_repair_interval, "D",
                    "ClickHouse: how often the events rows a dead replica held "
                    "are made again from the ledger");
  flags.AddEnum(
      "clickhouse-events-table", &options.store.events_table,
      {{"auto", StoreOptions::EventsTable::kAuto},
       {"true", StoreOptions::EventsTable::kFill},
       {"false", StoreOptions::EventsTable::kLeave}},
      "ClickHouse: fill the events table, a row per event for SQL (profdiff "
      "reads the ledger; filling it costs ~a third more CPU an event at a "
      "thousand ranks). auto: fill it when it holds rows already. Turned on, "
      "it is filled from the ledger for what is stored already");
  flags.AddDuration(
      "clickhouse-commit-interval", &options.store.clickhouse_commit_interval,
      "D",
      "ClickHouse: while rows keep coming, a shard's commits start this far "
      "apart, so more streams' rows share an insert (fewer parts for the "
      "servers to write and merge); a lone chunk goes at once. 0: no wait",
      profdiff::base::DurationRule::kNonNegative);
  flags.AddDuration("events-repair-grace", &options.store.events_repair_grace,
                    "D",
                    "ClickHouse: chunks stored this long ago without events "
                    "rows are repaired (younger: a live replica holds them)");
  flags.AddInt("io-threads", &options.io_threads, "N",
               "threads for upload messages (chunk appends, span opens), and "
               "as many again for RunStore reads");
  flags.AddInt("build-threads", &options.build_threads, "N",
               "threads building profiles when spans close (CPU-bound)");
  flags.AddInt("max-streams-per-agent",
               &options.collector.max_streams_per_agent, "N",
               "Upload streams one agent id may hold open at once");
  flags.AddInt("max-streams", &options.collector.max_streams, "N",
               "Upload streams all agents together may hold open at once");
  flags.AddDuration("stream-idle-timeout",
                    &options.collector.stream_idle_timeout, "D",
                    "an Upload stream whose agent sends nothing (or reads no "
                    "ack) for this long is ended, releasing its span");
  flags.AddUint64("max-span-bytes", &options.store.max_span_bytes, "BYTES",
                  "stored bytes one span may take");
  flags.AddUint64("digest-cache-bytes", &options.digest_cache_bytes, "BYTES",
                  "run digests (runs reduced over their workers) kept for the "
                  "differ");
  profdiff::rpc::AddServerSecurityFlags(flags, &line.security);
  flags.AddString("port-file", &line.port_file, "FILE",
                  "write the bound port here once serving (for scripts)");
  flags.AddInt("v", &line.verbosity, "N", "log verbosity");
  return flags;
}

int Fail(int code, absl::string_view message) {
  return profdiff::base::FailWith(kProgram, code, message);
}

std::string DefaultDataDir() {
  if (const char* state = std::getenv("XDG_STATE_HOME");
      state != nullptr && *state != '\0') {
    return profdiff::base::StrCat(state, "/profdiff-aggregator");
  }
  const char* home = std::getenv("HOME");
  return profdiff::base::StrCat(home != nullptr ? home : ".",
                                "/.local/state/profdiff-aggregator");
}

int Run(AggregatorCommandLine& line) {
  profdiff::base::SetLogVerbosity(line.verbosity);
  AggregatorOptions& options = line.options;
  absl::StatusOr<profdiff::rpc::ServerSecurity> security =
      profdiff::rpc::ServerSecurity::Load(line.security);
  if (!security.ok()) return Fail(kExitUsage, security.status().ToString());
  options.security = *std::move(security);
  options.listen_address =
      line.listen.empty()
          ? profdiff::rpc::DefaultListenAddress(options.security, kDefaultPort)
          : line.listen;
  if (line.store != kLocalStore) {
    if (!line.store.starts_with("clickhouse://")) {
      return Fail(kExitUsage,
                  profdiff::base::StrCat(
                      "--store ", profdiff::base::QuoteBytes(line.store),
                      ": must be local or clickhouse://..."));
    }
    if (!options.store.data_dir.empty())
      return Fail(kExitUsage, "--data-dir is for --store local only");
    options.store.clickhouse_url = line.store;
  } else if (options.store.data_dir.empty()) {
    options.store.data_dir = DefaultDataDir();
  }
  // Counts below one mean one, as they always have.
  options.io_threads = std::max(1, options.io_threads);
  options.build_threads = std::max(1, options.build_threads);
  options.collector.max_streams_per_agent =
      std::max(1, options.collector.max_streams_per_agent);
  options.collector.max_streams = std::max(1, options.collector.max_streams);
  options.collector.stream_idle_timeout =
      std::max(kMinStreamIdleTimeout, options.collector.stream_idle_timeout);

  const profdiff::base::TerminationSignals signals;  // before any thread starts

  absl::StatusOr<std::unique_ptr<AggregatorServer>> server =
      AggregatorServer::Start(options);
  if (!server.ok()) return Fail(kExitFailed, server.status().ToString());
  for (const std::string& note : (*server)->store().recovery_notes()) {
    PD_LOG(WARNING, "recovery %s", note);
  }
  PD_LOG(INFO, "serving address=%s port=%d store=%s security=%s",
         options.listen_address, (*server)->port(),
         (*server)->store().Describe(), options.security.Describe());
  profdiff::rpc::LogListening(options.listen_address, options.security);
  return signals.ServeUntilSignal(kProgram, (*server)->port(), line.port_file,
                                  [&] { (*server)->Shutdown(); });
}

}  // namespace

int main(int argc, char** argv) {
  AggregatorCommandLine line;
  profdiff::base::FlagSet flags = FlagsOf(line);
  if (const std::optional<int> exit = profdiff::base::ParseFlagsOnly(
          flags, argc, argv, kProgram, kSynopsis))
    return *exit;
  return Run(line);
}
