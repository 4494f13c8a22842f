// JSON output (client/json_output.h): diff enums as their display texts and
// read back, the streamed text equal to the whole one, write failures, and
// what FromJson refuses.
#include "client/json_output.h"

#include <cstdio>
#include <set>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "differ/display_text.h"
#include "profdiff/v1/diff.pb.h"
#include "profdiff/v1/profile.pb.h"

namespace profdiff::client {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

TEST(JsonOutputTest, WritesEveryDiffEnumAsItsDisplayTextAndReadsItBack) {
  const google::protobuf::EnumDescriptor* enums[] = {
      v1::DiffStatus_descriptor(),     v1::Change_descriptor(),
      v1::ModuleCompared_descriptor(), v1::OperatorCompared_descriptor(),
      v1::OverviewMetric_descriptor(), v1::HtaChange_descriptor(),
      v1::FindingKind_descriptor(),    v1::EvidenceTable_descriptor()};
  for (const google::protobuf::EnumDescriptor* type : enums) {
    SCOPED_TRACE(type->name());
    EXPECT_TRUE(differ::HasDisplayText(*type));
    std::set<std::string> texts;
    for (int i = 0; i < type->value_count(); ++i) {
      const std::string& text =
          differ::DisplayText(*type, type->value(i)->number());
      if (type->value(i)->number() == 0) {
        EXPECT_EQ(text, "") << type->value(i)->name();
      } else {
        EXPECT_NE(text, "") << type->value(i)->name();
        EXPECT_TRUE(texts.insert(text).second) << text << " twice";
      }
    }
  }
  EXPECT_FALSE(differ::HasDisplayText(*v1::DiffView_descriptor()));

  v1::DiffReport report;
  report.mutable_options()->add_views(v1::DIFF_VIEW_KERNELS);
  for (int m = 0; m < v1::OverviewMetric_descriptor()->value_count(); ++m) {
    report.mutable_overview()->add_rows()->set_metric(
        static_cast<v1::OverviewMetric>(
            v1::OverviewMetric_descriptor()->value(m)->number()));
  }
  report.mutable_modules()->set_status(v1::DIFF_STATUS_UNKNOWN);
  report.mutable_modules()->set_compared(v1::MODULE_COMPARED_DEVICE_US);
  v1::OperatorDiff& op = *report.add_operators();
  op.set_change(v1::CHANGE_UNCHANGED);
  op.set_compared(v1::OPERATOR_COMPARED_DEVICE_TOTAL_US);
  report.add_kernels()->set_change(v1::CHANGE_ADDED);
  report.add_hta_rows()->set_change(v1::HTA_CHANGE_SAME);
  v1::Finding& finding = *report.add_findings();
  finding.set_kind(v1::FINDING_KIND_STEP_TIME);
  finding.add_evidence()->set_table(v1::EVIDENCE_TABLE_MODULES);
  absl::StatusOr<std::string> json = ToJson(report);
  ASSERT_TRUE(json.ok()) << json.status();
  for (const char* text :
       {"\"metric\": \"\"", "\"metric\": \"Est. SM efficiency\"",
        "\"status\": \"unknown\"", "\"compared\": \"device_us\"",
        "\"change\": \"unchanged\"", "\"compared\": \"device_total_us\"",
        "\"change\": \"added\"", "\"change\": \"=\"", "\"kind\": \"step_time\"",
        "\"table\": \"modules\"", "\"DIFF_VIEW_KERNELS\""}) {
    EXPECT_THAT(*json, HasSubstr(text));
  }
  v1::DiffReport read;
  ASSERT_TRUE(FromJson(*json, read).ok());
  EXPECT_EQ(read.SerializeAsString(), report.SerializeAsString());
  EXPECT_EQ(FromJson(R"({"operators": [{"change": "bigger"}]})", read).code(),
            absl::StatusCode::kInvalidArgument);
}

// What StreamJson writes to a temporary file.
std::string Streamed(const google::protobuf::Message& message) {
  std::FILE* file = std::tmpfile();
  EXPECT_NE(file, nullptr);
  if (file == nullptr) return "";
  const absl::Status status = StreamJson(message, file);
  EXPECT_TRUE(status.ok()) << status;
  std::rewind(file);
  std::string text;
  char buffer[4096];
  for (size_t n; (n = std::fread(buffer, 1, sizeof buffer, file)) > 0;)
    text.append(buffer, n);
  std::fclose(file);
  return text;
}

TEST(JsonOutputTest, StreamedTextIsTheWholeText) {
  v1::RunProfile run;
  run.set_run("r");
  for (int i = 0; i < 3000; ++i) {  // more than one 64 KiB piece
    v1::OperatorStats& op = *run.add_workers()->add_operators();
    op.set_name("aten::op_" + std::to_string(i));
    op.set_host_total_us(i * 1.5);
  }
  const absl::StatusOr<std::string> whole = ToJson(run);
  ASSERT_TRUE(whole.ok()) << whole.status();
  ASSERT_GT(whole->size(), 64u * 1024);
  EXPECT_EQ(Streamed(run), *whole);
  EXPECT_EQ(ToJsonWithProtobuf(run).value(), *whole);
}

TEST(JsonOutputTest, AFailedWriteIsUnavailable) {
  std::FILE* full = std::fopen("/dev/full", "w");
  if (full == nullptr) GTEST_SKIP() << "no /dev/full";
  v1::DiffReport report;
  report.mutable_baseline()->set_run("a");
  const absl::Status status = StreamJson(report, full);
  std::fclose(full);
  EXPECT_EQ(status.code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(status.message(), StartsWith("JSON output: write: "));
}

TEST(JsonOutputTest, FromJsonNamesTheTypeAndWhatWasWrong) {
  v1::DiffReport report;
  const absl::Status unknown = FromJson(R"({"no_such_field": 1})", report);
  EXPECT_EQ(unknown.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(unknown.message(), StartsWith("JSON profdiff.v1.DiffReport: "));
  EXPECT_THAT(unknown.message(), HasSubstr("no_such_field"));
  EXPECT_EQ(FromJson("{", report).code(), absl::StatusCode::kInvalidArgument);
  // Proto3 JSON: an enum's number reads as well as its display text.
  const absl::Status read =
      FromJson(R"({"baseline": {"run": "a"}, "overview": {"rows": [)"
               R"({"metric": 10}, {"metric": "Kernel"}]}})",
               report);
  ASSERT_TRUE(read.ok()) << read;
  EXPECT_EQ(report.baseline().run(), "a");
  EXPECT_EQ(report.overview().rows(0).metric(), v1::OVERVIEW_METRIC_STEP_TIME);
  EXPECT_EQ(report.overview().rows(1).metric(), v1::OVERVIEW_METRIC_KERNEL);
}

}  // namespace
}  // namespace profdiff::client
