#include "client/show_command.h"

#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include <gmock/gmock.h>
#include <google/protobuf/util/json_util.h>
#include <gtest/gtest.h>

#include "profdiff/v1/profile.pb.h"

namespace profdiff::client {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

// A two-rank gloo run: rank 1 is slower (its step is 30 µs longer). Under a
// folder of the test's own: ctest runs the tests of this file as parallel
// processes.
fs::path WriteRun() {
  const fs::path dir =
      fs::path(testing::TempDir()) /
      testing::UnitTest::GetInstance()->current_test_info()->name() /
      "show_run";
  fs::remove_all(dir);
  fs::create_directories(dir);
  for (int rank = 0; rank < 2; ++rank) {
    std::ofstream(dir / ("rank" + std::to_string(rank) + ".1000.pt.trace.json"))
        << R"({"distributedInfo": {"backend": "gloo", "rank": )" << rank
        << R"(, "world_size": 2},
              "traceEvents": [
          {"ph": "X", "cat": "cpu_op", "name": "ProfilerStep#7", "pid": 1, "tid": 1, "ts": 0, "dur": )"
        << 100 + 30 * rank << R"(},
          {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 10, "dur": 40},
          {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 60, "dur": 5}]})";
  }
  return dir;
}

TEST(ShowCommandTest, TableHeaderNamesRunWorkersAndSteps) {
  absl::StatusOr<std::string> out = RunShowCommand({WriteRun().string()});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out,
              HasSubstr("run show_run · worker rank0 (rank 0 of 2, gloo)"));
  EXPECT_THAT(*out, HasSubstr("worker rank1 (rank 1 of 2, gloo)"));
  EXPECT_THAT(*out, HasSubstr("steps kept 1, dropped 0"));
  EXPECT_THAT(*out, HasSubstr("Step time (avg)"));
}

TEST(ShowCommandTest, JsonIsTheRunProfileWithSnakeCaseMicrosecondFields) {
  absl::StatusOr<std::string> out =
      RunShowCommand({WriteRun().string(), "--format", "json"});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, HasSubstr("\"duration_us\""));
  EXPECT_THAT(*out, HasSubstr("\"host_self_us\""));
  v1::RunProfile run;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(*out, &run).ok());
  ASSERT_EQ(run.workers_size(), 2);
  EXPECT_EQ(run.workers(1).worker().rank(), 1);
  EXPECT_DOUBLE_EQ(run.workers(1).steps(0).duration_us(), 130);
  // aten::mm 40 µs and aten::add 5 µs of host ops; the rest of the step is
  // Other.
  EXPECT_DOUBLE_EQ(run.workers(1).steps(0).cpu_exec_us(), 45);
  EXPECT_DOUBLE_EQ(run.workers(1).steps(0).other_us(), 85);
}

TEST(ShowCommandTest, SortFilterTopApplyToOperators) {
  absl::StatusOr<std::string> out = RunShowCommand(
      {WriteRun().string(), "--view", "operators", "--format", "csv", "--sort",
       "calls", "--filter", "^aten::a", "--top", "1"});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, HasSubstr("aten::add,1,5.0,5.0,0.0,0.0"));
  EXPECT_THAT(*out, testing::Not(HasSubstr("aten::mm")));
}

// Each view prints its own table (a column only it has, and the rows of the
// input where it has any) and no other view's; JSON is the whole RunProfile
// whatever the view.
// `show` sorts by the columns `diff` names (differ/row_order.h) and still by
// the names it used before.
TEST(ShowCommandTest, SortTakesTheDiffColumnNamesAndTheOldOnes) {
  const std::string run = WriteRun().string();
  for (const auto& [name, alias] : {std::pair("host_total_us", "host_total"),
                                    std::pair("device_self_us", "device_self"),
                                    std::pair("calls", "calls")}) {
    absl::StatusOr<std::string> by_name =
        RunShowCommand({run, "--view", "operators", "--sort", name});
    absl::StatusOr<std::string> by_alias =
        RunShowCommand({run, "--view", "operators", "--sort", alias});
    ASSERT_TRUE(by_name.ok()) << by_name.status();
    ASSERT_TRUE(by_alias.ok()) << by_alias.status();
    EXPECT_EQ(*by_name, *by_alias) << name;
  }
  // aten::mm (40 us) before aten::add (5 us); by name, add first.
  absl::StatusOr<std::string> by_total =
      RunShowCommand({run, "--view", "operators", "--format", "csv", "--sort",
                      "host_total_us"});
  ASSERT_TRUE(by_total.ok()) << by_total.status();
  EXPECT_LT(by_total->find("aten::mm"), by_total->find("aten::add"));
  absl::StatusOr<std::string> by_name = RunShowCommand(
      {run, "--view", "operators", "--format", "csv", "--sort", "name"});
  ASSERT_TRUE(by_name.ok()) << by_name.status();
  EXPECT_LT(by_name->find("aten::add"), by_name->find("aten::mm"));
  for (const char* kernel_column : {"total_us", "total", "mean_us", "max"}) {
    EXPECT_TRUE(
        RunShowCommand({run, "--view", "kernels", "--sort", kernel_column})
            .ok())
        << kernel_column;
  }
}

