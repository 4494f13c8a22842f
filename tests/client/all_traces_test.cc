// Every trace under PROFDIFF_TRACES loads, and `profdiff show` prints every
// view for it.
#include <cstdlib>
#include <filesystem>

#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include "analysis/worker_profile.h"
#include "client/show_command.h"
#include "tests/support/traces_dir.h"
#include "trace/kineto_reader.h"

namespace profdiff::client {
namespace {

namespace fs = std::filesystem;

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
    for (const bool shapes : {false, true}) {
      analysis::ProfileOptions options;
      options.operator_grouping =
          shapes ? analysis::OperatorGrouping::kNameAndShape
                 : analysis::OperatorGrouping::kName;
      const v1::WorkerProfile single =
          analysis::BuildWorkerProfile(*a, {"run", "w", 1}, options);
      options.threads = 2;
      const v1::WorkerProfile threaded =
          analysis::BuildWorkerProfile(*b, {"run", "w", 1}, options);
      std::string difference;
      google::protobuf::util::MessageDifferencer differencer;
      differencer.ReportDifferencesToString(&difference);
      EXPECT_TRUE(differencer.Compare(single, threaded))
          << difference.substr(0, 2000);
    }
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
    for (const bool shapes : {false, true}) {
      analysis::ProfileOptions options;
      options.operator_grouping =
          shapes ? analysis::OperatorGrouping::kNameAndShape
                 : analysis::OperatorGrouping::kName;
      const v1::WorkerProfile from_whole =
          analysis::BuildWorkerProfile(*a, {"run", "w", 1}, options);
      const v1::WorkerProfile from_without =
          analysis::BuildWorkerProfile(*b, {"run", "w", 1}, options);
      std::string difference;
      google::protobuf::util::MessageDifferencer differencer;
      differencer.ReportDifferencesToString(&difference);
      EXPECT_TRUE(differencer.Compare(from_whole, from_without))
          << difference.substr(0, 2000);
      if (!shapes && from_whole.steps_size() == 1 &&
          from_whole.steps(0).step() == 0)
        ++implicit_steps;
    }
  }
  EXPECT_GE(with_frames, 20) << "real traces with Python frames";
  // Where frames bound the one step of a trace with no ProfilerStep: without
  // the extent, the profiles of 35 of them change.
  EXPECT_GE(implicit_steps, 35) << "of them with an implicit step";
}

}  // namespace
}  // namespace profdiff::client
