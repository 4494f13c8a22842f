// Run, span, worker name and rank of a trace file: each precedence rule and
// each refusal.
#include "agent/span_identity.h"

#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "base/id_rules.h"

namespace profdiff::agent {
namespace {

using ::testing::HasSubstr;

constexpr char kLogDir[] = "/data/tb";
constexpr char kFileInRun[] =
    "/data/tb/run7/worker0.1694128201545.pt.trace.json.gz";
constexpr char kFingerprint[] = "0123456789abcdef";

SpanIdentity MustResolve(std::string_view logdir, std::string_view path,
                         const IdentitySources& sources) {
  absl::StatusOr<SpanIdentity> identity =
      ResolveSpanIdentity(logdir, path, sources, kFingerprint);
  EXPECT_TRUE(identity.ok()) << identity.status();
  return identity.ok() ? *identity : SpanIdentity{};
}

TEST(SpanIdentityTest, RunFlagWinsOverEnvironmentAndFolder) {
  const SpanIdentity id = MustResolve(
      kLogDir, kFileInRun,
      {.run_flag = "flag-run", .torchelastic_run_id = "elastic-run"});
  EXPECT_EQ(id.run, "flag-run");
}

TEST(SpanIdentityTest, TorchelasticRunIdWinsOverFolder) {
  const SpanIdentity id =
      MustResolve(kLogDir, kFileInRun, {.torchelastic_run_id = "elastic-run"});
  EXPECT_EQ(id.run, "elastic-run");
}

TEST(SpanIdentityTest, ACapturesFolderWinsOverFlagEnvironmentAndFolder) {
  const SpanIdentity id = MustResolve(
      "/data/tb",
      "/data/tb/profdiff-captures/j-capture-1/j-capture-1_42.pt.trace.json",
      {.run_flag = "flag-run", .torchelastic_run_id = "elastic-run"});
  EXPECT_EQ(id.run, "j-capture-1");
  // A file right in the capture folder is not a capture's.
  EXPECT_EQ(
      MustResolve("/data/tb", "/data/tb/profdiff-captures/w.pt.trace.json", {})
          .run,
      "profdiff-captures");
}

TEST(SpanIdentityTest, SubFolderOfLogDirIsTheRun) {
  EXPECT_EQ(MustResolve(kLogDir, kFileInRun, {}).run, "run7");
  // Deeper files belong to the first folder below DIR; a trailing '/' on DIR
  // changes nothing.
  EXPECT_EQ(
      MustResolve("/data/tb/", "/data/tb/run7/node1/w.pt.trace.json", {}).run,
      "run7");
}

TEST(SpanIdentityTest, FileDirectlyInLogDirTakesTheLogDirName) {
  EXPECT_EQ(MustResolve(kLogDir, "/data/tb/worker0.1.pt.trace.json", {}).run,
            "tb");
  EXPECT_EQ(
      MustResolve("/data/tb/", "/data/tb/worker0.1.pt.trace.json", {}).run,
      "tb");
}

TEST(SpanIdentityTest, WithoutLogDirTheFileFolderIsTheRun) {
  EXPECT_EQ(MustResolve("", "/data/tb/run9/worker0.1.pt.trace.json", {}).run,
            "run9");
}

TEST(SpanIdentityTest, InvalidRunIdIsInvalidArgumentNamingFileAndRule) {
  const std::string path = "/data/tb/my run/worker0.1.pt.trace.json";
  const absl::StatusOr<SpanIdentity> id =
      ResolveSpanIdentity(kLogDir, path, {}, kFingerprint);
  ASSERT_EQ(id.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(id.status().message(), HasSubstr(path));
  EXPECT_THAT(id.status().message(), HasSubstr("[A-Za-z0-9._-]{1,128}"));
  EXPECT_THAT(id.status().message(), HasSubstr("\"my run\""));
}

TEST(SpanIdentityTest, RunIdOf129CharactersIsInvalid) {
  const absl::StatusOr<SpanIdentity> id = ResolveSpanIdentity(
      kLogDir, kFileInRun, {.run_flag = std::string(129, 'a')}, kFingerprint);
  EXPECT_EQ(id.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(ResolveSpanIdentity(kLogDir, kFileInRun,
                                  {.run_flag = std::string(128, 'a')},
                                  kFingerprint)
                  .ok());
}

TEST(SpanIdentityTest, SpanIdIsTheSanitisedFileNameAndFingerprint) {
  EXPECT_EQ(MustResolve(kLogDir, kFileInRun, {}).span,
            "worker0.1694128201545.pt.trace.json.gz-0123456789ab");
  // é is 2 bytes
  EXPECT_EQ(MustResolve(kLogDir, "/data/tb/r/w 0+é.json", {}).span,
            "w_0___.json-0123456789ab");
}

TEST(SpanIdentityTest, LongSpanIdsKeepTheirHeadAndEndInDistinctHashes) {
  const std::string a = std::string(200, 'x') + "a.json";
  const std::string b = std::string(200, 'x') + "b.json";
  const std::string id_a = SpanIdOf(a, kFingerprint);
  const std::string id_b = SpanIdOf(b, kFingerprint);
  // 111 characters of the name, '-', 16 hex digits = 128.
  ASSERT_EQ(id_a.size(), 128u);
  ASSERT_EQ(id_b.size(), 128u);
  EXPECT_EQ(id_a.substr(0, 112), std::string(111, 'x') + "-");
  EXPECT_NE(id_a, id_b);
  EXPECT_TRUE(base::IsValidId(id_a));
}

TEST(SpanIdentityTest, OtherContentUnderOneNameIsAnotherSpan) {
  EXPECT_EQ(SpanIdOf("w0.json", "00000000000000aa"), "w0.json-000000000000");
  EXPECT_NE(SpanIdOf("w0.json", "0000000000000001"),
            SpanIdOf("w0.json", "1000000000000000"));
  // The same content under a long name is the same span, other content another.
  const std::string name = std::string(200, 'x') + ".json";
  EXPECT_EQ(SpanIdOf(name, "1000000000000000"),
            SpanIdOf(name, "1000000000000000"));
  EXPECT_NE(SpanIdOf(name, "1000000000000000"),
            SpanIdOf(name, "2000000000000000"));
}

TEST(SpanIdentityTest, WorkerNameComesFromTheFileName) {
  EXPECT_EQ(MustResolve(kLogDir, kFileInRun, {}).worker_name, "worker0");
  EXPECT_EQ(MustResolve(kLogDir, "/data/tb/r/host:1.json", {}).worker_name,
            "host_1");
}

TEST(SpanIdentityTest, RankFromDistributedInfoWinsOverEnvironment) {
  v1::WorkerInfo worker;
  worker.set_distributed_info_present(true);
  worker.set_rank(3);
  EXPECT_EQ(ResolveRank(worker, "5", "worker7").value_or(-1), 3);
}

TEST(SpanIdentityTest, RankFromEnvironmentWithoutDistributedInfo) {
  v1::WorkerInfo worker;
  worker.set_rank(3);  // not from distributedInfo: ignored
  EXPECT_EQ(ResolveRank(worker, "5", "worker7").value_or(-1), 5);
}

TEST(SpanIdentityTest, RankFromTheNumberAfterRankOrWorkerInTheWorkerName) {
  EXPECT_EQ(ResolveRank(v1::WorkerInfo(), "", "worker12_step_3").value_or(-1),
            12);
  EXPECT_EQ(ResolveRank(v1::WorkerInfo(), "", "node1_rank12").value_or(-1), 12);
  EXPECT_EQ(ResolveRank(v1::WorkerInfo(), "", "Rank-4").value_or(-1), 4);
  // Kineto's default "<hostname>_<pid>": digits that are no rank.
  EXPECT_EQ(ResolveRank(v1::WorkerInfo(), "", "dc3b0e7228dd_851").value_or(-1),
            0);
}

TEST(SpanIdentityTest, RankDefaultsToZero) {
  EXPECT_EQ(ResolveRank(v1::WorkerInfo(), "", "trainer").value_or(-1), 0);
}

TEST(SpanIdentityTest, MalformedRankEnvironmentIsInvalidArgument) {
  EXPECT_EQ(ResolveRank(v1::WorkerInfo(), "x1", "worker1").status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ResolveRank(v1::WorkerInfo(), "-1", "worker1").status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace profdiff::agent