TEST(ShowCommandTest, EveryViewRenders) {
  const std::string run = WriteRun().string();
  struct View {
    const char* name;
    std::vector<std::string> printed;  // in the table and the CSV
  };
  const std::vector<View> views = {
      {"overview", {"Step time (avg)", "GPU utilization"}},
      {"steps", {"duration (us)", "cpu exec"}},
      {"operators", {"host total (us)", "aten::mm", "aten::add"}},
      {"kernels", {"blocks/SM"}},  // the trace has no kernel
      {"modules", {"compare (us)", "aten::mm"}},
      {"memory", {"peak allocated (MiB)"}},  // nor memory events
  };
  for (const View& view : views) {
    for (const char* format : {"table", "csv"}) {
      SCOPED_TRACE(std::string(view.name) + " " + format);
      absl::StatusOr<std::string> out =
          RunShowCommand({run, "--view", view.name, "--format", format});
      ASSERT_TRUE(out.ok()) << out.status();
      for (const std::string& text : view.printed)
        EXPECT_THAT(*out, HasSubstr(text));
      for (const View& other : views) {
        if (other.name != view.name) {
          EXPECT_THAT(*out, testing::Not(HasSubstr(other.printed.front())));
        }
      }
    }
  }
  for (const char* format : {"table", "csv"}) {
    SCOPED_TRACE(std::string("all ") + format);
    absl::StatusOr<std::string> out =
        RunShowCommand({run, "--view", "all", "--format", format});
    ASSERT_TRUE(out.ok()) << out.status();
    for (const View& view : views)
      EXPECT_THAT(*out, HasSubstr(view.printed.front()));
  }
  for (const View& view : views) {
    SCOPED_TRACE(std::string(view.name) + " json");
    absl::StatusOr<std::string> out =
        RunShowCommand({run, "--view", view.name, "--format", "json"});
    ASSERT_TRUE(out.ok()) << out.status();
    v1::RunProfile profile;
    ASSERT_TRUE(
        google::protobuf::util::JsonStringToMessage(*out, &profile).ok());
    ASSERT_EQ(profile.workers_size(), 2);
    EXPECT_EQ(profile.workers(0).steps_size(), 1);
    EXPECT_EQ(profile.workers(0).operators_size(), 2);
    EXPECT_EQ(profile.workers(0).operators(0).name(), "aten::mm");
  }
}

TEST(ShowCommandTest, SeveralViewsByCommasOrRepeatsPrintInTheViewOrder) {
  const std::string run = WriteRun().string();
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{run, "--view", "steps,overview"},
        std::vector<std::string>{run, "--view", "steps", "--view", "overview"},
        std::vector<std::string>{run, "--view=steps,", "--view", "overview"}}) {
    SCOPED_TRACE(testing::PrintToString(args));
    absl::StatusOr<std::string> out = RunShowCommand(args);
    ASSERT_TRUE(out.ok()) << out.status();
    const size_t overview = out->find("Step time (avg)");
    const size_t steps = out->find("duration (us)");
    ASSERT_NE(overview, std::string::npos);
    ASSERT_NE(steps, std::string::npos);
    EXPECT_LT(overview, steps);
    EXPECT_THAT(*out, testing::Not(HasSubstr("host total (us)")));
  }
  EXPECT_THAT(
      RunShowCommand({run, "--view", "steps,nothing"}).status().message(),
      HasSubstr("--view nothing: expected overview"));
  EXPECT_THAT(RunShowCommand({run, "--view", ","}).status().message(),
              HasSubstr("--view: empty list"));
}

TEST(ShowCommandTest, BadOptionsAreInvalidArgument) {
  const std::string run = WriteRun().string();
  EXPECT_THAT(RunShowCommand({run, "--view", "everything"}).status().message(),
              HasSubstr("--view everything"));
  EXPECT_THAT(RunShowCommand({run, "--sort", "speed"}).status().message(),
              HasSubstr("--sort speed: not an operator column (name, calls, "
                        "host_self_us, host_total_us"));
  EXPECT_THAT(RunShowCommand({run, "--filter", "("}).status().message(),
              HasSubstr("--filter ("));
  EXPECT_THAT(RunShowCommand({run, "--top", "-3"}).status().message(),
              HasSubstr("--top -3"));
  EXPECT_THAT(RunShowCommand({run, "--bogus"}).status().message(),
              HasSubstr("unknown option --bogus"));
  EXPECT_EQ(RunShowCommand({}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(ShowCommandTest, MissingPathIsNotFound) {
  EXPECT_EQ(RunShowCommand({"/nonexistent/trace.json"}).status().code(),
            absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace profdiff::client
