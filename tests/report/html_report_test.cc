// The HTML report's page and data: self-contained, no name can break out of the
// data element, and the data carries every node and row of the reports it was
// made from.
#include "report/html_report.h"

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>
#include <simdjson.h>

#include "analysis/run_loader.h"
#include "client/diff_command.h"
#include "differ/differ.h"
#include "report/html_report_data.h"
#include "tests/support/traces_dir.h"

namespace profdiff::client {
namespace {

using report::HtmlReportData;
using report::RenderHtmlReport;

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos;
       at = text.find(what, at + 1))
    ++n;
  return n;
}

// The JSON between the data element's tags.
std::string DataOf(const std::string& page) {
  const std::string open =
      R"(<script id="profdiff-data" type="application/json">)";
  const size_t begin = page.find(open);
  EXPECT_NE(begin, std::string::npos);
  const size_t end = page.find("</script>", begin);
  return page.substr(begin + open.size(), end - begin - open.size());
}

v1::DiffReport HostileReport() {
  v1::DiffReport report;
  report.mutable_baseline()->set_run("</script><script>alert(1)</script>");
  report.mutable_experimental()->set_run("b\"\\\n<!--");
  v1::ModuleDiffNode& root = *report.mutable_modules();
  root.set_name("(root)");
  root.set_kind(v1::MODULE_NODE_KIND_ROOT);
  v1::ModuleDiffNode& child = *root.add_children();
  child.set_name("</SCRIPT>Evil_0");
  child.set_index_path("0");
  child.set_path("</SCRIPT>Evil_0");
  v1::OperatorDiff& op = *child.add_operators();
  op.set_name("aten::<b>mm</b>");
  op.mutable_baseline()->set_host_self_us(1.5);
  op.mutable_experimental()->set_host_self_us(
      std::numeric_limits<double>::quiet_NaN());
  *report.add_operators() = op;
  return report;
}

TEST(HtmlReportTest, NamesCannotEndTheDataElementAndTheDataStillParses) {
  const std::string page = RenderHtmlReport(HostileReport(), nullptr);
  // Only the page's own two script elements end.
  EXPECT_EQ(Count(page, "</script>"), 2u);
  EXPECT_THAT(page, Not(HasSubstr("</SCRIPT>")));
  EXPECT_THAT(page, Not(HasSubstr("<!--")));
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(DataOf(page)).get(doc), simdjson::SUCCESS);
  std::string_view run;
  ASSERT_EQ(doc["baseline"]["run"].get(run), simdjson::SUCCESS);
  EXPECT_EQ(run, "</script><script>alert(1)</script>");
  ASSERT_EQ(doc["experimental"]["run"].get(run), simdjson::SUCCESS);
  EXPECT_EQ(run, "b\"\\\n<!--");
  // A value that is not a number is written as null, not as "nan".
  simdjson::dom::array row;
  ASSERT_EQ(doc["modules"]["c"].at(0)["t"].at(0).at(0).get(row),
            simdjson::SUCCESS);
  EXPECT_TRUE(row.at(11).is_null());  // experimental host_self_us
}

TEST(HtmlReportTest, PageIsSelfContained) {
  const std::string page = RenderHtmlReport(HostileReport(), nullptr);
  EXPECT_FALSE(std::regex_search(page, std::regex("https?://")))
      << "the page must not refer to a network";
  EXPECT_THAT(page, Not(HasSubstr("<link")));
  EXPECT_THAT(page, Not(HasSubstr(" src=")));
  EXPECT_THAT(page, Not(HasSubstr("@DATA@")));
  EXPECT_THAT(page, Not(HasSubstr("/*@SCRIPT@*/")));
  EXPECT_THAT(page, HasSubstr("function drawTimeline"));
}

// The size of an array element, or a failure and SIZE_MAX.
size_t ArraySize(simdjson::simdjson_result<simdjson::dom::element> element) {
  simdjson::dom::array array;
  if (element.get(array) != simdjson::SUCCESS) {
    ADD_FAILURE() << "not an array";
    return SIZE_MAX;
  }
  return array.size();
}

