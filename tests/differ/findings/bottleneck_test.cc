// The bottleneck rule (differ/findings/bottleneck.h) on hand-built runs: a
// GPU run that became host-bound, one that became device-bound, one that
// became input-bound, and the runs that must get no such claim (a small
// shift, a run against itself, a CPU run, a side without device work).
#include "differ/findings/bottleneck.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/differ/findings/finding_fixture.h"

namespace profdiff::differ::testing {
namespace {

using ::testing::HasSubstr;

Rank Gpu(double step_us, double utilization, double kernel_us) {
  Rank r;
  r.step_us = step_us;
  r.gpu_utilization = utilization;
  r.kernel_us = kernel_us;
  return r;
}

// Regression for #43: fp32 -> bf16 on an H200 made the step longer, because
// the GPU now idles most of it; the first screen must say so.
TEST(BottleneckTest, ARunThatBecameHostBoundSaysSoRightAfterTheHeadline) {
  const v1::DiffReport report = Diff(Profile("a", Gpu(1000, 0.95, 950)),
                                     Profile("b", Gpu(1300, 0.20, 250)));
  ASSERT_GE(report.findings_size(), 2) << Texts(report);
  EXPECT_EQ(report.findings(0).kind(), v1::FINDING_KIND_STEP_TIME);
  const v1::Finding& f = report.findings(1);
  EXPECT_EQ(f.kind(), v1::FINDING_KIND_BOTTLENECK) << Texts(report);
  // Kernel 950 -> 250 us: (250 - 950) / 950 = -73.7%. The GPU idles
  // 1300 * (1 - 0.20) = 1040 us of the step (was 1000 * 0.05 = 50 us).
  EXPECT_EQ(f.text(),
            "The run became host-bound: the GPU is busy 20.0% of the step "
            "(was 95.0%). Kernel time fell 950 us -> 250 us per step "
            "(-73.7%), but the step takes 1.3 ms (was 1.0 ms), paced by the "
            "host: the GPU idles 1.0 ms of it (was 50 us).");
  EXPECT_DOUBLE_EQ(f.delta_us(), 1040 - 50);
  ASSERT_EQ(f.evidence_size(), 3);
  EXPECT_EQ(f.evidence(0).name(), "GPU utilization");
  EXPECT_EQ(f.evidence(1).name(), "Kernel");
  EXPECT_EQ(f.evidence(2).name(), "Average step time");
}

TEST(BottleneckTest, ARunThatBecameDeviceBoundSaysSo) {
  const v1::DiffReport report = Diff(Profile("a", Gpu(1000, 0.30, 300)),
                                     Profile("b", Gpu(1000, 0.90, 900)));
  const v1::Finding* f = FirstOf(report, v1::FINDING_KIND_BOTTLENECK);
  ASSERT_NE(f, nullptr) << Texts(report);
  // Kernel 300 -> 900 us: +200%; the GPU idles 1000 * 0.10 = 100 us (was
  // 700 us).
  EXPECT_THAT(f->text(),
              HasSubstr("The run became device-bound: the GPU is busy 90.0% "
                        "of the step (was 30.0%). Kernel time rose 300 us -> "
                        "900 us per step (+200%) and the step takes 1.0 ms "
                        "(was 1.0 ms), paced by the GPU, which idles 100 us "
                        "of it (was 700 us)."));
}

TEST(BottleneckTest, ARunThatBecameInputBoundSaysSo) {
  Rank a, b;
  a.step_us = 1000;
  b.step_us = 1300;
  b.dataloader_us = 300;
  const v1::DiffReport report = Diff(Profile("a", a), Profile("b", b));
  const v1::Finding* f = FirstOf(report, v1::FINDING_KIND_BOTTLENECK);
  ASSERT_NE(f, nullptr) << Texts(report);
  // 300 of 1300 us = 23.1%, all of the +300 us.
  EXPECT_EQ(f->text(),
            "The run became input-bound: loading data (DataLoader) takes "
            "300 us of the 1.3 ms step (23.1%, was 0.0 us, 0.0%), 100% of the "
            "step-time change.");
  // A CPU run: no claim about a GPU.
  EXPECT_THAT(Texts(report), ::testing::Not(HasSubstr("host-bound")));
}

TEST(BottleneckTest, ASmallShiftIsNoBottleneck) {
  // 95% -> 85%: ten points, under kBottleneckShiftPoints.
  const v1::DiffReport report = Diff(Profile("a", Gpu(1000, 0.95, 950)),
                                     Profile("b", Gpu(1000, 0.85, 850)));
  EXPECT_EQ(FirstOf(report, v1::FINDING_KIND_BOTTLENECK), nullptr)
      << Texts(report);
}

TEST(BottleneckTest, ARunAgainstItselfHasNoBottleneck) {
  const v1::DiffReport report = Diff(Profile("a", Gpu(1000, 0.40, 400)),
                                     Profile("b", Gpu(1000, 0.40, 400)));
  EXPECT_EQ(FirstOf(report, v1::FINDING_KIND_BOTTLENECK), nullptr)
      << Texts(report);
}

// A side without device work, or none on both: no division by zero, no
// host-bound claim.
TEST(BottleneckTest, NoDeviceWorkOnASideIsNoBottleneck) {
  Rank cpu;
  cpu.step_us = 1300;
  for (const auto& [a, b] :
       {std::pair(Gpu(1000, 0.95, 950), cpu),
        std::pair(cpu, Gpu(1000, 0.95, 950)), std::pair(cpu, cpu)}) {
    const v1::DiffReport report = Diff(Profile("a", a), Profile("b", b));
    EXPECT_EQ(FirstOf(report, v1::FINDING_KIND_BOTTLENECK), nullptr)
        << Texts(report);
    EXPECT_THAT(Texts(report), ::testing::Not(HasSubstr("bound")));
  }
}

}  // namespace
}  // namespace profdiff::differ::testing
