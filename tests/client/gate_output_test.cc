// `diff --fail-on` output (client/gate_output.h): the gate's text, the error a
// failed gate returns with the output it still prints, and reading that output
// back.
#include "client/gate_output.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace profdiff::client {
namespace {

using Gate = google::protobuf::RepeatedPtrField<v1::GateResult>;

Gate TwoConditions() {
  Gate gate;
  v1::GateResult& step = *gate.Add();
  step.set_condition("step_time>5%");
  step.set_failed(true);
  step.add_crossed("Average step time +24.6% (24.6 ms -> 30.7 ms)");
  step.add_crossed("Kernel +30.0% (10.0 ms -> 13.0 ms)");
  v1::GateResult& memory = *gate.Add();
  memory.set_condition("peak_memory>10%");
  return gate;
}

TEST(GateOutputTest, TextSaysWhatFailedAndWhatCrossedIt) {
  EXPECT_EQ(GateText(TwoConditions(), 0),
            "Gate (--fail-on): FAILED, 1 of 2 conditions\n"
            "  FAILED  step_time>5%\n"
            "          - Average step time +24.6% (24.6 ms -> 30.7 ms)\n"
            "          - Kernel +30.0% (10.0 ms -> 13.0 ms)\n"
            "  passed  peak_memory>10%: no significant change crosses it\n");
}

TEST(GateOutputTest, APassedGateAndNoGate) {
  Gate gate;
  gate.Add()->set_condition("kernel>1ms");
  EXPECT_EQ(GateText(gate, 0),
            "Gate (--fail-on): passed\n"
            "  passed  kernel>1ms: no significant change crosses it\n");
  EXPECT_EQ(GateText(Gate(), 80), "");
  gate.Mutable(0)->set_failed(true);
  EXPECT_EQ(GateText(gate, 0),
            "Gate (--fail-on): FAILED, 1 of 1 condition\n"
            "  FAILED  kernel>1ms\n");
}

TEST(GateOutputTest, LinesWrapUnderTheirLabel) {
  const std::string text = GateText(TwoConditions(), 40);
  EXPECT_THAT(text,
              ::testing::HasSubstr("          - Average step time +24.6%\n"
                                   "            (24.6 ms -> 30.7 ms)\n"));
  EXPECT_THAT(
      text, ::testing::HasSubstr("  passed  peak_memory>10%: no\n"
                                 "          significant change crosses it\n"));
}

TEST(GateOutputTest, FailedErrorNamesTheConditionsAndCarriesTheOutput) {
  const absl::Status status = GateFailedError("the report\n", TwoConditions());
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(status.message(),
            "--fail-on: the gate failed: step_time>5% (Average step time "
            "+24.6% (24.6 ms -> 30.7 ms))");
  EXPECT_EQ(GateFailedOutput(status), "the report\n");
}

TEST(GateOutputTest, OtherStatusesCarryNoGateOutput) {
  EXPECT_EQ(GateFailedOutput(absl::OkStatus()), std::nullopt);
  EXPECT_EQ(GateFailedOutput(
                absl::FailedPreconditionError("--fail-on: the gate failed: x")),
            std::nullopt);
  // An empty output is still an output.
  EXPECT_EQ(GateFailedOutput(GateFailedError("", TwoConditions())), "");
}

}  // namespace
}  // namespace profdiff::client
