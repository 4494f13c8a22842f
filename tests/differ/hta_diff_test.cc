// `--compare hta` (differ/hta_diff.h) on hand-built per-step HTA tables: the
// lowest rank and step by default, the ranks, steps and device asked for, the
// ops_diff classes, and HTA's short names.
#include "differ/hta_diff.h"

#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace profdiff::differ {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

struct HtaOp {
  std::string name;
  bool device;
  int64_t count;
  int64_t us;
};

// Adds step `step` with `ops` to the worker of rank `rank` (made when absent).
void AddStep(v1::RunProfile& run, int rank, int64_t step,
             const std::vector<HtaOp>& ops) {
  v1::WorkerProfile* worker = nullptr;
  for (v1::WorkerProfile& w : *run.mutable_workers()) {
    if (w.worker().rank() == rank) worker = &w;
  }
  if (worker == nullptr) {
    worker = run.add_workers();
    worker->mutable_worker()->set_rank(rank);
  }
  v1::HtaStep& s = *worker->add_hta_steps();
  s.set_step(step);
  for (const HtaOp& op : ops) {
    v1::HtaOpStats& o = *s.add_ops();
    o.set_name(op.name);
    o.set_device(op.device);
    o.set_count(op.count);
    o.set_total_duration_us(op.us);
  }
}

// Rank 1 listed before rank 0; each rank has steps 7 and 8.
v1::RunProfile HtaRun(int64_t mm_count) {
  v1::RunProfile run;
  for (const int rank : {1, 0}) {
    for (const int64_t step : {8, 7}) {
      AddStep(run, rank, step,
              {{"aten::mm", false, mm_count * (rank + 1), 10 * step},
               {"gemm_kernel", true, 2, 5},
               {"aten::add", false, step == 7 ? 1 : 0, 1}});
    }
  }
  return run;
}

const v1::HtaRow* RowOf(const v1::DiffReport& report, const std::string& name) {
  for (const v1::HtaRow& r : report.hta_rows()) {
    if (r.name() == name) return &r;
  }
  return nullptr;
}

TEST(HtaDiffTest, DefaultsToTheLowestRankAndItsLowestStep) {
  v1::DiffReport report;
  ASSERT_TRUE(DiffHta(HtaRun(3), HtaRun(5), {}, report).ok());
  const v1::HtaRow* mm = RowOf(report, "aten::mm");
  ASSERT_NE(mm, nullptr);
  EXPECT_EQ(mm->baseline_counts(), 3);  // rank 0, step 7
  EXPECT_EQ(mm->experimental_counts(), 5);
  EXPECT_EQ(mm->diff_counts(), 2);
  EXPECT_DOUBLE_EQ(mm->baseline_total_duration_us(), 70);
  EXPECT_DOUBLE_EQ(mm->diff_duration_us(), 0);
  EXPECT_EQ(mm->change(), v1::HTA_CHANGE_MORE);
  // Rows by name.
  ASSERT_EQ(report.hta_rows_size(), 3);
  EXPECT_EQ(report.hta_rows(0).name(), "aten::add");
  EXPECT_THAT(report.hta_ops_diff().increased(), ElementsAre("aten::mm"));
  EXPECT_THAT(report.hta_ops_diff().unchanged(),
              ElementsAre("aten::add", "gemm_kernel"));
}

TEST(HtaDiffTest, AllRanksAndStepsSumThem) {
  v1::DiffOptions options;
  options.set_hta_all_ranks(true);
  options.set_hta_all_steps(true);
  v1::DiffReport report;
  ASSERT_TRUE(DiffHta(HtaRun(3), HtaRun(2), options, report).ok());
  const v1::HtaRow* mm = RowOf(report, "aten::mm");
  ASSERT_NE(mm, nullptr);
  // Rank 0: 3 a step, rank 1: 6; two steps each.
  EXPECT_EQ(mm->baseline_counts(), 18);
  EXPECT_EQ(mm->experimental_counts(), 12);
  EXPECT_DOUBLE_EQ(mm->baseline_total_duration_us(), 2 * (70 + 80));
  EXPECT_EQ(mm->change(), v1::HTA_CHANGE_FEWER);
  EXPECT_THAT(report.hta_ops_diff().decreased(), ElementsAre("aten::mm"));
}