size_t NodeCount(const v1::ModuleDiffNode& node) {
  size_t n = 1;
  for (const v1::ModuleDiffNode& c : node.children()) n += NodeCount(c);
  return n;
}

// Walks the data's module tree next to the report's (`node`) and the other
// grouping's (`other`): same paths, same table sizes. Sizes are compared before
// anything is indexed, so a tree that differs fails instead of reading past an
// end.
void ExpectSameTree(const v1::ModuleDiffNode& node,
                    const v1::ModuleDiffNode& other,
                    simdjson::dom::element data, size_t& nodes) {
  ++nodes;
  std::string_view path;
  ASSERT_EQ(data["p"].get(path), simdjson::SUCCESS);
  ASSERT_EQ(path, node.path());
  ASSERT_EQ(other.path(), node.path());
  simdjson::dom::array tables;
  if (node.operators_size() + node.kernels_size() > 0) {
    ASSERT_EQ(data["t"].get(tables), simdjson::SUCCESS) << node.path();
    ASSERT_EQ(tables.size(), 2u) << node.path();
    EXPECT_EQ(ArraySize(tables.at(0)),
              static_cast<size_t>(node.operators_size()))
        << node.path();
    EXPECT_EQ(ArraySize(tables.at(1)), static_cast<size_t>(node.kernels_size()))
        << node.path();
  }
  // "u": the other grouping's tables; left out where they are "t"'s text,
  // null where the other grouping has none but "t" is there.
  const bool other_tables = other.operators_size() + other.kernels_size() > 0;
  simdjson::dom::element u;
  if (data["u"].get(u) != simdjson::SUCCESS) {
    if (other_tables) {
      ASSERT_EQ(data["t"].get(tables), simdjson::SUCCESS) << node.path();
      EXPECT_EQ(other.operators_size(), node.operators_size()) << node.path();
      EXPECT_EQ(other.kernels_size(), node.kernels_size()) << node.path();
    }
  } else if (u.is_null()) {
    EXPECT_FALSE(other_tables) << node.path();
    EXPECT_GT(node.operators_size() + node.kernels_size(), 0) << node.path();
  } else {
    ASSERT_TRUE(other_tables) << node.path();
    ASSERT_EQ(u.get(tables), simdjson::SUCCESS) << node.path();
    ASSERT_EQ(tables.size(), 2u) << node.path();
    EXPECT_EQ(ArraySize(tables.at(0)),
              static_cast<size_t>(other.operators_size()))
        << node.path();
    EXPECT_EQ(ArraySize(tables.at(1)),
              static_cast<size_t>(other.kernels_size()))
        << node.path();
  }
  simdjson::dom::array children;
  ASSERT_EQ(data["c"].get(children), simdjson::SUCCESS);
  ASSERT_EQ(children.size(), static_cast<size_t>(node.children_size()))
      << "children of " << node.path() << " in the data";
  ASSERT_EQ(other.children_size(), node.children_size())
      << "children of " << node.path() << " in the other grouping";
  for (int c = 0; c < node.children_size(); ++c) {
    simdjson::dom::element child;
    ASSERT_EQ(children.at(static_cast<size_t>(c)).get(child),
              simdjson::SUCCESS);
    ExpectSameTree(node.children(c), other.children(c), child, nodes);
  }
}

