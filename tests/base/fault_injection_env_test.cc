// The fault-injecting Env (tests/support/fault_injection_env.h) keeps what a
// real disk keeps after a power cut, and fails calls as a full disk does: the
// store crash tests are only as good as this.
#include "tests/support/fault_injection_env.h"

#include <cerrno>
#include <memory>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "base/atomic_file.h"
#include "tests/support/mem_env.h"

namespace profdiff::test_support {
namespace {

class FaultInjectionEnvTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(env_.CreateDir("/d").ok()); }

  std::string Read(const std::string& path) {
    std::string bytes;
    const absl::Status status = mem_.ReadFileInto(path, 1 << 20, bytes);
    return status.ok() ? bytes : "<" + std::string(status.message()) + ">";
  }

  std::unique_ptr<base::WritableFile> Append(const std::string& path,
                                             const std::string& bytes) {
    absl::StatusOr<std::unique_ptr<base::WritableFile>> file =
        env_.NewAppendableFile(path);
    EXPECT_TRUE(file.ok()) << file.status();
    EXPECT_TRUE((*file)->Append(bytes).ok());
    return *std::move(file);
  }

  MemEnv mem_;
  FaultInjectionEnv env_{&mem_};
};

TEST_F(FaultInjectionEnvTest, ACrashKeepsSyncedBytesAndDropsTheRest) {
  std::unique_ptr<base::WritableFile> file = Append("/d/log", "synced|");
  ASSERT_TRUE(file->Sync().ok());
  ASSERT_TRUE(env_.SyncDir("/d").ok());
  ASSERT_TRUE(file->Append("lost").ok());
  file.reset();
  ASSERT_TRUE(env_.Crash().ok());
  EXPECT_EQ(Read("/d/log"), "synced|");
}

TEST_F(FaultInjectionEnvTest, AFileWhoseFolderWasNotSyncedIsGone) {
  std::unique_ptr<base::WritableFile> file = Append("/d/new", "bytes");
  ASSERT_TRUE(file->Sync().ok());  // its bytes, but not its name
  file.reset();
  ASSERT_TRUE(env_.Crash().ok());
  EXPECT_FALSE(mem_.FileExists("/d/new"));
}

TEST_F(FaultInjectionEnvTest, AnAtomicWriteIsAllOrNothingAtEverySyncPoint) {
  ASSERT_TRUE(base::WriteFileAtomically(env_, "/d/m.pb", "old").ok());
  // Two syncs in a write: the temp file's, then the folder's after the rename.
  for (int syncs = 0; syncs <= 2; ++syncs) {
    env_.StopAfterSyncs(syncs);
    const absl::Status written =
        base::WriteFileAtomically(env_, "/d/m.pb", "new");
    EXPECT_EQ(written.ok(), syncs == 2) << written;
    ASSERT_TRUE(env_.Crash().ok());
    EXPECT_EQ(Read("/d/m.pb"), syncs == 2 ? "new" : "old") << syncs;
    absl::StatusOr<std::vector<base::DirEntry>> entries = mem_.ListDir("/d");
    ASSERT_TRUE(entries.ok());
    EXPECT_EQ(entries->size(), 1u) << "a temp file came back: " << syncs;
    ASSERT_TRUE(base::WriteFileAtomically(env_, "/d/m.pb", "old").ok());
  }
}

TEST_F(FaultInjectionEnvTest, AnUnsyncedRemovalIsUndone) {
  ASSERT_TRUE(base::WriteFileAtomically(env_, "/d/keep", "kept").ok());
  ASSERT_TRUE(env_.RemoveFile("/d/keep").ok());
  ASSERT_TRUE(env_.Crash().ok());
  EXPECT_EQ(Read("/d/keep"), "kept");
}

TEST_F(FaultInjectionEnvTest, StoppedAfterItsSyncsNothingMoreIsWritten) {
  std::unique_ptr<base::WritableFile> file = Append("/d/log", "a");
  env_.StopAfterSyncs(1);
  ASSERT_TRUE(file->Sync().ok());
  const absl::Status second = file->Sync();
  EXPECT_EQ(second.message(), "/d/log: fdatasync: Input/output error");
  EXPECT_TRUE(env_.stopped());
  EXPECT_FALSE(file->Append("b").ok());
  EXPECT_FALSE(env_.RenameFile("/d/log", "/d/other").ok());
  file.reset();
  ASSERT_TRUE(env_.Crash().ok());
  EXPECT_FALSE(env_.stopped());
  EXPECT_EQ(env_.syncs(), 0);
}

TEST_F(FaultInjectionEnvTest, AFullDiskFailsWritesAndSyncsWithTheKernelsWords) {
  std::unique_ptr<base::WritableFile> file = Append("/d/log", "before|");
  env_.SetDiskFull(true);
  const absl::Status write = file->Append("refused");
  EXPECT_EQ(write.code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(write.message(), "/d/log: write: No space left on device");
  EXPECT_EQ(file->Sync().message(),
            "/d/log: fdatasync: No space left on device");
  const absl::Status atomic = base::WriteFileAtomically(env_, "/d/m.pb", "x");
  EXPECT_THAT(std::string(atomic.message()),
              ::testing::MatchesRegex(
                  "/d/m.pb.tmp.[0-9]+.[0-9]+: write: No space left on device"));
  EXPECT_FALSE(mem_.FileExists("/d/m.pb"));
  env_.SetDiskFull(false);
  ASSERT_TRUE(file->Append("after").ok());
  EXPECT_EQ(Read("/d/log"), "before|after");
}

TEST_F(FaultInjectionEnvTest, InjectedErrorsHitOnlyTheirKind) {
  ASSERT_TRUE(base::WriteFileAtomically(env_, "/d/a", "a").ok());
  env_.Fail(FaultKind::kRename, EXDEV);
  const absl::Status renamed = env_.RenameFile("/d/a", "/d/b");
  EXPECT_EQ(renamed.message(), "/d/a: rename: Invalid cross-device link");
  EXPECT_TRUE(Append("/d/c", "c")->Sync().ok());
  env_.ClearFaults();
  EXPECT_TRUE(env_.RenameFile("/d/a", "/d/b").ok());
}

}  // namespace
}  // namespace profdiff::test_support
