// The material-kernel rule (differ/findings/material_kernels.h): a matched
// kernel that got longer and carries a material share of the step's change
// gets a finding of its own when no other finding names it.
#include "differ/findings/material_kernels.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/differ/findings/finding_fixture.h"

namespace profdiff::differ::testing {
namespace {

using ::testing::HasSubstr;

// A GPU step whose GEMM runs `gemm_us` per step in 4 calls, outside the
// modules' kernel tables (the walk goes into Model_0 for its host change).
Rank GemmStep(double gemm_us, double model_host_us) {
  Rank r;
  r.gpu_utilization = 0.9;
  r.kernel_us = gemm_us;
  r.step_us = gemm_us / 0.9;
  r.modules = {Node{"Model_0", model_host_us}};
  r.kernels = {{"ampere_sgemm_128x64_tn", "", gemm_us, 4},
               {"elementwise_kernel", "", 100, 8}};
  return r;
}

// Regression for #43: matched GEMMs longer at a larger batch carried most of
// the step's change and got no finding.
TEST(MaterialKernelsTest, AMatchedKernelThatCarriesTheChangeIsNamed) {
  const v1::DiffReport report =
      Diff(Profile("a", GemmStep(900, 100)), Profile("b", GemmStep(1800, 100)));
  const v1::Finding* f = nullptr;
  for (const v1::Finding& finding : report.findings()) {
    if (finding.kind() == v1::FINDING_KIND_KERNEL &&
        finding.text().starts_with("Kernel ")) {
      f = &finding;
    }
  }
  ASSERT_NE(f, nullptr) << Texts(report);
  // 900 -> 1800 us of the step's 1000 -> 2000 us: 90% of its change; 4 calls
  // of 225 us -> 450 us.
  EXPECT_EQ(f->text(),
            "Kernel ampere_sgemm_128x64_tn took 900 us -> 1.8 ms of device "
            "time per step (+900 us, +100%), 90% of the step-time change; "
            "4 -> 4 calls of 225 us -> 450 us each.");
}

TEST(MaterialKernelsTest, ASmallKernelChangeIsNotNamed) {
  Rank a = GemmStep(900, 100), b = GemmStep(900, 100);
  b.kernels[1].us = 150;  // +50 us of a +50 us step... under kMaterialShare?
  b.step_us += 500;       // the step grew 500 us: 50 us is 10% of it
  const v1::DiffReport report = Diff(Profile("a", a), Profile("b", b));
  for (const v1::Finding& f : report.findings()) {
    EXPECT_FALSE(f.text().starts_with("Kernel elementwise")) << Texts(report);
  }
}

}  // namespace
}  // namespace profdiff::differ::testing
