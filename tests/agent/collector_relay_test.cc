// CollectorRelay on the agent's relay socket (RelaySocketServer) in front of
// an in-memory Collector on loopback: a span uploaded through it arrives
// complete with the relay's agent id and the sender's uid; a stream the
// aggregator breaks resumes through the relay; a refusal ends the client's
// stream instead of hanging it; only the users the operator allows connect.
#include "agent/collector_relay.h"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "agent/span_uploader.h"
#include "base/str_cat.h"
#include "rpc/server.h"
#include "tests/agent/fake_collector.h"
#include "tests/agent/numbered_ops_trace.h"
#include "tests/support/child_process.h"
#include "tests/support/test_dir.h"
#include "trace/chrome_trace_writer.h"

namespace profdiff::agent {
namespace {

using ::testing::HasSubstr;

constexpr uid_t kNobody = 65534;
constexpr gid_t kRelayGroup = 4242;  // any gid: the test's own "trainers"
constexpr char kSetpriv[] = "/usr/bin/setpriv";

class CollectorRelayTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<rpc::RunningServer> upstream =
        rpc::StartServer("127.0.0.1:0", {&collector_});
    ASSERT_TRUE(upstream.ok()) << upstream.status();
    upstream_ = *std::move(upstream);
    socket_ = dir_.path() + "/agent.sock";
    Serve({.path = socket_}, kMaxRelayStreams);
  }
  void TearDown() override {
    relay_server_.reset();
    if (upstream_.server != nullptr) upstream_.server->Shutdown();
  }

  void Serve(const RelaySocketOptions& socket, int max_streams) {
    relay_server_.reset();
    auto server = RelaySocketServer::Bind(socket);
    ASSERT_TRUE(server.ok()) << server.status();
    relay_server_ = *std::move(server);
    RelaySocketServer* bound = relay_server_.get();
    relay_ = std::make_unique<CollectorRelay>(
        base::StrCat("127.0.0.1:", upstream_.port), rpc::ChannelSecurity(),
        "node-agent", BackoffOptions(),
        [bound](const grpc::ServerContextBase& context) {
          return bound->PeerOf(context);
        },
        max_streams);
    ASSERT_TRUE(relay_server_->Serve({relay_.get()}).ok());
  }

  // `profdiff-agent upload` of a trace of `events` events, run as `uid` (and
  // gid `gid`) through setpriv: a real process of another user. Its exit
  // code; its output in `output`.
  int UploadAs(uid_t uid, gid_t gid, int events, std::string& output) {
    const std::string shared = dir_.Join("shared");
    std::filesystem::create_directories(shared + "/state");
    for (const std::string& folder : {dir_.path(), shared, shared + "/state"}) {
      ::chmod(folder.c_str(), 0777);
    }
    const std::string file = shared + "/run1/host_1.pt.trace.json";
    std::filesystem::create_directories(shared + "/run1");
    ::chmod((shared + "/run1").c_str(), 0777);
    std::string json;
    trace::WriteChromeTrace(NumberedOpsTrace(events), json);
    std::ofstream(file) << json;
    ::chmod(file.c_str(), 0644);
    profdiff::testing::ChildProcess agent(
        {kSetpriv, "--reuid=" + std::to_string(uid),
         "--regid=" + std::to_string(gid), "--clear-groups", "--",
         PROFDIFF_AGENT_BIN, "upload", "--aggregator", "unix:" + socket_,
         "--state-dir", shared + "/state", "--timeout", "3s", file});
    const int code = agent.Wait();
    output = agent.Output();
    return code;
  }

  static bool CanRunAsAnotherUser() {
    return ::geteuid() == 0 && std::filesystem::exists(kSetpriv);
  }

  absl::Status Upload(const trace::Trace& trace, const std::string& span,
                      absl::Duration within, const std::string& agent_id = "") {
    SpanUploaderOptions options;  // no agent id: the relay fills in its own
    options.agent_id = agent_id;
    options.backoff = {.initial_delay = absl::Milliseconds(5),
                       .max_delay = absl::Milliseconds(50)};
    options.deadline = absl::Now() + within;
    SpanUploader uploader("unix:" + socket_, options);
    SpanHeader header;
    header.run = "run1";
    header.span = span;
    header.worker.set_worker_name("host_1");
    header.chunk_events = 10;
    SpanUploadStats stats;
    return uploader.Upload(trace, header, std::stop_token(), stats);
  }

  // The span the fake aggregator stored: closed, with all `events`.
  void ExpectStoredComplete(const std::string& span, size_t events) {
    const FakeSpan* stored = collector_.span("run1", span);
    ASSERT_NE(stored, nullptr);
    EXPECT_TRUE(stored->closed);
    EXPECT_EQ(stored->events.events.size(), events);
  }

  test_support::TempDir dir_;
  FakeCollector collector_;
  rpc::RunningServer upstream_;
  std::unique_ptr<RelaySocketServer> relay_server_;
  std::unique_ptr<CollectorRelay> relay_;
  std::string socket_;
};

