#include "client/show_command.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <gmock/gmock.h>
#include <google/protobuf/util/json_util.h>
#include <gtest/gtest.h>

#include "client/diff_command.h"
#include "client/json_output.h"
#include "profdiff/v1/diff.pb.h"
#include "profdiff/v1/profile.pb.h"
#include "tests/support/traces_dir.h"

namespace profdiff::client {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

// A two-rank gloo run: rank 1 is slower (its step is 30 µs longer). Under a
// folder of the test's own: ctest runs the tests of this file as parallel
// processes.
fs::path WriteRun() {
  fs::path dir = fs::path(testing::TempDir()) /
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

TEST(ShowCommandTest, JsonForStandardOutputIsStreamedToTheStream) {
  const std::string run = WriteRun().string();
  const absl::StatusOr<std::string> whole =
      RunShowCommand({run, "--format", "json"});
  ASSERT_TRUE(whole.ok()) << whole.status();
  std::FILE* stream = std::tmpfile();
  ASSERT_NE(stream, nullptr);
  const absl::StatusOr<std::string> out =
      RunShowCommand({run, "--format", "json", "-o", "-"}, stream);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(*out, "");
  std::string streamed(static_cast<size_t>(std::ftell(stream)), '\0');
  std::rewind(stream);
  ASSERT_EQ(std::fread(streamed.data(), 1, streamed.size(), stream),
            streamed.size());
  std::fclose(stream);
  EXPECT_EQ(streamed, *whole);
  // A file named by -o is written whole (atomically), not to the stream.
  const std::string file = run + ".json";
  std::FILE* unused = std::tmpfile();
  const absl::StatusOr<std::string> wrote =
      RunShowCommand({run, "-o", file}, unused);
  ASSERT_TRUE(wrote.ok()) << wrote.status();
  EXPECT_THAT(*wrote, HasSubstr("wrote " + file));
  EXPECT_EQ(std::ftell(unused), 0);
  std::fclose(unused);
}

TEST(ShowCommandTest, SortFilterTopApplyToOperators) {
  absl::StatusOr<std::string> out = RunShowCommand(
      {WriteRun().string(), "--view", "operators", "--format", "csv", "--sort",
       "calls", "--filter", "^aten::a", "--top", "1"});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, HasSubstr("aten::add,,1,5,5,0,0,"));
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
    std::vector<std::string> printed;  // in the table
    std::vector<std::string> csv;      // in the CSV (one table per view)
  };
  const std::vector<View> views = {
      {"overview",
       {"Step time (avg)", "GPU utilization"},
       {"average_step_duration_us", "gpu_utilization"}},
      {"steps",
       {"duration (us)", "cpu exec"},
       {"step,start_us", "cpu_exec_us"}},
      {"operators",
       {"host total (us)", "aten::mm", "aten::add"},
       {"host_total_us", "aten::mm", "aten::add"}},
      {"kernels", {"blocks/SM"}, {"blocks_per_sm"}},  // the trace has no kernel
      {"modules", {"compare (us)", "aten::mm"}, {"compare_us", "aten::mm"}},
      {"memory", {"Memory"}, {"peak_allocated_bytes"}},  // nor memory events
  };
  for (const View& view : views) {
    for (const char* format : {"table", "csv"}) {
      SCOPED_TRACE(std::string(view.name) + " " + format);
      const bool csv = std::string(format) == "csv";
      absl::StatusOr<std::string> out =
          RunShowCommand({run, "--view", view.name, "--format", format});
      ASSERT_TRUE(out.ok()) << out.status();
      for (const std::string& text : csv ? view.csv : view.printed)
        EXPECT_THAT(*out, HasSubstr(text));
      for (const View& other : views) {
        if (other.name != view.name) {
          EXPECT_THAT(*out,
                      testing::Not(HasSubstr(csv ? other.csv.front()
                                                 : other.printed.front())));
        }
      }
    }
  }
  {
    SCOPED_TRACE("all table");
    absl::StatusOr<std::string> out =
        RunShowCommand({run, "--view", "all", "--format", "table"});
    ASSERT_TRUE(out.ok()) << out.status();
    for (const View& view : views)
      EXPECT_THAT(*out, HasSubstr(view.printed.front()));
  }
  // CSV prints one table; every view's goes to a folder (csv_output_test).
  EXPECT_THAT(RunShowCommand({run, "--view", "all", "--format", "csv"})
                  .status()
                  .message(),
              HasSubstr("pick one with --view, or write every view with -o "
                        "DIR/"));
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

// Issue 44, item 5: `show` printed module, operator and kernel totals over
// the kept steps (Sequential_0 host 43,719.9 us over 5 steps) while `diff`
// compares per-step means, and the header said neither.
TEST(ShowCommandTest, TablesArePerKeptStepAndSaySo) {
  const fs::path h200 = test_support::TracesDir() /
                        "profdiff_h200/transformer-fp32.pt.trace.json.gz";
  if (!fs::exists(h200)) GTEST_SKIP() << "needs " << h200;
  absl::StatusOr<std::string> per_step =
      RunShowCommand({h200.string(), "--view", "modules,operators,kernels"});
  ASSERT_TRUE(per_step.ok()) << per_step.status();
  EXPECT_THAT(*per_step,
              HasSubstr("Modules, from the nn.Module events (per step over 5 "
                        "kept steps)"));
  EXPECT_THAT(*per_step, HasSubstr("Operators (per step over 5 kept steps)"));
  EXPECT_THAT(*per_step, HasSubstr("Kernels (per step over 5 kept steps; "
                                   "mean, max and min per call)"));
  // Sequential_0: 1 call and 8,744.0 us of host time per step.
  EXPECT_THAT(*per_step,
              testing::ContainsRegex("\nSequential_0 +1 +8744\\.0 "));
  absl::StatusOr<std::string> totals = RunShowCommand(
      {h200.string(), "--view", "modules", "--normalize", "total"});
  ASSERT_TRUE(totals.ok()) << totals.status();
  EXPECT_THAT(*totals, HasSubstr("(totals over 5 kept steps)"));
  EXPECT_THAT(*totals, testing::ContainsRegex("\nSequential_0 +5 +43719\\.9 "));
  EXPECT_THAT(
      RunShowCommand({h200.string(), "--normalize", "mean"}).status().message(),
      HasSubstr("--normalize mean: expected per-step or total"));
}

void ExpectNear(double show, double diff, const std::string& what) {
  EXPECT_NEAR(show, diff, 1e-6 * std::max(1.0, std::abs(diff))) << what;
}

void ExpectModulesMatch(const v1::ModuleNode& show,
                        const v1::ModuleDiffNode& diff) {
  const std::string& at = show.path();
  ExpectNear(show.per_step().calls(), diff.baseline().calls(), at + " calls");
  ExpectNear(show.per_step().host_us(), diff.baseline().host_us(),
             at + " host");
  ExpectNear(show.per_step().device_us(), diff.baseline().device_us(),
             at + " device");
  std::vector<const v1::ModuleDiffNode*> children;
  for (const v1::ModuleDiffNode& c : diff.children()) {
    if (c.kind() != v1::MODULE_NODE_KIND_UNKNOWN) children.push_back(&c);
  }
  ASSERT_EQ(children.size(), static_cast<size_t>(show.children_size())) << at;
  for (int i = 0; i < show.children_size(); ++i)
    ExpectModulesMatch(show.children(i), *children[static_cast<size_t>(i)]);
}

// The same run's `show` per-step values (JSON) are `diff`'s baseline values:
// every module node, operator and kernel of the H200 trace.
TEST(ShowCommandTest, PerStepValuesAreTheDiffBaseline) {
  const fs::path h200 = test_support::TracesDir() /
                        "profdiff_h200/transformer-fp32.pt.trace.json.gz";
  if (!fs::exists(h200)) GTEST_SKIP() << "needs " << h200;
  absl::StatusOr<std::string> show_json =
      RunShowCommand({h200.string(), "--format", "json", "--view", "all"});
  ASSERT_TRUE(show_json.ok()) << show_json.status();
  absl::StatusOr<std::string> diff_json = RunDiffCommand(
      {h200.string(), h200.string(), "--format", "json", "--view", "all"});
  ASSERT_TRUE(diff_json.ok()) << diff_json.status();
  v1::RunProfile show;
  ASSERT_TRUE(FromJson(*show_json, show).ok());
  v1::DiffReport diff;
  ASSERT_TRUE(FromJson(*diff_json, diff).ok());
  ASSERT_EQ(show.workers_size(), 1);
  const v1::WorkerProfile& w = show.workers(0);
  ExpectModulesMatch(w.modules(), diff.modules());
  std::map<std::string, const v1::OperatorDiff*> operators;
  for (const v1::OperatorDiff& o : diff.operators()) operators[o.name()] = &o;
  ASSERT_EQ(operators.size(), static_cast<size_t>(w.operators_size()));
  for (const v1::OperatorStats& o : w.operators()) {
    const v1::OperatorValues& b = operators.at(o.name())->baseline();
    ExpectNear(o.per_step().calls(), b.calls(), o.name());
    ExpectNear(o.per_step().host_self_us(), b.host_self_us(), o.name());
    ExpectNear(o.per_step().host_total_us(), b.host_total_us(), o.name());
    ExpectNear(o.per_step().device_self_us(), b.device_self_us(), o.name());
    ExpectNear(o.per_step().device_total_us(), b.device_total_us(), o.name());
  }
  std::map<std::string, const v1::KernelDiff*> kernels;
  for (const v1::KernelDiff& k : diff.kernels()) kernels[k.name()] = &k;
  ASSERT_EQ(kernels.size(), static_cast<size_t>(w.kernels_size()));
  for (const v1::KernelStats& k : w.kernels()) {
    const v1::KernelValues& b = kernels.at(k.name())->baseline();
    ExpectNear(k.per_step().calls(), b.calls(), k.name());
    ExpectNear(k.per_step().total_us(), b.total_us(), k.name());
  }
}

// Issue 44, item 2: a trace without [memory] events says so; it is not a
// table of nothing.
TEST(ShowCommandTest, NoMemoryEventsIsSaid) {
  absl::StatusOr<std::string> out =
      RunShowCommand({WriteRun().string(), "--view", "memory"});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, HasSubstr("Memory: none recorded: the trace has no "
                              "[memory] events (torch.profiler records them "
                              "with profile_memory=True)"));
  EXPECT_THAT(*out, testing::Not(HasSubstr("peak allocated (MiB)")));
}

