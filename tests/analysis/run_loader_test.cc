#include "analysis/run_loader.h"

#include <filesystem>
#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "trace/trace_file_name.h"

namespace profdiff::analysis {
namespace {

namespace fs = std::filesystem;

TEST(RunLoaderTest, WorkerNameDropsTimestampAndSuffixes) {
  EXPECT_EQ(trace::WorkerNameOf("worker0.1623143089861.pt.trace.json.gz"),
            "worker0");
  EXPECT_EQ(trace::WorkerNameOf("host_123.1752181589589738346.pt.trace.json"),
            "host_123");
  EXPECT_EQ(trace::WorkerNameOf("trace.json.gz"), "trace");
  EXPECT_EQ(trace::WorkerNameOf("rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz"),
            "rank-0.Apr_03_18_51_38");
}

TEST(RunLoaderTest, FolderFilesGroupByWorkerAsSpans) {
  const fs::path dir = fs::path(testing::TempDir()) / "run_loader_spans";
  fs::remove_all(dir);
  fs::create_directories(dir);
  for (const char* name : {"w0.200.pt.trace.json", "w0.100.pt.trace.json",
                           "w1.150.pt.trace.json", "notes.txt"}) {
    std::ofstream(dir / name) << "{}";
  }
  absl::StatusOr<std::vector<WorkerFiles>> workers =
      FindWorkerFiles({dir.string()});
  ASSERT_TRUE(workers.ok()) << workers.status();
  ASSERT_EQ(workers->size(), 2u);
  EXPECT_EQ((*workers)[0].worker_name, "w0");
  ASSERT_EQ((*workers)[0].paths.size(), 2u);
  EXPECT_THAT((*workers)[0].paths[0],
              testing::EndsWith("w0.100.pt.trace.json"));
  EXPECT_EQ((*workers)[1].worker_name, "w1");
}

TEST(RunLoaderTest, MissingPathIsNotFound) {
  const absl::Status status = FindWorkerFiles({"/nonexistent/run"}).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(status.message(), testing::HasSubstr("/nonexistent/run"));
}

TEST(RunLoaderTest, FolderWithoutTracesIsNotFound) {
  const fs::path dir = fs::path(testing::TempDir()) / "run_loader_empty";
  fs::create_directories(dir);
  EXPECT_EQ(FindWorkerFiles({dir.string()}).status().code(),
            absl::StatusCode::kNotFound);
}

TEST(RunLoaderTest, ATraceWithoutEventsIsAnErrorNamingTheFile) {
  const fs::path dir = fs::path(testing::TempDir()) / "run_loader_no_events";
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "empty.json") << R"({"traceEvents": []})";
  std::ofstream(dir / "pairs.json")
      << R"({"traceEvents": [{"ph": "B", "name": "a", "ts": 1, "pid": 1,)"
      << R"( "tid": 1}, {"ph": "E", "ts": 2, "pid": 1, "tid": 1}]})";
  const absl::Status empty =
      LoadRun({(dir / "empty.json").string()}, {}).status();
  EXPECT_EQ(empty.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(empty.message(),
              testing::HasSubstr("empty.json: no events (\"traceEvents\" is "
                                 "empty)"));
  const absl::Status pairs =
      LoadRun({(dir / "pairs.json").string()}, {}).status();
  EXPECT_EQ(pairs.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(pairs.message(),
              testing::HasSubstr("pairs.json: no events profdiff reads (2 "
                                 "events of phases it does not read"));
}

}  // namespace
}  // namespace profdiff::analysis
