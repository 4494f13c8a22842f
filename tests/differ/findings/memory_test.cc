// Peak memory (differ/findings/memory.h): a peak that moved 10%, where each
// side peaks (with the trace's step id), and who allocates more.
#include "differ/findings/memory.h"

#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/differ/findings/finding_fixture.h"

namespace profdiff::differ::testing {
namespace {

using ::testing::HasSubstr;

TEST(MemoryTest, PeakMemoryThatMovedTenPercent) {
  Rank a = Model(100, 100), b = Model(100, 100);
  a.peak_memory_bytes = 1024.0 * 1024 * 1024;
  b.peak_memory_bytes = 1.5 * 1024 * 1024 * 1024;
  const v1::DiffReport report = Diff(Profile("a", a), Profile("b", b));
  const v1::Finding* memory = FirstOf(report, v1::FINDING_KIND_MEMORY);
  ASSERT_NE(memory, nullptr) << Texts(report);
  EXPECT_EQ(memory->text(), "Peak memory 1.00 GiB -> 1.50 GiB (+50.0%).");
  EXPECT_DOUBLE_EQ(memory->delta_bytes(), 0.5 * 1024 * 1024 * 1024);
  // Memory alone is something that changed: no "no significant change".
  EXPECT_EQ(report.findings(0).kind(), v1::FINDING_KIND_STEP_TIME);
}

TEST(MemoryTest, PeakMemorySaysWhereItIsAndWhoAllocatesMore) {
  Rank a = Model(100, 100), b = Model(100, 100);
  a.peak_memory_bytes = 1 << 20;
  b.peak_memory_bytes = 4 << 20;
  a.peak_operator = "aten::relu";
  b.peak_operator = "aten::addmm";
  b.peak_module = "Model_0/Linear_1";
  a.mm_allocation_bytes = 1 << 20;
  b.mm_allocation_bytes = 3 << 20;
  const v1::DiffReport report = Diff(Profile("a", a), Profile("b", b));
  const v1::Finding* memory = FirstOf(report, v1::FINDING_KIND_MEMORY);
  ASSERT_NE(memory, nullptr) << Texts(report);
  EXPECT_EQ(memory->text(),
            "Peak memory 1.0 MiB -> 4.0 MiB (+300%); on cpu the experimental "
            "peak is in aten::addmm (Linear_1, step 2), and aten::mm allocates "
            "1.0 MiB -> 3.0 MiB per step (+200%), the largest change.");
  // A smaller peak names the baseline's place.
  const v1::DiffReport reversed = Diff(Profile("b", b), Profile("a", a));
  const v1::Finding* smaller = FirstOf(reversed, v1::FINDING_KIND_MEMORY);
  ASSERT_NE(smaller, nullptr);
  EXPECT_THAT(smaller->text(),
              HasSubstr("on cpu the baseline peak is in aten::addmm"));
}

// Regression for #44: the peak's step is the trace's ProfilerStep#N, as the
// steps view prints it, not its index among the kept steps.
TEST(MemoryTest, PeakMemoryPlaceSaysTheTracesStepId) {
  Rank a = Model(100, 100), b = Model(100, 100);
  a.peak_memory_bytes = 1 << 20;
  b.peak_memory_bytes = 4 << 20;
  b.peak_operator = "aten::addmm";
  b.peak_module = "Model_0/Linear_1";
  v1::RunProfile experimental = Profile("b", b);
  // A capture that began at ProfilerStep#6: kept steps 6..9, the peak in the
  // second (index 1), ProfilerStep#7.
  for (v1::WorkerProfile& w : *experimental.mutable_workers()) {
    for (int s = 0; s < w.steps_size(); ++s)
      w.mutable_steps(s)->set_step(6 + s);
    w.mutable_memory(0)->set_peak_step(7);
  }
  const v1::DiffReport report = Diff(Profile("a", a), experimental);
  const v1::Finding* memory = FirstOf(report, v1::FINDING_KIND_MEMORY);
  ASSERT_NE(memory, nullptr) << Texts(report);
  EXPECT_THAT(memory->text(),
              HasSubstr("the experimental peak is in aten::addmm (Linear_1, "
                        "step 7)"));
  // A profile from before the step id was kept says which kept step it was
  // (index 1: the second), never a bare index.
  experimental.mutable_workers(0)->mutable_memory(0)->clear_peak_step();
  const v1::DiffReport old = Diff(Profile("a", a), experimental);
  const v1::Finding* old_memory = FirstOf(old, v1::FINDING_KIND_MEMORY);
  ASSERT_NE(old_memory, nullptr) << Texts(old);
  EXPECT_THAT(old_memory->text(),
              HasSubstr("aten::addmm (Linear_1, kept step 2)"));
}

TEST(MemoryTest, APeakThatMovedLessThanTenPercentIsNotNamed) {
  Rank a = Model(100, 100), b = Model(100, 100);
  a.peak_memory_bytes = 1024.0 * 1024 * 1024;
  b.peak_memory_bytes = 1.05 * 1024 * 1024 * 1024;
  const v1::DiffReport report = Diff(Profile("a", a), Profile("b", b));
  EXPECT_EQ(FirstOf(report, v1::FINDING_KIND_MEMORY), nullptr) << Texts(report);
}

}  // namespace
}  // namespace profdiff::differ::testing
