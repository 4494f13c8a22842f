// profdiff-differ --http as a browser or script meets it: a real aggregator
// holding real runs, a real differ serving the web UI on 127.0.0.1, and
// libcurl asking. Status codes, limits, traversal attempts, the token and TLS.
#include "differ/web/web_ui.h"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <regex>
#include <string>
#include <vector>

#include <absl/strings/match.h>
#include <absl/synchronization/notification.h>
#include <gmock/gmock.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include "aggregator/aggregator_server.h"
#include "base/scoped_fd.h"
#include "base/str_cat.h"
#include "differ/service/differ_server.h"
#include "differ/service/digest_cache.h"
#include "differ/service/store_web_backend.h"
#include "differ/service/stored_runs.h"
#include "differ/web/http_server.h"
#include "rpc/channel.h"
#include "tests/aggregator/upload_test_client.h"
#include "tests/differ/web/http_test_client.h"
#include "tests/support/traces_dir.h"

namespace profdiff::differ {
namespace {

namespace fs = std::filesystem;
using testing::Fetch;
using testing::Get;
using ::testing::HasSubstr;
using testing::HttpReply;
using ::testing::Not;

constexpr char kFp32[] = "profdiff_h200/transformer-fp32.pt.trace.json.gz";
constexpr char kBf16[] = "profdiff_h200/transformer-bf16.pt.trace.json.gz";

// Whether a page holds `text` (a failure prints the text, not the page).
bool Has(const HttpReply& reply, std::string_view text) {
  return reply.body.find(text) != std::string::npos;
}

fs::path Tls(const std::string& name) {
  return fs::path(PROFDIFF_SOURCE_DIR) / "tests/data/tls" / name;
}

// One DLRM rank's file: its run expects 8 workers, so it stays OPEN.
std::string DlrmRankFile() {
  const fs::path folder = test_support::TracesDir() / "param/dlrm_kineto";
  std::error_code error;
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(folder, error)) {
    files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  return files.empty() ? "" : files.front();
}

// The aggregator and its runs, shared by the suite: fp32 and bf16 (the H200
// pair, COMPLETE) and dlrm-rank0 (1 of 8 workers, OPEN).
struct Store {
  fs::path dir;
  std::unique_ptr<aggregator::AggregatorServer> aggregator;
  std::string address;
};

class WebUiTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const fs::path traces = test_support::TracesDir();
    if (!fs::exists(traces / kFp32) || !fs::exists(traces / kBf16) ||
        DlrmRankFile().empty()) {
      return;  // each test skips
    }
    store_ = std::make_unique<Store>();
    // One folder per process: ctest runs each test as a process, several
    // at once.
    store_->dir =
        fs::path(::testing::TempDir()) / base::StrCat("web_ui_test_", getpid());
    fs::remove_all(store_->dir);
    aggregator::AggregatorOptions options;
    options.listen_address = "127.0.0.1:0";
    options.store.data_dir = store_->dir / "store";
    auto aggregator = aggregator::AggregatorServer::Start(options);
    ASSERT_TRUE(aggregator.ok()) << aggregator.status();
    store_->aggregator = std::move(aggregator).value();
    store_->address = base::StrCat("127.0.0.1:", store_->aggregator->port());
    const auto channel = rpc::MakeChannel(store_->address, {});
    const std::pair<std::string, std::string> runs[] = {
        {(traces / kFp32).string(), "fp32"},
        {(traces / kBf16).string(), "bf16"},
        {DlrmRankFile(), "dlrm-rank0"}};
    for (const auto& [file, run] : runs) {
      testing::PreparedSpan span = testing::PrepareSpan(file, run, 4096);
      const grpc::Status status = testing::UploadSpan(channel, span);
      ASSERT_TRUE(status.ok()) << file << ": " << status.error_message();
    }
  }

  static void TearDownTestSuite() {
    if (store_ == nullptr) return;
    store_->aggregator.reset();
    std::error_code ignored;
    fs::remove_all(store_->dir, ignored);
    store_.reset();
  }

  void SetUp() override {
    if (store_ == nullptr) {
      GTEST_SKIP() << "needs the H200 pair and the DLRM run under "
                   << test_support::TracesDir();
    }
  }

