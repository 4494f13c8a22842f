// profdiff-differ: answers Differ.Diff for runs stored on an aggregator, and
// forwards the RunStore reads to it, so users need one address. Stops on
// SIGINT/SIGTERM.
#include <cstdio>
#include <string>

#include <absl/flags/flag.h>
#include <absl/time/time.h>

#include "base/flag_names.h"
#include "base/log.h"
#include "base/termination_signals.h"
#include "differ/service/differ_server.h"
#include "rpc/server_security_flags.h"

ABSL_FLAG(std::string, listen, "",
          "HOST:PORT to serve Differ and RunStore on (default 127.0.0.1:50051 "
          "in plaintext, "
          "0.0.0.0:50051 with TLS)");
ABSL_FLAG(std::string, store, "127.0.0.1:50052",
          "HOST:PORT of the profdiff-aggregator");
ABSL_FLAG(std::string, store_tls_ca_file, "",
          "reach the aggregator over TLS, trusting this PEM CA (TLS with the "
          "system's roots when "
          "only --store-auth-token-file or a client certificate is given)");
ABSL_FLAG(bool, store_tls, false,
          "reach the aggregator over TLS, trusting the system's CA roots");
ABSL_FLAG(std::string, store_tls_cert_file, "",
          "client certificate for an aggregator with mutual TLS");
ABSL_FLAG(std::string, store_tls_key_file, "",
          "PEM private key of --store-tls-cert-file");
ABSL_FLAG(std::string, store_auth_token_file, "",
          "bearer token the aggregator wants (needs TLS)");
ABSL_FLAG(bool, allow_unauthenticated_clients, false,
          "serve without --auth-token-file (or client certificates) although "
          "the aggregator wants "
          "a token: anyone who reaches this differ reads every stored run");
ABSL_FLAG(int, threads, 2,
          "diffs computed at once (each takes a core while it runs)");
ABSL_FLAG(uint64_t, cache_bytes, uint64_t{1} << 30,
          "memory for the profiles of COMPLETE runs, kept for the next diff");
ABSL_FLAG(absl::Duration, store_timeout, absl::Minutes(2),
          "deadline of each call to the aggregator (a client's shorter "
          "deadline wins)");
ABSL_FLAG(std::string, port_file, "",
          "write the bound port here once serving (for scripts)");
ABSL_FLAG(int, v, 0, "log verbosity");

namespace {

int Run() {
  using profdiff::differ::DifferOptions;
  using profdiff::differ::DifferServer;
  profdiff::base::SetLogVerbosity(absl::GetFlag(FLAGS_v));
  DifferOptions options;
  absl::StatusOr<profdiff::rpc::ServerSecurity> security =
      profdiff::rpc::ServerSecurityFromFlags();
  absl::StatusOr<profdiff::rpc::ChannelSecurity> store_security =
      profdiff::rpc::ChannelSecurity::Load(
          {.tls_ca_file = absl::GetFlag(FLAGS_store_tls_ca_file),
           .tls_cert_file = absl::GetFlag(FLAGS_store_tls_cert_file),
           .tls_key_file = absl::GetFlag(FLAGS_store_tls_key_file),
           .token_file = absl::GetFlag(FLAGS_store_auth_token_file),
           .tls = absl::GetFlag(FLAGS_store_tls)});
  for (const absl::Status& status :
       {security.status(), store_security.status()}) {
    if (!status.ok()) {
      std::fprintf(stderr, "profdiff-differ: error: %s\n",
                   status.ToString().c_str());
      return 2;
    }
  }
  // A differ holding the aggregator's token must not hand its runs to clients
  // without one.
  if (!absl::GetFlag(FLAGS_store_auth_token_file).empty() &&
      !security->requires_token() && !security->mutual_tls()) {
    if (!absl::GetFlag(FLAGS_allow_unauthenticated_clients)) {
      std::fprintf(stderr,
                   "profdiff-differ: error: --store-auth-token-file is set but "
                   "this differ has no "
                   "--auth-token-file (nor --tls-client-ca-file): it would "
                   "serve the token-protected "
                   "aggregator's runs to anyone; give it a token, or pass "
                   "--allow-unauthenticated-clients to do so on purpose\n");
      return 2;
    }
    PD_LOG(WARNING,
           "serving without client authentication a token-protected aggregator "
           "(--allow-unauthenticated-clients)");
  }
  options.security = *std::move(security);
  options.store_security = *std::move(store_security);
  options.listen_address = absl::GetFlag(FLAGS_listen);
  if (options.listen_address.empty()) {
    options.listen_address =
        profdiff::rpc::DefaultListenAddress(options.security, 50051);
  }
  options.store_address = absl::GetFlag(FLAGS_store);
  options.threads = absl::GetFlag(FLAGS_threads);
  options.cache_bytes = absl::GetFlag(FLAGS_cache_bytes);
  options.store_timeout = absl::GetFlag(FLAGS_store_timeout);
  if (options.threads < 1 || options.store_timeout <= absl::ZeroDuration()) {
    std::fprintf(stderr,
                 "profdiff-differ: error: --threads %d, --store-timeout %s: "
                 "both must be positive\n",
                 options.threads,
                 absl::FormatDuration(options.store_timeout).c_str());
    return 2;
  }

  const profdiff::base::TerminationSignals signals;  // before any thread starts

  absl::StatusOr<std::unique_ptr<DifferServer>> server =
      DifferServer::Start(options);
  if (!server.ok()) {
    std::fprintf(stderr, "profdiff-differ: error: %s\n",
                 server.status().ToString().c_str());
    return 1;
  }
  PD_LOG(INFO, "serving address=%s port=%d store=%s security=%s store_tls=%d",
         options.listen_address, (*server)->port(), options.store_address,
         options.security.Describe(), options.store_security.tls());
  profdiff::rpc::LogListening(options.listen_address, options.security);
  return signals.ServeUntilSignal("profdiff-differ", (*server)->port(),
                                  absl::GetFlag(FLAGS_port_file),
                                  [&] { (*server)->Shutdown(); });
}

}  // namespace

int main(int argc, char** argv) {
  profdiff::base::ParseFlags(
      argc, argv,
      "profdiff-differ --listen HOST:PORT --store AGGREGATOR_HOST:PORT\n"
      "Diffs runs stored on a profdiff-aggregator, and serves that "
      "aggregator's runs.");
  return Run();
}