// ExpectSameTree on a root with `report_children` children, the data made from
// a root with `data_children` and an other grouping's root with
// `other_children`.
void CompareRootWithChildren(int report_children, int data_children,
                             int other_children) {
  auto tree = [](int children) {
    v1::DiffReport report;
    report.mutable_modules()->set_kind(v1::MODULE_NODE_KIND_ROOT);
    for (int c = 0; c < children; ++c) {
      v1::ModuleDiffNode& child = *report.mutable_modules()->add_children();
      child.set_name("M_" + std::to_string(c));
      child.set_path(child.name());
      child.set_index_path(std::to_string(c));
    }
    return report;
  };
  const v1::DiffReport report = tree(report_children);
  const std::string data = HtmlReportData(tree(data_children), nullptr);
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(data).get(doc), simdjson::SUCCESS);
  simdjson::dom::element modules;
  ASSERT_EQ(doc["modules"].get(modules), simdjson::SUCCESS);
  size_t nodes = 0;
  ExpectSameTree(report.modules(), tree(other_children).modules(), modules,
                 nodes);
}

TEST(HtmlReportTest, TreeComparisonFailsWhenChildCountsDiffer) {
  CompareRootWithChildren(2, 2, 2);
  EXPECT_FATAL_FAILURE(CompareRootWithChildren(2, 3, 2), "in the data");
  EXPECT_FATAL_FAILURE(CompareRootWithChildren(3, 2, 3), "in the data");
  EXPECT_FATAL_FAILURE(CompareRootWithChildren(2, 2, 1),
                       "in the other grouping");
  EXPECT_FATAL_FAILURE(CompareRootWithChildren(2, 2, 3),
                       "in the other grouping");
}

TEST(HtmlReportTest, DataCarriesEveryNodeAndRowOfBothGroupings) {
  const fs::path root = test_support::TracesDir();
  const fs::path a =
      root / "tracelens/h100/gaunernst_bert-small-uncased__1016001.json.gz";
  const fs::path b =
      root / "tracelens/mi300/gaunernst_bert-small-uncased__1016001.json.gz";
  if (!fs::exists(a) || !fs::exists(b))
    GTEST_SKIP() << "missing " << a << " or " << b;
  v1::DiffOptions options;
  options.set_node_tables(true);
  analysis::ProfileOptions by_name;
  analysis::ProfileOptions by_shape;
  by_shape.operator_grouping = analysis::OperatorGrouping::kNameAndShape;
  by_shape.kernel_grouping = analysis::KernelGrouping::kNameAndOp;
  auto named = analysis::LoadRuns({{a.string()}, {b.string()}}, by_name);
  auto shaped = analysis::LoadRuns({{a.string()}, {b.string()}}, by_shape);
  ASSERT_TRUE(named.ok() && shaped.ok());
  auto report = differ::DiffRuns((*named)[0], (*named)[1], options);
  auto other = differ::DiffRuns((*shaped)[0], (*shaped)[1], options);
  ASSERT_TRUE(report.ok() && other.ok());
  ASSERT_GT(other->operators_size(), report->operators_size())
      << "shapes split operators";

  const std::string page = RenderHtmlReport(*report, &*other);
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(DataOf(page)).get(doc), simdjson::SUCCESS);
  EXPECT_EQ(ArraySize(doc["tables"].at(0)),
            static_cast<size_t>(report->operators_size()));
  EXPECT_EQ(ArraySize(doc["tables"].at(1)),
            static_cast<size_t>(report->kernels_size()));
  EXPECT_EQ(ArraySize(doc["other_tables"].at(0)),
            static_cast<size_t>(other->operators_size()));
  std::string_view grouping;
  ASSERT_EQ(doc["other_operator_grouping"].get(grouping), simdjson::SUCCESS);
  EXPECT_EQ(grouping, "GROUPING_NAME_AND_SHAPE");
  // Row 0 of the operator table: its name through the string table, its two
  // sides' host self.
  simdjson::dom::array strings;
  ASSERT_EQ(doc["strings"].get(strings), simdjson::SUCCESS);
  simdjson::dom::array first;
  ASSERT_EQ(doc["tables"].at(0).at(0).get(first), simdjson::SUCCESS);
  uint64_t name_index = 0;
  ASSERT_EQ(first.at(0).get(name_index), simdjson::SUCCESS);
  std::string_view name;
  ASSERT_EQ(strings.at(name_index).get(name), simdjson::SUCCESS);
  EXPECT_EQ(name, report->operators(0).name());
  double host_self = 0;
  ASSERT_EQ(first.at(10).get(host_self), simdjson::SUCCESS);
  EXPECT_DOUBLE_EQ(host_self, report->operators(0).baseline().host_self_us())
      << "numbers read back exactly";
  ASSERT_GT(report->findings_size(), 0) << "every view includes the findings";
  EXPECT_EQ(ArraySize(doc["findings"]),
            static_cast<size_t>(report->findings_size()));
  std::string_view headline;
  ASSERT_EQ(doc["findings"].at(0)["text"].get(headline), simdjson::SUCCESS);
  EXPECT_EQ(headline, report->findings(0).text());
  size_t nodes = 0;
  simdjson::dom::element modules;
  ASSERT_EQ(doc["modules"].get(modules), simdjson::SUCCESS);
  ExpectSameTree(report->modules(), other->modules(), modules, nodes);
  EXPECT_EQ(nodes, NodeCount(report->modules()));
}

