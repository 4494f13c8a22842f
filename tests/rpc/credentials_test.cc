// TLS and bearer-token settings read from their files (credentials.cc): what
// each combination of files gives, the settings that cannot work refused
// naming the flag and file, the environment's fallbacks and the default
// listen address. Servers refusing calls over real connections are
// security_test.cc's.
#include "rpc/credentials.h"

#include <stdlib.h>

#include <filesystem>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/rpc/tls_files.h"
#include "tests/support/test_dir.h"

namespace profdiff::rpc {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

class CredentialsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test_support::FreshTestDir("security");
    token_file_ = WriteFile(dir_ / "token", "s3cret-token-42\n");
  }

  fs::path dir_;
  std::string token_file_;
};

TEST_F(CredentialsTest, NoFilesArePlaintextWithoutToken) {
  absl::StatusOr<ServerSecurity> server = ServerSecurity::Load({});
  ASSERT_TRUE(server.ok()) << server.status();
  EXPECT_FALSE(server->tls());
  EXPECT_FALSE(server->mutual_tls());
  EXPECT_FALSE(server->requires_token());
  EXPECT_EQ(server->Describe(), "plaintext");
  EXPECT_EQ(server->cert_chain_pem(), "");
  absl::StatusOr<ChannelSecurity> client = ChannelSecurity::Load({});
  ASSERT_TRUE(client.ok()) << client.status();
  EXPECT_FALSE(client->tls());
  EXPECT_NE(client->credentials(), nullptr);
}

TEST_F(CredentialsTest, ServerWithEveryFileIsMutualTlsWithTheTrimmedToken) {
  absl::StatusOr<ServerSecurity> server =
      ServerSecurity::Load({.tls_cert_file = Tls("server.pem"),
                            .tls_key_file = Tls("server.key"),
                            .client_ca_file = Tls("ca.pem"),
                            .token_file = token_file_});
  ASSERT_TRUE(server.ok()) << server.status();
  EXPECT_TRUE(server->tls());
  EXPECT_TRUE(server->mutual_tls());
  EXPECT_TRUE(server->requires_token());
  EXPECT_EQ(server->token(), "s3cret-token-42");
  EXPECT_THAT(server->cert_chain_pem(), HasSubstr("BEGIN CERTIFICATE"));
  EXPECT_THAT(server->private_key_pem(), HasSubstr("PRIVATE KEY"));
  EXPECT_EQ(server->Describe(),
            "TLS, client certificates required, bearer token required");
  EXPECT_NE(server->MakeCredentials(), nullptr);
}

TEST_F(CredentialsTest, TlsAloneIsDescribedAsTls) {
  absl::StatusOr<ServerSecurity> server = ServerSecurity::Load(
      {.tls_cert_file = Tls("server.pem"), .tls_key_file = Tls("server.key")});
  ASSERT_TRUE(server.ok()) << server.status();
  EXPECT_EQ(server->Describe(), "TLS");
  EXPECT_FALSE(server->mutual_tls());
  EXPECT_FALSE(server->requires_token());
}

TEST_F(CredentialsTest, AnyClientFileOrTheTlsFlagMeansTls) {
  ChannelSecurityFiles with_tls;
  with_tls.tls = true;
  absl::StatusOr<ChannelSecurity> system_roots =
      ChannelSecurity::Load(with_tls);
  ASSERT_TRUE(system_roots.ok()) << system_roots.status();
  EXPECT_TRUE(system_roots->tls());
  absl::StatusOr<ChannelSecurity> with_ca =
      ChannelSecurity::Load({.tls_ca_file = Tls("ca.pem")});
  ASSERT_TRUE(with_ca.ok()) << with_ca.status();
  EXPECT_TRUE(with_ca->tls());
  absl::StatusOr<ChannelSecurity> mutual =
      ChannelSecurity::Load({.tls_ca_file = Tls("ca.pem"),
                             .tls_cert_file = Tls("client.pem"),
                             .tls_key_file = Tls("client.key"),
                             .token_file = token_file_});
  ASSERT_TRUE(mutual.ok()) << mutual.status();
  EXPECT_TRUE(mutual->tls());
}