// Issue 44, item 2: an AMD trace records neither blocks per SM nor occupancy;
// `show --view kernels` printed "0.00" and "0.0" for them. Unknown is "-" and
// a JSON flag; an NVIDIA trace that records them keeps its numbers.
TEST(ShowCommandTest, KernelsWithoutOccupancyPrintADash) {
  const fs::path dir = test_support::TracesDir() / "tracelens";
  const fs::path amd =
      dir / "mi300/Falconsai_nsfw_image_detection__1016002.json.gz";
  const fs::path nvidia =
      dir / "h100/Falconsai_nsfw_image_detection__1016002.json.gz";
  if (!fs::exists(amd) || !fs::exists(nvidia))
    GTEST_SKIP() << "needs " << amd << " and " << nvidia;
  absl::StatusOr<std::string> table =
      RunShowCommand({amd.string(), "--view", "kernels", "--top", "3"});
  ASSERT_TRUE(table.ok()) << table.status();
  EXPECT_THAT(*table,
              testing::ContainsRegex("\n[^\n]*attn_fwd +12 [^\n]* +- +-\n"));
  absl::StatusOr<std::string> json =
      RunShowCommand({amd.string(), "--view", "kernels", "--format", "json"});
  ASSERT_TRUE(json.ok()) << json.status();
  v1::RunProfile run;
  ASSERT_TRUE(FromJson(*json, run).ok());
  ASSERT_GT(run.workers(0).kernels_size(), 0);
  for (const v1::KernelStats& k : run.workers(0).kernels()) {
    EXPECT_TRUE(k.blocks_per_sm_missing()) << k.name();
    EXPECT_TRUE(k.occupancy_missing()) << k.name();
  }
  absl::StatusOr<std::string> nvidia_json = RunShowCommand(
      {nvidia.string(), "--view", "kernels", "--format", "json"});
  ASSERT_TRUE(nvidia_json.ok()) << nvidia_json.status();
  ASSERT_TRUE(FromJson(*nvidia_json, run).ok());
  ASSERT_GT(run.workers(0).kernels_size(), 0);
  EXPECT_FALSE(run.workers(0).kernels(0).blocks_per_sm_missing());
  EXPECT_GT(run.workers(0).kernels(0).blocks_per_sm(), 0);
}

