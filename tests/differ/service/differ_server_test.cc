// profdiff-differ as users meet it: a real aggregator and a real differ on
// 127.0.0.1, real traces uploaded as runs, and the CLI asking the differ.
#include "differ/service/differ_server.h"

#include <netinet/in.h>
#include <sys/socket.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>

#include <absl/synchronization/mutex.h>
#include <gmock/gmock.h>
#include <google/protobuf/util/json_util.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include "aggregator/aggregator_server.h"
#include "aggregator/run_digests.h"
#include "base/scoped_fd.h"
#include "base/str_cat.h"
#include "client/diff_command.h"
#include "client/json_output.h"
#include "client/show_command.h"
#include "client/store_commands.h"
#include "profdiff/v1/differ.grpc.pb.h"
#include "profdiff/v1/run_store.grpc.pb.h"
#include "rpc/channel.h"
#include "tests/aggregator/upload_test_client.h"
#include "tests/support/digest_cut.h"
#include "tests/support/sums_agree.h"
#include "tests/support/traces_dir.h"

namespace profdiff::differ {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using testing::PreparedSpan;
using testing::PrepareSpan;
using testing::UploadSpan;

constexpr char kResNetNw0[] =
    "kineto/tb_plugin_samples/resnet50_num_workers_0/"
    "worker0.1623143089861.pt.trace.json.gz";
constexpr char kResNetNw4[] =
    "kineto/tb_plugin_samples/resnet50_num_workers_4/"
    "worker0.1623212756351.pt.trace.json.gz";
constexpr char kDlrm[] = "param/dlrm_kineto";

std::vector<std::string> FilesIn(const fs::path& dir) {
  std::vector<std::string> files;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(dir, error))
    files.push_back(entry.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

// The report with what differs by construction removed: the run names (a
// folder's name offline, the run id on the server).
std::string ComparableReport(const std::string& json) {
  v1::DiffReport report;
  const absl::Status status = client::FromJson(json, report);
  EXPECT_TRUE(status.ok()) << status;
  report.mutable_baseline()->clear_run();
  report.mutable_experimental()->clear_run();
  std::string out;
  google::protobuf::util::JsonPrintOptions options;
  options.add_whitespace = true;
  (void)google::protobuf::util::MessageToJsonString(report, &out, options);
  return out;
}

// What `profdiff export RUN --worker 0` asks the store.
v1::ExportTraceRequest ExportOfRank0(const std::string& run) {
  v1::ExportTraceRequest request;
  request.set_run(run);
  request.mutable_worker()->set_rank(0);
  return request;
}

class DifferServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const fs::path traces = test_support::TracesDir();
    if (!fs::exists(traces / kResNetNw0) || !fs::exists(traces / kResNetNw4) ||
        FilesIn(traces / kDlrm).size() != 8) {
      GTEST_SKIP() << "needs the ResNet50 and DLRM traces under " << traces;
    }
    dir_ =
        fs::path(::testing::TempDir()) /
        ("differ_" +
         std::string(
             ::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    aggregator::AggregatorOptions aggregator_options;
    aggregator_options.listen_address = "127.0.0.1:0";
    aggregator_options.store.data_dir = dir_ / "store";
    auto aggregator = aggregator::AggregatorServer::Start(aggregator_options);
    ASSERT_TRUE(aggregator.ok()) << aggregator.status();
    aggregator_ = std::move(aggregator).value();
    aggregator_address_ = "127.0.0.1:" + std::to_string(aggregator_->port());
    StartDiffer(aggregator_address_, absl::Minutes(1));
  }

  void StartDiffer(const std::string& store, absl::Duration store_timeout) {
    DifferOptions options;
    options.listen_address = "127.0.0.1:0";
    options.store_address = store;
    options.store_timeout = store_timeout;
    auto differ = DifferServer::Start(options);
    ASSERT_TRUE(differ.ok()) << differ.status();
    differ_ = std::move(differ).value();
    differ_address_ = "127.0.0.1:" + std::to_string(differ_->port());
  }

  // Restarts the aggregator on its data folder (on a new port) and the differ
  // in front of it (with a new, empty cache).
  void RestartAggregatorAndDiffer() {
    aggregator_.reset();
    aggregator::AggregatorOptions options;
    options.listen_address = "127.0.0.1:0";
    options.store.data_dir = dir_ / "store";
    auto aggregator = aggregator::AggregatorServer::Start(options);
    ASSERT_TRUE(aggregator.ok()) << aggregator.status();
    aggregator_ = std::move(aggregator).value();
    aggregator_address_ = "127.0.0.1:" + std::to_string(aggregator_->port());
    StartDiffer(aggregator_address_, absl::Minutes(1));
  }

  // Uploads `files` as the spans of run `run`, the way an agent would.
  void Upload(const std::string& run, const std::vector<std::string>& files) {
    const std::shared_ptr<grpc::Channel> channel =
        rpc::MakeChannel(aggregator_address_);
    for (const std::string& file : files) {
      PreparedSpan span = PrepareSpan(file, run, 4096);
      span.header.mutable_worker()
          ->clear_hostname();  // the files do not know the host
      const grpc::Status status = UploadSpan(channel, span);
      ASSERT_TRUE(status.ok()) << file << ": " << status.error_message();
    }
  }

  // A run folder holding `file` (a link: the traces are never copied).
  std::string RunFolder(const std::string& name, const std::string& file) {
    const fs::path folder = dir_ / name;
    fs::create_directories(folder);
    fs::create_symlink(test_support::TracesDir() / file,
                       folder / fs::path(file).filename());
    return folder.string();
  }

  grpc::Status Diff(const v1::DiffRequest& request, v1::DiffReport& report) {
    auto stub = v1::Differ::NewStub(rpc::MakeChannel(differ_address_));
    grpc::ClientContext context;
    rpc::SetTimeout(context, absl::Seconds(60));
    return stub->Diff(&context, request, &report);
  }

  std::string DiffJson(std::vector<std::string> args) {
    args.insert(args.end(), {"--format", "json"});
    absl::StatusOr<std::string> json = client::RunDiffCommand(args);
    EXPECT_TRUE(json.ok()) << json.status();
    return json.ok() ? *json : "";
  }

  fs::path dir_;
  std::unique_ptr<aggregator::AggregatorServer> aggregator_;
  std::string aggregator_address_;
  std::unique_ptr<DifferServer> differ_;
  std::string differ_address_;
};

TEST_F(DifferServerTest, DiffOfStoredRunsEqualsDiffOfTheirFolders) {
  const std::string a_dir = RunFolder("a_dir", kResNetNw0);
  const std::string b_dir = RunFolder("b_dir", kResNetNw4);
  Upload("A", FilesIn(a_dir));
  Upload("B", FilesIn(b_dir));
  const std::vector<std::vector<std::string>> option_sets = {
      {},
      {"--view", "operators,kernels", "--group-by", "shape", "--kernels-by",
       "op", "--sort", "delta_host_self_us", "--top", "7", "--normalize",
       "total"},
      {"--path", "0/1", "--filter", "conv", "--min-change", "2"},
      {"--compare", "hta", "--steps", "all", "--device", "gpu"},
      {"--view", "findings"},
      {"--view", "memory", "--ranks", "0"},
  };
  for (const std::vector<std::string>& options : option_sets) {
    std::vector<std::string> offline = {a_dir, b_dir};
    std::vector<std::string> stored = {"A", "B", "--server", differ_address_};
    offline.insert(offline.end(), options.begin(), options.end());
    stored.insert(stored.end(), options.begin(), options.end());
    const std::string offline_json = DiffJson(offline);
    ASSERT_THAT(offline_json, HasSubstr("\"baseline\""));
    // "What changed" is made by the differ, so the server's is the same.
    if (options.empty() || options.back() == "findings")
      EXPECT_THAT(offline_json, HasSubstr("\"kind\": \"step_time\""));
    // The memory diff (a default view): the samples' [memory] events on the
    // CPU and cuda:0, curves and the peaks' places included.
    if (options.empty() || options[1] == "memory") {
      EXPECT_THAT(offline_json, HasSubstr("\"baseline_curve\""));
      EXPECT_THAT(offline_json, HasSubstr("\"device\": \"cuda:0\""));
    }
    EXPECT_EQ(ComparableReport(offline_json),
              ComparableReport(DiffJson(stored)))
        << ::testing::PrintToString(options);
  }
}

// The HTML report through the differ (two Diff calls: with node tables, and the
// other grouping) is byte for byte the page made offline from folders named
// like the runs.
// Several runs against one baseline (issue 48, item 3): DiffMany of stored
// runs gives each pair's report as the offline diff of their folders does.
TEST_F(DifferServerTest,
       DiffManyOfStoredRunsEqualsTheOfflineDiffOfTheirFolders) {
  const std::string a_dir = RunFolder("a_dir", kResNetNw0);
  const std::string b_dir = RunFolder("b_dir", kResNetNw4);
  Upload("A", FilesIn(a_dir));
  Upload("B", FilesIn(b_dir));
  const std::string offline =
      DiffJson({a_dir, b_dir, a_dir, "--view", "overview,findings,operators"});
  const std::string stored =
      DiffJson({"A", "B", "A", "--server", differ_address_, "--view",
                "overview,findings,operators"});
  v1::MultiDiffReport offline_reports, stored_reports;
  ASSERT_TRUE(client::FromJson(offline, offline_reports).ok());
  ASSERT_TRUE(client::FromJson(stored, stored_reports).ok());
  ASSERT_EQ(offline_reports.reports_size(), 2);
  ASSERT_EQ(stored_reports.reports_size(), 2);
  // Run names aside (the folders' and the stored runs' differ).
  auto comparable = [](v1::DiffReport report) {
    report.mutable_baseline()->clear_run();
    report.mutable_experimental()->clear_run();
    return report.DebugString();
  };
  for (int k = 0; k < 2; ++k) {
    EXPECT_EQ(comparable(offline_reports.reports(k)),
              comparable(stored_reports.reports(k)))
        << "run " << k + 1;
  }
  // Run 1 is B against A: the pair's own diff; run 2, A against itself.
  v1::DiffReport pair;
  ASSERT_TRUE(
      client::FromJson(DiffJson({"A", "B", "--server", differ_address_,
                                 "--view", "overview,findings,operators"}),
                       pair)
          .ok());
  EXPECT_EQ(comparable(pair), comparable(stored_reports.reports(0)));
  EXPECT_THAT(stored_reports.reports(1).findings(0).text(),
              HasSubstr("No significant change"));
  // The service's bounds: no run, or more than 16.
  v1::DiffManyRequest request;
  request.set_baseline_run("A");
  auto stub = v1::Differ::NewStub(rpc::MakeChannel(differ_address_));
  for (int runs : {0, 17}) {
    request.clear_experimental_runs();
    for (int i = 0; i < runs; ++i) request.add_experimental_runs("B");
    grpc::ClientContext context;
    v1::MultiDiffReport reply;
    const grpc::Status status = stub->DiffMany(&context, request, &reply);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_THAT(status.error_message(), HasSubstr("expected 1 to 16"));
  }
}

TEST_F(DifferServerTest, HtmlReportOfStoredRunsEqualsTheOfflineReport) {
  const std::string a_dir = RunFolder("A", kResNetNw0);
  const std::string b_dir = RunFolder("B", kResNetNw4);
  Upload("A", FilesIn(a_dir));
  Upload("B", FilesIn(b_dir));
  absl::StatusOr<std::string> offline =
      client::RunDiffCommand({a_dir, b_dir, "--format", "html"});
  absl::StatusOr<std::string> stored = client::RunDiffCommand(
      {"A", "B", "--server", differ_address_, "--format", "html"});
  ASSERT_TRUE(offline.ok()) << offline.status();
  ASSERT_TRUE(stored.ok()) << stored.status();
  ASSERT_THAT(*offline, HasSubstr("\"other_tables\""));
  ASSERT_THAT(*offline, HasSubstr("\"memory\":{\"sources\""));
  EXPECT_TRUE(*offline == *stored)
      << "offline " << offline->size() << " bytes, stored " << stored->size();
}

TEST_F(DifferServerTest, DiffOfStoredMultiRankRunsEqualsDiffOfTheirFolders) {
  const std::string dlrm = (test_support::TracesDir() / kDlrm).string();
  Upload("dlrm_a", FilesIn(dlrm));
  Upload("dlrm_b", FilesIn(dlrm));
  for (const std::vector<std::string>& options :
       std::vector<std::vector<std::string>>{
           {"--per-rank"},
           {"--ranks", "1,3-5", "--view", "modules"},
           {},
           {"--view", "comm", "--ranks", "2,5", "--normalize", "total"}}) {
    std::vector<std::string> offline = {dlrm, dlrm};
    std::vector<std::string> stored = {"dlrm_a", "dlrm_b", "--server",
                                       differ_address_};
    offline.insert(offline.end(), options.begin(), options.end());
    stored.insert(stored.end(), options.begin(), options.end());
    EXPECT_EQ(ComparableReport(DiffJson(offline)),
              ComparableReport(DiffJson(stored)))
        << ::testing::PrintToString(options);
  }
}

// The differ reads each stored run reduced by the store
// (RunStore.GetRunDigest), not its profiles: the 8-rank DLRM run's digest is a
// fraction of its profiles' bytes, and the digests are what the differ caches.
TEST_F(DifferServerTest, StoredRunsAreDiffedFromTheDigestsTheStoreReduces) {
  const std::string dlrm = (test_support::TracesDir() / kDlrm).string();
  Upload("dlrm_a", FilesIn(dlrm));
  Upload("dlrm_b", FilesIn(dlrm));
  std::unique_ptr<v1::RunStore::Stub> store = v1::RunStore::NewStub(
      rpc::MakeChannel(differ_address_, rpc::ChannelSecurity()));
  size_t digest_bytes = 0;
  for (const char* run : {"dlrm_a", "dlrm_b"}) {
    grpc::ClientContext context;
    rpc::SetTimeout(context, absl::Seconds(60));
    v1::GetRunDigestRequest request;
    request.set_run(run);
    v1::RunDigest digest;
    ASSERT_TRUE(store->GetRunDigest(&context, request, &digest).ok());
    EXPECT_EQ(digest.ranks_size(), 8);
    digest_bytes += digest.ByteSizeLong();
  }
  grpc::ClientContext context;
  rpc::SetTimeout(context, absl::Seconds(60));
  v1::GetProfileRequest request;
  request.set_run("dlrm_a");
  v1::RunProfile profile;
  ASSERT_TRUE(store->GetProfile(&context, request, &profile).ok());
  ASSERT_EQ(profile.workers_size(), 8);
  std::printf("digest %zu bytes, profiles %zu bytes\n", digest_bytes / 2,
              profile.ByteSizeLong());
  EXPECT_LT(digest_bytes / 2 * 3, profile.ByteSizeLong());

  v1::DiffRequest diff;
  diff.set_baseline_run("dlrm_a");
  diff.set_experimental_run("dlrm_b");
  v1::DiffReport report;
  ASSERT_TRUE(Diff(diff, report).ok());
  EXPECT_EQ(differ_->cache_stats().entries, 2);
  EXPECT_EQ(static_cast<size_t>(differ_->cache_stats().bytes), digest_bytes);
  // Each digest was made once, when its run completed (or when first asked
  // for, whichever came first); every later read was the aggregator's cached
  // one.
  ASSERT_TRUE(aggregator_->digests().AwaitPrepared(absl::Seconds(30)));
  const aggregator::RunDigestsStats stats = aggregator_->digests().stats();
  EXPECT_EQ(stats.builds, 2);
  EXPECT_EQ(stats.entries, 2);
  EXPECT_GE(stats.hits, 2);
}

TEST_F(DifferServerTest,
       CompleteRunsAreCachedAndStillDiffedWhileTheAggregatorIsDown) {
  Upload("A", {(test_support::TracesDir() / kResNetNw0).string()});
  Upload("B", {(test_support::TracesDir() / kResNetNw4).string()});
  v1::DiffRequest request;
  request.set_baseline_run("A");
  request.set_experimental_run("B");
  v1::DiffReport first;
  ASSERT_TRUE(Diff(request, first).ok());
  EXPECT_EQ(differ_->cache_stats().entries, 2);
  EXPECT_EQ(differ_->cache_stats().hits, 0);
  v1::DiffReport second;
  ASSERT_TRUE(Diff(request, second).ok());
  EXPECT_EQ(differ_->cache_stats().hits, 2);
  EXPECT_TRUE(second.warnings().empty()) << second.warnings(0);

  aggregator_.reset();
  v1::DiffReport offline;
  const grpc::Status status = Diff(request, offline);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(offline.overview().SerializeAsString(),
            first.overview().SerializeAsString());
  ASSERT_EQ(offline.warnings_size(), 2);
  EXPECT_THAT(
      offline.warnings(0),
      HasSubstr("aggregator " + aggregator_address_ + " did not answer"));

  // A run never cached cannot be served without the aggregator: UNAVAILABLE
  // naming it.
  request.set_experimental_run("never_cached");
  const grpc::Status unavailable = Diff(request, offline);
  EXPECT_EQ(unavailable.error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_THAT(unavailable.error_message(),
              HasSubstr("aggregator " + aggregator_address_));
}

TEST_F(DifferServerTest,
       RunMissingRanksIsDiffedWithAWarningNamingThemAndIsNotCached) {
  const std::vector<std::string> dlrm =
      FilesIn(test_support::TracesDir() / kDlrm);
  Upload("full", dlrm);
  Upload("growing", {dlrm.begin(), dlrm.begin() + 6});
  absl::StatusOr<std::string> table =
      client::RunDiffCommand({"full", "growing", "--server", differ_address_});
  ASSERT_TRUE(table.ok()) << table.status();
  EXPECT_THAT(*table, HasSubstr("warning: run growing is OPEN: 6 of 8 ranks "
                                "stored, missing ranks 6-7"));
  EXPECT_EQ(differ_->cache_stats().entries, 1);  // only the COMPLETE run

  Upload("growing", {dlrm.begin() + 6, dlrm.end()});
  v1::DiffRequest request;
  request.set_baseline_run("full");
  request.set_experimental_run("growing");
  v1::DiffReport report;
  ASSERT_TRUE(Diff(request, report).ok());
  EXPECT_THAT(report.warnings(),
              ::testing::Not(::testing::Contains(HasSubstr("growing"))));
  EXPECT_EQ(report.experimental().ranks_size(), 8);
  EXPECT_EQ(differ_->cache_stats().entries, 2);
}

// Regression for #42: a kept digest cut at a field boundary was served (a
// diff claimed 53 operators "newly ran"), a 0-byte one crashed the differ on
// every diff (SIGSEGV in MeanStepTime: no step metrics), another run's was
// served as this run's. Each is made again by the restarted aggregator, and
// the diff is the diff of the run's folder.
TEST_F(DifferServerTest,
       DiffOfStoredRunsWhoseKeptDigestsAreDamagedEqualsDiffOfTheirFolders) {
  const std::string dlrm = (test_support::TracesDir() / kDlrm).string();
  Upload("dlrm", FilesIn(dlrm));
  Upload("other", {(test_support::TracesDir() / kResNetNw0).string()});
  const std::string expected = ComparableReport(DiffJson({dlrm, dlrm}));
  ASSERT_THAT(expected, HasSubstr("\"baseline\""));
  // Made and kept (the other run's too, to copy).
  ASSERT_THAT(DiffJson({"dlrm", "other", "--server", differ_address_}),
              HasSubstr("\"baseline\""));
  ASSERT_TRUE(aggregator_->digests().AwaitPrepared(absl::Seconds(60)));
  const auto kept_file = [&](const std::string& run) {
    std::vector<std::string> files =
        FilesIn(dir_ / "store" / "runs" / run / "digests");
    EXPECT_EQ(files.size(), 1u) << run;
    return files.empty() ? fs::path() : fs::path(files.front());
  };
  const auto read = [](const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  const std::string made = read(kept_file("dlrm"));
  const std::string other = read(kept_file("other"));
  // The digest without its kernels and every field after them is a prefix of
  // its bytes (fields are written in number order), and the kept file ends
  // with them: cut there, it parses, with no kernels.
  v1::RunDigest digest;
  {
    auto aggregator =
        v1::RunStore::NewStub(rpc::MakeChannel(aggregator_address_));
    grpc::ClientContext context;
    rpc::SetTimeout(context, absl::Seconds(60));
    v1::GetRunDigestRequest request;
    request.set_run("dlrm");
    ASSERT_TRUE(aggregator->GetRunDigest(&context, request, &digest).ok());
  }
  const size_t cut = test_support::BytesFromKernelsOn(digest);
  ASSERT_GT(digest.kernels_size(), 0);
  ASSERT_GT(made.size(), cut);
  const std::vector<std::pair<std::string, std::string>> damages = {
      {"cut at a field boundary", made.substr(0, made.size() - cut)},
      {"empty", ""},
      {"another run's", other},
      {"a flipped byte",
       [&] {
         std::string bytes = made;
         const size_t at = bytes.find("aten::");
         EXPECT_NE(at, std::string::npos);
         if (at != std::string::npos) bytes[at] ^= 0x01;
         return bytes;
       }()},
  };
  for (const auto& [name, bytes] : damages) {
    SCOPED_TRACE(name);
    const fs::path kept = kept_file("dlrm");
    aggregator_.reset();
    std::ofstream(kept, std::ios::binary | std::ios::trunc) << bytes;
    RestartAggregatorAndDiffer();
    EXPECT_EQ(ComparableReport(
                  DiffJson({"dlrm", "dlrm", "--server", differ_address_})),
              expected);
    EXPECT_EQ(aggregator_->digests().stats().damaged, 1);
    EXPECT_EQ(read(kept_file("dlrm")), made);  // kept whole again
  }
}

// A RunStore that serves the digests a test sets: every run COMPLETE with
// one rank, at a new version each time it is asked (nothing is cached).
class FixedDigestStore final : public v1::RunStore::CallbackService {
 public:
  void Set(const std::string& run, v1::RunDigest digest) {
    absl::MutexLock lock(&mu_);
    digests_[run] = std::move(digest);
  }

  grpc::ServerUnaryReactor* GetRun(grpc::CallbackServerContext* context,
                                   const v1::GetRunRequest* request,
                                   v1::StoredRun* response) override {
    absl::MutexLock lock(&mu_);
    response->set_run(request->run());
    response->set_state(v1::RUN_STATE_COMPLETE);
    response->set_world_size(1);
    response->set_worker_count(1);
    response->set_closed_worker_count(1);
    response->add_closed_ranks(0);
    response->set_updated_unix_ms(++version_);
    grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
    reactor->Finish(grpc::Status::OK);
    return reactor;
  }

  grpc::ServerUnaryReactor* GetRunDigest(grpc::CallbackServerContext* context,
                                         const v1::GetRunDigestRequest* request,
                                         v1::RunDigest* response) override {
    absl::MutexLock lock(&mu_);
    *response = digests_[request->run()];
    grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
    reactor->Finish(grpc::Status::OK);
    return reactor;
  }

 private:
  absl::Mutex mu_;
  std::map<std::string, v1::RunDigest> digests_ ABSL_GUARDED_BY(mu_);
  int64_t version_ ABSL_GUARDED_BY(mu_) = 0;
};

// Regression for #42: whatever digest a store serves, the differ answers
// DATA_LOSS naming the store, the run and what is wrong, and goes on serving;
// an empty one crashed it (SIGSEGV), rows short of metrics were read out of
// bounds or as zeros.
TEST_F(DifferServerTest, DigestTheStoreServesThatCannotBeDiffedIsDataLoss) {
  Upload("A", {(test_support::TracesDir() / kResNetNw0).string()});
  v1::RunDigest good;
  {
    auto aggregator =
        v1::RunStore::NewStub(rpc::MakeChannel(aggregator_address_));
    grpc::ClientContext context;
    rpc::SetTimeout(context, absl::Seconds(60));
    v1::GetRunDigestRequest request;
    request.set_run("A");
    ASSERT_TRUE(aggregator->GetRunDigest(&context, request, &good).ok());
    ASSERT_GT(good.operators_size(), 0);
  }
  FixedDigestStore store;
  store.Set("A", good);
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(),
                           &port);
  builder.RegisterService(&store);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  ASSERT_TRUE(server != nullptr && port > 0);
  const std::string address = "127.0.0.1:" + std::to_string(port);
  StartDiffer(address, absl::Minutes(1));

  const auto bad = [&](const std::function<void(v1::RunDigest&)>& damage) {
    v1::RunDigest digest = good;
    digest.set_run("bad");
    damage(digest);
    return digest;
  };
  const std::vector<std::pair<v1::RunDigest, std::string>> cases = {
      {bad([](v1::RunDigest& d) {
         d = v1::RunDigest();
         d.set_run("bad");
       }),
       "it has no ranks (an empty or cut digest)"},
      {bad([](v1::RunDigest& d) {
         d.mutable_overview()->clear_step_metrics();
       }),
       "overview.step_metrics: expected 9 metrics, found 0"},
      {bad([](v1::RunDigest& d) {
         d.mutable_operators(0)->mutable_metrics()->DeleteSubrange(2, 3);
       }),
       "operators[0] \"" + good.operators(0).name() +
           "\": expected 5 metrics, found 2"},
      {bad([](v1::RunDigest& d) {
         v1::DigestCollectiveRow& row =
             *d.mutable_communication()->add_by_collective();
         row.set_collective("all_reduce");
         row.add_metrics();
       }),
       "communication.by_collective[0] \"all_reduce\": expected 5 metrics, "
       "found 1"},
      {bad([](v1::RunDigest& d) { d.set_slots(d.slots() + 1); }),
       "slots: expected " + std::to_string(good.slots())},
  };
  v1::DiffRequest request;
  request.set_baseline_run("A");
  request.set_experimental_run("bad");
  for (const auto& [digest, what] : cases) {
    SCOPED_TRACE(what);
    store.Set("bad", digest);
    v1::DiffReport report;
    const grpc::Status status = Diff(request, report);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::DATA_LOSS);
    EXPECT_THAT(status.error_message(),
                HasSubstr(base::StrCat("aggregator ", address,
                                       ": run \"bad\": digest cannot be "
                                       "diffed: ",
                                       what)));
  }
  // A whole digest of another run is not this run's.
  store.Set("bad", good);
  v1::DiffReport report;
  grpc::Status status = Diff(request, report);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::DATA_LOSS);
  EXPECT_THAT(status.error_message(),
              HasSubstr("asked for the digest of run bad, got run \"A\"'s"));
  // And the differ still serves.
  request.set_experimental_run("A");
  status = Diff(request, report);
  EXPECT_TRUE(status.ok()) << status.error_message();
  server->Shutdown();
}

// Regression for #42: the Differ service diffed a stored run in which two
// workers held rank 0 (the run stays OPEN with a warning), while `profdiff
// diff` refused the same folder. Both refuse it now, naming the rank and the
// two workers in the same words.
TEST_F(DifferServerTest, RankGivenTwiceIsRefusedOfflineAndByTheService) {
  // DLRM's 8 ranks with rank 1's trace replaced by a copy of rank 0's (links:
  // the traces are never copied).
  const fs::path folder = dir_ / "dup";
  fs::create_directories(folder);
  std::string worker0;
  for (const std::string& file : FilesIn(test_support::TracesDir() / kDlrm)) {
    const std::string name = fs::path(file).filename().string();
    if (name.starts_with("worker1_")) continue;
    fs::create_symlink(fs::absolute(file), folder / name);
    if (name.starts_with("worker0_")) {
      fs::create_symlink(fs::absolute(file), folder / ("copyof" + name));
      worker0 = name;
    }
  }
  ASSERT_FALSE(worker0.empty());
  // Worker names drop the timestamp and suffixes (trace/trace_file_name.h).
  const std::string problem =
      "these traces are not one run (rank 0 2 times: copyofworker0_step_12 "
      "(rank 0 of 8), worker0_step_12 (rank 0 of 8))";
  absl::StatusOr<std::string> offline =
      client::RunDiffCommand({folder.string(), folder.string()});
  EXPECT_EQ(offline.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(offline.status().message(), HasSubstr(problem));

  Upload("dup", FilesIn(folder));
  v1::DiffRequest request;
  request.set_baseline_run("dup");
  request.set_experimental_run("dup");
  for (const v1::CompareMode mode :
       {v1::COMPARE_MODE_UNSPECIFIED, v1::COMPARE_MODE_HTA}) {
    SCOPED_TRACE(v1::CompareMode_Name(mode));
    request.mutable_options()->set_compare(mode);
    v1::DiffReport report;
    const grpc::Status status = Diff(request, report);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
    EXPECT_THAT(status.error_message(), HasSubstr("run dup: " + problem));
  }
  absl::StatusOr<std::string> cli =
      client::RunDiffCommand({"dup", "dup", "--server", differ_address_});
  EXPECT_EQ(cli.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(cli.status().message(), HasSubstr("run dup: " + problem));
}

// `profdiff runs`: workers seen of the world size (a run missing ranks says
// so), closed ranks apart; the JSON has no empty worker list next to
// worker_count (ListRuns does not fill it).
TEST_F(DifferServerTest, RunsListingShowsWorkersSeenOfTheWorldSize) {
  Upload("partial", {FilesIn(test_support::TracesDir() / kDlrm).front()});
  absl::StatusOr<std::string> table =
      client::RunRunsCommand({"--server", differ_address_});
  ASSERT_TRUE(table.ok()) << table.status();
  EXPECT_THAT(*table,
              ::testing::ContainsRegex("run +state +workers +closed +events"));
  EXPECT_THAT(*table, ::testing::ContainsRegex("partial +[a-z]+ +1/8 +1 "));
  absl::StatusOr<std::string> json =
      client::RunRunsCommand({"--server", differ_address_, "--format", "json"});
  ASSERT_TRUE(json.ok()) << json.status();
  EXPECT_THAT(*json, HasSubstr("\"worker_count\": 1"));
  EXPECT_THAT(*json, HasSubstr("\"world_size\": 8"));
  EXPECT_THAT(*json, ::testing::Not(HasSubstr("\"workers\"")));
}

TEST_F(DifferServerTest, UnknownRunIsNotFoundNamingTheRun) {
  Upload("A", {(test_support::TracesDir() / kResNetNw0).string()});
  v1::DiffRequest request;
  request.set_baseline_run("A");
  request.set_experimental_run("no_such_run");
  v1::DiffReport report;
  const grpc::Status status = Diff(request, report);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_THAT(status.error_message(),
              HasSubstr("run no_such_run: no such run"));

  absl::StatusOr<std::string> cli =
      client::RunDiffCommand({"A", "no_such_run", "--server", differ_address_});
  EXPECT_EQ(cli.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(cli.status().message(), HasSubstr("server " + differ_address_));
}

TEST_F(DifferServerTest, BadRequestsAreInvalidArgumentNamingTheField) {
  Upload("A", {(test_support::TracesDir() / kResNetNw0).string()});
  v1::DiffRequest request;
  request.set_baseline_run("../etc");
  request.set_experimental_run("A");
  v1::DiffReport report;
  grpc::Status status = Diff(request, report);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("baseline_run"));

  request.set_baseline_run("A");
  request.set_operator_grouping(v1::GROUPING_NAME_AND_OP);  // a kernel grouping
  status = Diff(request, report);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("operator_grouping"));

  request.clear_operator_grouping();
  request.mutable_options()->set_sort("no_such_column");
  status = Diff(request, report);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("no_such_column"));
}

// A client's filter runs on the server: patterns that make a backtracking
// engine take exponential time or recurse once per byte must be answered at
// once, and bad ones refused.
TEST_F(DifferServerTest, HostileFilterPatternsAreAnsweredNotHungOn) {
  Upload("A", {(test_support::TracesDir() / kResNetNw0).string()});
  v1::DiffRequest request;
  request.set_baseline_run("A");
  request.set_experimental_run("A");
  const std::vector<std::string> answered = {
      "(a*)*b", "(a|aa)*c", "(.*)*$x", "^(([a-z])+.)+[A-Z]([a-z])+$",
      std::string(900, '(') + std::string(900, ')')};
  for (const std::string& pattern : answered) {
    request.mutable_options()->set_filter(pattern);
    v1::DiffReport report;
    const grpc::Status status = Diff(request, report);
    EXPECT_TRUE(status.ok())
        << pattern.substr(0, 20) << ": " << status.error_message();
  }
  const std::vector<std::string> refused = {"(", "a{2,1}",
                                            std::string(5000, 'a')};
  for (const std::string& pattern : refused) {
    request.mutable_options()->set_filter(pattern);
    v1::DiffReport report;
    const grpc::Status status = Diff(request, report);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT)
        << pattern.substr(0, 20);
    EXPECT_THAT(status.error_message(), HasSubstr("--filter"));
  }
}

