// The TLS and token flags profdiff-aggregator and profdiff-differ share.
#ifndef PROFDIFF_RPC_SERVER_SECURITY_FLAGS_H_
#define PROFDIFF_RPC_SERVER_SECURITY_FLAGS_H_

#include <absl/status/statusor.h>

#include "rpc/credentials.h"

namespace profdiff::rpc {

// Loads what --tls-cert-file, --tls-key-file, --tls-client-ca-file and
// --auth-token-file name.
absl::StatusOr<ServerSecurity> ServerSecurityFromFlags();

}  // namespace profdiff::rpc

#endif  // PROFDIFF_RPC_SERVER_SECURITY_FLAGS_H_
