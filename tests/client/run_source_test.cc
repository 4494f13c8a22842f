// Whether `profdiff show`/`diff` arguments are trace paths or a run id on the
// server (client/run_source.h), and what is said when neither is found. No
// server is contacted: the cases here are decided before asking one.
#include "client/run_source.h"

#include <filesystem>
#include <fstream>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/support/test_dir.h"

namespace profdiff::client {
namespace {

namespace fs = std::filesystem;

ServerConnection Server(const std::string& address, bool named) {
  ServerConnection server;
  server.address = address;
  server.named = named;
  return server;
}

TEST(RunSourceTest, ARunIdIsAValidIdThatIsNoPathAndNoTraceFileName) {
  EXPECT_TRUE(IsRunIdArgument("transformer-fp32_run.7"));
  EXPECT_FALSE(IsRunIdArgument("runs/fp32"));        // a '/': a path
  EXPECT_FALSE(IsRunIdArgument("missing.json"));     // a trace file name
  EXPECT_FALSE(IsRunIdArgument("missing.json.gz"));  // likewise
  EXPECT_FALSE(IsRunIdArgument("has space"));        // not an id
  EXPECT_FALSE(IsRunIdArgument(""));
  EXPECT_FALSE(IsRunIdArgument(".."));
  EXPECT_FALSE(IsRunIdArgument(std::string(129, 'r')));  // too long
}

TEST(RunSourceTest, AnExistingFileOrFolderIsAPathWhateverItsName) {
  const fs::path dir = test_support::FreshTestDir("run_source");
  const fs::path here = fs::current_path();
  fs::current_path(dir);
  std::ofstream("run7") << "x";
  fs::create_directory("run8");
  EXPECT_FALSE(IsRunIdArgument("run7"));
  EXPECT_FALSE(IsRunIdArgument("run8"));
  EXPECT_TRUE(IsRunIdArgument("run9"));
  fs::current_path(here);
}

TEST(RunSourceTest, SeveralArgumentsThatAreNotAllPathsAreInvalid) {
  const fs::path dir = test_support::FreshTestDir("run_source");
  const ServerConnection server = Server("127.0.0.1:1", true);
  const absl::StatusOr<v1::RunProfile> run = LoadRunFromPathsOrServer(
      {dir.string(), "some_run"}, server, analysis::ProfileOptions());
  EXPECT_EQ(run.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(run.status().message(),
            "some_run: no such file or folder (several arguments must all be "
            "trace paths; a run on the server is named by one run id)");
}

TEST(RunSourceTest, AMissingPathThatCannotBeARunIsNotFoundFromTheReader) {
  const ServerConnection server = Server("127.0.0.1:1", true);
  const absl::StatusOr<v1::RunProfile> run = LoadRunFromPathsOrServer(
      {"/no/such/folder/trace.json"}, server, analysis::ProfileOptions());
  EXPECT_EQ(run.status().code(), absl::StatusCode::kNotFound);
}

TEST(MissingPathOrRunTest, NoServerNamedSaysHowToNameOne) {
  const ServerConnection local = Server("localhost:50051", false);
  const absl::Status status = MissingPathOrRun(
      {"transformer-fp33"}, local, absl::UnavailableError("refused"));
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(status.message(),
            "transformer-fp33: no such file or folder, and no run of that name "
            "(no server: set PROFDIFF_SERVER or --server)");
}

TEST(MissingPathOrRunTest, ANamedServerThatDoesNotAnswerIsUnavailable) {
  const ServerConnection named = Server("h:1", true);
  const absl::Status status = MissingPathOrRun(
      {"a", "b"}, named, absl::DeadlineExceededError("timed out"));
  EXPECT_EQ(status.code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(status.message(),
            "a, b: no such files or folders, and server h:1 could not be asked "
            "for runs of those names: timed out");
}

TEST(MissingPathOrRunTest, TheServersNotFoundNamesTheServer) {
  const ServerConnection named = Server("h:1", true);
  const absl::Status status =
      MissingPathOrRun({"r"}, named, absl::NotFoundError("no run r"));
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(status.message(),
            "r: no such file or folder, and no run of that name on server h:1 "
            "(no run r)");
}

TEST(MissingPathOrRunTest, OkAndOtherErrorsPassThrough) {
  const ServerConnection named = Server("h:1", true);
  EXPECT_TRUE(MissingPathOrRun({"r"}, named, absl::OkStatus()).ok());
  const absl::Status denied = absl::PermissionDeniedError("token");
  EXPECT_EQ(MissingPathOrRun({"r"}, named, denied), denied);
  EXPECT_EQ(MissingPathOrRun({}, named, denied), denied);
}

}  // namespace
}  // namespace profdiff::client