  // A differ with the web UI on 127.0.0.1; `security` as its flags load it.
  void StartDiffer(const rpc::ServerSecurityFiles& files = {}) {
    DifferOptions options;
    // The group-by toggle's diff always on the page.
    options.http_groupings_budget = absl::Minutes(1);
    options.listen_address = "127.0.0.1:0";
    options.store_address = store_->address;
    options.http_address = "127.0.0.1:0";
    absl::StatusOr<rpc::ServerSecurity> security =
        rpc::ServerSecurity::Load(files);
    ASSERT_TRUE(security.ok()) << security.status();
    options.security = *std::move(security);
    auto differ = DifferServer::Start(options);
    ASSERT_TRUE(differ.ok()) << differ.status();
    differ_ = std::move(differ).value();
    base_ = base::StrCat(options.security.tls() ? "https" : "http",
                         "://127.0.0.1:", differ_->http_port());
  }

  std::string WriteToken(const std::string& token) {
    const fs::path file = store_->dir / "token";
    std::ofstream(file) << token << "\n";
    fs::permissions(file, fs::perms::owner_read | fs::perms::owner_write);
    return file.string();
  }

  static std::unique_ptr<Store> store_;
  std::unique_ptr<DifferServer> differ_;
  std::string base_;
};

std::unique_ptr<Store> WebUiTest::store_;

TEST_F(WebUiTest, RunsPageListsEveryStoredRunWithItsState) {
  StartDiffer();
  const HttpReply page = Get(base_ + "/");
  ASSERT_EQ(page.status, 200) << page.error;
  EXPECT_EQ(page.Header("Content-Type"), "text/html; charset=utf-8");
  for (const char* run : {"fp32", "bf16", "dlrm-rank0"}) {
    EXPECT_TRUE(Has(page, base::StrCat("data-run=\"", run, "\"")));
    EXPECT_TRUE(Has(page, base::StrCat("href=\"/run/", run, "\"")));
  }
  EXPECT_TRUE(Has(page, "COMPLETE"));
  EXPECT_TRUE(Has(page, ">1 of 8<"));  // dlrm-rank0's workers
  // The filter goes to the store.
  const HttpReply filtered = Get(base_ + "/?filter=bf");
  ASSERT_EQ(filtered.status, 200);
  EXPECT_TRUE(Has(filtered, "data-run=\"bf16\""));
  EXPECT_FALSE(Has(filtered, "data-run=\"fp32\""));
}

TEST_F(WebUiTest, DiffPageIsTheReportWithOnlyItsOwnScripts) {
  StartDiffer();
  const HttpReply page = Get(base_ + "/diff?baseline=fp32&experimental=bf16");
  ASSERT_EQ(page.status, 200) << page.body;
  EXPECT_TRUE(Has(page, "id=\"profdiff-data\""));
  EXPECT_TRUE(Has(page, "What changed"));
  EXPECT_TRUE(absl::StrContains(page.body, "\"other_tables\""));
  EXPECT_TRUE(Has(page, "href=\"/run/fp32\""));
  // Every script carries the nonce the policy names; nothing else may run.
  const std::string policy = page.Header("Content-Security-Policy");
  std::smatch nonce;
  ASSERT_TRUE(std::regex_search(policy, nonce,
                                std::regex("script-src 'nonce-([0-9a-f]+)'")))
      << policy;
  EXPECT_THAT(policy, HasSubstr("default-src 'none'"));
  size_t scripts = 0;
  for (size_t at = page.body.find("<script"); at != std::string::npos;
       at = page.body.find("<script", at + 1)) {
    ++scripts;
    EXPECT_EQ(page.body.compare(at, 15 + nonce[1].length(),
                                "<script nonce=\"" + nonce[1].str()),
              0)
        << page.body.substr(at, 60);
  }
  EXPECT_EQ(scripts, 2u);
  EXPECT_EQ(page.Header("X-Content-Type-Options"), "nosniff");
  EXPECT_EQ(page.Header("Cache-Control"), "no-store");
  // A new nonce per answer.
  const HttpReply again = Get(base_ + "/diff?baseline=fp32&experimental=bf16");
  EXPECT_NE(again.Header("Content-Security-Policy"), policy);
}

