#include "client/output_file.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

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

}  // namespace
}  // namespace profdiff::client
