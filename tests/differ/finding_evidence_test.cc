// How findings judge rows and what they cite (differ/finding_evidence.h): an
// overview row's change, an operator's compared column, added and deleted
// rows, and each table's evidence.
#include "differ/finding_evidence.h"

#include <utility>

#include <gtest/gtest.h>

namespace profdiff::differ {
namespace {

v1::OverviewRow StepRow(double baseline, double experimental) {
  v1::OverviewRow row;
  row.set_metric(v1::OVERVIEW_METRIC_STEP_TIME);
  row.set_unit(v1::VALUE_UNIT_US);
  row.set_baseline(baseline);
  row.set_experimental(experimental);
  row.set_delta(experimental - baseline);
  return row;
}

// An operator row that ran 100 us on the host and `device` us on the device
// in the baseline, and `scale` times that in the experimental run.
v1::OperatorDiff Operator(double device, double scale, v1::Change change) {
  v1::OperatorDiff row;
  row.set_name("aten::mm");
  row.set_input_shapes("[[4, 4]]");
  row.set_compared(device > 0 ? v1::OPERATOR_COMPARED_DEVICE_TOTAL_US
                              : v1::OPERATOR_COMPARED_HOST_TOTAL_US);
  row.set_change(change);
  for (auto [values, s] : {std::pair(row.mutable_baseline(), 1.0),
                           std::pair(row.mutable_experimental(), scale)}) {
    values->set_calls(2 * s);
    values->set_host_self_us(60 * s);
    values->set_host_total_us(100 * s);
    values->set_device_self_us(device * 0.5 * s);
    values->set_device_total_us(device * s);
  }
  row.mutable_delta()->set_host_self_us(60 * (scale - 1));
  row.mutable_delta()->set_device_self_us(device * 0.5 * (scale - 1));
  return row;
}

TEST(FindingEvidenceTest, RowOfFindsTheMetricOrNothing) {
  v1::Overview overview;
  *overview.add_rows() = StepRow(1, 2);
  ASSERT_NE(RowOf(&overview, v1::OVERVIEW_METRIC_STEP_TIME), nullptr);
  EXPECT_EQ(RowOf(&overview, v1::OVERVIEW_METRIC_STEP_TIME), &overview.rows(0));
  EXPECT_EQ(RowOf(&overview, v1::OVERVIEW_METRIC_KERNEL), nullptr);
  EXPECT_EQ(RowOf(nullptr, v1::OVERVIEW_METRIC_STEP_TIME), nullptr);
}

TEST(FindingEvidenceTest, RowChangedByIntervalElseThresholdsNeverWhenMissing) {
  const ChangeThreshold t{.min_pct = 5, .min_abs = 10};
  v1::OverviewRow row = StepRow(1000, 1100);
  EXPECT_TRUE(RowChanged(row, t));
  row.mutable_noise()->set_has_interval(true);  // not significant
  EXPECT_FALSE(RowChanged(row, t));
  row.mutable_noise()->set_significant(true);
  EXPECT_TRUE(RowChanged(row, t));
  row.set_baseline_missing(true);
  EXPECT_FALSE(RowChanged(row, t));
  EXPECT_FALSE(RowChanged(StepRow(1000, 1040), t));  // 4%
  EXPECT_FALSE(RowChanged(StepRow(100, 108), t));    // 8 us
  EXPECT_FALSE(
      RowChanged(StepRow(0, 0), ChangeThreshold{.min_pct = 0, .min_abs = 0}));
}

TEST(FindingEvidenceTest, OperatorsAreJudgedOnDeviceTimeWhereTheyHaveIt) {
  const v1::OperatorDiff device = Operator(40, 3, v1::CHANGE_INCREASED);
  EXPECT_DOUBLE_EQ(Total(device, device.baseline()), 40);
  EXPECT_DOUBLE_EQ(Total(device, device.experimental()), 120);
  EXPECT_DOUBLE_EQ(SelfDelta(device), 40);
  const v1::OperatorDiff host = Operator(0, 3, v1::CHANGE_INCREASED);
  EXPECT_DOUBLE_EQ(Total(host, host.experimental()), 300);
  EXPECT_DOUBLE_EQ(SelfDelta(host), 120);
}

TEST(FindingEvidenceTest, AddedAndDeletedRowsCountOnlyWhenLargeEnough) {
  const ChangeThreshold t{.min_pct = 5, .min_abs = 150};
  // Increased and decreased rows already passed the thresholds.
  EXPECT_TRUE(Changed(Operator(0, 1.01, v1::CHANGE_INCREASED), t));
  EXPECT_TRUE(Changed(Operator(0, 0.99, v1::CHANGE_DECREASED), t));
  EXPECT_FALSE(Changed(Operator(0, 3, v1::CHANGE_UNCHANGED), t));
  // Added from 0: 100 us * 3 - 100 = 200 >= 150; 100 * 2 - 100 = 100 is not.
  EXPECT_TRUE(Changed(Operator(0, 3, v1::CHANGE_ADDED), t));
  EXPECT_FALSE(Changed(Operator(0, 2, v1::CHANGE_ADDED), t));
  // Deleted: -100 us.
  EXPECT_FALSE(Changed(Operator(0, 0, v1::CHANGE_DELETED), t));
  EXPECT_TRUE(Changed(Operator(0, 0, v1::CHANGE_DELETED),
                      ChangeThreshold{.min_pct = 5, .min_abs = 100}));

  v1::KernelDiff kernel;
  kernel.set_change(v1::CHANGE_DELETED);
  kernel.mutable_delta()->set_total_us(-149);
  EXPECT_FALSE(Changed(kernel, t));
  kernel.mutable_delta()->set_total_us(-150);
  EXPECT_TRUE(Changed(kernel, t));
  kernel.set_change(v1::CHANGE_UNSPECIFIED);
  EXPECT_FALSE(Changed(kernel, t));
}

TEST(FindingEvidenceTest, OverviewEvidenceNamesTheMetricByItsText) {
  const v1::FindingEvidence e =
      OverviewEvidence(StepRow(1000, 1200), ChangeThreshold());
  EXPECT_EQ(e.table(), v1::EVIDENCE_TABLE_OVERVIEW);
  EXPECT_EQ(e.name(), "Average step time");
  EXPECT_EQ(e.unit(), v1::VALUE_UNIT_US);
  EXPECT_DOUBLE_EQ(e.baseline(), 1000);
  EXPECT_DOUBLE_EQ(e.experimental(), 1200);
  EXPECT_DOUBLE_EQ(e.delta(), 200);
  EXPECT_TRUE(e.significant());
}

TEST(FindingEvidenceTest, OperatorAndKernelEvidenceCiteTheirScope) {
  const v1::FindingEvidence op = OperatorEvidence(
      Operator(40, 3, v1::CHANGE_INCREASED), "0/2", ChangeThreshold());
  EXPECT_EQ(op.table(), v1::EVIDENCE_TABLE_OPERATORS);
  EXPECT_EQ(op.name(), "aten::mm");
  EXPECT_EQ(op.input_shapes(), "[[4, 4]]");
  EXPECT_EQ(op.index_path(), "0/2");
  EXPECT_DOUBLE_EQ(op.baseline(), 40);
  EXPECT_DOUBLE_EQ(op.experimental(), 120);
  EXPECT_DOUBLE_EQ(op.delta(), 80);
  EXPECT_DOUBLE_EQ(op.baseline_calls(), 2);
  EXPECT_DOUBLE_EQ(op.experimental_calls(), 6);
  EXPECT_EQ(op.change(), v1::CHANGE_INCREASED);
  EXPECT_TRUE(op.significant());

  v1::KernelDiff k;
  k.set_name("gemm");
  k.set_change(v1::CHANGE_UNCHANGED);
  k.mutable_baseline()->set_total_us(10);
  k.mutable_experimental()->set_total_us(10.5);
  k.mutable_delta()->set_total_us(0.5);
  const v1::FindingEvidence kernel = KernelEvidence(k, "", ChangeThreshold());
  EXPECT_EQ(kernel.table(), v1::EVIDENCE_TABLE_KERNELS);
  EXPECT_EQ(kernel.index_path(), "");
  EXPECT_DOUBLE_EQ(kernel.delta(), 0.5);
  EXPECT_FALSE(kernel.significant());
}

TEST(FindingEvidenceTest, ModuleEvidenceTakesTheDiffersDeltaAndPath) {
  v1::ModuleDiffNode node;
  node.set_name("Linear_1");
  node.set_path("Model_0/Linear_1");
  node.set_index_path("0/1");
  node.set_status(v1::DIFF_STATUS_MATCHED);
  node.mutable_baseline()->set_compare_us(100);
  node.mutable_experimental()->set_compare_us(150);
  node.mutable_delta()->set_compare_us(50.000001);  // not recomputed
  const v1::FindingEvidence e = ModuleEvidence(node, ChangeThreshold());
  EXPECT_EQ(e.table(), v1::EVIDENCE_TABLE_MODULES);
  EXPECT_EQ(e.path(), "Model_0/Linear_1");
  EXPECT_EQ(e.index_path(), "0/1");
  EXPECT_EQ(e.status(), v1::DIFF_STATUS_MATCHED);
  EXPECT_DOUBLE_EQ(e.delta(), 50.000001);
  EXPECT_TRUE(e.significant());
}

TEST(FindingEvidenceTest, RankEvidenceSitsOnItsSide) {
  v1::RankSteps rank;
  rank.set_side(v1::RUN_SIDE_EXPERIMENTAL);
  rank.set_rank(3);
  rank.set_compute_us(655);
  rank.set_slowest_compute(true);
  const v1::FindingEvidence e = RankEvidence(rank);
  EXPECT_EQ(e.table(), v1::EVIDENCE_TABLE_RANKS);
  EXPECT_EQ(e.name(), "experimental rank 3");
  EXPECT_DOUBLE_EQ(e.experimental(), 655);
  EXPECT_DOUBLE_EQ(e.baseline(), 0);
  EXPECT_TRUE(e.significant());
  rank.set_side(v1::RUN_SIDE_BASELINE);
  EXPECT_EQ(RankEvidence(rank).name(), "baseline rank 3");
  EXPECT_DOUBLE_EQ(RankEvidence(rank).baseline(), 655);
}

TEST(FindingEvidenceTest, CommunicationEvidenceIsSignificantByTimeOrCalls) {
  v1::CollectiveDiff row;
  row.set_collective("all_reduce");
  row.set_process_group("0");
  row.mutable_baseline()->set_time_us(30);
  row.mutable_experimental()->set_time_us(45);
  row.mutable_delta()->set_time_us(15);
  row.mutable_baseline()->set_calls(4);
  row.mutable_experimental()->set_calls(8);
  EXPECT_FALSE(CollectiveEvidence(row).significant());
  row.mutable_calls_noise()->set_significant(true);
  const v1::FindingEvidence e = CollectiveEvidence(row);
  EXPECT_TRUE(e.significant());
  EXPECT_EQ(e.table(), v1::EVIDENCE_TABLE_COMMUNICATION);
  EXPECT_EQ(e.name(), "all_reduce");
  EXPECT_EQ(e.path(), "0");
  EXPECT_DOUBLE_EQ(e.delta(), 15);
  EXPECT_DOUBLE_EQ(e.experimental_calls(), 8);

  v1::RankCommunicationDiff rank;
  rank.set_rank(2);
  rank.mutable_baseline()->set_wait_us(5);
  rank.mutable_experimental()->set_wait_us(25);
  rank.mutable_delta()->set_wait_us(20);
  rank.mutable_wait_noise()->set_significant(true);
  const v1::FindingEvidence wait = RankWaitEvidence(rank);
  EXPECT_EQ(wait.name(), "rank 2");
  EXPECT_DOUBLE_EQ(wait.delta(), 20);
  EXPECT_TRUE(wait.significant());
}

}  // namespace
}  // namespace profdiff::differ
