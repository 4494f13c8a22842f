// How a subcommand reaches a profdiff server: the address (--server) and the
// TLS and token options every such subcommand takes.
#ifndef PROFDIFF_CLIENT_SERVER_CONNECTION_H_
#define PROFDIFF_CLIENT_SERVER_CONNECTION_H_

#include <set>
#include <string>

#include <absl/status/statusor.h>

#include "client/command_line.h"
#include "rpc/credentials.h"

namespace profdiff::client {

struct ServerConnection {
  std::string address;  // HOST:PORT
  // The user named it (--server or $PROFDIFF_SERVER), rather than the
  // localhost default: a missing path is then worth asking it about.
  bool named = false;
  rpc::ChannelSecurity
      security;  // plaintext unless TLS options (or a token) were given
};

// `valued` and `switches` with the connection options added, for ParseArgs.
std::set<std::string> WithConnectionOptions(std::set<std::string> valued);
std::set<std::string> WithConnectionSwitches(std::set<std::string> switches);

// --server (default DefaultServerAddress()), --tls, --tls-ca-file,
// --tls-cert-file, --tls-key-file, --auth-token-file, with the PROFDIFF_*
// environment defaults.
// InvalidArgument naming the option and file that cannot be used.
absl::StatusOr<ServerConnection> ServerConnectionOf(const ParsedArgs& parsed);

// The usage lines of those options.
const char* ConnectionUsage();

}  // namespace profdiff::client

#endif  // PROFDIFF_CLIENT_SERVER_CONNECTION_H_
