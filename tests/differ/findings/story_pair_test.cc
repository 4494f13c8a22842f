// Issue 43's canonical case, read from the real traces: the same Transformer
// on an H200, fp32 against bf16 autocast. Kernel time fell 4x and the step got
// longer: the first two findings are the step time and the host-bound shift,
// and one pairs the fp32 GEMMs with the bf16 nvjet GEMMs that replaced them.
#include <filesystem>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "analysis/run_loader.h"
#include "differ/differ.h"
#include "tests/differ/findings/finding_fixture.h"
#include "tests/support/traces_dir.h"

namespace profdiff::differ::testing {
namespace {

using ::testing::ContainsRegex;
using ::testing::HasSubstr;

TEST(StoryPairTest, TheH200PairIsHostBoundAndItsGemmsWereReplaced) {
  const std::filesystem::path dir = test_support::TracesDir() / "profdiff_h200";
  const std::string a = (dir / "transformer-fp32.pt.trace.json.gz").string();
  const std::string b = (dir / "transformer-bf16.pt.trace.json.gz").string();
  if (!std::filesystem::exists(a) || !std::filesystem::exists(b)) {
    GTEST_SKIP() << "needs the H200 pair in " << dir;
  }
  auto runs = analysis::LoadRuns({{a}, {b}}, {});
  ASSERT_TRUE(runs.ok()) << runs.status();
  absl::StatusOr<v1::DiffReport> report = DiffRuns((*runs)[0], (*runs)[1], {});
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_GE(report->findings_size(), 3) << Texts(*report);
  // The truth from the raw JSON (issue 43): step 24.6 -> 30.7 ms, GPU
  // utilization 97.3% -> 19.0%, kernel time 24.0 -> 5.9 ms.
  EXPECT_EQ(report->findings(0).kind(), v1::FINDING_KIND_STEP_TIME);
  EXPECT_THAT(report->findings(0).text(),
              HasSubstr("Step time 24.6 ms -> 30.7 ms per step"));
  EXPECT_EQ(report->findings(1).kind(), v1::FINDING_KIND_BOTTLENECK);
  EXPECT_THAT(report->findings(1).text(),
              HasSubstr("The run became host-bound: the GPU is busy 19.0% of "
                        "the step (was 97.3%). Kernel time fell 24.0 ms -> "
                        "5.9 ms per step"));
  const v1::Finding* replaced = FirstOf(*report, v1::FINDING_KIND_REPLACEMENT);
  ASSERT_NE(replaced, nullptr) << Texts(*report);
  EXPECT_THAT(replaced->text(), ContainsRegex("aten::mm: fp32 [^;]* -> "
                                              "nvjet_sm90_tst_"));
  EXPECT_THAT(replaced->text(), ContainsRegex("aten::addmm: fp32 [^;]* -> "
                                              "nvjet_sm90_tst_"));
  EXPECT_THAT(replaced->text(), HasSubstr("Dtype conversions (aten::_to_copy"));
  // The fp32 GEMMs are not called "deleted" without what replaced them.
  for (const v1::Finding& f : report->findings()) {
    if (f.kind() == v1::FINDING_KIND_KERNEL) {
      EXPECT_THAT(f.text(), ::testing::Not(HasSubstr("sgemm"))) << f.text();
    }
  }
  // Units: the module's delta is device time, and why it moved against the
  // step is said; CPU Exec is host time while the GPU is idle.
  const v1::Finding* module = FirstOf(*report, v1::FINDING_KIND_MODULE);
  ASSERT_NE(module, nullptr) << Texts(*report);
  EXPECT_THAT(module->text(), HasSubstr("of device time per step"));
  EXPECT_THAT(module->text(), HasSubstr("the step grew nonetheless: the "
                                        "device idles more of it"));
  const v1::Finding* categories = FirstOf(*report, v1::FINDING_KIND_CATEGORY);
  ASSERT_NE(categories, nullptr) << Texts(*report);
  EXPECT_THAT(categories->text(),
              HasSubstr("CPU Exec (host time while the GPU is idle)"));
}

}  // namespace
}  // namespace profdiff::differ::testing