TEST(HtaDiffTest, DeviceSelectsCpuOrGpuOps) {
  v1::DiffOptions options;
  options.set_hta_device(v1::HTA_DEVICE_GPU);
  v1::DiffReport gpu;
  ASSERT_TRUE(DiffHta(HtaRun(3), HtaRun(3), options, gpu).ok());
  ASSERT_EQ(gpu.hta_rows_size(), 1);
  EXPECT_EQ(gpu.hta_rows(0).name(), "gemm_kernel");
  options.set_hta_device(v1::HTA_DEVICE_CPU);
  v1::DiffReport cpu;
  ASSERT_TRUE(DiffHta(HtaRun(3), HtaRun(3), options, cpu).ok());
  EXPECT_EQ(cpu.hta_rows_size(), 2);
  EXPECT_EQ(RowOf(cpu, "gemm_kernel"), nullptr);
}

TEST(HtaDiffTest, OpsOnOneSideOnlyAreAddedOrDeleted) {
  v1::RunProfile a, b;
  AddStep(a, 0, 1, {{"old", false, 2, 4}, {"both", false, 1, 1}});
  AddStep(b, 0, 1, {{"new", false, 1, 9}, {"both", false, 1, 1}});
  v1::DiffReport report;
  ASSERT_TRUE(DiffHta(a, b, {}, report).ok());
  EXPECT_THAT(report.hta_ops_diff().added(), ElementsAre("new"));
  EXPECT_THAT(report.hta_ops_diff().deleted(), ElementsAre("old"));
  EXPECT_THAT(report.hta_ops_diff().unchanged(), ElementsAre("both"));
  const v1::HtaRow* old_row = RowOf(report, "old");
  ASSERT_NE(old_row, nullptr);
  EXPECT_EQ(old_row->experimental_counts(), 0);
  EXPECT_DOUBLE_EQ(old_row->diff_duration_us(), -4);
}

TEST(HtaDiffTest, ShortNamesMergeRowsWhenAsked) {
  v1::RunProfile a;
  AddStep(a, 0, 1,
          {{"void at::native::gemm<float>(int)", true, 1, 3},
           {"void at::native::gemm<double>(int)", true, 2, 5}});
  v1::DiffOptions options;
  options.set_hta_short_names(true);
  v1::DiffReport report;
  ASSERT_TRUE(DiffHta(a, a, options, report).ok());
  ASSERT_EQ(report.hta_rows_size(), 1);
  EXPECT_EQ(report.hta_rows(0).name(), "at::native::gemm");
  EXPECT_EQ(report.hta_rows(0).baseline_counts(), 3);
}

TEST(HtaDiffTest, StepsAndRanksThatAreNotThereAreErrors) {
  v1::DiffReport report;
  v1::DiffOptions steps;
  steps.add_hta_steps(9);
  const absl::Status no_step = DiffHta(HtaRun(1), HtaRun(1), steps, report);
  EXPECT_EQ(no_step.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(no_step.message(),
            "--steps: the baseline run has no step 9 (it has 7, 8)");
  v1::DiffOptions ranks;
  ranks.add_ranks(4);
  const absl::Status no_rank = DiffHta(HtaRun(1), HtaRun(1), ranks, report);
  EXPECT_EQ(no_rank.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(no_rank.message(), HasSubstr("none of the ranks given"));
  const absl::Status empty =
      DiffHta(HtaRun(1), v1::RunProfile(), v1::DiffOptions(), report);
  EXPECT_EQ(empty.message(), "experimental run has no workers");
}

TEST(HtaDiffTest, ShortNameDropsTemplatesArgumentsAndArrows) {
  EXPECT_EQ(HtaShortName("aten::mm"), "aten::mm");
  EXPECT_EQ(HtaShortName("void foo<int, float>(float*, int)"), "foo");
  EXPECT_EQ(HtaShortName("void at::native::elementwise_kernel<128, 2, "
                         "at::native::Functor<float> >(int, float)"),
            "at::native::elementwise_kernel");
  EXPECT_EQ(HtaShortName("x a->b"), "ab");
  EXPECT_EQ(HtaShortName(""), "");
}

}  // namespace
}  // namespace profdiff::differ
