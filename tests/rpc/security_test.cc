// TLS, mutual TLS and bearer tokens on real servers on 127.0.0.1: the
// aggregator and the differ refuse what they must (no token, a wrong token, a
// certificate from another CA, plaintext), and a whole agent -> aggregator ->
// differ -> client path works over TLS with tokens.
#include <filesystem>
#include <fstream>

#include <gmock/gmock.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include "agent/span_uploader.h"
#include "aggregator/aggregator_server.h"
#include "client/differ_client.h"
#include "client/run_store_client.h"
#include "differ/service/differ_server.h"
#include "profdiff/v1/agents.grpc.pb.h"
#include "profdiff/v1/collector.grpc.pb.h"
#include "profdiff/v1/differ.grpc.pb.h"
#include "profdiff/v1/run_store.grpc.pb.h"
#include "rpc/channel.h"
#include "rpc/credentials.h"
#include "tests/rpc/tls_files.h"
#include "tests/support/test_dir.h"
#include "tests/support/traces_dir.h"
#include "trace/kineto_reader.h"

namespace profdiff::rpc {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

constexpr char kResNet[] =
    "kineto/tb_plugin_samples/resnet50_num_workers_0/"
    "worker0.1623143089861.pt.trace.json.gz";

ChannelSecurity Client(const ChannelSecurityFiles& files) {
  absl::StatusOr<ChannelSecurity> security = ChannelSecurity::Load(files);
  EXPECT_TRUE(security.ok()) << security.status();
  return security.ok() ? *security : ChannelSecurity();
}

grpc::Status ListRuns(const std::string& address,
                      const ChannelSecurity& security) {
  auto stub = v1::RunStore::NewStub(MakeChannel(address, security));
  grpc::ClientContext context;
  SetTimeout(context, absl::Seconds(10));
  v1::ListRunsResponse response;
  return stub->ListRuns(&context, v1::ListRunsRequest(), &response);
}

// Calls every method of the Agents service but Control (the agents' own
// stream); returns each one's status.
std::vector<grpc::Status> CallEveryAgentsCall(const std::string& address,
                                              const ChannelSecurity& security) {
  auto agents = v1::Agents::NewStub(MakeChannel(address, security));
  std::vector<grpc::Status> statuses;
  const auto context = [] {
    auto made = std::make_unique<grpc::ClientContext>();
    SetTimeout(*made, absl::Seconds(10));
    return made;
  };
  {
    v1::ListAgentsResponse response;
    statuses.push_back(agents->ListAgents(context().get(), {}, &response));
  }
  {
    v1::StartCaptureRequest request;
    request.set_job("j");
    request.set_steps(1);
    v1::Capture response;
    statuses.push_back(
        agents->StartCapture(context().get(), request, &response));
  }
  {
    v1::GetCaptureRequest request;
    request.set_capture_id("c");
    v1::Capture response;
    statuses.push_back(agents->GetCapture(context().get(), request, &response));
  }
  {
    v1::CancelCaptureRequest request;
    request.set_capture_id("c");
    v1::Capture response;
    statuses.push_back(
        agents->CancelCapture(context().get(), request, &response));
  }
  return statuses;
}

// Calls every method of the Collector, RunStore and Agents services; returns
// each one's status.
std::vector<grpc::Status> CallEveryAggregatorMethod(
    const std::string& address, const ChannelSecurity& security) {
  const std::shared_ptr<grpc::Channel> channel = MakeChannel(address, security);
  auto store = v1::RunStore::NewStub(channel);
  auto collector = v1::Collector::NewStub(channel);
  std::vector<grpc::Status> statuses = CallEveryAgentsCall(address, security);
  const auto context = [] {
    auto made = std::make_unique<grpc::ClientContext>();
    SetTimeout(*made, absl::Seconds(10));
    return made;
  };
  {
    auto made = context();
    auto stream = v1::Agents::NewStub(channel)->Control(made.get());
    v1::AgentReport report;
    report.mutable_status()->set_agent_id("a");
    stream->Write(report);
    stream->WritesDone();
    v1::ControlMessage message;
    while (stream->Read(&message)) {
    }
    statuses.push_back(stream->Finish());
  }
  {
    v1::ListRunsResponse response;
    statuses.push_back(
        store->ListRuns(context().get(), v1::ListRunsRequest(), &response));
  }
  {
    v1::GetRunRequest request;
    request.set_run("r");
    v1::StoredRun response;
    statuses.push_back(store->GetRun(context().get(), request, &response));
  }
  {
    v1::GetProfileRequest request;
    request.set_run("r");
    v1::RunProfile response;
    statuses.push_back(store->GetProfile(context().get(), request, &response));
  }
  {
    v1::GetRunDigestRequest request;
    request.set_run("r");
    v1::RunDigest response;
    statuses.push_back(
        store->GetRunDigest(context().get(), request, &response));
  }
  {
    v1::ExportTraceRequest request;
    request.set_run("r");
    auto made = context();
    auto reader = store->ExportTrace(made.get(), request);
    v1::ExportTraceChunk chunk;
    while (reader->Read(&chunk)) {
    }
    statuses.push_back(reader->Finish());
  }
  {
    auto made = context();
    auto stream = collector->Upload(made.get());
    v1::UploadMessage message;
    message.mutable_header()->set_run("r");
    stream->Write(message);
    stream->WritesDone();
    v1::UploadAck ack;
    while (stream->Read(&ack)) {
    }
    statuses.push_back(stream->Finish());
  }
  {
    v1::ListDamagedSpansRequest request;
    request.set_agent_id("a");
    v1::ListDamagedSpansResponse response;
    statuses.push_back(
        collector->ListDamagedSpans(context().get(), request, &response));
  }
  // A method added to a service must be added above.
  EXPECT_EQ(v1::RunStore::service_full_name(),
            std::string("profdiff.v1.RunStore"));
  const auto* run_store =
      v1::ListRunsRequest::descriptor()->file()->FindServiceByName("RunStore");
  const auto* collector_service =
      v1::UploadMessage::descriptor()->file()->FindServiceByName("Collector");
  const auto* agents_service =
      v1::AgentReport::descriptor()->file()->FindServiceByName("Agents");
  EXPECT_TRUE(run_store != nullptr && collector_service != nullptr &&
              agents_service != nullptr);
  if (run_store != nullptr && collector_service != nullptr &&
      agents_service != nullptr) {
    EXPECT_EQ(run_store->method_count() + collector_service->method_count() +
                  agents_service->method_count(),
              static_cast<int>(statuses.size()));
  }
  return statuses;
}

class SecurityTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test_support::FreshTestDir("security");
    token_file_ = WriteFile(dir_ / "token", "s3cret-token-42\n");
  }

  // Starts the aggregator; "" (with a test failure) when it cannot.
  std::string StartAggregator(const ServerSecurityFiles& files) {
    absl::StatusOr<ServerSecurity> security = ServerSecurity::Load(files);
    if (!security.ok()) {
      ADD_FAILURE() << security.status();
      return "";
    }
    aggregator::AggregatorOptions options;
    options.listen_address = "127.0.0.1:0";
    options.security = *security;
    options.store.data_dir = dir_ / "store";
    auto server = aggregator::AggregatorServer::Start(options);
    if (!server.ok()) {
      ADD_FAILURE() << server.status();
      return "";
    }
    aggregator_ = std::move(server).value();
    return "127.0.0.1:" + std::to_string(aggregator_->port());
  }

  ServerSecurityFiles TlsWithToken() const {
    return {.tls_cert_file = Tls("server.pem"),
            .tls_key_file = Tls("server.key"),
            .token_file = token_file_};
  }

  fs::path dir_;
  std::string token_file_;
  std::unique_ptr<aggregator::AggregatorServer> aggregator_;
};