TEST_F(DifferServerTest,
       RunStoreReadsThroughTheDifferAnswerWhatTheAggregatorAnswers) {
  Upload("A", {(test_support::TracesDir() / kResNetNw0).string()});
  Upload("B", {(test_support::TracesDir() / kResNetNw4).string()});
  for (const std::vector<std::string>& command :
       std::vector<std::vector<std::string>>{
           {"runs"}, {"show", "A"}, {"show", "B", "--group-by", "shape"}}) {
    auto run = [&](const std::string& server) {
      std::vector<std::string> args(command.begin() + 1, command.end());
      args.insert(args.end(), {"--server", server, "--format", "json"});
      absl::StatusOr<std::string> out = command[0] == "runs"
                                            ? client::RunRunsCommand(args)
                                            : client::RunShowCommand(args);
      EXPECT_TRUE(out.ok()) << out.status();
      return out.ok() ? *out : "";
    };
    const std::string via_differ = run(differ_address_);
    EXPECT_FALSE(via_differ.empty());
    EXPECT_EQ(via_differ, run(aggregator_address_)) << command[0];
  }
  // The export is several MiB: it streams through the differ in many pieces.
  const fs::path via_differ = dir_ / "via_differ.json";
  const fs::path via_aggregator = dir_ / "via_aggregator.json";
  ASSERT_TRUE(client::RunExportCommand({"A", "--worker", "0", "--server",
                                        differ_address_, "-o", via_differ})
                  .ok());
  ASSERT_TRUE(
      client::RunExportCommand({"A", "--worker", "0", "--server",
                                aggregator_address_, "-o", via_aggregator})
          .ok());
  EXPECT_GT(fs::file_size(via_differ), 4u << 20);
  const auto read = [](const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  EXPECT_TRUE(read(via_differ) == read(via_aggregator))
      << "the forwarded export differs";

  absl::StatusOr<std::string> missing =
      client::RunShowCommand({"no_such_run", "--server", differ_address_});
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(missing.status().message(),
              HasSubstr("aggregator " + aggregator_address_));
}

// A client that leaves an export midway (its reads stop, then it cancels)
// ends the forwarded stream on both sides, again and again, and the differ
// goes on answering: each piece is written out before the next is read, so
// neither side may be left holding the other's freed call.
TEST_F(DifferServerTest, ExportsLeftMidwayEndAndTheDifferGoesOn) {
  Upload("A", {(test_support::TracesDir() / kResNetNw0).string()});
  const auto stub = v1::RunStore::NewStub(rpc::MakeChannel(differ_address_));
  const v1::ExportTraceRequest request = ExportOfRank0("A");
  for (int attempt = 0; attempt < 20; ++attempt) {
    grpc::ClientContext context;
    auto reader = stub->ExportTrace(&context, request);
    v1::ExportTraceChunk chunk;
    for (int piece = 0; piece <= attempt % 4; ++piece)
      ASSERT_TRUE(reader->Read(&chunk)) << "attempt " << attempt;
    context.TryCancel();
    while (reader->Read(&chunk)) {
    }
    EXPECT_EQ(reader->Finish().error_code(), grpc::StatusCode::CANCELLED)
        << "attempt " << attempt;
  }
  absl::StatusOr<std::string> runs =
      client::RunRunsCommand({"--server", differ_address_, "--format", "json"});
  ASSERT_TRUE(runs.ok()) << runs.status();
  EXPECT_THAT(*runs, HasSubstr("\"A\""));
}

// A client that reads slowly holds each piece's write in flight while the
// aggregator has long sent its last piece and its status: the forwarded
// stream must wait for the write before it ends, and the export arrives whole.
TEST_F(DifferServerTest, ASlowReaderGetsTheWholeExport) {
  Upload("A", {(test_support::TracesDir() / kResNetNw0).string()});
  const v1::ExportTraceRequest request = ExportOfRank0("A");
  const auto read_all = [&](const std::string& address, absl::Duration pause) {
    const auto stub = v1::RunStore::NewStub(rpc::MakeChannel(address));
    grpc::ClientContext context;
    auto reader = stub->ExportTrace(&context, request);
    std::string json;
    v1::ExportTraceChunk chunk;
    while (reader->Read(&chunk)) {
      json += chunk.json();
      absl::SleepFor(pause);
    }
    const grpc::Status status = reader->Finish();
    EXPECT_TRUE(status.ok()) << status.error_message();
    return json;
  };
  const std::string whole = read_all(aggregator_address_, absl::ZeroDuration());
  EXPECT_GT(whole.size(), 4u << 20);
  for (int attempt = 0; attempt < 3; ++attempt)
    EXPECT_TRUE(read_all(differ_address_, absl::Milliseconds(20)) == whole)
        << "attempt " << attempt;
}

TEST_F(DifferServerTest, SecondServerOnABusyPortFailsToStart) {
  DifferOptions options;
  options.listen_address = differ_address_;
  options.store_address = aggregator_address_;
  absl::StatusOr<std::unique_ptr<DifferServer>> second =
      DifferServer::Start(options);
  EXPECT_FALSE(second.ok());
  EXPECT_THAT(second.status().message(), HasSubstr(differ_address_));
}

TEST_F(DifferServerTest, UnreachableServerIsUnavailableNamingTheAddress) {
  absl::StatusOr<std::string> out =
      client::RunDiffCommand({"A", "B", "--server", "127.0.0.1:1"});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(out.status().message(), HasSubstr("server 127.0.0.1:1"));
}

// An aggregator that accepts connections and never answers: every call still
// ends by its deadline (the differ's --store-timeout), naming the aggregator.
TEST_F(DifferServerTest, SilentAggregatorEndsCallsAtTheStoreTimeout) {
  base::ScopedFd listener(socket(AF_INET, SOCK_STREAM, 0));
  ASSERT_TRUE(listener.valid());
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(listener.get(), reinterpret_cast<sockaddr*>(&address),
                 sizeof(address)),
            0);
  ASSERT_EQ(listen(listener.get(), 16), 0);
  socklen_t length = sizeof(address);
  ASSERT_EQ(getsockname(listener.get(), reinterpret_cast<sockaddr*>(&address),
                        &length),
            0);
  const std::string silent =
      "127.0.0.1:" + std::to_string(ntohs(address.sin_port));
  StartDiffer(silent, absl::Seconds(1));

  v1::DiffRequest request;
  request.set_baseline_run("A");
  request.set_experimental_run("B");
  v1::DiffReport report;
  const absl::Time start = absl::Now();
  const grpc::Status status = Diff(request, report);
  EXPECT_LT(absl::Now() - start, absl::Seconds(20));
  EXPECT_THAT(status.error_code(),
              ::testing::AnyOf(grpc::StatusCode::DEADLINE_EXCEEDED,
                               grpc::StatusCode::UNAVAILABLE));
  EXPECT_THAT(status.error_message(), HasSubstr("aggregator " + silent));

  absl::StatusOr<std::string> runs =
      client::RunRunsCommand({"--server", differ_address_});
  EXPECT_THAT(runs.status().code(),
              ::testing::AnyOf(absl::StatusCode::kDeadlineExceeded,
                               absl::StatusCode::kUnavailable));
  EXPECT_THAT(runs.status().message(), HasSubstr("aggregator " + silent));
}

}  // namespace
}  // namespace profdiff::differ