TEST_F(CollectorRelayTest,
       SpanThroughTheRelayArrivesCompleteWithTheRelaysAgentId) {
  const trace::Trace trace = NumberedOpsTrace(95);
  ASSERT_TRUE(Upload(trace, "cupti.0", absl::Seconds(30)).ok());
  ExpectStoredComplete("cupti.0", 95);
  EXPECT_EQ(collector_.span("run1", "cupti.0")->end.chunk_count(),
            10u);  // 95 events, 10 a chunk
  ASSERT_FALSE(collector_.streams().empty());
  EXPECT_EQ(collector_.streams()[0].header.agent_id(), "node-agent");
  // Whose span it is, as the kernel says (this test's uid).
  EXPECT_EQ(collector_.streams()[0].header.local_uid(), ::getuid());
}

// Regression for #42: a library cannot speak as another agent: the relay's
// own id replaces whatever the header says.
TEST_F(CollectorRelayTest, AForgedAgentIdIsReplacedByTheRelays) {
  ASSERT_TRUE(Upload(NumberedOpsTrace(5), "cupti.9", absl::Seconds(30),
                     "node-of-someone-else")
                  .ok());
  ASSERT_FALSE(collector_.streams().empty());
  EXPECT_EQ(collector_.streams()[0].header.agent_id(), "node-agent");
}

// Regression for #42: the socket is the agent's (mode 0600); another user
// cannot connect, and one let in by a loosened mode is closed at accept.
TEST_F(CollectorRelayTest, AnotherUserCannotUploadThroughTheRelay) {
  if (!CanRunAsAnotherUser()) {
    GTEST_SKIP() << "needs root and /usr/bin/setpriv to run an agent as "
                    "another user";
  }
  struct stat info;
  ASSERT_EQ(::stat(socket_.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600u);
  std::string output;
  EXPECT_NE(UploadAs(kNobody, kNobody, 5, output), 0) << output;
  EXPECT_TRUE(collector_.streams().empty());
  // A mode changed by hand lets it connect: the accept check closes it.
  ASSERT_EQ(::chmod(socket_.c_str(), 0666), 0);
  EXPECT_NE(UploadAs(kNobody, kNobody, 5, output), 0) << output;
  EXPECT_GE(relay_server_->refused(), 1);
  EXPECT_TRUE(collector_.streams().empty());
}

TEST_F(CollectorRelayTest, AMemberOfTheRelayGroupUploadsAsItself) {
  if (!CanRunAsAnotherUser()) {
    GTEST_SKIP() << "needs root and /usr/bin/setpriv to run an agent as "
                    "another user";
  }
  Serve({.path = socket_, .group = kRelayGroup}, kMaxRelayStreams);
  struct stat info;
  ASSERT_EQ(::stat(socket_.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0660u);
  EXPECT_EQ(info.st_gid, kRelayGroup);
  std::string output;
  ASSERT_EQ(UploadAs(kNobody, kRelayGroup, 7, output), 0) << output;
  ASSERT_FALSE(collector_.streams().empty());
  EXPECT_EQ(collector_.streams()[0].header.local_uid(), kNobody);
  EXPECT_EQ(collector_.streams()[0].header.agent_id(), "node-agent");
}

// Regression for #42: each relayed stream holds two threads; past the limit
// a stream is UNAVAILABLE (the library retries) until one ends.
TEST_F(CollectorRelayTest, StreamsPastTheLimitAreUnavailable) {
  Serve({.path = socket_}, /*max_streams=*/0);
  const absl::Status refused =
      Upload(NumberedOpsTrace(5), "cupti.3", absl::Milliseconds(300));
  EXPECT_FALSE(refused.ok());
  EXPECT_TRUE(collector_.streams().empty());
  Serve({.path = socket_}, /*max_streams=*/1);
  EXPECT_TRUE(Upload(NumberedOpsTrace(5), "cupti.3", absl::Seconds(30)).ok());
}

TEST_F(CollectorRelayTest, AStreamTheAggregatorBreaksResumesThroughTheRelay) {
  collector_.BreakAfterChunk(4);  // chunks 0..4 stored, then UNAVAILABLE
  const trace::Trace trace = NumberedOpsTrace(95);
  ASSERT_TRUE(Upload(trace, "cupti.1", absl::Seconds(30)).ok());
  ExpectStoredComplete("cupti.1", 95);
  ASSERT_GE(collector_.streams().size(), 2u);
  EXPECT_EQ(collector_.streams()[1].first_chunk,
            5);  // resumed after chunk 4, the last durable
}

TEST_F(CollectorRelayTest, ARefusalReachesTheClientAsTheAggregatorsStatus) {
  collector_.RefuseWith(
      grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "bad span"));
  const absl::Status status =
      Upload(NumberedOpsTrace(5), "cupti.2", absl::Seconds(30));
  // The first stream is cancelled (the relay cannot end it with a status while
  // the client waits); the retry is answered with the remembered refusal, which
  // ends the upload.
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_THAT(std::string(status.message()), ::testing::HasSubstr("bad span"));
  // Usually 1: the retry is answered by the relay (2 when it raced the first
  // stream's end).
  EXPECT_LE(collector_.streams().size(), 2u);
}

}  // namespace
}  // namespace profdiff::agent
