#include "rpc/credentials.h"

#include <cstdlib>
#include <string_view>

#include "base/file_reader.h"
#include "base/log.h"
#include "base/status_annotate.h"
#include "base/status_macros.h"
#include "base/str_cat.h"
#include "rpc/bearer_token_checker.h"

namespace profdiff::rpc {
namespace {

constexpr uint64_t kMaxPemBytes = 1 << 20;  // a certificate chain is a few KiB
constexpr uint64_t kMaxTokenBytes =
    4096;  // it travels in every call's metadata

absl::Status FileError(std::string_view flag, const std::string& path,
                       std::string_view problem) {
  return absl::InvalidArgumentError(
      base::StrCat(flag, " ", path, ": ", problem));
}

// The file's bytes, which must hold a PEM block "-----BEGIN <...`kind`>-----".
// The file a flag names, at most `max_bytes`; errors name the flag.
absl::StatusOr<std::string> ReadFlagFile(std::string_view flag,
                                         const std::string& path,
                                         size_t max_bytes) {
  std::string bytes;
  if (absl::Status read = base::ReadFileInto(path, max_bytes, bytes);
      !read.ok()) {
    return absl::InvalidArgumentError(base::StrCat(flag, ": ", read.message()));
  }
  return bytes;
}

absl::StatusOr<std::string> ReadPem(std::string_view flag,
                                    const std::string& path,
                                    std::string_view kind) {
  PD_ASSIGN_OR_RETURN(std::string bytes,
                      ReadFlagFile(flag, path, kMaxPemBytes));
  for (size_t at = bytes.find("-----BEGIN "); at != std::string::npos;
       at = bytes.find("-----BEGIN ", at + 1)) {
    const size_t end = bytes.find("-----", at + 11);
    if (end != std::string::npos &&
        std::string_view(bytes).substr(at, end - at).ends_with(kind)) {
      return bytes;
    }
  }
  return FileError(flag, path,
                   base::StrCat("holds no PEM \"", kind, "\" block"));
}

// --tls-cert-file and --tls-key-file: a certificate chain and its key.
struct CertAndKey {
  std::string cert_chain;
  std::string private_key;
};
absl::StatusOr<CertAndKey> ReadCertAndKey(const std::string& cert_file,
                                          const std::string& key_file) {
  CertAndKey pair;
  PD_ASSIGN_OR_RETURN(pair.cert_chain,
                      ReadPem("--tls-cert-file", cert_file, "CERTIFICATE"));
  PD_ASSIGN_OR_RETURN(pair.private_key,
                      ReadPem("--tls-key-file", key_file, "PRIVATE KEY"));
  return pair;
}

// The token is the file's content without surrounding whitespace: printable
// ASCII, no spaces (it is sent as an HTTP/2 header value), at most
// kMaxTokenBytes.
absl::StatusOr<std::string> ReadToken(std::string_view flag,
                                      const std::string& path) {
  PD_ASSIGN_OR_RETURN(std::string bytes,
                      ReadFlagFile(flag, path, kMaxTokenBytes + 64));
  const auto is_space = [](char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
  };
  size_t begin = 0;
  size_t end = bytes.size();
  while (begin < end && is_space(bytes[begin])) ++begin;
  while (end > begin && is_space(bytes[end - 1])) --end;
  std::string token = bytes.substr(begin, end - begin);
  if (token.empty())
    return FileError(flag, path, "is empty; a token must not be");
  if (token.size() > kMaxTokenBytes) {
    return FileError(flag, path,
                     base::StrCat("the token is ", token.size(),
                                  " bytes, the limit is ", kMaxTokenBytes));
  }
  for (size_t i = 0; i < token.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(token[i]);
    if (c < 0x21 || c > 0x7e) {
      return FileError(flag, path,
                       base::StrCat("byte ", i,
                                    " of the token is not printable "
                                    "ASCII without spaces"));
    }
  }
  return token;
}

std::string FromEnvironment(const std::string& given, const char* variable) {
  if (!given.empty()) return given;
  const char* value = std::getenv(variable);
  return value != nullptr ? std::string(value) : std::string();
}

bool IsLoopbackHost(std::string_view address) {
  const size_t colon = address.rfind(':');
  const std::string_view host =
      colon == std::string_view::npos ? address : address.substr(0, colon);
  return host == "127.0.0.1" || host == "localhost" || host == "[::1]" ||
         host.starts_with("127.") || address.starts_with("unix:");
}

}  // namespace

absl::StatusOr<ServerSecurity> ServerSecurity::Load(
    const ServerSecurityFiles& files) {
  ServerSecurity security;
  if (files.tls_cert_file.empty() != files.tls_key_file.empty()) {
    return absl::InvalidArgumentError(
        "--tls-cert-file and --tls-key-file go together: TLS needs both the "
        "certificate and its key");
  }
  if (files.tls_cert_file.empty()) {
    if (!files.client_ca_file.empty()) {
      return absl::InvalidArgumentError(
          "--tls-client-ca-file needs TLS: give --tls-cert-file and "
          "--tls-key-file too");
    }
    if (!files.token_file.empty()) {
      return absl::InvalidArgumentError(
          "--auth-token-file needs TLS (--tls-cert-file, --tls-key-file): a "
          "bearer token sent in "
          "plaintext can be read by anyone on the network path");
    }
    return security;
  }
  security.tls_ = true;
  PD_ASSIGN_OR_RETURN(CertAndKey pair,
                      ReadCertAndKey(files.tls_cert_file, files.tls_key_file));
  security.ssl_.pem_key_cert_pairs.push_back(
      {std::move(pair.private_key), std::move(pair.cert_chain)});
  if (!files.client_ca_file.empty()) {
    PD_ASSIGN_OR_RETURN(
        security.ssl_.pem_root_certs,
        ReadPem("--tls-client-ca-file", files.client_ca_file, "CERTIFICATE"));
    security.ssl_.client_certificate_request =
        GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY;
  } else {
    security.ssl_.client_certificate_request =
        GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE;
  }
  if (!files.token_file.empty()) {
    PD_ASSIGN_OR_RETURN(security.token_,
                        ReadToken("--auth-token-file", files.token_file));
  }
  return security;
}

std::string ServerSecurity::cert_chain_pem() const {
  return ssl_.pem_key_cert_pairs.empty()
             ? ""
             : ssl_.pem_key_cert_pairs[0].cert_chain;
}

std::string ServerSecurity::private_key_pem() const {
  return ssl_.pem_key_cert_pairs.empty()
             ? ""
             : ssl_.pem_key_cert_pairs[0].private_key;
}

std::string ServerSecurity::Describe() const {
  if (!tls_) return "plaintext";
  return base::StrCat("TLS",
                      mutual_tls() ? ", client certificates required" : "",
                      requires_token() ? ", bearer token required" : "");
}

std::shared_ptr<grpc::ServerCredentials> ServerSecurity::MakeCredentials()
    const {
  if (!tls_) return grpc::InsecureServerCredentials();
  std::shared_ptr<grpc::ServerCredentials> credentials =
      grpc::SslServerCredentials(ssl_);
  if (!token_.empty())
    credentials->SetAuthMetadataProcessor(
        std::make_shared<BearerTokenChecker>(token_));
  return credentials;
}

ChannelSecurityFiles WithEnvironmentDefaults(ChannelSecurityFiles files) {
  files.token_file = FromEnvironment(files.token_file, "PROFDIFF_TOKEN_FILE");
  files.tls_ca_file =
      FromEnvironment(files.tls_ca_file, "PROFDIFF_TLS_CA_FILE");
  files.tls_cert_file =
      FromEnvironment(files.tls_cert_file, "PROFDIFF_TLS_CERT_FILE");
  files.tls_key_file =
      FromEnvironment(files.tls_key_file, "PROFDIFF_TLS_KEY_FILE");
  return files;
}

std::shared_ptr<grpc::ChannelCredentials> ChannelSecurity::credentials() const {
  if (credentials_ != nullptr) return credentials_;
  return grpc::InsecureChannelCredentials();
}

absl::StatusOr<ChannelSecurity> ChannelSecurity::Load(
    const ChannelSecurityFiles& files) {
  ChannelSecurity security;
  if (files.tls_cert_file.empty() != files.tls_key_file.empty()) {
    return absl::InvalidArgumentError(
        "--tls-cert-file and --tls-key-file go together: a client certificate "
        "needs its key");
  }
  security.tls_ = files.tls || !files.tls_ca_file.empty() ||
                  !files.tls_cert_file.empty() || !files.token_file.empty();
  if (!security.tls_) return security;
  grpc::SslCredentialsOptions ssl;
  if (!files.tls_ca_file.empty()) {
    PD_ASSIGN_OR_RETURN(
        ssl.pem_root_certs,
        ReadPem("--tls-ca-file", files.tls_ca_file, "CERTIFICATE"));
  }
  if (!files.tls_cert_file.empty()) {
    PD_ASSIGN_OR_RETURN(CertAndKey pair, ReadCertAndKey(files.tls_cert_file,
                                                        files.tls_key_file));
    ssl.pem_cert_chain = std::move(pair.cert_chain);
    ssl.pem_private_key = std::move(pair.private_key);
  }
  security.credentials_ = grpc::SslCredentials(ssl);
  if (!files.token_file.empty()) {
    PD_ASSIGN_OR_RETURN(const std::string token,
                        ReadToken("--auth-token-file", files.token_file));
    security.credentials_ = grpc::CompositeChannelCredentials(
        security.credentials_, grpc::AccessTokenCredentials(token));
  }
  return security;
}

std::string DefaultListenAddress(const ServerSecurity& security, int port) {
  return base::StrCat(security.tls() ? "0.0.0.0" : "127.0.0.1", ":", port);
}

void LogListening(const std::string& address, const ServerSecurity& security) {
  if (security.tls()) {
    PD_LOG(INFO, "%s on %s", security.Describe(), address);
  } else if (IsLoopbackHost(address)) {
    PD_LOG(INFO,
           "plaintext on %s: loopback only; give --tls-cert-file and "
           "--tls-key-file to serve "
           "other hosts",
           address);
  } else {
    PD_LOG(
        WARNING,
        "plaintext on %s: anyone who reaches it can call every method and read "
        "every "
        "run; give --tls-cert-file and --tls-key-file (and --auth-token-file)",
        address);
  }
}

}  // namespace profdiff::rpc
