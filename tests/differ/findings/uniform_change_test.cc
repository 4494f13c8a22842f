// The uniform-change rule (differ/findings/uniform_change.h): a run against
// itself with every duration scaled, hand-built and from a real GPU trace,
// says "a machine or clock difference" first and blames no module; a real
// code change does not.
#include "differ/findings/uniform_change.h"

#include <filesystem>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "analysis/worker_profile.h"
#include "differ/differ.h"
#include "tests/differ/findings/finding_fixture.h"
#include "tests/support/traces_dir.h"
#include "trace/kineto_reader.h"

namespace profdiff::differ::testing {
namespace {

using ::testing::HasSubstr;

// A model with six operators in two modules, every time scaled by `factor`.
Rank Scaled(double factor, double mm_factor = -1) {
  if (mm_factor < 0) mm_factor = factor;
  Rank r;
  const std::vector<Op> ops = {
      {"aten::mm", 300 * mm_factor, 2},  {"aten::addmm", 200 * factor, 2},
      {"aten::relu", 100 * factor, 2},   {"aten::add", 80 * factor, 4},
      {"aten::softmax", 60 * factor, 1}, {"aten::sum", 40 * factor, 1}};
  r.operators = ops;
  const double encoder = 300 * mm_factor + 300 * factor;
  r.modules = {Node{"Encoder_0", encoder, {}, {ops[0], ops[1], ops[2]}},
               Node{"Head_0", 180 * factor, {}, {ops[3], ops[4], ops[5]}}};
  r.step_us = encoder + 200 * factor;
  return r;
}

// Regression for #43: every operator 19-34% slower on the same code was
// blamed on the largest operator.
TEST(UniformChangeTest, EveryDurationScaledIsAMachineDifference) {
  const v1::DiffReport report =
      Diff(Profile("a", Scaled(1)), Profile("b", Scaled(1.25)));
  ASSERT_GE(report.findings_size(), 2) << Texts(report);
  const v1::Finding& f = report.findings(1);
  EXPECT_EQ(f.kind(), v1::FINDING_KIND_UNIFORM) << Texts(report);
  EXPECT_THAT(f.text(),
              HasSubstr("Every operator is slower by a similar factor, about "
                        "1.25x the time: operators holding 95% of the "
                        "baseline's time "
                        "changed by 1.25x to 1.25x, with the same calls. That "
                        "is a machine or clock difference"));
  // The five largest of six operators are judged (90% of the time): 740 of
  // 780 us.
  // No module or operator is blamed for it.
  EXPECT_EQ(FirstOf(report, v1::FINDING_KIND_MODULE), nullptr) << Texts(report);
  EXPECT_EQ(FirstOf(report, v1::FINDING_KIND_OPERATOR), nullptr)
      << Texts(report);
  // Faster alike.
  const v1::DiffReport faster =
      Diff(Profile("a", Scaled(1)), Profile("b", Scaled(0.8)));
  const v1::Finding* fast = FirstOf(faster, v1::FINDING_KIND_UNIFORM);
  ASSERT_NE(fast, nullptr) << Texts(faster);
  EXPECT_THAT(fast->text(),
              HasSubstr("faster by a similar factor, about 0.80x the time:"));
  // Far faster reads as a speed-up too.
  const v1::DiffReport far =
      Diff(Profile("a", Scaled(1)), Profile("b", Scaled(0.04)));
  const v1::Finding* fastest = FirstOf(far, v1::FINDING_KIND_UNIFORM);
  ASSERT_NE(fastest, nullptr) << Texts(far);
  EXPECT_THAT(fastest->text(), HasSubstr("about 0.04x the time (25x faster):"));
}

// Found running the precision workload (fp32 -> autocast bf16 on the CPU):
// every large operator 27x faster and, in small operators, autocast's calls
// (aten::linear 3 -> 6 per step, aten::_to_copy 6 -> 21). A machine does not
// change how often code calls an operator: that is a code change.
TEST(UniformChangeTest, OperatorsCalledMoreOftenAreACodeChange) {
  Rank a = Scaled(1), b = Scaled(0.04);
  a.operators.push_back({"aten::_to_copy", 1, 6});
  b.operators.push_back({"aten::_to_copy", 0.1, 21});
  const v1::DiffReport report = Diff(Profile("a", a), Profile("b", b));
  EXPECT_EQ(FirstOf(report, v1::FINDING_KIND_UNIFORM), nullptr)
      << Texts(report);
  // Less than a call per step more is not a code change (a data loader's
  // odd batch).
  Rank c = Scaled(0.04);
  c.operators.push_back({"aten::_to_copy", 0.04, 6.5});
  const v1::DiffReport noise = Diff(Profile("a", a), Profile("c", c));
  EXPECT_NE(FirstOf(noise, v1::FINDING_KIND_UNIFORM), nullptr) << Texts(noise);
}

TEST(UniformChangeTest, OneOperatorThatChangedIsACodeChange) {
  // aten::mm 3x slower, the rest the same.
  const v1::DiffReport report =
      Diff(Profile("a", Scaled(1)), Profile("b", Scaled(1, 3)));
  EXPECT_EQ(FirstOf(report, v1::FINDING_KIND_UNIFORM), nullptr)
      << Texts(report);
  EXPECT_NE(FirstOf(report, v1::FINDING_KIND_OPERATOR), nullptr)
      << Texts(report);
}

TEST(UniformChangeTest, ARunAgainstItselfIsNoChange) {
  const v1::DiffReport report =
      Diff(Profile("a", Scaled(1)), Profile("b", Scaled(1)));
  EXPECT_EQ(FirstOf(report, v1::FINDING_KIND_UNIFORM), nullptr)
      << Texts(report);
}

// Every event of a real H200 trace 1.25x as long (and as far apart).
TEST(UniformChangeTest, ARealTraceWithEveryDurationScaledIsAMachineDifference) {
  const std::filesystem::path path =
      test_support::TracesDir() /
      "profdiff_h200/transformer-fp32.pt.trace.json.gz";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "needs " << path;
  trace::KinetoReader reader;
  absl::StatusOr<trace::Trace> trace = reader.ReadFile(path.string());
  ASSERT_TRUE(trace.ok()) << trace.status();
  absl::StatusOr<trace::Trace> scaled = reader.ReadFile(path.string());
  ASSERT_TRUE(scaled.ok()) << scaled.status();
  for (size_t i = 0; i < scaled->events.size(); ++i) {
    scaled->events.start_ns[i] = scaled->events.start_ns[i] * 5 / 4;
    scaled->events.duration_ns[i] = scaled->events.duration_ns[i] * 5 / 4;
  }
  v1::RunProfile a, b;
  *a.add_workers() = analysis::BuildWorkerProfile(
      *trace, {.run = "a", .worker_name = "w"}, {});
  *b.add_workers() = analysis::BuildWorkerProfile(
      *scaled, {.run = "b", .worker_name = "w"}, {});
  a.set_run("a");
  b.set_run("b");
  const v1::DiffReport report = Diff(a, b);
  ASSERT_GE(report.findings_size(), 2) << Texts(report);
  EXPECT_EQ(report.findings(1).kind(), v1::FINDING_KIND_UNIFORM)
      << Texts(report);
  EXPECT_THAT(report.findings(1).text(),
              HasSubstr("slower by a similar factor, about 1.25x the time"));
  EXPECT_EQ(FirstOf(report, v1::FINDING_KIND_BOTTLENECK), nullptr)
      << Texts(report);
}

}  // namespace
}  // namespace profdiff::differ::testing
