// TLS and bearer-token settings of profdiff's servers and clients, read from
// PEM and token files once at start. A token is only ever sent or accepted over
// TLS: gRPC refuses call credentials on a plaintext channel, and a token in
// clear text is a token given to everyone on the path.
#ifndef PROFDIFF_RPC_CREDENTIALS_H_
#define PROFDIFF_RPC_CREDENTIALS_H_

#include <memory>
#include <string>

#include <absl/status/statusor.h>
#include <grpcpp/security/credentials.h>
#include <grpcpp/security/server_credentials.h>

namespace profdiff::rpc {

// The files a server's flags name; empty means not given.
struct ServerSecurityFiles {
  std::string tls_cert_file;   // --tls-cert-file: PEM certificate chain (with
                               // the key: TLS)
  std::string tls_key_file;    // --tls-key-file: PEM private key
  std::string client_ca_file;  // --tls-client-ca-file: mutual TLS, clients need
                               // a cert it signed
  std::string token_file;  // --auth-token-file: callers send "authorization:
                           // Bearer TOKEN"
};

class ServerSecurity {
 public:
  ServerSecurity() = default;  // plaintext, no token

  // InvalidArgument naming the flag and file for a file that cannot be read,
  // holds no PEM block of the right kind, or an unusable token; and for a
  // combination that cannot work (a key without a certificate, a client CA or a
  // token without TLS).
  static absl::StatusOr<ServerSecurity> Load(const ServerSecurityFiles& files);

  bool tls() const { return tls_; }
  bool mutual_tls() const { return !ssl_.pem_root_certs.empty(); }
  bool requires_token() const { return !token_.empty(); }
  // The bearer token callers must send (empty: none), and the server's
  // certificate chain and key in PEM (empty without TLS): what the differ's
  // web UI guards and serves with, too.
  const std::string& token() const { return token_; }
  std::string cert_chain_pem() const;
  std::string private_key_pem() const;
  // "plaintext", or "TLS", "+ client certificates", "+ bearer token": for the
  // start-up log.
  std::string Describe() const;
  // New credentials for one server (each carries its own token checker).
  std::shared_ptr<grpc::ServerCredentials> MakeCredentials() const;

 private:
  bool tls_ = false;
  grpc::SslServerCredentialsOptions ssl_;
  std::string token_;
};

// The files a client's flags name. Empty fields are filled from
// PROFDIFF_TOKEN_FILE, PROFDIFF_TLS_CA_FILE, PROFDIFF_TLS_CERT_FILE and
// PROFDIFF_TLS_KEY_FILE.
struct ChannelSecurityFiles {
  std::string tls_ca_file;  // --tls-ca-file: trust servers this CA signed (else
                            // system roots)
  std::string tls_cert_file;  // --tls-cert-file, --tls-key-file: client
                              // certificate (mutual TLS)
  std::string tls_key_file;
  std::string token_file;  // --auth-token-file
  bool tls = false;  // --tls: TLS with the system's roots and no other file
};
ChannelSecurityFiles WithEnvironmentDefaults(ChannelSecurityFiles files);

class ChannelSecurity {
 public:
  // Plaintext, no token. Makes no credentials yet: gRPC starts its threads
  // with the first, and a command that reads only local traces never needs
  // them.
  ChannelSecurity() = default;

  // TLS when any file is given or `files.tls`; the token travels as call
  // credentials. InvalidArgument naming the flag and file, as
  // ServerSecurity::Load.
  static absl::StatusOr<ChannelSecurity> Load(
      const ChannelSecurityFiles& files);

  bool tls() const { return tls_; }
  // The TLS (or token) credentials Load made, or plaintext ones.
  std::shared_ptr<grpc::ChannelCredentials> credentials() const;

 private:
  bool tls_ = false;
  std::shared_ptr<grpc::ChannelCredentials> credentials_;
};

// The address a server listens on when --listen is not given: every interface
// with TLS, only the loopback without (plaintext must not reach other hosts by
// accident).
std::string DefaultListenAddress(const ServerSecurity& security, int port);

// Logs how `address` is served: INFO, or a WARNING when a plaintext server
// listens beyond the loopback (anyone who reaches it can upload and read runs).
void LogListening(const std::string& address, const ServerSecurity& security);

}  // namespace profdiff::rpc

#endif  // PROFDIFF_RPC_CREDENTIALS_H_
