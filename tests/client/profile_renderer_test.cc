// `profdiff show`'s options and per-step values (client/profile_renderer.h):
// --view and --format values, --sort/--filter/--top on each worker's rows, and
// the per-step values the differ compares.
#include "client/profile_renderer.h"

#include <set>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace profdiff::client {
namespace {

using ::testing::HasSubstr;

TEST(ProfileRendererTest, ViewsAreOneOrSeveralCommaSeparated) {
  EXPECT_EQ(ParseProfileViews("steps").value(),
            std::set<ProfileView>{ProfileView::kSteps});
  EXPECT_EQ(ParseProfileViews("kernels,overview,,comm").value(),
            (std::set<ProfileView>{ProfileView::kOverview,
                                   ProfileView::kKernels, ProfileView::kComm}));
  EXPECT_EQ(ParseProfileViews("all").value(),
            std::set<ProfileView>{ProfileView::kAll});
}

TEST(ProfileRendererTest, UnknownOrNoViewIsInvalidArgument) {
  const absl::Status unknown = ParseProfileViews("steps,ops").status();
  EXPECT_EQ(unknown.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(unknown.message(),
            "--view ops: expected overview, steps, operators, kernels, "
            "modules, memory, comm or all (several: comma-separated)");
  EXPECT_EQ(ParseProfileViews(",").status().message(),
            "--view: empty list of views");
  EXPECT_FALSE(ParseProfileViews("Steps").ok());  // case matters
}

TEST(ProfileRendererTest, FormatsAreTableJsonOrCsv) {
  EXPECT_EQ(ParseOutputFormat("table").value(), OutputFormat::kTable);
  EXPECT_EQ(ParseOutputFormat("json").value(), OutputFormat::kJson);
  EXPECT_EQ(ParseOutputFormat("csv").value(), OutputFormat::kCsv);
  EXPECT_EQ(ParseOutputFormat("html").status().message(),
            "--format html: expected table, json or csv");
}

TEST(ProfileRendererTest, ShowsAnswersForAllToo) {
  ShowOptions options;
  EXPECT_TRUE(options.Shows(ProfileView::kOverview));  // the default
  EXPECT_FALSE(options.Shows(ProfileView::kSteps));
  options.views = {ProfileView::kAll};
  EXPECT_TRUE(options.Shows(ProfileView::kMemory));
}

// One worker with operators aten::mm (40 us), aten::add (15), aten::copy_ (9)
// and kernels gemm (5 us) and relu (30).
v1::RunProfile ShowRun() {
  v1::RunProfile run;
  v1::WorkerProfile& w = *run.add_workers();
  for (const auto& [name, us] : std::vector<std::pair<std::string, double>>{
           {"aten::mm", 40}, {"aten::add", 15}, {"aten::copy_", 9}}) {
    v1::OperatorStats& op = *w.add_operators();
    op.set_name(name);
    op.set_host_total_us(us);
  }
  for (const auto& [name, us] :
       std::vector<std::pair<std::string, double>>{{"gemm", 5}, {"relu", 30}}) {
    v1::KernelStats& k = *w.add_kernels();
    k.set_name(name);
    k.set_total_us(us);
  }
  return run;
}

std::vector<std::string> OperatorNames(const v1::RunProfile& run) {
  std::vector<std::string> names;
  for (const v1::OperatorStats& op : run.workers(0).operators())
    names.push_back(op.name());
  return names;
}

TEST(ProfileRendererTest, RowControlsSortTheOperatorsUnlessKernelsAreShown) {
  ShowOptions options;
  options.sort = "name";
  options.views = {ProfileView::kOperators, ProfileView::kKernels};
  v1::RunProfile run = ShowRun();
  ASSERT_TRUE(ApplyRowControls(options, run).ok());
  EXPECT_EQ(OperatorNames(run),
            (std::vector<std::string>{"aten::add", "aten::copy_", "aten::mm"}));
  EXPECT_EQ(run.workers(0).kernels(0).name(), "gemm");  // its own order
  options.views = {ProfileView::kKernels};
  options.sort = "total_us";
  run = ShowRun();
  ASSERT_TRUE(ApplyRowControls(options, run).ok());
  EXPECT_EQ(run.workers(0).kernels(0).name(), "relu");
  EXPECT_EQ(OperatorNames(run),
            (std::vector<std::string>{"aten::mm", "aten::add", "aten::copy_"}));
}

TEST(ProfileRendererTest, RowControlsFilterAndCutBothTables) {
  ShowOptions options;
  options.filter = "^aten::(add|copy_)$|relu";
  options.top = 1;
  v1::RunProfile run = ShowRun();
  ASSERT_TRUE(ApplyRowControls(options, run).ok());
  EXPECT_EQ(OperatorNames(run), std::vector<std::string>{"aten::add"});
  ASSERT_EQ(run.workers(0).kernels_size(), 1);
  EXPECT_EQ(run.workers(0).kernels(0).name(), "relu");
  options.filter = "([";
  EXPECT_EQ(ApplyRowControls(options, run).code(),
            absl::StatusCode::kInvalidArgument);
  options.filter = "";
  options.sort = "speed";
  const absl::Status bad = ApplyRowControls(options, run);
  EXPECT_THAT(bad.message(), HasSubstr("--sort speed: not an operator column"));
}

TEST(ProfileRendererTest, PerStepValuesAreKeptStepSamplesOverTheSteps) {
  v1::RunProfile run;
  v1::WorkerProfile& w = *run.add_workers();
  w.add_steps();
  w.add_steps();
  v1::OperatorStats& op = *w.add_operators();
  op.set_host_total_us(1000);  // totals include time outside kept steps
  for (const auto& [index, us] :
       std::vector<std::pair<int, double>>{{0, 30}, {1, 50}, {5, 900}}) {
    v1::OperatorStepSample& s = *op.add_step_samples();
    s.set_step_index(index);  // 5: not a kept step
    s.set_calls(2);
    s.set_host_total_us(us);
  }
  v1::ModuleNode& root = *w.mutable_modules();
  root.set_host_self_us(10);
  v1::ModuleStepSample& sample = *root.add_step_samples();
  sample.set_step_index(1);
  sample.set_host_us(60);
  AddPerStepValues(run);
  EXPECT_DOUBLE_EQ(op.per_step().host_total_us(), 40);
  EXPECT_DOUBLE_EQ(op.per_step().calls(), 2);
  EXPECT_DOUBLE_EQ(root.per_step().host_us(), 30);  // a step it did not run: 0
  EXPECT_DOUBLE_EQ(root.per_step().host_self_us(), 5);
  EXPECT_DOUBLE_EQ(root.per_step().compare_us(), 30);
}

TEST(ProfileRendererTest, WithoutKeptStepsPerStepValuesAreTheTotals) {
  v1::RunProfile run;
  v1::KernelStats& k = *run.add_workers()->add_kernels();
  k.set_calls(7);
  k.set_total_us(70);
  AddPerStepValues(run);
  EXPECT_DOUBLE_EQ(k.per_step().calls(), 7);
  EXPECT_DOUBLE_EQ(k.per_step().total_us(), 70);
}

}  // namespace
}  // namespace profdiff::client