TEST_F(SecurityTest, EveryAggregatorMethodWithoutTokenIsUnauthenticated) {
  const std::string address = StartAggregator(TlsWithToken());
  for (const grpc::Status& status : CallEveryAggregatorMethod(
           address, Client({.tls_ca_file = Tls("ca.pem")}))) {
    EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAUTHENTICATED)
        << status.error_message();
    EXPECT_THAT(status.error_message(), HasSubstr("no bearer token"));
  }
}

TEST_F(SecurityTest, WrongTokenIsUnauthenticatedAndTheRightOneIsServed) {
  const std::string address = StartAggregator(TlsWithToken());
  const std::string wrong = WriteFile(dir_ / "wrong", "s3cret-token-43");
  for (const grpc::Status& status : CallEveryAggregatorMethod(
           address,
           Client({.tls_ca_file = Tls("ca.pem"), .token_file = wrong}))) {
    EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAUTHENTICATED)
        << status.error_message();
    EXPECT_THAT(status.error_message(), HasSubstr("wrong bearer token"));
  }
  const grpc::Status ok = ListRuns(
      address,
      Client({.tls_ca_file = Tls("ca.pem"), .token_file = token_file_}));
  EXPECT_TRUE(ok.ok()) << ok.error_message();
}

TEST_F(SecurityTest, CertificateFromAnotherCaFailsTheHandshake) {
  const std::string address = StartAggregator(TlsWithToken());
  // The client trusts only other_ca, which did not sign the server's
  // certificate.
  const grpc::Status status = ListRuns(
      address,
      Client({.tls_ca_file = Tls("other_ca.pem"), .token_file = token_file_}));
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAVAILABLE)
      << status.error_message();
  // The server is up: its own CA's clients get in.
  EXPECT_TRUE(ListRuns(address, Client({.tls_ca_file = Tls("ca.pem"),
                                        .token_file = token_file_}))
                  .ok());
}

