#include "client/output_file.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace profdiff::client {
namespace {

namespace fs = std::filesystem;

std::string Read(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

class OutputFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ("output_file_" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(OutputFileTest, DashAndNoPathPrintTheOutputAndWriteNothing) {
  EXPECT_EQ(*WriteOutput("-", "report"), "report");
  EXPECT_EQ(*WriteOutput("", "report"), "report");
  EXPECT_FALSE(fs::exists("-"));
}

TEST_F(OutputFileTest, AFileIsReplacedWhole) {
  const fs::path file = dir_ / "report.json";
  std::ofstream(file) << "an older and longer report";
  absl::StatusOr<std::string> printed = WriteOutput(file.string(), "new");
  ASSERT_TRUE(printed.ok()) << printed.status();
  EXPECT_EQ(*printed, "wrote " + file.string() + " (3 bytes)\n");
  EXPECT_EQ(Read(file), "new");
}

TEST_F(OutputFileTest, ASymlinkIsWrittenThroughNotReplaced) {
  // As -o /dev/stdout: a rename would put a file where the link was.
  const fs::path target = dir_ / "target";
  const fs::path link = dir_ / "link";
  std::ofstream(target) << "old";
  fs::create_symlink(target, link);
  absl::StatusOr<std::string> printed = WriteOutput(link.string(), "new");
  ASSERT_TRUE(printed.ok()) << printed.status();
  EXPECT_EQ(*printed, "");
  EXPECT_TRUE(fs::is_symlink(fs::symlink_status(link)));
  EXPECT_EQ(Read(target), "new");
}

TEST_F(OutputFileTest, AnUnwritablePathIsAnErrorNamingIt) {
  const std::string path = (dir_ / "no" / "such" / "dir" / "out").string();
  absl::StatusOr<std::string> printed = WriteOutput(path, "x");
  ASSERT_FALSE(printed.ok());
  EXPECT_NE(printed.status().message().find("-o " + path), std::string::npos)
      << printed.status();
}

TEST_F(OutputFileTest, AFolderIsNamedWithASlashOrExists) {
  EXPECT_TRUE(IsOutputFolder((dir_ / "new").string() + "/"));
  EXPECT_TRUE(IsOutputFolder(dir_.string()));
  EXPECT_FALSE(IsOutputFolder((dir_ / "report.csv").string()));
  EXPECT_FALSE(IsOutputFolder("-"));
}

TEST_F(OutputFileTest, AFolderGetsEachFileAndIsMadeWhenMissing) {
  const fs::path folder = dir_ / "tables" / "run1";
  absl::StatusOr<std::string> printed = WriteOutputFolder(
      folder.string() + "/", {{"a.csv", "x,y\n"}, {"b.csv", "z\n"}});
  ASSERT_TRUE(printed.ok()) << printed.status();
  EXPECT_EQ(*printed, "wrote " + (folder / "a.csv").string() +
                          " (4 bytes)\nwrote " + (folder / "b.csv").string() +
                          " (2 bytes)\n");
  EXPECT_EQ(Read(folder / "a.csv"), "x,y\n");
  EXPECT_EQ(Read(folder / "b.csv"), "z\n");
  // A file where the folder should be: an error naming -o.
  std::ofstream(dir_ / "taken") << "a file";
  absl::StatusOr<std::string> blocked =
      WriteOutputFolder((dir_ / "taken").string() + "/", {{"a.csv", "x"}});
  ASSERT_FALSE(blocked.ok());
  EXPECT_NE(blocked.status().message().find("-o " + (dir_ / "taken").string()),
            std::string::npos)
      << blocked.status();
}

// Issue 45, item 3: `-o report.html` wrote the text table, exit 0.
TEST_F(OutputFileTest, TheFileNamePicksTheFormat) {
  const std::vector<std::string> diff = {"table", "json", "csv", "html"};
  auto resolve = [&](const std::string& path, const std::string& flag) {
    return ResolveOutputFormat("diff", path, flag, diff, "table");
  };
  EXPECT_EQ(*resolve("report.html", ""), "html");
  EXPECT_EQ(*resolve("out/Report.HTM", ""), "html");
  EXPECT_EQ(*resolve("report.json", ""), "json");
  EXPECT_EQ(*resolve("kernels.csv", "csv"), "csv");
  EXPECT_EQ(*resolve((dir_ / "tables").string() + "/", ""), "csv");
  EXPECT_EQ(*resolve(dir_.string(), ""), "csv");
  // Any other name, or none: --format, else the fallback.
  EXPECT_EQ(*resolve("report.txt", ""), "table");
  EXPECT_EQ(*resolve("no-such-report", "json"), "json");
  EXPECT_EQ(*resolve("", ""), "table");
  EXPECT_EQ(*resolve("-", "csv"), "csv");
}

TEST_F(OutputFileTest, AFormatTheFileNameContradictsIsInvalidArgument) {
  const std::vector<std::string> diff = {"table", "json", "csv", "html"};
  absl::StatusOr<std::string> conflict =
      ResolveOutputFormat("diff", "report.html", "json", diff, "table");
  ASSERT_EQ(conflict.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(conflict.status().message(),
            "-o report.html with --format json: the file name asks for html; "
            "leave out --format, or name a .json file");
  absl::StatusOr<std::string> folder = ResolveOutputFormat(
      "diff", (dir_ / "t").string() + "/", "table", diff, "table");
  EXPECT_EQ(folder.status().code(), absl::StatusCode::kInvalidArgument);
  absl::StatusOr<std::string> unknown =
      ResolveOutputFormat("diff", "report.html", "xml", diff, "table");
  EXPECT_EQ(unknown.status().message(),
            "--format xml: expected table, json, csv or html");
}

TEST_F(OutputFileTest, AFormatTheCommandLacksIsInvalidArgument) {
  absl::StatusOr<std::string> show = ResolveOutputFormat(
      "show", "profile.html", "", {"table", "json", "csv"}, "table");
  ASSERT_EQ(show.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(show.status().message(),
            "-o profile.html: show has no html format (it writes table, json "
            "or csv); the HTML report is profdiff diff's");
  absl::StatusOr<std::string> export_folder = ResolveOutputFormat(
      "export", (dir_ / "traces").string() + "/", "", {"json"}, "json");
  EXPECT_EQ(export_folder.status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace profdiff::client
