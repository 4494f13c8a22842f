// Every trace under PROFDIFF_TRACES loads, and `profdiff show` prints every view for it.
#include <cstdlib>
#include <filesystem>

#include <gtest/gtest.h>

#include "client/show_command.h"
#include "tests/support/traces_dir.h"

namespace profdiff::client {
namespace {

namespace fs = std::filesystem;

TEST(AllTracesTest, EveryTraceShowsEveryView) {
  const fs::path root = profdiff::test_support::TracesDir();
  if (!fs::is_directory(root)) GTEST_SKIP() << "no trace folder at " << root << " (set PROFDIFF_TRACES)";
  int files = 0;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    const std::string name = entry.path().filename().string();
    if (!entry.is_regular_file() || !(name.ends_with(".json") || name.ends_with(".json.gz"))) continue;
    ++files;
    for (const char* format : {"table", "json"}) {
      absl::StatusOr<std::string> out = RunShowCommand({entry.path().string(), "--view", "all", "--format", format});
      ASSERT_TRUE(out.ok()) << entry.path() << ": " << out.status();
      EXPECT_FALSE(out->empty());
    }
  }
  EXPECT_GE(files, 100) << "expected the shared corpus of real traces under " << root;
}

}  // namespace
}  // namespace profdiff::client
