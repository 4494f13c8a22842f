#include "client/server_connection.h"

#include <cstdlib>

#include "base/status_macros.h"
#include "client/run_store_client.h"

namespace profdiff::client {

std::set<std::string> WithConnectionOptions(std::set<std::string> valued) {
  valued.insert({"server", "tls-ca-file", "tls-cert-file", "tls-key-file",
                 "auth-token-file"});
  return valued;
}

std::set<std::string> WithConnectionSwitches(std::set<std::string> switches) {
  switches.insert("tls");
  return switches;
}

absl::StatusOr<ServerConnection> ServerConnectionOf(const ParsedArgs& parsed) {
  ServerConnection connection;
  connection.address = parsed.Get("server", DefaultServerAddress());
  const char* env = std::getenv("PROFDIFF_SERVER");
  connection.named =
      parsed.options.contains("server") || (env != nullptr && *env != '\0');
  PD_ASSIGN_OR_RETURN(connection.security,
                      rpc::ChannelSecurity::Load(rpc::WithEnvironmentDefaults(
                          {.tls_ca_file = parsed.Get("tls-ca-file", ""),
                           .tls_cert_file = parsed.Get("tls-cert-file", ""),
                           .tls_key_file = parsed.Get("tls-key-file", ""),
                           .token_file = parsed.Get("auth-token-file", ""),
                           .tls = parsed.options.contains("tls")})));
  return connection;
}

const char* ConnectionUsage() {
  return "  --server HOST:PORT   the profdiff-differ (default "
         "$PROFDIFF_SERVER, else localhost:50051)\n"
         "  --tls                TLS, trusting the system's CA roots\n"
         "  --tls-ca-file FILE   TLS, trusting this PEM CA "
         "($PROFDIFF_TLS_CA_FILE)\n"
         "  --tls-cert-file FILE, --tls-key-file FILE\n"
         "                       client certificate for mutual TLS "
         "($PROFDIFF_TLS_CERT_FILE, _KEY_FILE)\n"
         "  --auth-token-file FILE\n"
         "                       send the bearer token in FILE; implies TLS "
         "($PROFDIFF_TOKEN_FILE)\n";
}

}  // namespace profdiff::client