// A string or number element, or a failure and "" or NaN.
std::string_view Text(
    simdjson::simdjson_result<simdjson::dom::element> element) {
  std::string_view text;
  if (element.get(text) != simdjson::SUCCESS) ADD_FAILURE() << "not a string";
  return text;
}
double Value(simdjson::simdjson_result<simdjson::dom::element> element) {
  double v = std::numeric_limits<double>::quiet_NaN();
  if (element.get(v) != simdjson::SUCCESS) ADD_FAILURE() << "not a number";
  return v;
}

TEST(HtmlReportTest, FindingsLandInThePageDataWithTheirEvidence) {
  v1::DiffReport report = HostileReport();
  v1::Finding& headline = *report.add_findings();
  headline.set_text("No significant change: step time 1.0 ms -> 1.0 ms");
  headline.set_kind(v1::FINDING_KIND_NOISE);
  v1::FindingEvidence& step = *headline.add_evidence();
  step.set_table(v1::EVIDENCE_TABLE_OVERVIEW);
  step.set_name("Average step time");
  step.set_unit(v1::VALUE_UNIT_US);
  step.set_baseline(1000);
  step.set_experimental(1000.5);
  v1::Finding& module = *report.add_findings();
  module.set_text("</SCRIPT>Evil_0 changed by +2.0 ms per step");
  module.set_kind(v1::FINDING_KIND_MODULE);
  module.set_significant(true);
  module.set_delta_us(2000);
  module.set_share_of_step_change(0.25);
  v1::FindingEvidence& node = *module.add_evidence();
  node.set_table(v1::EVIDENCE_TABLE_MODULES);
  node.set_name("</SCRIPT>Evil_0");
  node.set_path("</SCRIPT>Evil_0");
  node.set_index_path("0");
  node.set_significant(true);
  v1::FindingEvidence& op = *module.add_evidence();
  op.set_table(v1::EVIDENCE_TABLE_OPERATORS);
  op.set_name("aten::<b>mm</b>");
  op.set_index_path("0");
  op.set_input_shapes("[[2, 3], [3, 4]]");

  const std::string page = RenderHtmlReport(report, nullptr);
  EXPECT_EQ(Count(page, "</script>"), 2u) << "finding text stays inside";
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(DataOf(page)).get(doc), simdjson::SUCCESS);
  simdjson::dom::array findings;
  ASSERT_EQ(doc["findings"].get(findings), simdjson::SUCCESS);
  ASSERT_EQ(findings.size(), 2u);
  std::string_view text;
  ASSERT_EQ(findings.at(0)["text"].get(text), simdjson::SUCCESS);
  EXPECT_EQ(text, headline.text());
  EXPECT_EQ(Text(findings.at(0)["kind"]), "noise")
      << "enums as their display text";
  EXPECT_EQ(Value(findings.at(0)["significant"]), 0);
  EXPECT_EQ(Text(findings.at(0)["evidence"].at(0)["table"]), "overview");
  EXPECT_EQ(Text(findings.at(0)["evidence"].at(0)["name"]),
            "Average step time");
  EXPECT_DOUBLE_EQ(Value(findings.at(0)["evidence"].at(0)["experimental"]),
                   1000.5);

  simdjson::dom::element second;
  ASSERT_EQ(findings.at(1).get(second), simdjson::SUCCESS);
  ASSERT_EQ(second["text"].get(text), simdjson::SUCCESS);
  EXPECT_EQ(text, module.text());
  EXPECT_EQ(Text(second["kind"]), "module");
  EXPECT_EQ(Value(second["significant"]), 1);
  EXPECT_DOUBLE_EQ(Value(second["delta_us"]), 2000);
  EXPECT_DOUBLE_EQ(Value(second["share_of_step_change"]), 0.25);
  ASSERT_EQ(ArraySize(second["evidence"]), 2u);
  simdjson::dom::element first_row;
  ASSERT_EQ(second["evidence"].at(0).get(first_row), simdjson::SUCCESS);
  EXPECT_EQ(Text(first_row["table"]), "modules");
  EXPECT_EQ(Text(first_row["name"]), "</SCRIPT>Evil_0");
  EXPECT_EQ(Text(first_row["index_path"]), "0");
  // The page finds the node by this index path: the module tree carries it.
  EXPECT_EQ(Text(doc["modules"]["c"].at(0)["i"]), "0");
  simdjson::dom::element op_row;
  ASSERT_EQ(second["evidence"].at(1).get(op_row), simdjson::SUCCESS);
  EXPECT_EQ(Text(op_row["table"]), "operators");
  EXPECT_EQ(Text(op_row["name"]), "aten::<b>mm</b>");
  EXPECT_EQ(Text(op_row["index_path"]), "0");
  EXPECT_EQ(Text(op_row["input_shapes"]), "[[2, 3], [3, 4]]");
}

