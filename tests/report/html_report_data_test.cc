// The HTML report's data (report/html_report_data.h): one JSON document with
// both sides, the warnings, the other grouping's tables when given, sections
// only where a side has them, and the memory part's step ids.
#include "report/html_report_data.h"

#include <string>
#include <string_view>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <simdjson.h>

namespace profdiff::client {
namespace {

using report::HtmlReportData;

using ::testing::HasSubstr;
using ::testing::Not;

// `data` parsed; a test failure when it is not one JSON object.
simdjson::dom::object Parsed(simdjson::dom::parser& parser,
                             const std::string& data) {
  simdjson::dom::object object;
  const simdjson::error_code error = parser.parse(data).get(object);
  EXPECT_EQ(error, simdjson::SUCCESS) << data.substr(0, 200);
  return object;
}

TEST(HtmlReportDataTest, AnEmptyReportIsOneJsonObjectWithoutOptionalParts) {
  const std::string data = HtmlReportData(v1::DiffReport(), nullptr);
  simdjson::dom::parser parser;
  simdjson::dom::object object = Parsed(parser, data);
  for (const char* key : {"layout", "baseline", "experimental", "warnings",
                          "findings", "overview", "ranks", "tables"}) {
    EXPECT_EQ(object[key].error(), simdjson::SUCCESS) << key;
  }
  // The groupings a module node's tables keep, for the page's columns.
  std::string_view node_operators, node_kernels;
  ASSERT_EQ(object["node_operator_grouping"].get(node_operators),
            simdjson::SUCCESS);
  ASSERT_EQ(object["node_kernel_grouping"].get(node_kernels),
            simdjson::SUCCESS);
  EXPECT_EQ(node_operators, "GROUPING_NAME");
  EXPECT_EQ(node_kernels, "GROUPING_NAME_AND_OP");
  for (const char* key : {"other_tables", "other_operator_grouping",
                          "communication", "memory", "modules"}) {
    EXPECT_EQ(object[key].error(), simdjson::NO_SUCH_FIELD) << key;
  }
}

TEST(HtmlReportDataTest, WarningsKeepTheirOrderAndTextsAreJsonStrings) {
  v1::DiffReport report;
  report.add_warnings("first \"quoted\"");
  report.add_warnings("second\nline");
  const std::string data = HtmlReportData(report, nullptr);
  simdjson::dom::parser parser;
  simdjson::dom::array warnings;
  ASSERT_EQ(Parsed(parser, data)["warnings"].get(warnings), simdjson::SUCCESS);
  std::vector<std::string> texts;
  for (simdjson::dom::element w : warnings) {
    std::string_view text;
    ASSERT_EQ(w.get(text), simdjson::SUCCESS);
    texts.emplace_back(text);
  }
  EXPECT_EQ(texts,
            (std::vector<std::string>{"first \"quoted\"", "second\nline"}));
}

TEST(HtmlReportDataTest, TheOtherGroupingNamesItsGroupingsAndCarriesItsTables) {
  v1::DiffReport report, other;
  other.mutable_baseline()->set_operator_grouping(v1::GROUPING_NAME_AND_SHAPE);
  other.mutable_baseline()->set_kernel_grouping(v1::GROUPING_NAME_AND_OP);
  const std::string data = HtmlReportData(report, &other);
  EXPECT_THAT(
      data,
      HasSubstr(R"("other_operator_grouping":"GROUPING_NAME_AND_SHAPE")"));
  EXPECT_THAT(data,
              HasSubstr(R"("other_kernel_grouping":"GROUPING_NAME_AND_OP")"));
  simdjson::dom::parser parser;
  EXPECT_EQ(Parsed(parser, data)["other_tables"].error(), simdjson::SUCCESS);
  EXPECT_THAT(HtmlReportData(report, nullptr),
              Not(HasSubstr("other_operator_grouping")));
}

// A module node's tables in the other grouping ("u") are written only where
// they differ from its own ("t"): three nodes, the other grouping's tables the
// same, different, and none.
TEST(HtmlReportDataTest, TheOtherGroupingsNodeTablesAreWrittenWhereTheyDiffer) {
  v1::DiffReport report;
  v1::ModuleDiffNode& root = *report.mutable_modules();
  root.set_kind(v1::MODULE_NODE_KIND_ROOT);
  for (const char* name : {"Same_0", "Differs_1", "NoneOther_2"}) {
    v1::ModuleDiffNode& node = *root.add_children();
    node.set_name(name);
    node.set_path(name);
    node.add_operators()->set_name("aten::mm");
  }
  v1::DiffReport other = report;
  other.mutable_modules()->mutable_children(1)->mutable_operators(0)->set_name(
      "aten::addmm");
  other.mutable_modules()->mutable_children(2)->clear_operators();
  const std::string data = HtmlReportData(report, &other);
  simdjson::dom::parser parser;
  simdjson::dom::array children;
  ASSERT_EQ(Parsed(parser, data)["modules"]["c"].get(children),
            simdjson::SUCCESS);
  ASSERT_EQ(children.size(), 3u);
  EXPECT_EQ(children.at(0)["u"].error(), simdjson::NO_SUCH_FIELD);
  simdjson::dom::array tables;
  ASSERT_EQ(children.at(1)["u"].get(tables), simdjson::SUCCESS);
  EXPECT_EQ(children.at(2)["u"].is_null(), true);
  for (size_t c = 0; c < 3; ++c)
    EXPECT_EQ(children.at(c)["t"].error(), simdjson::SUCCESS) << c;
  // The name only the other grouping has is in the string table.
  EXPECT_THAT(data, HasSubstr(R"("aten::addmm")"));
}

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
