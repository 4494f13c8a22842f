// The deployment a user starts: profdiff-aggregator and profdiff-differ as real
// processes, runs uploaded by profdiff-agent, and the profdiff binary asking
// the differ — its exit codes included.
#include <signal.h>

#include <filesystem>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/e2e/e2e_processes.h"
#include "tests/support/child_process.h"
#include "tests/support/test_dir.h"
#include "tests/support/traces_dir.h"

namespace profdiff::testing {
namespace {

namespace fs = std::filesystem;
constexpr absl::Duration kStepTimeout = absl::Seconds(120);

class DifferE2eTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const std::string missing = bin_.Missing(); !missing.empty())
      GTEST_SKIP() << "binary not built: " << missing;
    root_ = test_support::FreshTestDir("differ_e2e");
  }

  // Runs the profdiff binary to its end; returns its exit code and fills
  // `stderr_lines`.
  int Cli(std::vector<std::string> args,
          std::vector<std::string>* stderr_lines = nullptr) {
    args.insert(args.begin(), bin_.cli);
    ChildProcess cli(std::move(args));
    const int code = cli.Wait();
    if (stderr_lines != nullptr) {
      const std::string output = cli.Output();
      stderr_lines->clear();
      size_t start = 0;
      for (size_t end; (end = output.find('\n', start)) != std::string::npos;
           start = end + 1) {
        stderr_lines->push_back(output.substr(start, end - start));
      }
    }
    return code;
  }

  Binaries bin_;
  fs::path root_;
};

TEST_F(DifferE2eTest,
       AgentsUploadTwoRunsAndTheCliDiffsThemThroughTheDifferAlone) {
  const fs::path traces = test_support::TracesDir();
  const fs::path base = traces /
                        "kineto/tb_plugin_samples/resnet50_num_workers_0/"
                        "worker0.1623143089861.pt.trace.json.gz";
  const fs::path exp = traces /
                       "kineto/tb_plugin_samples/resnet50_num_workers_4/"
                       "worker0.1623212756351.pt.trace.json.gz";
  if (!fs::exists(base) || !fs::exists(exp))
    GTEST_SKIP() << "needs the ResNet50 traces under " << traces;

  ChildProcess aggregator({bin_.aggregator, "--listen=127.0.0.1:0",
                           "--data-dir=" + (root_ / "data").string()});
  std::optional<std::string> line =
      aggregator.WaitForLine(" port=", kStepTimeout);
  ASSERT_TRUE(line.has_value()) << aggregator.Output();
  const std::string aggregator_address =
      "127.0.0.1:" + std::to_string(PortFrom(*line));
  ChildProcess differ(
      {bin_.differ, "--listen=127.0.0.1:0", "--store=" + aggregator_address});
  line = differ.WaitForLine(" port=", kStepTimeout);
  ASSERT_TRUE(line.has_value()) << differ.Output();
  const std::string differ_address =
      "127.0.0.1:" + std::to_string(PortFrom(*line));

  for (const auto& [run, file] :
       {std::pair{"e2e_base", base}, std::pair{"e2e_exp", exp}}) {
    ChildProcess agent({bin_.agent, "upload", "--aggregator",
                        aggregator_address, "--run", run, "--state-dir",
                        (root_ / "agent-state").string(), file.string()});
    ASSERT_EQ(agent.Wait(), 0) << agent.Output();
  }
  // One address for everything: the differ's.
  EXPECT_EQ(Cli({"runs", "--server", differ_address}), 0);
  EXPECT_EQ(Cli({"diff", "e2e_base", "e2e_exp", "--server", differ_address,
                 "--view", "overview", "--timeout", "60s"}),
            0);
  std::vector<std::string> errors;
  EXPECT_EQ(Cli({"diff", "e2e_base", "nope", "--server", differ_address,
                 "--timeout", "60s"},
                &errors),
            1);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_THAT(errors[0], ::testing::HasSubstr("run nope: no such run"));

  differ.Signal(SIGTERM);
  EXPECT_EQ(differ.Wait(), 0) << differ.Output();
  aggregator.Signal(SIGTERM);
  EXPECT_EQ(aggregator.Wait(), 0) << aggregator.Output();
}

TEST_F(DifferE2eTest,
       UnreachableServerIsOneLineNamingTheAddressAndExitCodeTwo) {
  std::vector<std::string> errors;
  EXPECT_EQ(Cli({"diff", "run_a", "run_b", "--server", "127.0.0.1:1",
                 "--timeout", "60s"},
                &errors),
            2);
  ASSERT_EQ(errors.size(), 1u) << ::testing::PrintToString(errors);
  EXPECT_THAT(errors[0], ::testing::HasSubstr("server 127.0.0.1:1"));
  EXPECT_EQ(Cli({"runs", "--server", "127.0.0.1:1"}, &errors), 2);
  ASSERT_EQ(errors.size(), 1u) << ::testing::PrintToString(errors);
  EXPECT_THAT(errors[0], ::testing::HasSubstr("server 127.0.0.1:1"));
}

}  // namespace
}  // namespace profdiff::testing
