// How a subcommand reaches a profdiff server: the address (--server) and the
// TLS and token flags every such subcommand takes (rpc/security_flags.h).
#ifndef PROFDIFF_CLIENT_SERVER_CONNECTION_H_
#define PROFDIFF_CLIENT_SERVER_CONNECTION_H_

#include <string>

#include <absl/status/statusor.h>

#include "base/command_line.h"
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

// What the connection flags of a command line said.
struct ConnectionFlags {
  std::string server;  // empty: DefaultServerAddress()
  rpc::ChannelSecurityFiles security;
};

// Registers --server, and --tls, --tls-ca-file, --tls-cert-file,
// --tls-key-file and --auth-token-file (rpc::AddChannelSecurityFlags, with the
// PROFDIFF_* environment defaults), bound to `*connection`, which must outlive
// `flags`' use.
void AddConnectionFlags(base::FlagSet& flags, ConnectionFlags* connection);

// The server `flags` name, and the channel security they (or the PROFDIFF_*
// environment variables) ask for. InvalidArgument naming the flag and file
// that cannot be used.
absl::StatusOr<ServerConnection> ServerConnectionOf(
    const ConnectionFlags& flags);

// The usage lines of those flags.
std::string ConnectionUsage();

}  // namespace profdiff::client

#endif  // PROFDIFF_CLIENT_SERVER_CONNECTION_H_
