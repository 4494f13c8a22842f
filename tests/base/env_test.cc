// The Env contract (base/env.h), run against the POSIX Env on a test folder and
// against the in-memory Env the store tests use, so the two agree: same
// results, same error codes, same error texts.
#include "base/env.h"

#include <algorithm>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <absl/time/clock.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "base/atomic_file.h"
#include "tests/support/mem_env.h"
#include "tests/support/test_dir.h"

namespace profdiff::base {
namespace {

using ::testing::HasSubstr;
using ::testing::UnorderedElementsAre;

class EnvTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (GetParam() == "posix") {
      env_ = Env::Default();
      dir_ = test_support::FreshTestDir("env").string();
    } else {
      mem_ = std::make_unique<test_support::MemEnv>();
      env_ = mem_.get();
      dir_ = "/mem";
      ASSERT_TRUE(env_->CreateDir(dir_).ok());
    }
  }

  std::string Path(const std::string& name) const { return dir_ + "/" + name; }

  std::string Read(const std::string& path) {
    std::string bytes;
    const absl::Status status = env_->ReadFileInto(path, 1 << 20, bytes);
    EXPECT_TRUE(status.ok()) << status;
    return bytes;
  }

  std::unique_ptr<test_support::MemEnv> mem_;
  Env* env_ = nullptr;
  std::string dir_;
};

TEST_P(EnvTest, AppendsSyncAndReadBackAtOffsets) {
  absl::StatusOr<std::unique_ptr<WritableFile>> file =
      env_->NewAppendableFile(Path("log"));
  ASSERT_TRUE(file.ok()) << file.status();
  ASSERT_TRUE((*file)->Append("hello ").ok());
  ASSERT_TRUE((*file)->Append("world").ok());
  ASSERT_TRUE((*file)->Sync().ok());
  EXPECT_EQ((*file)->size_bytes(), 11u);
  absl::StatusOr<std::unique_ptr<RandomAccessFile>> reader =
      env_->NewRandomAccessFile(Path("log"));
  ASSERT_TRUE(reader.ok()) << reader.status();
  char bytes[16] = {};
  absl::StatusOr<size_t> got = (*reader)->Read(6, sizeof(bytes), bytes);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(std::string(bytes, *got), "world");  // 11 - 6 = 5 bytes left
  EXPECT_EQ(*(*reader)->Read(11, 4, bytes), 0u);
  // A second open appends after what is there.
  file = env_->NewAppendableFile(Path("log"));
  ASSERT_TRUE(file.ok());
  EXPECT_EQ((*file)->size_bytes(), 11u);
  ASSERT_TRUE((*file)->Truncate(5).ok());
  EXPECT_EQ(Read(Path("log")), "hello");
  EXPECT_EQ(*env_->FileSize(Path("log")), 5u);
}

TEST_P(EnvTest, NewWritableFileEmptiesAnExistingFile) {
  ASSERT_TRUE(WriteFileAtomically(*env_, Path("f"), "old content").ok());
  absl::StatusOr<std::unique_ptr<WritableFile>> file =
      env_->NewWritableFile(Path("f"));
  ASSERT_TRUE(file.ok());
  EXPECT_EQ((*file)->size_bytes(), 0u);
  EXPECT_EQ(Read(Path("f")), "");
}

TEST_P(EnvTest, AtomicWriteReplacesAndLeavesNoTempFile) {
  ASSERT_TRUE(WriteFileAtomically(*env_, Path("m.pb"), "one").ok());
  ASSERT_TRUE(WriteFileAtomically(*env_, Path("m.pb"), "two").ok());
  EXPECT_EQ(Read(Path("m.pb")), "two");
  absl::StatusOr<std::vector<DirEntry>> entries = env_->ListDir(dir_);
  ASSERT_TRUE(entries.ok());
  ASSERT_EQ(entries->size(), 1u);
  EXPECT_EQ(entries->front().name, "m.pb");
}

TEST_P(EnvTest, FoldersAreMadeListedAndRenamesReplace) {
  ASSERT_TRUE(CreateDirectoriesDurably(*env_, Path("a/b/c")).ok());
  EXPECT_TRUE(env_->IsDirectory(Path("a/b/c")));
  EXPECT_TRUE(env_->CreateDir(Path("a")).ok());  // there already: OK
  ASSERT_TRUE(WriteFileAtomically(*env_, Path("a/x"), "x").ok());
  ASSERT_TRUE(WriteFileAtomically(*env_, Path("a/y"), "y").ok());
  ASSERT_TRUE(env_->RenameFile(Path("a/x"), Path("a/y")).ok());
  EXPECT_EQ(Read(Path("a/y")), "x");
  EXPECT_FALSE(env_->FileExists(Path("a/x")));
  absl::StatusOr<std::vector<DirEntry>> entries = env_->ListDir(Path("a"));
  ASSERT_TRUE(entries.ok());
  std::vector<std::string> names;
  for (const DirEntry& entry : *entries)
    names.push_back(entry.name + (entry.is_directory ? "/" : ""));
  EXPECT_THAT(names, UnorderedElementsAre("b/", "y"));
  ASSERT_TRUE(env_->RemoveFile(Path("a/y")).ok());
  EXPECT_FALSE(env_->FileExists(Path("a/y")));
  ASSERT_TRUE(env_->SyncDir(Path("a")).ok());
}

