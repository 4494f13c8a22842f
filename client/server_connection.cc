#include "client/server_connection.h"

#include <cstdlib>

#include "base/status_macros.h"
#include "client/command_line.h"
#include "client/run_store_client.h"
#include "rpc/security_flags.h"

namespace profdiff::client {
namespace {

constexpr rpc::ChannelSecurityFlagSpec kSecurity =
    rpc::ClientSecurityFlags("the server");

}  // namespace

void AddConnectionFlags(base::FlagSet& flags, ConnectionFlags* connection) {
  flags.AddString("server", &connection->server, "HOST:PORT",
                  "the profdiff-differ or profdiff-aggregator (default "
                  "$PROFDIFF_SERVER, else localhost:50051)");
  rpc::AddChannelSecurityFlags(flags, kSecurity, &connection->security);
}

absl::StatusOr<ServerConnection> ServerConnectionOf(
    const ConnectionFlags& flags) {
  ServerConnection connection;
  connection.address =
      flags.server.empty() ? DefaultServerAddress() : flags.server;
  const char* env = std::getenv("PROFDIFF_SERVER");
  connection.named = !flags.server.empty() || (env != nullptr && *env != '\0');
  PD_ASSIGN_OR_RETURN(connection.security,
                      rpc::LoadChannelSecurity(kSecurity, flags.security));
  return connection;
}

std::string ConnectionUsage() {
  ConnectionFlags unused;
  base::FlagSet flags = CommandFlags();
  AddConnectionFlags(flags, &unused);
  return flags.FlagsUsage();
}

}  // namespace profdiff::client