TEST(HtmlReportTest, AReportWithoutFindingsHasAnEmptyList) {
  const std::string data = HtmlReportData(v1::DiffReport(), nullptr);
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(data).get(doc), simdjson::SUCCESS);
  EXPECT_EQ(ArraySize(doc["findings"]), 0u);
}

// The width of a communication row by the layout: its fields, a (baseline,
// experimental) pair per value and four numbers per noise.
size_t LayoutWidth(simdjson::dom::element layout, const char* fields,
                   const char* values, const char* noises) {
  return ArraySize(layout[fields]) + 2 * ArraySize(layout[values]) +
         4 * ArraySize(layout[noises]);
}

v1::CollectiveDiff Collective(const std::string& name, const std::string& group,
                              int64_t bytes_per_call, double calls_b,
                              double calls_e) {
  v1::CollectiveDiff row;
  row.set_collective(name);
  row.set_process_group(group);
  row.set_bytes_per_call(bytes_per_call);
  row.set_dtype(bytes_per_call > 0 ? "float" : "");
  row.set_group_size(2);
  row.mutable_baseline()->set_calls(calls_b);
  row.mutable_experimental()->set_calls(calls_e);
  row.mutable_baseline()->set_time_us(10 * calls_b);
  row.mutable_experimental()->set_time_us(10 * calls_e);
  row.mutable_experimental()->set_wait_us(7.25);
  row.mutable_wait_noise()->set_significant(true);
  row.mutable_wait_noise()->set_has_interval(true);
  row.mutable_wait_noise()->set_ci_low(1.5);
  row.mutable_wait_noise()->set_ci_high(9);
  row.set_change(v1::CHANGE_INCREASED);
  return row;
}

