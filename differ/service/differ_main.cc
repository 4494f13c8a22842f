// profdiff-differ: answers Differ.Diff for runs stored on an aggregator, and
// forwards the RunStore reads to it, so users need one address. Parses flags,
// builds a DifferServer and runs it until SIGINT/SIGTERM.
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <absl/strings/string_view.h>
#include <absl/time/time.h>

#include "base/command_line.h"
#include "base/log.h"
#include "base/port_file.h"
#include "base/status_annotate.h"
#include "base/str_cat.h"
#include "base/termination_signals.h"
#include "differ/service/differ_server.h"
#include "rpc/credentials.h"
#include "rpc/security_flags.h"

namespace {

using profdiff::differ::DifferOptions;
using profdiff::differ::DifferServer;

constexpr char kProgram[] = "profdiff-differ";
using profdiff::base::kExitFailed;
using profdiff::base::kExitUsage;
constexpr int kDefaultPort = 50051;

constexpr char kSynopsis[] =
    "usage: profdiff-differ --listen HOST:PORT --store AGGREGATOR_HOST:PORT\n"
    "Diffs runs stored on a profdiff-aggregator, and serves that aggregator's "
    "runs.\n"
    "Flag names may be written with '-' or '_' (--store-tls = "
    "--store_tls).\n\n";

// How the differ reaches the aggregator: its own flags, no environment.
constexpr profdiff::rpc::ChannelSecurityFlagSpec kStoreSecurityFlags = {
    .prefix = "store-", .server = "the aggregator"};

// Every flag's value; the defaults are DifferOptions' own.
struct DifferCommandLine {
  DifferOptions options;
  std::string listen;  // empty: rpc::DefaultListenAddress
  profdiff::rpc::ServerSecurityFiles security;
  profdiff::rpc::ChannelSecurityFiles store_security;
  bool allow_unauthenticated_clients = false;
  bool allow_unauthenticated_captures = false;
  std::string port_file;
  std::string http_port_file;
  int verbosity = 0;
};

// --cache-bytes binds DifferOptions::cache_bytes as a uint64_t.
static_assert(std::is_same_v<decltype(DifferOptions::cache_bytes), uint64_t>);

profdiff::base::FlagSet FlagsOf(DifferCommandLine& line) {
  profdiff::base::FlagSet flags;
  DifferOptions& options = line.options;
  flags.AddString("listen", &line.listen, "HOST:PORT",
                  "serve Differ and RunStore here (default 127.0.0.1:50051 in "
                  "plaintext, 0.0.0.0:50051 with TLS)");
  flags.AddString("store", &options.store_address, "HOST:PORT",
                  "the profdiff-aggregator");
  profdiff::rpc::AddChannelSecurityFlags(flags, kStoreSecurityFlags,
                                         &line.store_security);
  flags.AddBool("allow-unauthenticated-clients",
                &line.allow_unauthenticated_clients,
                "serve without --auth-token-file (or client certificates) "
                "although the aggregator wants a token: anyone who reaches "
                "this differ reads every stored run (but lists no agents and "
                "starts no captures: see --allow-unauthenticated-captures)");
  flags.AddBool("allow-unauthenticated-captures",
                &line.allow_unauthenticated_captures,
                "with --allow-unauthenticated-clients, also forward "
                "ListAgents and the capture calls: anyone who reaches this "
                "differ can then profile every training job of the cluster");
  flags.AddInt("threads", &options.threads, "N",
               "diffs computed at once (each takes a core while it runs)",
               {.min = 1});
  flags.AddUint64(
      "cache-bytes", &options.cache_bytes, "BYTES",
      "memory for the digests of COMPLETE runs (runs reduced over their "
      "workers), kept for the next diff");
  flags.AddDuration("store-timeout", &options.store_timeout, "D",
                    "deadline of each call to the aggregator (a client's "
                    "shorter deadline wins)",
                    profdiff::base::DurationRule::kPositive);
  profdiff::rpc::AddServerSecurityFlags(flags, &line.security);
  flags.AddString(
      "http", &options.http_address, "HOST:PORT",
      "also serve the web UI here (runs, diffs at a URL, each run's traces), "
      "guarded by --auth-token-file and served over TLS with "
      "--tls-cert-file/--tls-key-file as the gRPC side; a bare PORT is "
      "127.0.0.1:PORT (default: no web UI)");
  flags.AddString("port-file", &line.port_file, "FILE",
                  "write the bound port here once serving (for scripts)");
  flags.AddString("http-port-file", &line.http_port_file, "FILE",
                  "write the web UI's bound port here once serving");
  flags.AddInt("v", &line.verbosity, "N", "log verbosity");
  return flags;
}

// --http's address: a bare PORT or :PORT is this host's loopback, as the gRPC
// side's default (other hosts' browsers come in over TLS, named on purpose).
std::string WebUiAddress(const std::string& flag) {
  if (flag.empty()) return flag;
  if (flag.front() == ':') return "127.0.0.1" + flag;
  if (flag.find(':') == std::string::npos) return "127.0.0.1:" + flag;
  return flag;
}

// The host of the UI's URL: an address that listens everywhere is reached at
// this host's loopback.
std::string WebUiHost(const std::string& address) {
  std::string host = address.substr(0, address.rfind(':'));
  if (host.empty() || host == "0.0.0.0") return "127.0.0.1";
  if (host == "[::]" || host == "::") return "[::1]";
  return host;
}

int Fail(int code, absl::string_view message) {
  return profdiff::base::FailWith(kProgram, code, message);
}

int Run(DifferCommandLine& line) {
  profdiff::base::SetLogVerbosity(line.verbosity);
  DifferOptions& options = line.options;
  absl::StatusOr<profdiff::rpc::ServerSecurity> security =
      profdiff::rpc::ServerSecurity::Load(line.security);
  absl::StatusOr<profdiff::rpc::ChannelSecurity> store_security =
      profdiff::rpc::LoadChannelSecurity(kStoreSecurityFlags,
                                         line.store_security);
  for (const absl::Status& status :
       {security.status(), store_security.status()}) {
    if (!status.ok()) return Fail(kExitUsage, status.ToString());
  }
  // A differ holding the aggregator's token must not hand its runs to clients
  // without one.
  if (!line.store_security.token_file.empty() && !security->requires_token() &&
      !security->mutual_tls()) {
    if (!line.allow_unauthenticated_clients) {
      return Fail(kExitUsage,
                  "--store-auth-token-file is set but this differ has no "
                  "--auth-token-file (nor --tls-client-ca-file): it would "
                  "serve the token-protected aggregator's runs to anyone; "
                  "give it a token, or pass --allow-unauthenticated-clients "
                  "to do so on purpose");
    }
    PD_LOG(WARNING,
           "serving without client authentication a token-protected aggregator "
           "(--allow-unauthenticated-clients)%s",
           line.allow_unauthenticated_captures
               ? "; agents and captures too (--allow-unauthenticated-captures)"
               : "; agents and captures are refused (they would need "
                 "--allow-unauthenticated-captures)");
    if (!line.allow_unauthenticated_captures) {
      options.agents_access =
          profdiff::differ::AgentsAccess::kRefusedUnauthenticated;
    }
  } else if (line.allow_unauthenticated_captures) {
    return Fail(kExitUsage,
                "--allow-unauthenticated-captures is only for a differ that "
                "serves unauthenticated clients (--allow-unauthenticated-"
                "clients with --store-auth-token-file)");
  }
  options.security = *std::move(security);
  options.store_security = *std::move(store_security);
  options.http_address = WebUiAddress(options.http_address);
  options.listen_address =
      line.listen.empty()
          ? profdiff::rpc::DefaultListenAddress(options.security, kDefaultPort)
          : line.listen;

  const profdiff::base::TerminationSignals signals;  // before any thread starts

  absl::StatusOr<std::unique_ptr<DifferServer>> server =
      DifferServer::Start(options);
  if (!server.ok()) return Fail(kExitFailed, server.status().ToString());
  PD_LOG(INFO, "serving address=%s port=%d store=%s security=%s store_tls=%d",
         options.listen_address, (*server)->port(), options.store_address,
         options.security.Describe(), options.store_security.tls());
  profdiff::rpc::LogListening(options.listen_address, options.security);
  if ((*server)->http_port() != 0) {
    // Plaintext beyond loopback is said as for gRPC.
    profdiff::rpc::LogListening(options.http_address, options.security);
    const std::string url = profdiff::base::StrCat(
        options.security.tls() ? "https://" : "http://",
        WebUiHost(options.http_address), ":", (*server)->http_port(), "/");
    PD_LOG(
        INFO, "web UI at %s%s", url,
        options.security.requires_token() ? " (sign in with the token)" : "");
    std::fprintf(stderr, "profdiff-differ: web UI at %s\n", url.c_str());
    if (!line.http_port_file.empty()) {
      if (absl::Status written = profdiff::base::WritePortFile(
              line.http_port_file, (*server)->http_port());
          !written.ok()) {
        return Fail(kExitFailed, written.ToString());
      }
    }
  }
  return signals.ServeUntilSignal(kProgram, (*server)->port(), line.port_file,
                                  [&] { (*server)->Shutdown(); });
}

}  // namespace

int main(int argc, char** argv) {
  DifferCommandLine line;
  profdiff::base::FlagSet flags = FlagsOf(line);
  if (const std::optional<int> exit = profdiff::base::ParseFlagsOnly(
          flags, argc, argv, kProgram, kSynopsis))
    return *exit;
  return Run(line);
}
