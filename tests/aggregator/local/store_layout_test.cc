#include "aggregator/local/store_layout.h"

#include <filesystem>
#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "aggregator/store/worker_selector.h"
#include "base/env.h"
#include "tests/support/test_dir.h"

namespace profdiff::aggregator {
namespace {

namespace fs = std::filesystem;

using ::testing::ElementsAre;
using ::testing::IsEmpty;

void Touch(const fs::path& path) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << "x";
}

TEST(StoreLayoutTest, NamesTheTreeOfARun) {
  EXPECT_EQ(LockPath("/data"), "/data/LOCK");
  EXPECT_EQ(RunsDir("/data"), "/data/runs");
  const std::string run = RunDir("/data", "r1");
  EXPECT_EQ(run, "/data/runs/r1");
  EXPECT_EQ(RunManifestPath(run), "/data/runs/r1/run.pb");
  EXPECT_EQ(WorkersDir(run), "/data/runs/r1/workers");
  EXPECT_EQ(DigestsDir(run), "/data/runs/r1/digests");
  const std::string worker = WorkerDir(run, WorkerKey(3, "trainer"));
  EXPECT_EQ(worker, "/data/runs/r1/workers/3.trainer");
  EXPECT_EQ(ProfilePath(worker, 7), worker + "/profile-7.pb");
  EXPECT_EQ(SpansDir(worker), worker + "/spans");
  const std::string span = SpanDir(worker, "s9");
  EXPECT_EQ(span, worker + "/spans/s9");
  EXPECT_EQ(SpanManifestPath(span), span + "/span.pb");
  EXPECT_EQ(QuarantineDir(span), span + "/quarantine");
}

TEST(StoreLayoutTest, SegmentNamesRoundTrip) {
  const std::string segment = SegmentPath("/s", 12);
  EXPECT_EQ(segment, "/s/seg-000012.log");
  EXPECT_EQ(FileName(segment), "seg-000012.log");
  EXPECT_EQ(FileName("seg-000012.log"), "seg-000012.log");
  EXPECT_TRUE(IsSegmentName(FileName(segment)));
  EXPECT_FALSE(IsSegmentName("span.pb"));
  EXPECT_FALSE(IsSegmentName("seg-000001.log.tmp.1.0"));
  EXPECT_EQ(SegmentNumber(segment), 12);
  EXPECT_EQ(SegmentNumber("/s/seg-x.log"), 0);
  EXPECT_EQ(QuarantinedSegmentPath("/s", segment),
            "/s/quarantine/seg-000012.log");
  EXPECT_EQ(QuarantinedRangePath("/s", segment, 4096),
            "/s/quarantine/seg-000012.log.4096.bad");
}

TEST(StoreLayoutTest, DigestFilesShareTheirKeysStem) {
  const std::string v1 = DigestPath("/r", "ranks=0,1", "v1");
  const std::string v2 = DigestPath("/r", "ranks=0,1", "v2/b");
  const std::string stem = DigestFileStem("ranks=0,1");
  EXPECT_EQ(v1, "/r/digests/" + stem + "v1.pb");
  // A '/' in the version must not make a folder.
  EXPECT_EQ(v2, "/r/digests/" + stem + "v2-b.pb");
  EXPECT_NE(DigestFileStem("ranks=0"), stem);
  EXPECT_EQ(stem.find('/'), std::string::npos);
}

TEST(StoreLayoutTest, WorkerOfFolderParsesRankAndName) {
  const v1::WorkerInfo worker = WorkerOfFolder(WorkerKey(3, "trainer"));
  EXPECT_EQ(worker.rank(), 3);
  EXPECT_EQ(worker.world_size(), 4);
  EXPECT_EQ(worker.worker_name(), "trainer");
  // Only the first dot splits: names may hold dots.
  EXPECT_EQ(WorkerOfFolder("0.host.gpu0").worker_name(), "host.gpu0");
  // A rank that does not parse, or is negative, is 0.
  const v1::WorkerInfo odd = WorkerOfFolder("x.trainer");
  EXPECT_EQ(odd.rank(), 0);
  EXPECT_EQ(odd.world_size(), 1);
  EXPECT_EQ(odd.worker_name(), "trainer");
  EXPECT_EQ(WorkerOfFolder("-2.trainer").rank(), 0);
  EXPECT_EQ(WorkerOfFolder("nodot").worker_name(), "nodot");
}

TEST(StoreLayoutTest, ProfileGenerationsListsOnlyProfileFiles) {
  const fs::path dir = test_support::FreshTestDir("layout");
  for (const char* name :
       {"profile-10.pb", "profile-2.pb", "profile-1.pb", "profile-.pb",
        "profile-x.pb", "profile-3.pb.tmp.77.0", "profile-4.json", "other.pb",
        "profile-1234567890123456789.pb"}) {
    Touch(dir / name);
  }
  EXPECT_THAT(ProfileGenerations(*base::Env::Default(), dir.string()),
              ElementsAre(1, 2, 10));
  EXPECT_EQ(ProfilePath(dir.string(), 10), (dir / "profile-10.pb").string());
  EXPECT_THAT(
      ProfileGenerations(*base::Env::Default(), (dir / "missing").string()),
      IsEmpty());
}

TEST(StoreLayoutTest, SubFoldersListsFoldersSorted) {
  const fs::path dir = test_support::FreshTestDir("layout");
  fs::create_directories(dir / "b");
  fs::create_directories(dir / "a" / "inner");
  Touch(dir / "c");
  EXPECT_THAT(SubFolders(*base::Env::Default(), dir.string()),
              ElementsAre("a", "b"));
  EXPECT_THAT(SubFolders(*base::Env::Default(), (dir / "missing").string()),
              IsEmpty());
}

TEST(StoreLayoutTest, RemoveTempFilesRemovesOnlyTempFilesAtAnyDepth) {
  const std::string data = test_support::FreshTestDir("layout").string();
  const fs::path runs = RunsDir(data);
  const fs::path span =
      SpanDir(WorkerDir(RunDir(data, "r"), WorkerKey(0, "w")), "s");
  Touch(runs / "r" / "run.pb");
  Touch(runs / "r" / "run.pb.tmp.123.0");
  Touch(span / "span.pb");
  Touch(span / "span.pb.tmp.123.1");
  Touch(span / "quarantine" / "seg-000000.log.0.bad.tmp.9.4");
  EXPECT_EQ(RemoveTempFiles(*base::Env::Default(), runs.string()), 3);
  EXPECT_TRUE(fs::exists(runs / "r" / "run.pb"));
  EXPECT_TRUE(fs::exists(span / "span.pb"));
  EXPECT_FALSE(fs::exists(runs / "r" / "run.pb.tmp.123.0"));
  EXPECT_FALSE(fs::exists(span / "span.pb.tmp.123.1"));
  EXPECT_FALSE(
      fs::exists(span / "quarantine" / "seg-000000.log.0.bad.tmp.9.4"));
  EXPECT_EQ(RemoveTempFiles(*base::Env::Default(), runs.string()), 0);
}

// A link inside the store (to a folder or a file) is not the store's: what it
// points to stays, wherever it is.
TEST(StoreLayoutTest, RemoveTempFilesDoesNotFollowLinks) {
  const fs::path dir = test_support::FreshTestDir("layout");
  const fs::path runs = RunsDir((dir / "data").string());
  const fs::path outside = dir / "outside";
  Touch(outside / "x.tmp.1");
  Touch(outside / "y.tmp.2");
  Touch(runs / "r" / "run.pb.tmp.1.0");
  fs::create_directory_symlink(outside, runs / "r" / "linked");
  fs::create_symlink(outside / "y.tmp.2", runs / "r" / "y.tmp.2");
  EXPECT_EQ(RemoveTempFiles(*base::Env::Default(), runs.string()), 1);
  EXPECT_FALSE(fs::exists(runs / "r" / "run.pb.tmp.1.0"));
  EXPECT_TRUE(fs::exists(outside / "x.tmp.1"));
  EXPECT_TRUE(fs::exists(outside / "y.tmp.2"));
}

}  // namespace
}  // namespace profdiff::aggregator