TEST_F(CredentialsTest, EnvironmentFillsOnlyTheFilesNoFlagNamed) {
  ::setenv("PROFDIFF_TOKEN_FILE", "/env/token", 1);
  ::setenv("PROFDIFF_TLS_CA_FILE", "/env/ca.pem", 1);
  ::setenv("PROFDIFF_TLS_CERT_FILE", "/env/cert.pem", 1);
  ::setenv("PROFDIFF_TLS_KEY_FILE", "", 1);
  const ChannelSecurityFiles files =
      WithEnvironmentDefaults({.tls_ca_file = "/flag/ca.pem"});
  ::unsetenv("PROFDIFF_TOKEN_FILE");
  ::unsetenv("PROFDIFF_TLS_CA_FILE");
  ::unsetenv("PROFDIFF_TLS_CERT_FILE");
  ::unsetenv("PROFDIFF_TLS_KEY_FILE");
  EXPECT_EQ(files.tls_ca_file, "/flag/ca.pem");
  EXPECT_EQ(files.token_file, "/env/token");
  EXPECT_EQ(files.tls_cert_file, "/env/cert.pem");
  EXPECT_EQ(files.tls_key_file, "");
}

TEST_F(CredentialsTest, PlaintextListensOnTheLoopbackOnlyByDefault) {
  EXPECT_EQ(DefaultListenAddress(ServerSecurity(), 50051), "127.0.0.1:50051");
  absl::StatusOr<ServerSecurity> tls = ServerSecurity::Load(
      {.tls_cert_file = Tls("server.pem"), .tls_key_file = Tls("server.key")});
  ASSERT_TRUE(tls.ok()) << tls.status();
  EXPECT_EQ(DefaultListenAddress(*tls, 50051), "0.0.0.0:50051");
}

TEST_F(CredentialsTest, PlaintextBeyondTheLoopbackIsAWarning) {
  ::testing::internal::CaptureStderr();
  LogListening("127.0.0.1:1", ServerSecurity());
  LogListening("0.0.0.0:2", ServerSecurity());
  const std::string log = ::testing::internal::GetCapturedStderr();
  EXPECT_THAT(log, testing::ContainsRegex("I [^\n]*plaintext on 127.0.0.1:1: "
                                          "loopback only"));
  EXPECT_THAT(log, testing::ContainsRegex("W [^\n]*plaintext on 0.0.0.0:2: "
                                          "anyone who reaches it"));
}

TEST_F(CredentialsTest, UnusableSettingsAreRefusedNamingTheFlagAndFile) {
  const auto server_error = [](const ServerSecurityFiles& files) {
    absl::StatusOr<ServerSecurity> security = ServerSecurity::Load(files);
    EXPECT_FALSE(security.ok());
    return std::string(security.status().message());
  };
  EXPECT_THAT(server_error({.token_file = token_file_}),
              HasSubstr("--auth-token-file needs TLS"));
  EXPECT_THAT(server_error({.client_ca_file = Tls("ca.pem")}),
              HasSubstr("--tls-client-ca-file needs TLS"));
  EXPECT_THAT(server_error({.tls_cert_file = Tls("server.pem")}),
              HasSubstr("go together"));
  EXPECT_THAT(server_error({.tls_cert_file = Tls("server.key"),
                            .tls_key_file = Tls("server.key")}),
              HasSubstr("--tls-cert-file " + Tls("server.key") +
                        ": holds no PEM \"CERTIFICATE\""));
  EXPECT_THAT(server_error({.tls_cert_file = (dir_ / "missing.pem").string(),
                            .tls_key_file = Tls("server.key")}),
              HasSubstr("missing.pem"));
  const std::string empty = WriteFile(dir_ / "empty", " \n");
  EXPECT_THAT(server_error({.tls_cert_file = Tls("server.pem"),
                            .tls_key_file = Tls("server.key"),
                            .token_file = empty}),
              HasSubstr("--auth-token-file " + empty + ": is empty"));
  const std::string spaced = WriteFile(dir_ / "spaced", "two words");
  EXPECT_THAT(server_error({.tls_cert_file = Tls("server.pem"),
                            .tls_key_file = Tls("server.key"),
                            .token_file = spaced}),
              HasSubstr("byte 3 of the token"));
  absl::StatusOr<ChannelSecurity> client =
      ChannelSecurity::Load({.tls_cert_file = Tls("client.pem")});
  EXPECT_FALSE(client.ok());
}

}  // namespace
}  // namespace profdiff::rpc