TEST(HtmlReportTest, CommunicationSectionCarriesEveryRowAndTheVerdicts) {
  v1::DiffReport report = HostileReport();
  v1::CommunicationDiff& c = *report.mutable_communication();
  *c.add_by_collective() = Collective("all_reduce", "</script>pg", 0, 2, 12);
  *c.add_collectives() = Collective("all_reduce", "</script>pg", 1 << 20, 1, 1);
  *c.add_collectives() =
      Collective("all_reduce", "</script>pg", 1 << 18, 1, 11);
  for (int rank : {0, 1}) {
    v1::RankCommunicationDiff& r = *c.add_ranks();
    r.set_rank(rank);
    r.mutable_baseline()->set_wait_us(100 + rank);
    r.mutable_experimental()->set_wait_us(rank == 0 ? 900 : 3);
    r.mutable_experimental()->set_exposed_us(0.5);
    r.set_baseline_missing(rank == 1);
    r.mutable_wait_noise()->set_significant(rank == 0);
  }
  c.mutable_experimental_straggler()->set_found(true);
  c.mutable_experimental_straggler()->set_rank(1);
  c.mutable_experimental_straggler()->set_last_arrivals(46);
  c.mutable_experimental_straggler()->set_instances(50);
  c.mutable_experimental_straggler()->set_share(0.92);
  c.mutable_experimental_straggler()->set_collective("all_reduce");
  c.mutable_baseline_straggler()->set_rank(-1);
  c.set_baseline_verdict("no collective ran on two ranks");
  c.set_experimental_verdict(
      "straggler: rank 1, last to arrive in 92% of all_reduces (46 of 50)");
  c.set_experimental_instances(50);
  v1::Finding& finding = *report.add_findings();
  finding.set_kind(v1::FINDING_KIND_COMMUNICATION);
  finding.set_text("all_reduce: 2 -> 12 calls");
  v1::FindingEvidence& e = *finding.add_evidence();
  e.set_table(v1::EVIDENCE_TABLE_COMMUNICATION);
  e.set_name("all_reduce");
  e.set_path("</script>pg");

  const std::string page = RenderHtmlReport(report, nullptr);
  EXPECT_EQ(Count(page, "</script>"), 2u) << "a process group stays inside";
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(DataOf(page)).get(doc), simdjson::SUCCESS);
  simdjson::dom::element layout, data;
  ASSERT_EQ(doc["layout"].get(layout), simdjson::SUCCESS);
  ASSERT_EQ(doc["communication"].get(data), simdjson::SUCCESS);
  simdjson::dom::array strings;
  ASSERT_EQ(doc["strings"].get(strings), simdjson::SUCCESS);
  auto interned = [&](simdjson::simdjson_result<simdjson::dom::element> at) {
    uint64_t index = 0;
    EXPECT_EQ(at.get(index), simdjson::SUCCESS);
    return Text(strings.at(index));
  };

  ASSERT_EQ(ArraySize(data["by_collective"]), 1u);
  ASSERT_EQ(ArraySize(data["collectives"]), 2u);
  ASSERT_EQ(ArraySize(data["ranks"]), 2u);
  const size_t width = LayoutWidth(layout, "collective", "collective_values",
                                   "collective_noise");
  EXPECT_EQ(width, 8u + 2 * 8 + 4 * 6);
  simdjson::dom::array row;
  ASSERT_EQ(data["collectives"].at(1).get(row), simdjson::SUCCESS);
  ASSERT_EQ(row.size(), width);
  EXPECT_EQ(interned(row.at(0)), "all_reduce");
  EXPECT_EQ(interned(row.at(1)), "</script>pg");
  EXPECT_EQ(Value(row.at(2)), 1 << 18);
  EXPECT_EQ(interned(row.at(3)), "float");
  EXPECT_EQ(Value(row.at(4)), 2);
  EXPECT_EQ(interned(row.at(5)), "increased");
  EXPECT_EQ(Value(row.at(6)), 0);      // baseline_size_missing
  EXPECT_EQ(Value(row.at(7)), 0);      // experimental_size_missing
  EXPECT_EQ(Value(row.at(8)), 1);      // calls, baseline
  EXPECT_EQ(Value(row.at(9)), 11);     // calls, experimental
  EXPECT_EQ(Value(row.at(17)), 7.25);  // wait_us, experimental
  // wait_noise: the fifth noise after the 8 fields and 8 pairs.
  const size_t wait_noise = 8 + 16 + 4 * 4;
  EXPECT_EQ(Value(row.at(wait_noise)), 1);
  EXPECT_EQ(Value(row.at(wait_noise + 1)), 1);
  EXPECT_EQ(Value(row.at(wait_noise + 2)), 1.5);
  EXPECT_EQ(Value(row.at(wait_noise + 3)), 9);
  ASSERT_EQ(data["by_collective"].at(0).get(row), simdjson::SUCCESS);
  EXPECT_EQ(Value(row.at(2)), 0) << "pooled rows have no message size";
  EXPECT_EQ(interned(row.at(3)), "");

  const size_t rank_width =
      LayoutWidth(layout, "rank_communication", "rank_communication_values",
                  "rank_communication_noise");
  EXPECT_EQ(rank_width, 3u + 2 * 8 + 4 * 2);
  ASSERT_EQ(data["ranks"].at(1).get(row), simdjson::SUCCESS);
  ASSERT_EQ(row.size(), rank_width);
  EXPECT_EQ(Value(row.at(0)), 1);            // rank
  EXPECT_EQ(Value(row.at(1)), 1);            // baseline_missing
  EXPECT_EQ(Value(row.at(2)), 0);            // experimental_missing
  EXPECT_EQ(Value(row.at(3 + 2 * 3)), 101);  // wait_us, baseline
  EXPECT_EQ(Value(row.at(3 + 2 * 3 + 1)), 3);
  EXPECT_EQ(Value(row.at(3 + 2 * 1 + 1)), 0.5);  // exposed_us, experimental

  EXPECT_EQ(Value(data["experimental_straggler"]["found"]), 1);
  EXPECT_EQ(Value(data["experimental_straggler"]["rank"]), 1);
  EXPECT_EQ(Value(data["experimental_straggler"]["last_arrivals"]), 46);
  EXPECT_DOUBLE_EQ(Value(data["experimental_straggler"]["share"]), 0.92);
  EXPECT_EQ(Text(data["experimental_straggler"]["collective"]), "all_reduce");
  EXPECT_EQ(Value(data["baseline_straggler"]["found"]), 0);
  EXPECT_EQ(Value(data["baseline_straggler"]["rank"]), -1);
  EXPECT_EQ(Text(data["baseline_verdict"]), c.baseline_verdict());
  EXPECT_EQ(Text(data["experimental_verdict"]), c.experimental_verdict());
  EXPECT_EQ(Value(data["experimental_instances"]), 50);

  // The finding's evidence names the row the page looks for.
  simdjson::dom::element evidence;
  ASSERT_EQ(doc["findings"].at(0)["evidence"].at(0).get(evidence),
            simdjson::SUCCESS);
  EXPECT_EQ(Text(evidence["table"]), "communication");
  EXPECT_EQ(Text(evidence["name"]), "all_reduce");
  EXPECT_EQ(Text(evidence["path"]), "</script>pg");
}

