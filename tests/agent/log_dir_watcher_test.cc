// The watcher on a real temp folder: a trace written in two halves is handed
// over once, when complete; files in folders made after the start are seen; a
// file that never parses fails.
#include "agent/log_dir_watcher.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <absl/synchronization/mutex.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/support/test_dir.h"
#include "tests/support/traces_dir.h"
#include "trace/kineto_reader.h"

namespace profdiff::agent {
namespace {

using ::testing::HasSubstr;

constexpr absl::Duration kTestSettle = absl::Milliseconds(20);
constexpr absl::Duration kAwaitLimit = absl::Seconds(30);
constexpr char kRealTrace[] =
    "param/dlrm_kineto/worker0_step_12.1694128201545.pt.trace.json.gz";

std::string TracePath(const char* relative) {
  return (test_support::TracesDir() / relative).string();
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in),
                     std::istreambuf_iterator<char>());
}

void WriteFile(const std::string& path, std::string_view bytes,
               std::ios::openmode mode) {
  std::ofstream out(path, std::ios::binary | mode);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// Records what the watcher reports; tests wait on it with
// Mutex::AwaitWithTimeout.
class Recorder {
 public:
  struct Ready {
    std::string path;
    FileVersion version;
    size_t events = 0;
  };

  LogDirWatcherCallbacks Callbacks() {
    return {
        .should_read =
            [this](const std::string& path, const FileVersion& version) {
              absl::MutexLock lock(&mu_);
              read_attempts_.push_back({path, version});
              return true;
            },
        .on_ready =
            [this](const std::stop_token&, ReadyTraceFile& file) {
              absl::MutexLock lock(&mu_);
              ready_.push_back(
                  {file.path, file.version, file.trace.events.size()});
            },
        .on_failed =
            [this](const std::string& path, const FileVersion&,
                   const absl::Status& error) {
              absl::MutexLock lock(&mu_);
              failed_.push_back({path, error});
            },
    };
  }

  // Waits until `path` was handed over; false after kAwaitLimit.
  bool AwaitReady(const std::string& path) {
    absl::MutexLock lock(&mu_);
    const auto seen = [this, &path] {
      mu_.AssertHeld();
      return std::any_of(ready_.begin(), ready_.end(),
                         [&](const Ready& r) { return r.path == path; });
    };
    return mu_.AwaitWithTimeout(absl::Condition(&seen), kAwaitLimit);
  }

  // Waits until the watcher was about to read `path` at `size_bytes`.
  bool AwaitReadAttempt(const std::string& path, int64_t size_bytes) {
    absl::MutexLock lock(&mu_);
    const auto seen = [this, &path, size_bytes] {
      mu_.AssertHeld();
      return std::any_of(
          read_attempts_.begin(), read_attempts_.end(), [&](const auto& a) {
            return a.first == path && a.second.size_bytes == size_bytes;
          });
    };
    return mu_.AwaitWithTimeout(absl::Condition(&seen), kAwaitLimit);
  }

  bool AwaitFailed(const std::string& path) {
    absl::MutexLock lock(&mu_);
    const auto seen = [this, &path] {
      mu_.AssertHeld();
      return std::any_of(failed_.begin(), failed_.end(),
                         [&](const auto& f) { return f.first == path; });
    };
    return mu_.AwaitWithTimeout(absl::Condition(&seen), kAwaitLimit);
  }

  std::vector<Ready> ReadyFor(const std::string& path) {
    absl::MutexLock lock(&mu_);
    std::vector<Ready> out;
    for (const Ready& r : ready_) {
      if (r.path == path) out.push_back(r);
    }
    return out;
  }

  std::vector<std::pair<std::string, absl::Status>> failed() {
    absl::MutexLock lock(&mu_);
    return failed_;
  }

 private:
  absl::Mutex mu_;
  std::vector<Ready> ready_ ABSL_GUARDED_BY(mu_);
  std::vector<std::pair<std::string, FileVersion>> read_attempts_
      ABSL_GUARDED_BY(mu_);
  std::vector<std::pair<std::string, absl::Status>> failed_
      ABSL_GUARDED_BY(mu_);
};

TEST(LogDirWatcherTest, FileWrittenInTwoHalvesIsReportedOnceWhenComplete) {
  const std::string source = TracePath(kRealTrace);
  if (!std::filesystem::exists(source))
    GTEST_SKIP() << "no trace at " << source << " (set PROFDIFF_TRACES)";
  const std::string bytes = ReadAll(source);
  absl::StatusOr<trace::Trace> expected =
      trace::KinetoReader().ReadFile(source);
  ASSERT_TRUE(expected.ok()) << expected.status();

  test_support::TempDir dir;
  Recorder recorder;
  absl::StatusOr<std::unique_ptr<LogDirWatcher>> watcher = LogDirWatcher::Start(
      dir.path(), {.settle = kTestSettle, .give_up_after = absl::Hours(1)},
      recorder.Callbacks());
  ASSERT_TRUE(watcher.ok()) << watcher.status();

  const std::string path = dir.Join("worker0.1694128201545.pt.trace.json.gz");
  const size_t half = bytes.size() / 2;
  WriteFile(path, std::string_view(bytes).substr(0, half), std::ios::trunc);
  // The first half settled and the watcher tried it (a truncated gzip does not
  // read).
  ASSERT_TRUE(recorder.AwaitReadAttempt(path, static_cast<int64_t>(half)));
  WriteFile(path, std::string_view(bytes).substr(half), std::ios::app);
  ASSERT_TRUE(recorder.AwaitReady(path));

  // Files are handed over oldest-complete first, so once a later file is
  // reported any duplicate of the first would have been too.
  const std::string marker = dir.Join("marker.1.pt.trace.json.gz");
  WriteFile(marker, bytes, std::ios::trunc);
  ASSERT_TRUE(recorder.AwaitReady(marker));
  (*watcher)->Stop();

  const std::vector<Recorder::Ready> reports = recorder.ReadyFor(path);
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_EQ(reports[0].version.size_bytes, static_cast<int64_t>(bytes.size()));
  EXPECT_EQ(reports[0].events, expected->events.size());
  EXPECT_TRUE(recorder.failed().empty());
}

TEST(LogDirWatcherTest, FileInSubFolderCreatedAfterStartIsSeen) {
  const std::string source = TracePath(kRealTrace);
  if (!std::filesystem::exists(source))
    GTEST_SKIP() << "no trace at " << source << " (set PROFDIFF_TRACES)";
  const std::string bytes = ReadAll(source);

  test_support::TempDir dir;
  Recorder recorder;
  absl::StatusOr<std::unique_ptr<LogDirWatcher>> watcher = LogDirWatcher::Start(
      dir.path(), {.settle = kTestSettle}, recorder.Callbacks());
  ASSERT_TRUE(watcher.ok()) << watcher.status();

  std::filesystem::create_directory(dir.Join("run2"));
  const std::string path =
      dir.Join("run2/worker1.1694128201556.pt.trace.json.gz");
  WriteFile(path, bytes, std::ios::trunc);
  // Several levels made at once: each new folder is watched and scanned as it
  // appears.
  std::filesystem::create_directories(dir.Join("run3/node0/rank1"));
  const std::string deep =
      dir.Join("run3/node0/rank1/worker1.1694128201556.pt.trace.json.gz");
  WriteFile(deep, bytes, std::ios::trunc);

  EXPECT_TRUE(recorder.AwaitReady(path));
  EXPECT_TRUE(recorder.AwaitReady(deep));
}

TEST(LogDirWatcherTest, FileThatNeverParsesFailsAfterGiveUp) {
  test_support::TempDir dir;
  Recorder recorder;
  absl::StatusOr<std::unique_ptr<LogDirWatcher>> watcher = LogDirWatcher::Start(
      dir.path(),
      {.settle = kTestSettle, .give_up_after = absl::Milliseconds(100)},
      recorder.Callbacks());
  ASSERT_TRUE(watcher.ok()) << watcher.status();
  const std::string path = dir.Join("broken.pt.trace.json");
  WriteFile(path, R"({"traceEvents": [{"ph": "X", "name": )", std::ios::trunc);

  ASSERT_TRUE(recorder.AwaitFailed(path));
  (*watcher)->Stop();
  const auto failed = recorder.failed();
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_FALSE(failed[0].second.ok());
  EXPECT_THAT(failed[0].second.message(), HasSubstr(path));
  EXPECT_TRUE(recorder.ReadyFor(path).empty());
}

TEST(LogDirWatcherTest, ExistingFilesAreFoundByTheInitialScan) {
  const std::string source = TracePath(kRealTrace);
  if (!std::filesystem::exists(source))
    GTEST_SKIP() << "no trace at " << source << " (set PROFDIFF_TRACES)";
  test_support::TempDir dir;
  std::filesystem::create_directory(dir.Join("run1"));
  const std::string path =
      dir.Join("run1/worker0.1694128201545.pt.trace.json.gz");
  WriteFile(path, ReadAll(source), std::ios::trunc);
  WriteFile(dir.Join("run1/notes.txt"), "not a trace", std::ios::trunc);

  Recorder recorder;
  absl::StatusOr<std::unique_ptr<LogDirWatcher>> watcher = LogDirWatcher::Start(
      dir.path(), {.settle = kTestSettle}, recorder.Callbacks());
  ASSERT_TRUE(watcher.ok()) << watcher.status();
  EXPECT_TRUE(recorder.AwaitReady(path));
}

}  // namespace
}  // namespace profdiff::agent
