// The memory diff (differ/memory_diff.h) on digests of hand-built runs: device
// peaks with where each side peaked, operator rows judged on allocation bytes
// and ordered by their change, and runs without memory events.
#include "differ/memory_diff.h"

#include <gtest/gtest.h>

#include "tests/differ/findings/finding_fixture.h"
#include "tests/differ/hand_built_run.h"

namespace profdiff::differ {
namespace {

using testing::DigestOf;
using testing::Model;
using testing::Profile;
using testing::Rank;

// A run peaking at `peak` bytes in aten::mm of Model_0, which allocates
// `mm_bytes` a step.
v1::RunDigest MemoryRun(double peak, double mm_bytes) {
  Rank r = Model(100, 100);
  r.peak_memory_bytes = peak;
  r.peak_operator = "aten::mm";
  r.peak_module = "Model_0";
  r.mm_allocation_bytes = mm_bytes;
  return DigestOf(Profile("m", r));
}

TEST(MemoryDiffTest, DevicePeaksComeWithWhereEachSidePeaked) {
  const v1::RunDigest a = MemoryRun(2048, 1000);
  const v1::RunDigest b = MemoryRun(4096, 1000);
  const v1::MemoryDiff diff = DiffMemory(
      Side(a, v1::NORMALIZATION_PER_STEP, "baseline"),
      Side(b, v1::NORMALIZATION_PER_STEP, "experimental"), ChangeThreshold());
  EXPECT_EQ(diff.baseline_source(), v1::MEMORY_SOURCE_EVENTS);
  EXPECT_EQ(diff.experimental_source(), v1::MEMORY_SOURCE_EVENTS);
  ASSERT_EQ(diff.devices_size(), 1);
  const v1::DeviceMemoryDiff& d = diff.devices(0);
  EXPECT_EQ(d.device(), "cpu");
  EXPECT_DOUBLE_EQ(d.baseline_peak_bytes(), 2048);
  EXPECT_DOUBLE_EQ(d.experimental_peak_bytes(), 4096);
  EXPECT_EQ(d.baseline_peak().operator_name(), "aten::mm");
  EXPECT_EQ(d.experimental_peak().step_index(), 1);
}

TEST(MemoryDiffTest, OperatorRowsAreJudgedOnAllocationBytesPerStep) {
  const v1::RunDigest a = MemoryRun(2048, 1000);
  const v1::RunDigest b = MemoryRun(2048, 3000);
  const v1::MemoryDiff diff = DiffMemory(
      Side(a, v1::NORMALIZATION_PER_STEP, "baseline"),
      Side(b, v1::NORMALIZATION_PER_STEP, "experimental"), ChangeThreshold());
  ASSERT_EQ(diff.operators_size(), 1);
  const v1::MemoryRowDiff& mm = diff.operators(0);
  EXPECT_EQ(mm.name(), "aten::mm");
  EXPECT_EQ(mm.device(), "cpu");
  // The fixture's per-step bytes are whole: within a byte of the nominal.
  EXPECT_NEAR(mm.baseline().allocation_bytes(), 1000, 1);
  EXPECT_NEAR(mm.experimental().allocation_bytes(), 3000, 1);
  EXPECT_DOUBLE_EQ(
      mm.delta().allocation_bytes(),
      mm.experimental().allocation_bytes() - mm.baseline().allocation_bytes());
  EXPECT_NEAR(mm.delta_pct().allocation_bytes(), 200, 0.2);
  EXPECT_DOUBLE_EQ(mm.baseline().allocation_count(), 2);
  EXPECT_EQ(mm.compared(), v1::MEMORY_COMPARED_ALLOCATION_BYTES);
  EXPECT_TRUE(mm.allocation_noise().significant());
  EXPECT_EQ(mm.change(), v1::CHANGE_INCREASED);
  // Bytes are not microseconds: --min-change-us does not hold them back.
  const v1::MemoryDiff strict =
      DiffMemory(Side(a, v1::NORMALIZATION_PER_STEP, "baseline"),
                 Side(b, v1::NORMALIZATION_PER_STEP, "experimental"),
                 ChangeThreshold{.min_pct = 5, .min_abs = 1e9});
  EXPECT_EQ(strict.operators(0).change(), v1::CHANGE_INCREASED);
}

TEST(MemoryDiffTest, AnOperatorThatStoppedAllocatingIsDeleted) {
  const v1::RunDigest a = MemoryRun(2048, 1000);
  const v1::RunDigest b = MemoryRun(2048, 0);
  const v1::MemoryDiff diff = DiffMemory(
      Side(a, v1::NORMALIZATION_PER_STEP, "baseline"),
      Side(b, v1::NORMALIZATION_PER_STEP, "experimental"), ChangeThreshold());
  ASSERT_EQ(diff.operators_size(), 1);
  EXPECT_EQ(diff.operators(0).change(), v1::CHANGE_DELETED);
  EXPECT_DOUBLE_EQ(diff.operators(0).experimental().allocation_bytes(), 0);
}

TEST(MemoryDiffTest, RunsWithoutMemoryEventsHaveNoDevicesOrRows) {
  const v1::RunDigest a = DigestOf(Profile("a", Model(100, 100)));
  const v1::MemoryDiff diff = DiffMemory(
      Side(a, v1::NORMALIZATION_PER_STEP, "baseline"),
      Side(a, v1::NORMALIZATION_PER_STEP, "experimental"), ChangeThreshold());
  EXPECT_EQ(diff.devices_size(), 0);
  EXPECT_EQ(diff.operators_size(), 0);
  EXPECT_EQ(diff.modules_size(), 0);
}

}  // namespace
}  // namespace profdiff::differ