TEST(HtmlReportTest, NoCommunicationSectionWithoutCollectives) {
  v1::DiffReport report = HostileReport();
  // Ranks without a collective on either side: nothing to show.
  report.mutable_communication()->add_ranks()->set_rank(0);
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(HtmlReportData(report, nullptr)).get(doc),
            simdjson::SUCCESS);
  EXPECT_EQ(doc["communication"].error(), simdjson::NO_SUCH_FIELD);
  EXPECT_EQ(parser.parse(HtmlReportData(v1::DiffReport(), nullptr)).get(doc),
            simdjson::SUCCESS);
  EXPECT_EQ(doc["communication"].error(), simdjson::NO_SUCH_FIELD);
}

// The 8-rank DLRM run through `profdiff diff --format html`: the page data
// holds the diff's collectives and every rank.
TEST(HtmlReportTest, DlrmReportCarriesItsCommunication) {
  const fs::path run = test_support::TracesDir() / "param/dlrm_kineto";
  if (!fs::exists(run)) GTEST_SKIP() << "missing " << run;
  auto runs = analysis::LoadRuns({{run.string()}, {run.string()}}, {});
  ASSERT_TRUE(runs.ok()) << runs.status();
  auto report = differ::DiffRuns((*runs)[0], (*runs)[1], v1::DiffOptions());
  ASSERT_TRUE(report.ok()) << report.status();
  const v1::CommunicationDiff& c = report->communication();
  ASSERT_GT(c.by_collective_size(), 0) << "DLRM runs all_to_all and all_reduce";
  ASSERT_EQ(c.ranks_size(), 8);

  const fs::path out =
      fs::path(::testing::TempDir()) / "html_report_test" / "dlrm.html";
  fs::create_directories(out.parent_path());
  auto written = RunDiffCommand(
      {run.string(), run.string(), "--format", "html", "-o", out.string()});
  ASSERT_TRUE(written.ok()) << written.status();
  std::ifstream in(out);
  std::stringstream page;
  page << in.rdbuf();
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(DataOf(page.str())).get(doc), simdjson::SUCCESS);
  simdjson::dom::element data;
  ASSERT_EQ(doc["communication"].get(data), simdjson::SUCCESS);
  EXPECT_EQ(ArraySize(data["by_collective"]),
            static_cast<size_t>(c.by_collective_size()));
  EXPECT_EQ(ArraySize(data["collectives"]),
            static_cast<size_t>(c.collectives_size()));
  ASSERT_EQ(ArraySize(data["ranks"]), 8u);
  for (size_t i = 0; i < 8; ++i) {
    double rank = -1;
    ASSERT_EQ(data["ranks"].at(i).at(0).get(rank), simdjson::SUCCESS);
    EXPECT_EQ(rank, c.ranks(static_cast<int>(i)).rank());
  }
  EXPECT_EQ(Text(data["baseline_verdict"]), c.baseline_verdict());
  EXPECT_EQ(Value(data["baseline_straggler"]["found"]),
            c.baseline_straggler().found() ? 1 : 0);
}

