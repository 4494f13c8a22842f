// The HTML report data's memory part (report/html_report_data.h): each peak's
// place and each curve carry the trace's step ids for the page to print.
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "report/html_report_data.h"

namespace profdiff::client {
namespace {

using report::HtmlReportData;

using ::testing::HasSubstr;

// Regression for #44: the page printed the kept step's index ("step 0") where
// the steps view says ProfilerStep#3.
TEST(HtmlReportMemoryTest, PlacesAndCurvesCarryTheTracesStepIds) {
  v1::DiffReport report;
  v1::DeviceMemoryDiff& d = *report.mutable_memory()->add_devices();
  d.set_device("cuda:0");
  d.set_baseline_peak_bytes(2048);
  d.set_experimental_peak_bytes(1024);
  // Baseline: kept steps ProfilerStep#3 and #4, the peak in #4 (index 1).
  v1::MemoryPeakPlace& a = *d.mutable_baseline_peak();
  a.set_operator_name("aten::mm");
  a.set_step_index(1);
  a.set_step(4);
  v1::MemoryCurve& curve = *d.mutable_baseline_curve();
  for (const int64_t id : {3, 4}) curve.add_step_ids(id);
  // Experimental: a digest from before step ids were kept.
  d.mutable_experimental_peak()->set_operator_name("aten::addmm");
  const std::string data = HtmlReportData(report, nullptr);
  EXPECT_THAT(data, HasSubstr(R"("step":1,"step_id":4,)"));
  EXPECT_THAT(data, HasSubstr(R"("step":0,"step_id":null,)"));
  EXPECT_THAT(data, HasSubstr(R"("step_ids":[3,4])"));
  EXPECT_THAT(data, HasSubstr(R"("step_ids":[])"));
}

}  // namespace
}  // namespace profdiff::client
