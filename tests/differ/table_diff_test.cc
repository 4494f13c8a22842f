// Operator and kernel diffs (differ/table_diff.h): deltas, the compared column,
// rows keyed by name and shapes or launching op in first-seen order, values per
// step averaged over ranks, and the change of each row.
#include "differ/table_diff.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/differ/findings/finding_fixture.h"
#include "tests/differ/hand_built_run.h"

namespace profdiff::differ {
namespace {

using testing::DigestOf;
using testing::Profile;
using testing::Rank;

std::vector<std::string> Names(const std::vector<v1::OperatorDiff>& rows) {
  std::vector<std::string> names;
  names.reserve(rows.size());
  for (const v1::OperatorDiff& r : rows) names.push_back(r.name());
  return names;
}

TEST(TableDiffTest, SetDeltasFillsDeltaAndPercentOfEveryColumn) {
  v1::OperatorDiff op;
  op.mutable_baseline()->set_calls(4);
  op.mutable_baseline()->set_host_total_us(200);
  op.mutable_experimental()->set_calls(2);
  op.mutable_experimental()->set_host_total_us(250);
  op.mutable_experimental()->set_device_self_us(7);
  SetDeltas(op);
  EXPECT_DOUBLE_EQ(op.delta().calls(), -2);
  EXPECT_DOUBLE_EQ(op.delta_pct().calls(), -50);
  EXPECT_DOUBLE_EQ(op.delta().host_total_us(), 50);
  EXPECT_DOUBLE_EQ(op.delta_pct().host_total_us(), 25);
  EXPECT_DOUBLE_EQ(op.delta().device_self_us(), 7);
  EXPECT_DOUBLE_EQ(op.delta_pct().device_self_us(), 0);  // from 0

  v1::KernelDiff kernel;
  kernel.mutable_baseline()->set_max_us(10);
  kernel.mutable_experimental()->set_max_us(15);
  SetDeltas(kernel);
  EXPECT_DOUBLE_EQ(kernel.delta().max_us(), 5);
  EXPECT_DOUBLE_EQ(kernel.delta_pct().max_us(), 50);

  v1::MemoryRowDiff memory;
  memory.mutable_baseline()->set_allocation_bytes(1024);
  memory.mutable_experimental()->set_allocation_bytes(512);
  SetDeltas(memory);
  EXPECT_DOUBLE_EQ(memory.delta().allocation_bytes(), -512);
  EXPECT_DOUBLE_EQ(memory.delta_pct().allocation_bytes(), -50);
}

TEST(TableDiffTest, DeviceTimeIsComparedWhereEitherSideHasAny) {
  v1::OperatorValues host, device;
  host.set_host_total_us(100);
  device.set_device_total_us(0.5);
  EXPECT_EQ(ComparedOperatorColumn(host, host),
            v1::OPERATOR_COMPARED_HOST_TOTAL_US);
  EXPECT_EQ(ComparedOperatorColumn(host, device),
            v1::OPERATOR_COMPARED_DEVICE_TOTAL_US);
  EXPECT_EQ(ComparedOperatorColumn(device, host),
            v1::OPERATOR_COMPARED_DEVICE_TOTAL_US);
}

TEST(TableDiffTest, OperatorRowsInFirstSeenOrderWithTheirChange) {
  Rank a, b;
  a.operators = {{"aten::mm", 100}, {"aten::relu", 10}, {"aten::copy_", 50}};
  b.operators = {{"aten::add", 30}, {"aten::mm", 200}, {"aten::copy_", 50}};
  const v1::RunDigest da = DigestOf(Profile("a", a));
  const v1::RunDigest db = DigestOf(Profile("b", b));
  const Side sa(da, v1::NORMALIZATION_PER_STEP, "baseline");
  const Side sb(db, v1::NORMALIZATION_PER_STEP, "experimental");
  const std::vector<v1::OperatorDiff> rows = DiffOperators(
      sa, &da.operators(), sb, &db.operators(), ChangeThreshold());
  ASSERT_EQ(Names(rows),
            (std::vector<std::string>{"aten::mm", "aten::relu", "aten::copy_",
                                      "aten::add"}));
  const v1::OperatorDiff& mm = rows[0];
  EXPECT_NEAR(mm.baseline().host_total_us(), 100, 1e-9);
  EXPECT_NEAR(mm.experimental().host_total_us(), 200, 1e-9);
  EXPECT_NEAR(mm.delta_pct().host_total_us(), 100, 1e-9);
  EXPECT_DOUBLE_EQ(mm.baseline().calls(), 1);
  EXPECT_EQ(mm.compared(), v1::OPERATOR_COMPARED_HOST_TOTAL_US);
  EXPECT_TRUE(mm.noise().significant());
  EXPECT_EQ(mm.change(), v1::CHANGE_INCREASED);
  EXPECT_EQ(rows[1].change(), v1::CHANGE_DELETED);
  EXPECT_EQ(rows[2].change(), v1::CHANGE_UNCHANGED);
  EXPECT_EQ(rows[3].change(), v1::CHANGE_ADDED);
  EXPECT_DOUBLE_EQ(rows[3].baseline().host_total_us(), 0);
}

TEST(TableDiffTest, ATableOnlyOneSideHasMakesEveryRowOneSided) {
  Rank a;
  a.operators = {{"aten::mm", 100}};
  const v1::RunDigest da = DigestOf(Profile("a", a));
  const Side side(da, v1::NORMALIZATION_PER_STEP, "baseline");
  const std::vector<v1::OperatorDiff> gone =
      DiffOperators(side, &da.operators(), side, nullptr, ChangeThreshold());
  ASSERT_EQ(gone.size(), 1u);
  EXPECT_EQ(gone[0].change(), v1::CHANGE_DELETED);
  const std::vector<v1::OperatorDiff> added =
      DiffOperators(side, nullptr, side, &da.operators(), ChangeThreshold());
  ASSERT_EQ(added.size(), 1u);
  EXPECT_EQ(added[0].change(), v1::CHANGE_ADDED);
  EXPECT_TRUE(
      DiffOperators(side, nullptr, side, nullptr, ChangeThreshold()).empty());
}

TEST(TableDiffTest, RanksAreAveragedAndTotalsScaleWithSteps) {
  Rank r0, r1;
  r0.operators = {{"aten::mm", 100, 2}};
  r1.operators = {{"aten::mm", 300, 2}};
  const v1::RunDigest d = DigestOf(Profile("r", std::vector<Rank>{r0, r1}));
  const Side per_step(d, v1::NORMALIZATION_PER_STEP, "baseline");
  const Side total(d, v1::NORMALIZATION_TOTAL, "experimental");
  const std::vector<v1::OperatorDiff> rows = DiffOperators(
      per_step, &d.operators(), total, &d.operators(), ChangeThreshold());
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_NEAR(rows[0].baseline().host_self_us(), 200, 1e-9);
  EXPECT_DOUBLE_EQ(rows[0].baseline().calls(), 2);
  EXPECT_NEAR(rows[0].experimental().host_self_us(), 200 * testing::kSteps,
              1e-9);
  EXPECT_DOUBLE_EQ(rows[0].experimental().calls(), 2 * testing::kSteps);
}

TEST(TableDiffTest, KernelsAreKeyedByNameAndLaunchingOperator) {
  Rank a, b;
  a.kernels = {{"gemm", "aten::mm", 40, 2}, {"gemm", "aten::addmm", 10, 1}};
  b.kernels = {{"gemm", "aten::mm", 40, 2}, {"gemm", "aten::addmm", 30, 1}};
  const v1::RunDigest da = DigestOf(Profile("a", a));
  const v1::RunDigest db = DigestOf(Profile("b", b));
  const Side sa(da, v1::NORMALIZATION_PER_STEP, "baseline");
  const Side sb(db, v1::NORMALIZATION_PER_STEP, "experimental");
  const std::vector<v1::KernelDiff> rows =
      DiffKernels(sa, &da.kernels(), sb, &db.kernels(), ChangeThreshold());
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].op_name(), "aten::mm");
  EXPECT_NEAR(rows[0].baseline().total_us(), 40, 1e-9);
  EXPECT_DOUBLE_EQ(rows[0].baseline().calls(), 2);
  EXPECT_NEAR(rows[0].baseline().mean_us(), 20, 1e-9);
  EXPECT_DOUBLE_EQ(rows[0].baseline().max_us(), 20);
  EXPECT_EQ(rows[0].change(), v1::CHANGE_UNCHANGED);
  EXPECT_EQ(rows[1].op_name(), "aten::addmm");
  EXPECT_NEAR(rows[1].delta().total_us(), 20, 1e-9);
  EXPECT_EQ(rows[1].change(), v1::CHANGE_INCREASED);
}

}  // namespace
}  // namespace profdiff::differ
