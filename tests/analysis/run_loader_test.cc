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

// A trace of one step, as rank `rank` of `world` (no distributedInfo when
// world is 0).
std::string Trace(int rank, int world) {
  std::string out = "{";
  if (world > 0) {
    out += R"("distributedInfo": {"backend": "gloo", "rank": )" +
           std::to_string(rank) + R"(, "world_size": )" +
           std::to_string(world) + "}, ";
  }
  return out +
         R"("traceEvents": [{"ph": "X", "cat": "user_annotation", "name": )"
         R"("ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 100}]})";
}

fs::path Folder(const std::string& name,
                const std::vector<std::pair<std::string, std::string>>& files) {
  fs::path dir = fs::path(testing::TempDir()) / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  for (const auto& [file, text] : files) std::ofstream(dir / file) << text;
  return dir;
}

TEST(RunLoaderTest, AFolderPassesOverFilesThatAreNoTraceWithAWarning) {
  const fs::path dir =
      Folder("run_loader_config", {{"rank0.json", Trace(0, 2)},
                                   {"rank1.json", Trace(1, 2)},
                                   {"config.json", R"({"lr": 0.1})"},
                                   {"notes.json", "lr was 0.1"}});
  absl::StatusOr<v1::RunProfile> run = LoadRun({dir.string()}, {});
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(run->workers_size(), 2);
  EXPECT_THAT(run->warnings(),
              testing::ElementsAre("skipped 2 files that are not a trace: "
                                   "config.json, notes.json"));
  // Named, such a file is an error; a folder of nothing else too.
  EXPECT_THAT(LoadRun({(dir / "config.json").string()}, {}).status().message(),
              testing::HasSubstr("config.json: no \"traceEvents\" array"));
  const fs::path none = Folder("run_loader_no_trace", {{"config.json", "{}"}});
  EXPECT_THAT(LoadRun({none.string()}, {}).status().message(),
              testing::HasSubstr("no trace among its files (config.json"));
  // A damaged trace in a folder still fails the run.
  const fs::path damaged = Folder(
      "run_loader_damaged",
      {{"rank0.json", Trace(0, 1)}, {"cut.json", R"({"traceEvents": [{"ph)"}});
  EXPECT_THAT(LoadRun({damaged.string()}, {}).status().message(),
              testing::HasSubstr("cut.json: truncated at byte"));
}

TEST(RunLoaderTest, TracesThatCannotBeOneRunAreRefusedListingTheGroups) {
  // Two single-process runs (rank 0 of 1 each) in one folder.
  const fs::path two =
      Folder("run_loader_two_processes",
             {{"a.json", Trace(0, 0)}, {"b.json", Trace(0, 0)}});
  absl::Status status = LoadRun({two.string()}, {}).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(),
              testing::HasSubstr("these traces are not one run (rank 0 2 "
                                 "times: a (rank 0 of 1), b (rank 0 of 1)); "
                                 "put each run's traces in a folder of their "
                                 "own"));
  // Rank 0 of a 2-rank run next to rank 0 of a 1-rank one.
  const fs::path mixed =
      Folder("run_loader_world_sizes", {{"big0.json", Trace(0, 2)},
                                        {"big1.json", Trace(1, 2)},
                                        {"small.json", Trace(0, 1)}});
  status = LoadRun({mixed.string()}, {}).status();
  EXPECT_THAT(status.message(),
              testing::HasSubstr("(world size 1: small (rank 0 of 1); world "
                                 "size 2: big0 (rank 0 of 2), big1 (rank 1 of "
                                 "2))"));
  // Two windows of one worker are its spans, not two workers.
  const fs::path spans =
      Folder("run_loader_spans_ok", {{"w0.100.pt.trace.json", Trace(0, 1)},
                                     {"w0.200.pt.trace.json", Trace(0, 1)}});
  EXPECT_TRUE(LoadRun({spans.string()}, {}).ok());
}

}  // namespace
}  // namespace profdiff::analysis
