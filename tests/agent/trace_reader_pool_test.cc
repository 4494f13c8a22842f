// The upload mode's shared readers: reads as a reader of their own would, at
// most max_readers at once, and a failed read gives its reader back.
#include "agent/trace_reader_pool.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <absl/synchronization/barrier.h>
#include <gtest/gtest.h>

#include "tests/support/test_dir.h"
#include "tests/support/trace_comparison.h"
#include "tests/support/traces_dir.h"
#include "trace/kineto_reader.h"

namespace profdiff::agent {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> DlrmRanks() {
  std::vector<std::string> files;
  const fs::path dir = test_support::TracesDir() / "param/dlrm_kineto";
  if (!fs::exists(dir)) return files;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir))
    files.push_back(entry.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

TEST(TraceReaderPoolTest, ThreadsShareAtMostMaxReadersAndReadTheSame) {
  const std::vector<std::string> files = DlrmRanks();
  if (files.size() < 4) GTEST_SKIP() << "needs the DLRM ranks in param/";
  trace::KinetoReader own;
  std::vector<trace::Trace> expected;
  for (const std::string& file : files) {
    absl::StatusOr<trace::Trace> trace = own.ReadFile(file);
    ASSERT_TRUE(trace.ok()) << trace.status();
    expected.push_back(std::move(trace).value());
  }

  TraceReaderPool pool(2);
  constexpr int kThreads = 6;
  absl::Barrier start(kThreads);
  std::vector<std::vector<trace::Trace>> read(kThreads);
  std::vector<std::thread> threads;
  threads.reserve(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      start.Block();  // all ask at once
      for (size_t i = t; i < files.size() + t; ++i) {
        absl::StatusOr<trace::Trace> trace =
            pool.ReadFile(files[i % files.size()]);
        ASSERT_TRUE(trace.ok()) << trace.status();
        read[t].push_back(std::move(trace).value());
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_GE(pool.readers_made(), 1u);
  EXPECT_LE(pool.readers_made(), 2u);
  for (int t = 0; t < kThreads; ++t) {
    ASSERT_EQ(read[t].size(), files.size());
    for (size_t i = 0; i < files.size(); ++i) {
      test_support::ExpectSameEvents(read[t][i],
                                     expected[(i + t) % files.size()]);
    }
  }
}

TEST(TraceReaderPoolTest, AFailedReadSaysWhyAndGivesItsReaderBack) {
  const fs::path dir = test_support::FreshTestDir("reader_pool");
  const fs::path bad = dir / "cut.pt.trace.json";
  std::ofstream(bad) << "{\"traceEvents\": [";
  TraceReaderPool pool(1);
  const absl::StatusOr<trace::Trace> failed = pool.ReadFile(bad.string());
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.status().message().find(bad.string()), std::string::npos)
      << failed.status();
  // With one reader, a second read would wait forever had the first kept it.
  const absl::StatusOr<trace::Trace> again =
      pool.ReadFile((dir / "none.json").string());
  EXPECT_EQ(again.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(pool.readers_made(), 1u);
}

}  // namespace
}  // namespace profdiff::agent
