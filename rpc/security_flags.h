// The TLS and bearer-token flags of profdiff's servers and clients on a
// base::FlagSet: one definition of each flag's name and help, and of the
// PROFDIFF_* environment variables a client falls back to.
#ifndef PROFDIFF_RPC_SECURITY_FLAGS_H_
#define PROFDIFF_RPC_SECURITY_FLAGS_H_

#include <string_view>

#include <absl/status/statusor.h>

#include "base/command_line.h"
#include "rpc/credentials.h"

namespace profdiff::rpc {

// Adds a server's flags, bound to `files`: --tls-cert-file, --tls-key-file,
// --tls-client-ca-file, --auth-token-file. `files` must outlive `flags`' use.
void AddServerSecurityFlags(base::FlagSet& flags, ServerSecurityFiles* files);

// How one client channel's flags are named and filled.
struct ChannelSecurityFlagSpec {
  // Put before every name: "store-" gives --store-tls-ca-file.
  std::string_view prefix;
  // Who the channel reaches, for the help: "the aggregator".
  std::string_view server;
  // Empty fields are filled from PROFDIFF_TLS_CA_FILE, PROFDIFF_TLS_CERT_FILE,
  // PROFDIFF_TLS_KEY_FILE and PROFDIFF_TOKEN_FILE (WithEnvironmentDefaults).
  bool environment_defaults = false;
};

// The flags of the agent's (and the CLI's) channel: --tls, --tls-ca-file,
// --tls-cert-file, --tls-key-file, --auth-token-file, with the environment
// fallbacks. `server` names the peer in the help.
constexpr ChannelSecurityFlagSpec ClientSecurityFlags(std::string_view server) {
  return {.prefix = "", .server = server, .environment_defaults = true};
}

// Adds the flags `spec` describes, bound to `files`: --<prefix>tls,
// --<prefix>tls-ca-file, --<prefix>tls-cert-file, --<prefix>tls-key-file,
// --<prefix>auth-token-file. `files` must outlive `flags`' use.
void AddChannelSecurityFlags(base::FlagSet& flags,
                             const ChannelSecurityFlagSpec& spec,
                             ChannelSecurityFiles* files);

// ChannelSecurity::Load of what the flags of `spec` set in `files` (with the
// environment fallbacks when the spec has them); its errors.
absl::StatusOr<ChannelSecurity> LoadChannelSecurity(
    const ChannelSecurityFlagSpec& spec, const ChannelSecurityFiles& files);

}  // namespace profdiff::rpc

#endif  // PROFDIFF_RPC_SECURITY_FLAGS_H_
