#include "agent/capture_folder.h"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/support/test_dir.h"

namespace profdiff::agent {
namespace {

using ::testing::HasSubstr;
using ::testing::MatchesRegex;

constexpr uid_t kNobody = 65534;

mode_t ModeOf(const std::string& path) {
  struct stat info;
  return ::lstat(path.c_str(), &info) == 0 ? (info.st_mode & 07777) : 0;
}

TEST(CaptureFolderTest, AProcessOfTheAgentsUserGetsAPrivateFolder) {
  test_support::TempDir logs;
  const absl::StatusOr<std::string> folder = MakeProcessCaptureFolder(
      logs.path(), "run1", {.host_pid = 4242, .pid = 7, .uid = ::geteuid()});
  ASSERT_TRUE(folder.ok()) << folder.status();
  EXPECT_THAT(
      *folder,
      MatchesRegex(logs.path() + "/profdiff-captures/run1/4242-[0-9a-f]{16}"));
  EXPECT_EQ(ModeOf(*folder), 0700u);
  // Regression for #42: no shared parent is writable by others.
  EXPECT_EQ(ModeOf(logs.Join("profdiff-captures")), 0711u);
  EXPECT_EQ(ModeOf(logs.Join("profdiff-captures/run1")), 0711u);
  // Another arming of the same process gets another folder.
  EXPECT_NE(*MakeProcessCaptureFolder(logs.path(), "run1",
                                      {.host_pid = 4242, .uid = ::geteuid()}),
            *folder);
}

TEST(CaptureFolderTest, AnotherUsersProcessGetsAFolderOnlyItCanWriteIn) {
  test_support::TempDir logs;
  const uid_t other = ::geteuid() == kNobody ? 1 : kNobody;
  const absl::StatusOr<std::string> folder = MakeProcessCaptureFolder(
      logs.path(), "run1", {.host_pid = 4242, .uid = other});
  ASSERT_TRUE(folder.ok()) << folder.status();
  // Others may create their file; nobody may list it or replace another's.
  EXPECT_EQ(ModeOf(*folder), 01733u);
}

TEST(CaptureFolderTest, AnOlderAgentsWorldWritableFolderIsTakenBack) {
  test_support::TempDir logs;
  std::filesystem::create_directories(logs.Join("profdiff-captures/run1"));
  ASSERT_EQ(::chmod(logs.Join("profdiff-captures").c_str(), 01777), 0);
  ASSERT_EQ(::chmod(logs.Join("profdiff-captures/run1").c_str(), 01777), 0);
  ASSERT_TRUE(MakeProcessCaptureFolder(logs.path(), "run1",
                                       {.host_pid = 1, .uid = ::geteuid()})
                  .ok());
  EXPECT_EQ(ModeOf(logs.Join("profdiff-captures")), 0711u);
  EXPECT_EQ(ModeOf(logs.Join("profdiff-captures/run1")), 0711u);
}

// Regression for #42: a trainer that can write to the log dir made the
// captures folder first (here: a link to its own folder).
TEST(CaptureFolderTest, ACapturesFolderTheAgentDoesNotOwnIsRefused) {
  test_support::TempDir logs;
  test_support::TempDir elsewhere;
  ASSERT_EQ(::symlink(elsewhere.path().c_str(),
                      logs.Join("profdiff-captures").c_str()),
            0);
  const absl::Status refused =
      MakeProcessCaptureFolder(logs.path(), "run1",
                               {.host_pid = 1, .uid = ::geteuid()})
          .status();
  EXPECT_EQ(refused.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(refused.message(), HasSubstr("is not a folder"));
  if (::geteuid() != 0) return;
  // Another user's real folder.
  test_support::TempDir other;
  std::filesystem::create_directories(other.Join("profdiff-captures"));
  ASSERT_EQ(::chown(other.Join("profdiff-captures").c_str(), kNobody, kNobody),
            0);
  EXPECT_THAT(
      MakeProcessCaptureFolder(other.path(), "run1", {.host_pid = 1, .uid = 0})
          .status()
          .message(),
      HasSubstr("owned by uid 65534, not by the agent"));
}

}  // namespace
}  // namespace profdiff::agent