TEST_F(SecurityTest, PlaintextClientCannotTalkToATlsServer) {
  const std::string address = StartAggregator(TlsWithToken());
  const grpc::Status status = ListRuns(address, ChannelSecurity());
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAVAILABLE)
      << status.error_message();
  EXPECT_TRUE(ListRuns(address, Client({.tls_ca_file = Tls("ca.pem"),
                                        .token_file = token_file_}))
                  .ok());
}

TEST_F(SecurityTest, MutualTlsRefusesClientsWithoutACertificateOfItsCa) {
  ServerSecurityFiles files = TlsWithToken();
  files.client_ca_file = Tls("ca.pem");
  const std::string address = StartAggregator(files);
  const ChannelSecurityFiles base{.tls_ca_file = Tls("ca.pem"),
                                  .token_file = token_file_};
  EXPECT_EQ(ListRuns(address, Client(base)).error_code(),
            grpc::StatusCode::UNAVAILABLE);
  ChannelSecurityFiles other = base;
  other.tls_cert_file = Tls("other_client.pem");
  other.tls_key_file = Tls("other_client.key");
  EXPECT_EQ(ListRuns(address, Client(other)).error_code(),
            grpc::StatusCode::UNAVAILABLE);
  ChannelSecurityFiles good = base;
  good.tls_cert_file = Tls("client.pem");
  good.tls_key_file = Tls("client.key");
  const grpc::Status ok = ListRuns(address, Client(good));
  EXPECT_TRUE(ok.ok()) << ok.error_message();
}

TEST_F(SecurityTest, TokenFromTheEnvironmentIsUsedWhenNoFlagNamesOne) {
  ::setenv("PROFDIFF_TOKEN_FILE", token_file_.c_str(), 1);
  ::setenv("PROFDIFF_TLS_CA_FILE", Tls("ca.pem").c_str(), 1);
  const ChannelSecurityFiles files = WithEnvironmentDefaults({});
  ::unsetenv("PROFDIFF_TOKEN_FILE");
  ::unsetenv("PROFDIFF_TLS_CA_FILE");
  EXPECT_EQ(files.token_file, token_file_);
  const std::string address = StartAggregator(TlsWithToken());
  const grpc::Status ok = ListRuns(address, Client(files));
  EXPECT_TRUE(ok.ok()) << ok.error_message();
}