// Issue 45, item 5: one run's collectives without diffing it against itself:
// the same values `diff` takes for it (the 8-rank DLRM run's all_to_all: 5
// calls, 4741.9 us per step, transfer 42.0, wait 4699.9), its straggler, and
// every rank's row.
TEST(ShowCommandTest, CommViewShowsOneRunsCollectives) {
  const fs::path dlrm = test_support::TracesDir() / "param/dlrm_kineto";
  if (!fs::exists(dlrm)) GTEST_SKIP() << "needs " << dlrm;
  absl::StatusOr<std::string> out =
      RunShowCommand({dlrm.string(), "--view", "comm"});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, HasSubstr("straggler: rank 7, last to arrive in 63% of "
                              "collectives (5 of 8)"));
  EXPECT_THAT(*out, testing::ContainsRegex(
                        "\nall_to_all +default +12.6 KiB +5 +4741.9 +42.0 "
                        "+4699.9 "));
  const size_t ranks = out->find("Communication per rank");
  ASSERT_NE(ranks, std::string::npos) << *out;
  const std::string rank_table = out->substr(ranks);
  EXPECT_EQ(std::count(rank_table.begin(), rank_table.end(), '\n'),
            1 + 2 + 8 + 1)  // title, header, rule, 8 ranks, the blank line
      << rank_table;
  // The same numbers as the run's diff against itself.
  absl::StatusOr<std::string> diff = RunDiffCommand(
      {dlrm.string(), dlrm.string(), "--view", "comm", "--wide"});
  ASSERT_TRUE(diff.ok()) << diff.status();
  EXPECT_THAT(*diff, testing::ContainsRegex(
                         "\nall_to_all +default +12.6 KiB -> 12.6 KiB +5 +5 "
                         "+4741.9 +4741.9 [^\n]* 42.0 +4699.9 +4699.9 "));
  // A run without collectives says so.
  absl::StatusOr<std::string> none =
      RunShowCommand({WriteRun().string(), "--view", "comm"});
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_THAT(*none, HasSubstr("Communication: no collectives in this run"));
}

// Issue 46: record_function ranges beside nn.Module nodes, nested both ways,
// and the source line says so (the torch profiling tutorial's H100 trace).
TEST(ShowCommandTest, UserAnnotationsAreNodesOfTheModuleTree) {
  const fs::path trace =
      test_support::TracesDir() /
      "torch_profiling_tutorial/log/transformer/"
      "dcb0aa1a78e7_4399.1752181589621105859.pt.trace.json.gz";
  if (!fs::exists(trace)) GTEST_SKIP() << "missing " << trace;
  absl::StatusOr<std::string> out =
      RunShowCommand({trace.string(), "--view", "modules", "--wide"});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, HasSubstr("Modules, from the nn.Module events and 5 user "
                              "annotations"));
  EXPECT_THAT(*out,
              testing::ContainsRegex(
                  "\nModel Forward Pass +1 .*\n  "
                  "SimpleTransformerLayer_0 .*\n    Self-Attention "
                  ".*\n      MultiheadAttention_0 .*\n    Add & Norm 1 "));
}

}  // namespace
}  // namespace profdiff::client