// The store's answers, with the other groupings' diffs held until `release`:
// a thousand-rank run's, which the store rebuilds from events the first time.
class SlowOtherGroupings final : public web::WebBackend {
 public:
  explicit SlowOtherGroupings(web::WebBackend* store) : store_(store) {}
  absl::Notification release;

  absl::StatusOr<v1::ListRunsResponse> ListRuns(const v1::ListRunsRequest& r,
                                                absl::Time d) override {
    return store_->ListRuns(r, d);
  }
  absl::StatusOr<v1::StoredRun> GetRun(const std::string& run, bool summary,
                                       absl::Time d) override {
    return store_->GetRun(run, summary, d);
  }
  absl::StatusOr<v1::RunDigest> GetDigest(const std::string& run,
                                          absl::Time d) override {
    return store_->GetDigest(run, d);
  }
  absl::StatusOr<v1::DiffReport> Diff(const v1::DiffRequest& request,
                                      absl::Time d) override {
    if (request.operator_grouping() == v1::GROUPING_NAME_AND_SHAPE) {
      release.WaitForNotificationWithDeadline(d);
    }
    return store_->Diff(request, d);
  }
  absl::StatusOr<web::BodyStream> ExportTrace(
      const v1::ExportTraceRequest& request) override {
    return store_->ExportTrace(request);
  }

 private:
  web::WebBackend* store_;
};

TEST_F(WebUiTest, APageDoesNotWaitPastItsBudgetForTheOtherGroupings) {
  DigestCache cache(64 << 20);
  StoredRuns runs(store_->address, {}, &cache);
  StoreWebBackend store(&runs);
  SlowOtherGroupings slow(&store);
  web::WebUiOptions ui_options;
  ui_options.other_groupings_budget = absl::Milliseconds(200);
  auto ui = std::make_unique<web::WebUi>(&slow, ui_options);
  auto http = web::HttpServer::Start(
      {}, [&ui](const web::HttpRequest& r) { return ui->Handle(r); });
  ASSERT_TRUE(http.ok()) << http.status();
  const std::string base = base::StrCat("http://127.0.0.1:", (*http)->port());

  const HttpReply page =
      Get(base + "/diff?baseline=fp32&experimental=bf16&path=x");
  ASSERT_EQ(page.status, 200);
  EXPECT_FALSE(absl::StrContains(page.body, "\"other_tables\""));
  EXPECT_TRUE(
      absl::StrContains(page.body,
                        "id=\"load-groupings\" href=\"/diff?baseline=fp32&amp;"
                        "experimental=bf16&amp;path=x&amp;groupings=both\""));
  // Asked for, they are waited for.
  slow.release.Notify();
  const HttpReply both =
      Get(base + "/diff?baseline=fp32&experimental=bf16&groupings=both");
  ASSERT_EQ(both.status, 200);
  EXPECT_TRUE(absl::StrContains(both.body, "\"other_tables\""));
  EXPECT_FALSE(absl::StrContains(both.body, "load-groupings"));
  http->reset();
  ui.reset();  // waits for the diff the first page left behind
}

TEST_F(WebUiTest, SeveralRunsAgainstOneBaselineShareAPage) {
  StartDiffer();
  const HttpReply page =
      Get(base_ + "/diff?baseline=fp32&experimental=bf16&experimental=fp32");
  ASSERT_EQ(page.status, 200) << page.body;
  EXPECT_TRUE(Has(page, "fp32 against 2 runs"));
  EXPECT_TRUE(Has(page, "<iframe data-run=\"1\""));
}

TEST_F(WebUiTest, AnUnknownRunIsA404NamingIt) {
  StartDiffer();
  for (const std::string path :
       {"/diff?baseline=fp32&experimental=no-such-run", "/run/no-such-run",
        "/run/no-such-run/trace.json?rank=0"}) {
    const HttpReply page = Get(base_ + path);
    EXPECT_EQ(page.status, 404) << path;
    EXPECT_TRUE(Has(page, "404 Not Found")) << path;
    EXPECT_TRUE(Has(page, "no-such-run")) << path;
  }
  EXPECT_EQ(Get(base_ + "/no/such/page").status, 404);
}