TEST_F(SecurityTest, AgentToAggregatorToDifferToClientOverTlsWithTokens) {
  const fs::path trace_path = test_support::TracesDir() / kResNet;
  if (!fs::exists(trace_path)) GTEST_SKIP() << "needs " << trace_path;
  ServerSecurityFiles aggregator_files = TlsWithToken();
  aggregator_files.client_ca_file =
      Tls("ca.pem");  // and mutual TLS on the aggregator
  const std::string aggregator_address = StartAggregator(aggregator_files);
  const ChannelSecurity with_client_cert =
      Client({.tls_ca_file = Tls("ca.pem"),
              .tls_cert_file = Tls("client.pem"),
              .tls_key_file = Tls("client.key"),
              .token_file = token_file_});

  // The agent's uploader, as profdiff-agent runs it.
  trace::KinetoReader reader;
  absl::StatusOr<trace::Trace> trace = reader.ReadFile(trace_path.string());
  ASSERT_TRUE(trace.ok()) << trace.status();
  agent::SpanUploaderOptions upload_options;
  upload_options.agent_id = "node-1";
  upload_options.security = with_client_cert;
  upload_options.deadline = absl::Now() + absl::Seconds(60);
  agent::SpanUploader uploader(aggregator_address, upload_options);
  for (const char* run : {"tls-a", "tls-b"}) {
    agent::SpanHeader header;
    header.run = run;
    header.span = "s0";
    header.worker.set_rank(0);
    header.worker.set_world_size(1);
    header.worker.set_worker_name("w0");
    agent::SpanUploadStats stats;
    const absl::Status uploaded =
        uploader.Upload(*trace, header, std::stop_token(), stats);
    ASSERT_TRUE(uploaded.ok()) << uploaded;
  }

  // A differ with its own TLS and token, reaching the aggregator with a client
  // certificate.
  const std::string differ_token =
      WriteFile(dir_ / "differ_token", "differ-token");
  absl::StatusOr<ServerSecurity> differ_security =
      ServerSecurity::Load({.tls_cert_file = Tls("server.pem"),
                            .tls_key_file = Tls("server.key"),
                            .token_file = differ_token});
  ASSERT_TRUE(differ_security.ok()) << differ_security.status();
  differ::DifferOptions differ_options;
  differ_options.listen_address = "127.0.0.1:0";
  differ_options.security = *differ_security;
  differ_options.store_address = aggregator_address;
  differ_options.store_security = with_client_cert;
  auto differ = differ::DifferServer::Start(differ_options);
  ASSERT_TRUE(differ.ok()) << differ.status();
  const std::string differ_address =
      "127.0.0.1:" + std::to_string((*differ)->port());

  v1::DiffRequest request;
  request.set_baseline_run("tls-a");
  request.set_experimental_run("tls-b");
  const ChannelSecurity user =
      Client({.tls_ca_file = Tls("ca.pem"), .token_file = differ_token});
  absl::StatusOr<v1::DiffReport> report =
      client::DiffOnServer(differ_address, user, request, absl::Seconds(60));
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_GT(report->modules().children_size(), 0);
  // Without a token, both of the differ's services refuse; the aggregator's
  // token is not the differ's.
  const ChannelSecurity no_token = Client({.tls_ca_file = Tls("ca.pem")});
  EXPECT_EQ(
      client::DiffOnServer(differ_address, no_token, request, absl::Seconds(10))
          .status()
          .code(),
      absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(ListRuns(differ_address, no_token).error_code(),
            grpc::StatusCode::UNAUTHENTICATED);
  absl::StatusOr<v1::DiffReport> refused = client::DiffOnServer(
      differ_address,
      Client({.tls_ca_file = Tls("ca.pem"), .token_file = token_file_}),
      request, absl::Seconds(10));
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kUnauthenticated);
  client::RunStoreClient store_client(differ_address, user, absl::Seconds(30));
  absl::StatusOr<std::vector<v1::StoredRun>> runs =
      store_client.ListRuns("tls-");
  ASSERT_TRUE(runs.ok()) << runs.status();
  EXPECT_EQ(runs->size(), 2u);
}

// Regression for #42: a differ that serves clients without authentication
// holds the aggregator's token; it must not list agents or start captures for
// anyone who reaches it unless told so by name.
TEST_F(SecurityTest, AnUnauthenticatedDifferForwardsNoCapturesUnlessOpened) {
  const std::string aggregator_address = StartAggregator(TlsWithToken());
  const ChannelSecurity with_token =
      Client({.tls_ca_file = Tls("ca.pem"), .token_file = token_file_});
  for (const differ::AgentsAccess access :
       {differ::AgentsAccess::kRefusedUnauthenticated,
        differ::AgentsAccess::kForwarded}) {
    differ::DifferOptions options;
    options.listen_address = "127.0.0.1:0";
    options.store_address = aggregator_address;
    options.store_security = with_token;
    options.agents_access = access;
    auto differ = differ::DifferServer::Start(options);
    ASSERT_TRUE(differ.ok()) << differ.status();
    const std::string address =
        "127.0.0.1:" + std::to_string((*differ)->port());
    for (const grpc::Status& status :
         CallEveryAgentsCall(address, ChannelSecurity())) {
      if (access == differ::AgentsAccess::kRefusedUnauthenticated) {
        EXPECT_EQ(status.error_code(), grpc::StatusCode::PERMISSION_DENIED)
            << status.error_message();
        EXPECT_THAT(status.error_message(),
                    HasSubstr("--allow-unauthenticated-captures"));
      } else {
        // Forwarded: the aggregator's own answers (no agent, no capture).
        EXPECT_NE(status.error_code(), grpc::StatusCode::PERMISSION_DENIED)
            << status.error_message();
      }
    }
    // Runs are served either way: that is what the flag is for.
    EXPECT_TRUE(ListRuns(address, ChannelSecurity()).ok());
  }
}

}  // namespace
}  // namespace profdiff::rpc
