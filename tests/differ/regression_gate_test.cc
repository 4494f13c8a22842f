// `profdiff diff --fail-on` (differ/regression_gate.h, issue 48): conditions
// parsed or refused naming the problem, and judged only on significant
// changes, on hand-built reports and on the H200 pair.
#include "differ/regression_gate.h"

#include <filesystem>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "analysis/run_loader.h"
#include "differ/differ.h"
#include "tests/support/traces_dir.h"

namespace profdiff::differ {
namespace {

namespace fs = std::filesystem;
using testing::HasSubstr;

std::vector<GateCondition> Parse(const std::string& text) {
  absl::StatusOr<std::vector<GateCondition>> gate = ParseGate({text});
  EXPECT_TRUE(gate.ok()) << gate.status();
  return gate.ok() ? *gate : std::vector<GateCondition>{};
}

TEST(RegressionGateTest, ParsesMetricsOperatorsAndUnits) {
  const std::vector<GateCondition> gate = Parse(
      "step_time>5%, kernel>=+2ms,gpu_utilization<-10pp,memory.peak>+512MiB,"
      "kernel:Kernel2<.*>>10%,operator:aten::mm>1.5s,module:Enc{1,3}<=-3%");
  ASSERT_EQ(gate.size(), 7u);
  EXPECT_EQ(gate[0].metric, v1::OVERVIEW_METRIC_STEP_TIME);
  EXPECT_EQ(gate[0].unit, GateCondition::Unit::kPercent);
  EXPECT_DOUBLE_EQ(gate[0].threshold, 5);
  EXPECT_TRUE(gate[1].inclusive);
  EXPECT_DOUBLE_EQ(gate[1].threshold, 2000);  // us
  EXPECT_FALSE(gate[2].greater);
  EXPECT_EQ(gate[2].unit, GateCondition::Unit::kPoints);
  EXPECT_DOUBLE_EQ(gate[2].threshold, -10);
  EXPECT_EQ(gate[3].subject, GateCondition::Subject::kMemory);
  EXPECT_DOUBLE_EQ(gate[3].threshold, 512.0 * 1024 * 1024);
  // The last comparison is the condition's: the pattern keeps its < and >.
  EXPECT_EQ(gate[4].subject, GateCondition::Subject::kKernel);
  EXPECT_TRUE(gate[4].pattern.Matches("void cutlass::Kernel2<sgemm_nn>(P)"));
  EXPECT_FALSE(gate[4].pattern.Matches("ncclKernel_AllReduce"));
  EXPECT_DOUBLE_EQ(gate[5].threshold, 1.5e6);
  // A comma inside braces is the pattern's.
  EXPECT_EQ(gate[6].subject, GateCondition::Subject::kModule);
  EXPECT_TRUE(gate[6].pattern.Matches("Net_0/Encc_1"));
  EXPECT_TRUE(gate[6].Crosses(-3));
  EXPECT_FALSE(gate[6].Crosses(-2.9));
}

TEST(RegressionGateTest, MalformedConditionsNameTheProblem) {
  const std::pair<std::string, std::string> cases[] = {
      {"step_tme>5%",
       "--fail-on step_tme>5%: unknown metric \"step_tme\"; "
       "known: device_memory"},
      {"step_time=5%", "expected METRIC OP THRESHOLD"},
      {"step_time>", "expected METRIC OP THRESHOLD"},
      {"step_time>5parsecs", "unknown unit \"parsecs\""},
      {"step_time>5MiB", "\"MiB\" does not measure step_time"},
      {"memory.peak>5ms", "\"ms\" does not measure memory.peak"},
      {"gpu_utilization>5", "a fraction's threshold needs % (relative) or pp"},
      {"kernel>5pp", "(pp is for fractions)"},
      {"memory.high>1GiB", "memory.peak, memory.average or memory.reserved"},
      {"kernel:(>5%", "the pattern \"(\" does not compile"},
      {"kernel:>5%", "an empty pattern"},
      {"step_time>5%,,kernel>1ms", "an empty condition"},
      {"device>0", "unknown metric \"device\""},
  };
  for (const auto& [text, expected] : cases) {
    absl::StatusOr<std::vector<GateCondition>> gate = ParseGate({text});
    ASSERT_FALSE(gate.ok()) << text;
    EXPECT_EQ(gate.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(gate.status().message(), HasSubstr(expected)) << text;
    EXPECT_THAT(std::string(gate.status().message()),
                testing::StartsWith("--fail-on "));
  }
}

// A report of two steps a side: step time 100 -> 120 us, significant; the
// kernel time 50 -> 60 us, not significant; an added kernel and one that grew
// past the threshold but did not change significantly.
v1::DiffReport Report() {
  v1::DiffReport r;
  auto row = [&](v1::OverviewMetric metric, double a, double b,
                 bool significant) {
    v1::OverviewRow& o = *r.mutable_overview()->add_rows();
    o.set_metric(metric);
    o.set_unit(v1::VALUE_UNIT_US);
    o.set_baseline(a);
    o.set_experimental(b);
    o.set_delta(b - a);
    o.mutable_noise()->set_has_interval(true);
    o.mutable_noise()->set_significant(significant);
  };
  row(v1::OVERVIEW_METRIC_STEP_TIME, 100, 120, true);
  row(v1::OVERVIEW_METRIC_KERNEL, 50, 60, false);
  auto kernel = [&](const std::string& name, double a, double b,
                    v1::Change change) {
    v1::KernelDiff& k = *r.add_kernels();
    k.set_name(name);
    k.mutable_baseline()->set_total_us(a);
    k.mutable_experimental()->set_total_us(b);
    k.set_change(change);
  };
  kernel("ncclKernel_AllReduce", 10, 30, v1::CHANGE_INCREASED);
  kernel("ncclKernel_Broadcast", 10, 30, v1::CHANGE_UNCHANGED);
  kernel("nvjet_sm90_NNT", 0, 8, v1::CHANGE_ADDED);
  v1::DeviceMemoryDiff& d = *r.mutable_memory()->add_devices();
  d.set_device("cuda:0");
  d.set_baseline_peak_bytes(1 << 30);
  d.set_experimental_peak_bytes((1 << 30) + (600 << 20));
  v1::ModuleDiffNode& root = *r.mutable_modules();
  v1::ModuleDiffNode& encoder = *root.add_children();
  encoder.set_path("Net_0/Encoder_0");
  encoder.set_status(v1::DIFF_STATUS_MATCHED);
  encoder.mutable_baseline()->set_compare_us(40);
  encoder.mutable_experimental()->set_compare_us(30);
  encoder.mutable_noise()->set_has_interval(true);
  encoder.mutable_noise()->set_significant(true);
  return r;
}

TEST(RegressionGateTest, OnlySignificantChangesThatCrossFail) {
  const std::vector<v1::GateResult> results = EvaluateGate(
      Parse("step_time>5%,step_time>25%,kernel>5%,kernel:nccl>50%,"
            "kernel:nvjet>1000%,memory.peak>+512MiB,memory.peak>1GiB,"
            "module:Encoder<-20%,module:Encoder<-30%"),
      Report());
  ASSERT_EQ(results.size(), 9u);
  EXPECT_TRUE(results[0].failed());
  EXPECT_THAT(results[0].crossed(0),
              HasSubstr("Average step time +20.0% (100 us -> 120 us)"));
  EXPECT_FALSE(results[1].failed());  // +20% is under 25%
  EXPECT_FALSE(results[2].failed());  // +20%, but not significant
  // Only the all-reduce changed significantly; the broadcast grew as much.
  ASSERT_TRUE(results[3].failed());
  ASSERT_EQ(results[3].crossed_size(), 1);
  EXPECT_THAT(results[3].crossed(0), HasSubstr("ncclKernel_AllReduce +200%"));
  EXPECT_TRUE(results[4].failed());  // added: +inf%
  EXPECT_TRUE(results[5].failed());  // +600 MiB
  EXPECT_FALSE(results[6].failed());
  EXPECT_TRUE(results[7].failed());  // -25%
  EXPECT_FALSE(results[8].failed());
  EXPECT_TRUE(GateReadsRows(Parse("kernel:x>1%")));
  EXPECT_FALSE(GateReadsRows(Parse("step_time>1%,memory.peak>1GiB")));
}

// The H200 pair: fp32 against bf16 autocast, step time +24.6% (significant);
// the same trace against itself changes nothing.
TEST(RegressionGateTest, TheH200PairFailsAndATraceAgainstItselfPasses) {
  const fs::path dir = test_support::TracesDir() / "profdiff_h200";
  const std::string a = (dir / "transformer-fp32.pt.trace.json.gz").string();
  const std::string b = (dir / "transformer-bf16.pt.trace.json.gz").string();
  if (!fs::exists(a) || !fs::exists(b)) GTEST_SKIP() << "needs " << dir;
  auto runs = analysis::LoadRuns({{a}, {b}}, {});
  ASSERT_TRUE(runs.ok()) << runs.status();
  const std::vector<GateCondition> gate =
      Parse("step_time>5%,gpu_utilization<-10pp,kernel:.*nccl.*>10%");
  absl::StatusOr<v1::DiffReport> pair = DiffRuns((*runs)[0], (*runs)[1], {});
  ASSERT_TRUE(pair.ok()) << pair.status();
  std::vector<v1::GateResult> results = EvaluateGate(gate, *pair);
  EXPECT_TRUE(results[0].failed());
  EXPECT_THAT(results[0].crossed(0), HasSubstr("+24.6%"));
  EXPECT_TRUE(results[1].failed());   // 97.3% -> 19.0%
  EXPECT_FALSE(results[2].failed());  // one GPU: no NCCL kernel
  absl::StatusOr<v1::DiffReport> same = DiffRuns((*runs)[0], (*runs)[0], {});
  ASSERT_TRUE(same.ok()) << same.status();
  for (const v1::GateResult& r : EvaluateGate(gate, *same))
    EXPECT_FALSE(r.failed()) << r.condition();
}

}  // namespace
}  // namespace profdiff::differ
