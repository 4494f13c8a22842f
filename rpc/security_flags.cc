#include "rpc/security_flags.h"

#include <string>

#include "base/str_cat.h"

namespace profdiff::rpc {

void AddServerSecurityFlags(base::FlagSet& flags, ServerSecurityFiles* files) {
  flags.AddString("tls-cert-file", &files->tls_cert_file, "FILE",
                  "PEM certificate chain: serve TLS (with --tls-key-file); "
                  "without it the server is plaintext and listens on "
                  "127.0.0.1 by default");
  flags.AddString("tls-key-file", &files->tls_key_file, "FILE",
                  "PEM private key of --tls-cert-file");
  flags.AddString(
      "tls-client-ca-file", &files->client_ca_file, "FILE",
      "mutual TLS: refuse clients without a certificate signed by this PEM CA");
  flags.AddString("auth-token-file", &files->token_file, "FILE",
                  "refuse calls without \"authorization: Bearer TOKEN\", TOKEN "
                  "being this file's content (needs TLS)");
}

void AddChannelSecurityFlags(base::FlagSet& flags,
                             const ChannelSecurityFlagSpec& spec,
                             ChannelSecurityFiles* files) {
  const auto name = [&](std::string_view flag) {
    return base::StrCat(spec.prefix, flag);
  };
  const auto from_environment = [&](std::string_view variable) {
    return spec.environment_defaults ? base::StrCat(" ($", variable, ")")
                                     : std::string();
  };
  flags.AddBool(name("tls"), &files->tls,
                base::StrCat("reach ", spec.server,
                             " over TLS, trusting the system's CA roots"));
  flags.AddString(
      name("tls-ca-file"), &files->tls_ca_file, "FILE",
      base::StrCat("reach ", spec.server, " over TLS, trusting this PEM CA",
                   from_environment("PROFDIFF_TLS_CA_FILE")));
  flags.AddString(
      name("tls-cert-file"), &files->tls_cert_file, "FILE",
      base::StrCat("PEM client certificate for ", spec.server,
                   " with mutual TLS, with --", name("tls-key-file"),
                   from_environment("PROFDIFF_TLS_CERT_FILE")));
  flags.AddString(name("tls-key-file"), &files->tls_key_file, "FILE",
                  base::StrCat("PEM private key of --", name("tls-cert-file"),
                               from_environment("PROFDIFF_TLS_KEY_FILE")));
  flags.AddString(
      name("auth-token-file"), &files->token_file, "FILE",
      base::StrCat("send the bearer token in FILE to ", spec.server,
                   "; implies TLS", from_environment("PROFDIFF_TOKEN_FILE")));
}

absl::StatusOr<ChannelSecurity> LoadChannelSecurity(
    const ChannelSecurityFlagSpec& spec, const ChannelSecurityFiles& files) {
  return ChannelSecurity::Load(
      spec.environment_defaults ? WithEnvironmentDefaults(files) : files);
}

}  // namespace profdiff::rpc
