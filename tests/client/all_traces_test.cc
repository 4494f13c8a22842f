// Every trace under PROFDIFF_TRACES loads, and `profdiff show` prints every
// view for it.
#include <cstdlib>
#include <filesystem>
#include <string>
#include <utility>

#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include "analysis/worker_profile.h"
#include "client/show_command.h"
#include "tests/support/traces_dir.h"
#include "trace/kineto_reader.h"

namespace profdiff::client {
namespace {

namespace fs = std::filesystem;

// The profiles of `a` and of `b` (built on `b_threads` threads), by operator
// name and by name and shape, are one message field for field. Returns `a`'s
// by name.
v1::WorkerProfile ExpectSameProfiles(const trace::Trace& a,
                                     const trace::Trace& b, int b_threads) {
  v1::WorkerProfile by_name;
  for (const bool shapes : {false, true}) {
    analysis::ProfileOptions options;
    options.operator_grouping = shapes
                                    ? analysis::OperatorGrouping::kNameAndShape
                                    : analysis::OperatorGrouping::kName;
    v1::WorkerProfile of_a =
        analysis::BuildWorkerProfile(a, {"run", "w", 1}, options);
    options.threads = b_threads;
    const v1::WorkerProfile of_b =
        analysis::BuildWorkerProfile(b, {"run", "w", 1}, options);
    std::string difference;
    google::protobuf::util::MessageDifferencer differencer;
    differencer.ReportDifferencesToString(&difference);
    EXPECT_TRUE(differencer.Compare(of_a, of_b)) << difference.substr(0, 2000);
    if (!shapes) by_name = std::move(of_a);
  }
  return by_name;
}

TEST(AllTracesTest, EveryTraceShowsEveryView) {
  const fs::path root = profdiff::test_support::TracesDir();
  if (!fs::is_directory(root))
    GTEST_SKIP() << "no trace folder at " << root << " (set PROFDIFF_TRACES)";
  int files = 0;
  for (const fs::path& path : profdiff::test_support::RealTraceFiles()) {
    ++files;
    for (const char* format : {"table", "json"}) {
      absl::StatusOr<std::string> out =
          RunShowCommand({path.string(), "--view", "all", "--format", format});
      ASSERT_TRUE(out.ok()) << path << ": " << out.status();
      EXPECT_FALSE(out->empty());
    }
  }
  EXPECT_GE(files, 100) << "expected the shared corpus of real traces under "
                        << root;
}

// Threads change how fast a profile is built, never what it says: a file read
// in parts on two threads and profiled on two gives the message one thread
// gives, field for field.
TEST(AllTracesTest, EveryTraceProfilesTheSameOnOneThreadAndOnTwo) {
  const fs::path root = profdiff::test_support::TracesDir();
  if (!fs::is_directory(root))
    GTEST_SKIP() << "no trace folder at " << root << " (set PROFDIFF_TRACES)";
  trace::KinetoReader one;
  // Small parts, so that most of the corpus is cut.
  trace::KinetoReader two({}, {.threads = 2, .min_part_bytes = 64 << 10});
  int files = 0;
  for (const fs::path& path : profdiff::test_support::RealTraceFiles()) {
    SCOPED_TRACE(path.string());
    absl::StatusOr<trace::Trace> a = one.ReadFile(path.string());
    absl::StatusOr<trace::Trace> b = two.ReadFile(path.string());
    ASSERT_TRUE(a.ok() && b.ok());
    ExpectSameProfiles(*a, *b, 2);
    ++files;
  }
  EXPECT_GE(files, 100);
}

// The CLI reads traces without their plain Python frames
// (analysis/run_loader.cc): the profile of every trace read so is the one of
// the whole trace, field for field, with the same event count and the same
// implicit step (trace::FrameExtent). Both groupings, and on two threads while
// inflating.
TEST(AllTracesTest, EveryTraceProfilesTheSameWithoutItsPythonFrames) {
  const fs::path root = profdiff::test_support::TracesDir();
  if (!fs::is_directory(root))
    GTEST_SKIP() << "no trace folder at " << root << " (set PROFDIFF_TRACES)";
  trace::KinetoReader whole;
  trace::KinetoReader without({.keep_python_frames = false}, {.threads = 2});
  int with_frames = 0;
  int implicit_steps = 0;
  for (const fs::path& path : profdiff::test_support::RealTraceFiles()) {
    SCOPED_TRACE(path.string());
    absl::StatusOr<trace::Trace> a = whole.ReadFile(path.string());
    absl::StatusOr<trace::Trace> b = without.ReadFile(path.string());
    ASSERT_TRUE(a.ok() && b.ok());
    if (b->counters.python_frames_left_out == 0) continue;
    ++with_frames;
    const v1::WorkerProfile whole_profile = ExpectSameProfiles(*a, *b, 1);
    if (whole_profile.steps_size() == 1 && whole_profile.steps(0).step() == 0)
      ++implicit_steps;
  }
  EXPECT_GE(with_frames, 20) << "real traces with Python frames";
  // Where frames bound the one step of a trace with no ProfilerStep: without
  // the extent, the profiles of 35 of them change.
  EXPECT_GE(implicit_steps, 35) << "of them with an implicit step";
}

}  // namespace
}  // namespace profdiff::client
