// The replacement rule (differ/findings/replacements.h) on hand-built GPU
// runs: kernels replaced under one operator across precisions and across
// vendors, autocast's casts named with their cost, kernels under other
// operators left apart, and paired kernels not listed again.
#include "differ/findings/replacements.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/differ/findings/finding_fixture.h"

namespace profdiff::differ::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// One module running `kernels` on the GPU, with `ops` in the step.
Rank OneModule(const std::vector<Kernel>& kernels, std::vector<Op> ops = {}) {
  Rank r;
  double device = 0;
  for (const Kernel& k : kernels) device += k.us;
  r.step_us = 100 + device;
  r.gpu_utilization = device / r.step_us;
  r.kernel_us = device;
  Node model{"Model_0", 100};
  model.device_us = device;
  model.kernels = kernels;
  r.modules = {model};
  r.operators = std::move(ops);
  for (Kernel k : kernels) {
    k.op.clear();  // the whole step's table, grouped by name
    r.kernels.push_back(k);
  }
  return r;
}

// Regression for #43: the fp32 GEMMs that bf16 autocast replaced were listed
// as "deleted", without what replaced them.
TEST(ReplacementsTest, KernelsReplacedUnderOneOperatorArePaired) {
  const v1::DiffReport report = Diff(
      Profile("a", OneModule({{"sm80_xmma_gemm_f32f32_tn", "aten::mm", 500},
                              {"Kernel2<cutlass_80_simt_sgemm_256x128>",
                               "aten::mm", 300}},
                             {{"aten::mm", 10, 2, -1, 800}})),
      Profile("b", OneModule({{"nvjet_sm90_tst_256x128_bf16", "aten::mm", 200}},
                             {{"aten::mm", 10, 2, -1, 200},
                              {"aten::_to_copy", 50, 2, -1, 30}})));
  const v1::Finding* f = FirstOf(report, v1::FINDING_KIND_REPLACEMENT);
  ASSERT_NE(f, nullptr) << Texts(report);
  // aten::mm: 500 + 300 us of fp32 kernels gone, 200 us of bf16 came.
  EXPECT_THAT(f->text(),
              HasSubstr("Kernels replaced under the same operator (device "
                        "time per step): aten::mm: fp32 "
                        "sm80_xmma_gemm_f32f32_tn and 1 more, 800 us -> bf16 "
                        "nvjet_sm90_tst_256x128_bf16, 200 us."));
  // The casts autocast added, with their cost (host 50 us, device 30 us).
  EXPECT_THAT(f->text(),
              HasSubstr("Dtype conversions (aten::_to_copy, as autocast adds) "
                        "newly cost +50 us of host time and +30 us of device "
                        "time per step (0 -> 2 calls)."));
  EXPECT_DOUBLE_EQ(f->delta_us(), 200 - 800 + 30);
  // The paired kernels are not listed again as deleted.
  const v1::Finding* kernels = FirstOf(report, v1::FINDING_KIND_KERNEL);
  if (kernels != nullptr) {
    EXPECT_THAT(kernels->text(), Not(HasSubstr("sm80_xmma"))) << Texts(report);
  }
}

// H100 vs MI300: the same operator, another vendor's kernel.
TEST(ReplacementsTest, AnotherVendorsKernelUnderTheSameOperatorIsPaired) {
  const v1::DiffReport report =
      Diff(Profile("a", OneModule({{"cunn_SoftMaxForward<4, float>",
                                    "aten::_softmax", 100}})),
           Profile("b", OneModule({{"cunn_SoftMaxForwardReg<4, float>",
                                    "aten::_softmax", 60}})));
  const v1::Finding* f = FirstOf(report, v1::FINDING_KIND_REPLACEMENT);
  ASSERT_NE(f, nullptr) << Texts(report);
  EXPECT_THAT(f->text(),
              HasSubstr("aten::_softmax: fp32 cunn_SoftMaxForward<4, float>, "
                        "100 us -> fp32 cunn_SoftMaxForwardReg<4, float>, "
                        "60 us"));
}

TEST(ReplacementsTest, KernelsUnderOtherOperatorsAreNotPaired) {
  const v1::DiffReport report =
      Diff(Profile("a", OneModule({{"gemm_a", "aten::mm", 500}})),
           Profile("b", OneModule({{"gemm_b", "aten::addmm", 500}})));
  EXPECT_EQ(FirstOf(report, v1::FINDING_KIND_REPLACEMENT), nullptr)
      << Texts(report);
}

TEST(ReplacementsTest, ARunAgainstItselfReplacesNothing) {
  const Rank r = OneModule({{"gemm_a", "aten::mm", 500}});
  const v1::DiffReport report = Diff(Profile("a", r), Profile("b", r));
  EXPECT_EQ(FirstOf(report, v1::FINDING_KIND_REPLACEMENT), nullptr)
      << Texts(report);
}

TEST(ReplacementsTest, PrecisionIsWhatTheKernelNameSays) {
  EXPECT_EQ(KernelPrecision("sm80_xmma_gemm_f32f32_f32f32_f32_tn"), "fp32");
  EXPECT_EQ(KernelPrecision("cutlass_80_simt_sgemm_256x128"), "fp32");
  EXPECT_EQ(KernelPrecision("reduce_kernel<c10::BFloat16, float>"), "bf16");
  EXPECT_EQ(KernelPrecision("cutlass_80_tensorop_bf16_s16816gemm"), "bf16");
  EXPECT_EQ(KernelPrecision("ampere_fp16_s16816gemm_fp16"), "fp16");
  EXPECT_EQ(KernelPrecision("sm80_xmma_gemm_tf32f32"), "tf32");
  EXPECT_EQ(KernelPrecision("nvjet_sm90_tst_256x128_64x4_1x2_h_bz"), "");
}

}  // namespace
}  // namespace profdiff::differ::testing