TEST_F(WebUiTest, MalformedQueriesAre400SayingWhatIsWrong) {
  StartDiffer();
  const std::pair<std::string, std::string> cases[] = {
      {"/diff", "name the runs"},
      {"/diff?baseline=fp32", "name the runs"},
      {"/diff?baseline=a%2Fb&experimental=bf16", "a/b"},
      {"/diff?baseline=fp32&experimental=bf16&ranks=x", "ranks=x"},
      {"/diff?baseline=fp32&experimental=bf16&ranks=5-2", "ranks=5-2"},
      {"/run/fp32/trace.json", "name the worker"},
      {"/run/fp32/trace.json?rank=-1", "rank=-1"},
  };
  for (const auto& [path, says] : cases) {
    const HttpReply page = Get(base_ + path);
    EXPECT_EQ(page.status, 400) << path;
    EXPECT_TRUE(Has(page, says)) << path;
  }
  std::string many = "/diff?baseline=fp32";
  for (int i = 0; i < 17; ++i) many += "&experimental=bf16";
  EXPECT_EQ(Get(base_ + many).status, 400);
  std::string args = "/?filter=x";
  for (int i = 0; i < 70; ++i) args += base::StrCat("&a", i, "=1");
  EXPECT_EQ(Get(base_ + args).status, 400);
}