TEST(HtmlReportTest, DiffWritesTheReportToAFileAndRejectsWhatItCannotShow) {
  const fs::path root = test_support::TracesDir();
  const fs::path a =
      root / "tracelens/h100/gaunernst_bert-small-uncased__1016001.json.gz";
  if (!fs::exists(a)) GTEST_SKIP() << "missing " << a;
  const fs::path out =
      fs::path(::testing::TempDir()) / "html_report_test" / "report.html";
  fs::create_directories(out.parent_path());
  fs::remove(out);
  auto written = RunDiffCommand(
      {a.string(), a.string(), "--format", "html", "-o", out.string()});
  ASSERT_TRUE(written.ok()) << written.status();
  EXPECT_THAT(*written, HasSubstr("wrote " + out.string()));
  std::ifstream in(out);
  std::stringstream page;
  page << in.rdbuf();
  EXPECT_THAT(page.str(), HasSubstr("<!DOCTYPE html>"));
  EXPECT_THAT(page.str(), HasSubstr("\"other_tables\""));

  auto bad_format = RunDiffCommand({a.string(), a.string(), "--format", "xml"});
  EXPECT_THAT(bad_format.status().message(),
              HasSubstr("table, json, csv or html"));
  auto hta = RunDiffCommand(
      {a.string(), a.string(), "--format", "html", "--compare", "hta"});
  EXPECT_EQ(hta.status().code(), absl::StatusCode::kInvalidArgument);
  auto unwritable = RunDiffCommand({a.string(), a.string(), "--format", "html",
                                    "-o", "/proc/no/such/dir/x.html"});
  EXPECT_FALSE(unwritable.ok());
  EXPECT_THAT(unwritable.status().message(),
              HasSubstr("/proc/no/such/dir/x.html"));
}

}  // namespace
}  // namespace profdiff::client
