#include "rpc/server_security_flags.h"

#include <string>

#include <absl/flags/flag.h>

ABSL_FLAG(std::string, tls_cert_file, "",
          "PEM certificate chain: serve TLS (with --tls-key-file); without it "
          "the server is "
          "plaintext and listens on 127.0.0.1 by default");
ABSL_FLAG(std::string, tls_key_file, "", "PEM private key of --tls-cert-file");
ABSL_FLAG(
    std::string, tls_client_ca_file, "",
    "mutual TLS: refuse clients without a certificate signed by this PEM CA");
ABSL_FLAG(std::string, auth_token_file, "",
          "refuse calls without \"authorization: Bearer TOKEN\", TOKEN being "
          "this file's content "
          "(needs TLS)");

namespace profdiff::rpc {

absl::StatusOr<ServerSecurity> ServerSecurityFromFlags() {
  return ServerSecurity::Load(
      {.tls_cert_file = absl::GetFlag(FLAGS_tls_cert_file),
       .tls_key_file = absl::GetFlag(FLAGS_tls_key_file),
       .client_ca_file = absl::GetFlag(FLAGS_tls_client_ca_file),
       .token_file = absl::GetFlag(FLAGS_auth_token_file)});
}

}  // namespace profdiff::rpc