TEST_F(WebUiTest, HugeQueriesAreRefusedAndTheServerGoesOn) {
  StartDiffer();
  // Past the UI's 8 KiB: its own 414 page.
  const HttpReply long_query =
      Get(base_ + "/diff?baseline=" + std::string(9000, 'a'));
  EXPECT_EQ(long_query.status, 414);
  EXPECT_TRUE(Has(long_query, "at most 8192"));
  // Past the connection's 32 KiB: the library refuses the request line.
  for (size_t size : {40'000u, 1'000'000u}) {
    const HttpReply refused =
        Get(base_ + "/diff?baseline=" + std::string(size, 'a'));
    EXPECT_TRUE(refused.status == 414 || refused.status == 431 ||
                refused.status == 0)
        << size << ": " << refused.status;
  }
  // A header too large, and a POST body too large.
  const HttpReply header = Fetch(
      {.url = base_ + "/", .headers = {"X-Big: " + std::string(40'000, 'b')}});
  EXPECT_TRUE(header.status == 431 || header.status == 413 ||
              header.status == 0)
      << header.status;
  const HttpReply body = Fetch({.method = "POST",
                                .url = base_ + "/login",
                                .body = std::string(100'000, 'c')});
  EXPECT_EQ(body.status, 413);
  EXPECT_EQ(Get(base_ + "/").status, 200);
}

TEST_F(WebUiTest, TraversalAttemptsServeNoFile) {
  StartDiffer();
  for (const std::string path :
       {"/../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd",
        "/..%2f..%2fetc%2fpasswd", "/run/..%2f..%2fetc%2fpasswd",
        "/run/../../../etc/passwd", "/run/fp32/../../../etc/passwd",
        "/run/%2e%2e", "/run/..", "//etc/passwd", "/run/fp32%00",
        "/run/fp32/trace.json/../../../../etc/passwd",
        "/%252e%252e/%252e%252e/etc/passwd", "/run/..%5c..%5cetc%5cpasswd",
        "/static/../../../../etc/passwd", "/etc/passwd"}) {
    const HttpReply page = Fetch({.url = base_ + path, .path_as_is = true});
    EXPECT_TRUE(page.status == 404 || page.status == 400)
        << path << ": " << page.status;
    EXPECT_FALSE(Has(page, "root:")) << path;
  }
}

TEST_F(WebUiTest, OnlyGetAndHeadReadPages) {
  StartDiffer();
  for (const char* method : {"POST", "PUT", "DELETE", "PATCH"}) {
    const HttpReply page = Fetch({.method = method, .url = base_ + "/"});
    EXPECT_EQ(page.status, 405) << method;
    EXPECT_EQ(page.Header("Allow"), "GET, HEAD") << method;
  }
  const HttpReply head = Fetch({.method = "HEAD", .url = base_ + "/"});
  EXPECT_EQ(head.status, 200);
  EXPECT_TRUE(head.body.empty());
}

// Connections that send nothing hold a slot until the idle timeout: past 16
// from one address the next is refused, and a slot freed is served again.
TEST_F(WebUiTest, IdleConnectionsPastThePerAddressLimitAreRefused) {
  StartDiffer();
  std::vector<base::ScopedFd> idle;
  for (int i = 0; i < 16; ++i) {
    base::ScopedFd fd(socket(AF_INET, SOCK_STREAM, 0));
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<uint16_t>(differ_->http_port()));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(connect(fd.get(), reinterpret_cast<sockaddr*>(&address),
                      sizeof address),
              0);
    idle.push_back(std::move(fd));
  }
  // The library accepts them on its own thread: wait until it has.
  absl::SleepFor(absl::Milliseconds(300));
  EXPECT_NE(Get(base_ + "/healthz").status, 200);
  idle.clear();
  bool served = false;
  for (int i = 0; i < 50 && !served; ++i) {
    served = Get(base_ + "/healthz").status == 200;
    if (!served) absl::SleepFor(absl::Milliseconds(100));
  }
  EXPECT_TRUE(served);
}

TEST_F(WebUiTest, AnIncompleteRunSaysSoAndOffersThePartialDiff) {
  StartDiffer();
  const HttpReply notice =
      Get(base_ + "/diff?baseline=dlrm-rank0&experimental=dlrm-rank0");
  ASSERT_EQ(notice.status, 200);
  EXPECT_TRUE(Has(notice, "Still uploading"));
  EXPECT_TRUE(Has(notice, "is OPEN: 1 of 8 workers stored"));
  std::smatch link;
  ASSERT_TRUE(std::regex_search(
      notice.body, link, std::regex("id=\"partial-diff\" href=\"([^\"]+)\"")));
  std::string url = link[1].str();
  for (size_t at; (at = url.find("&amp;")) != std::string::npos;) {
    url.replace(at, 5, "&");
  }
  EXPECT_THAT(url, HasSubstr("partial=1"));
  const HttpReply partial = Get(base_ + url);
  ASSERT_EQ(partial.status, 200) << partial.body;
  EXPECT_TRUE(Has(partial, "id=\"profdiff-data\""));
  EXPECT_TRUE(Has(partial, "run dlrm-rank0 is OPEN: 1 of 8 ranks stored"));
}

TEST_F(WebUiTest, RunPageExportsEachWorkersChromeTrace) {
  StartDiffer();
  const HttpReply page = Get(base_ + "/run/fp32");
  ASSERT_EQ(page.status, 200) << page.body;
  EXPECT_TRUE(Has(page, "COMPLETE"));
  EXPECT_TRUE(Has(page, "Average step"));
  EXPECT_TRUE(Has(page, "href=\"/run/fp32/trace.json?rank=0\""));
  const HttpReply trace = Get(base_ + "/run/fp32/trace.json?rank=0");
  ASSERT_EQ(trace.status, 200) << trace.body.substr(0, 300);
  EXPECT_EQ(trace.Header("Content-Type"), "application/json");
  EXPECT_THAT(trace.Header("Content-Disposition"),
              HasSubstr("attachment; filename=\"fp32-rank0.json\""));
  EXPECT_TRUE(Has(trace, "\"traceEvents\""));
  EXPECT_GT(trace.body.size(), 1'000'000u);  // streamed whole, not cut
  EXPECT_EQ(trace.body.back() == '}' || trace.body.back() == '\n', true);
  EXPECT_EQ(Get(base_ + "/run/fp32/trace.json?rank=7").status / 100, 4);
}

TEST_F(WebUiTest, TheTokenGuardsEveryPageOverTls) {
  StartDiffer({.tls_cert_file = Tls("server.pem").string(),
               .tls_key_file = Tls("server.key").string(),
               .token_file = WriteToken("s3cret-token")});
  ASSERT_THAT(base_, HasSubstr("https://"));
  const std::string ca = Tls("ca.pem").string();
  auto get = [&](const std::string& path,
                 std::vector<std::string> headers = {}) {
    return Fetch(
        {.url = base_ + path, .headers = std::move(headers), .ca_file = ca});
  };
  // Plain HTTP to the TLS port gets no page.
  EXPECT_NE(Get("http" + base_.substr(5) + "/").status, 200);
  for (const std::string path :
       {"/", "/diff?baseline=fp32&experimental=bf16", "/run/fp32",
        "/run/fp32/trace.json?rank=0", "/run/no-such-run"}) {
    const HttpReply page = get(path);
    EXPECT_EQ(page.status, 401) << path;
    EXPECT_TRUE(Has(page, "Sign in")) << path;
    EXPECT_FALSE(Has(page, "fp32\" ")) << path;
    EXPECT_EQ(get(path, {"Authorization: Bearer wrong"}).status, 401) << path;
  }
  EXPECT_EQ(get("/", {"Authorization: Bearer s3cret-token"}).status, 200);
  EXPECT_EQ(get("/healthz").status, 200);  // probes need no token

  auto login = [&](const std::string& form) {
    return Fetch({.method = "POST",
                  .url = base_ + "/login",
                  .body = form,
                  .ca_file = ca});
  };
  const HttpReply wrong = login("token=guess&next=%2Frun%2Ffp32");
  EXPECT_EQ(wrong.status, 401);
  EXPECT_TRUE(Has(wrong, "Wrong token"));
  EXPECT_TRUE(wrong.Header("Set-Cookie").empty());
  const HttpReply right = login("token=s3cret-token&next=%2Frun%2Ffp32");
  ASSERT_EQ(right.status, 303);
  EXPECT_EQ(right.Header("Location"), "/run/fp32");
  const std::string cookie = right.Header("Set-Cookie");
  EXPECT_THAT(cookie, HasSubstr("HttpOnly"));
  EXPECT_THAT(cookie, HasSubstr("SameSite=Strict"));
  EXPECT_THAT(cookie, HasSubstr("Secure"));
  const std::string session = cookie.substr(0, cookie.find(';'));
  EXPECT_EQ(get("/run/fp32", {"Cookie: " + session}).status, 200);
  EXPECT_EQ(get("/", {"Cookie: profdiff_session=forged"}).status, 401);
  // Only pages of this UI after signing in: no open redirect.
  for (const char* away :
       {"%2F%2Fevil.example", "%2F%09%2Fevil.example", "%2F%5C%5Cevil.example",
        "%2F%0D%0ALocation:%20http://evil.example", "http://evil.example"}) {
    EXPECT_EQ(login(base::StrCat("token=s3cret-token&next=", away))
                  .Header("Location"),
              "/")
        << away;
  }
  // Signing out ends the session.
  const HttpReply out = Fetch({.method = "POST",
                               .url = base_ + "/logout",
                               .headers = {"Cookie: " + session},
                               .ca_file = ca});
  EXPECT_EQ(out.status, 303);
  EXPECT_THAT(out.Header("Set-Cookie"), HasSubstr("Max-Age=0"));
  EXPECT_EQ(get("/", {"Cookie: " + session}).status, 401);
}

TEST_F(WebUiTest, ClientCertificatesWithoutATokenCannotGuardTheUi) {
  DifferOptions options;
  options.listen_address = "127.0.0.1:0";
  options.store_address = store_->address;
  options.http_address = "127.0.0.1:0";
  absl::StatusOr<rpc::ServerSecurity> security =
      rpc::ServerSecurity::Load({.tls_cert_file = Tls("server.pem").string(),
                                 .tls_key_file = Tls("server.key").string(),
                                 .client_ca_file = Tls("ca.pem").string()});
  ASSERT_TRUE(security.ok()) << security.status();
  options.security = *std::move(security);
  auto differ = DifferServer::Start(options);
  ASSERT_FALSE(differ.ok());
  EXPECT_EQ(differ.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(differ.status().message(), HasSubstr("--auth-token-file"));
}

TEST_F(WebUiTest, AnAddressInUseOrMalformedIsRefusedAtStart) {
  StartDiffer();
  const std::vector<std::string> addresses = {
      base::StrCat("127.0.0.1:", differ_->http_port()), "127.0.0.1",
      "127.0.0.1:99999", "no-such-host.invalid:8080"};
  for (const std::string& address : addresses) {
    DifferOptions options;
    options.listen_address = "127.0.0.1:0";
    options.store_address = store_->address;
    options.http_address = address;
    auto differ = DifferServer::Start(options);
    EXPECT_FALSE(differ.ok()) << address;
    EXPECT_THAT(differ.status().message(), HasSubstr(address)) << address;
  }
}

}  // namespace
}  // namespace profdiff::differ