TEST_P(EnvTest, ErrorsNameTheFileTheCallAndTheErrnoText) {
  std::string bytes;
  absl::Status read = env_->ReadFileInto(Path("missing"), 100, bytes);
  EXPECT_EQ(read.code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(read.message(),
            Path("missing") + ": open: No such file or directory");
  read = env_->ReadFileInto(dir_, 100, bytes);
  EXPECT_EQ(read.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(read.message(), dir_ + ": is a folder");
  ASSERT_TRUE(WriteFileAtomically(*env_, Path("big"), "0123456789").ok());
  read = env_->ReadFileInto(Path("big"), 4, bytes);
  EXPECT_EQ(read.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(read.message(),
            Path("big") + ": file is 10 bytes, over the limit of 4");

  const absl::Status removed = env_->RemoveFile(Path("missing"));
  EXPECT_EQ(removed.code(), absl::StatusCode::kNotFound);
  const absl::Status opened =
      env_->NewAppendableFile(Path("no/such/folder/f")).status();
  EXPECT_EQ(opened.code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(opened.message(),
            Path("no/such/folder/f") + ": open: No such file or directory");
  const absl::Status renamed = env_->RenameFile(Path("missing"), Path("other"));
  EXPECT_EQ(renamed.message(),
            Path("missing") + ": rename: No such file or directory");
  const absl::Status cut = env_->TruncateFile(Path("missing"), 3);
  EXPECT_EQ(
      cut.message(),
      Path("missing") + ": truncate to 3 bytes: No such file or directory");
  const absl::Status synced = env_->SyncDir(Path("missing"));
  EXPECT_EQ(synced.message(),
            Path("missing") + ": open folder: No such file or directory");
  EXPECT_FALSE(env_->ListDir(Path("missing")).ok());
}

TEST_P(EnvTest, ALockHasOneHolderAtATime) {
  absl::StatusOr<std::unique_ptr<FileLockHandle>> first =
      env_->LockFile(Path("LOCK"));
  ASSERT_TRUE(first.ok()) << first.status();
  absl::StatusOr<std::unique_ptr<FileLockHandle>> second =
      env_->LockFile(Path("LOCK"));
  EXPECT_EQ(second.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(second.status().message(),
              HasSubstr("LOCK: locked by another process (pid "));
  first->reset();
  EXPECT_TRUE(env_->LockFile(Path("LOCK")).ok());
}

INSTANTIATE_TEST_SUITE_P(Envs, EnvTest, ::testing::Values("posix", "memory"),
                         [](const auto& info) { return info.param; });

TEST(MemEnvTest, TheClockMovesOnlyWhenAdvanced) {
  test_support::MemEnv env;
  const absl::Time start = env.Now();
  EXPECT_EQ(start, test_support::MemEnv::kStart);
  env.clock().Advance(absl::Minutes(10));  // and only then
  EXPECT_EQ(env.Now() - start, absl::Minutes(10));
}

// A link whose target is gone (or a file removed while the folder is read)
// fails the stat behind is_directory; the listing must not take that errno
// for a readdir error and report a healthy folder unreadable.
TEST(PosixEnvTest, ListsAFolderHoldingADanglingLink) {
  const std::filesystem::path dir = test_support::FreshTestDir("env");
  Env* env = Env::Default();
  ASSERT_TRUE(WriteFileAtomically(*env, (dir / "file").string(), "x").ok());
  ASSERT_TRUE(env->CreateDir((dir / "folder").string()).ok());
  std::filesystem::create_symlink(dir / "gone", dir / "dangling");
  std::filesystem::create_directory_symlink(dir / "folder", dir / "to_folder");
  absl::StatusOr<std::vector<DirEntry>> entries = env->ListDir(dir.string());
  ASSERT_TRUE(entries.ok()) << entries.status();
  std::vector<std::string> names;
  for (const DirEntry& entry : *entries) {
    names.push_back(entry.name + (entry.is_directory ? "/" : "") +
                    (entry.is_symlink ? "@" : ""));
  }
  EXPECT_THAT(names, UnorderedElementsAre("file", "folder/", "dangling@",
                                          "to_folder/@"));
}

TEST(PosixEnvTest, TheClockIsTheWallClock) {
  for (Clock* clock : {static_cast<Clock*>(Env::Default()), Clock::Real()}) {
    const absl::Time before = absl::Now();
    const absl::Time now = clock->Now();
    EXPECT_GE(now, before);
    EXPECT_LE(now, absl::Now());
  }
}

}  // namespace
}  // namespace profdiff::base
