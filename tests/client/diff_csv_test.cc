// `diff --format csv` (client/diff_csv.h) on hand-built reports: which tables
// each view has and in what order, the HTA table, the module table's depth,
// filter and top, and the names it refuses.
#include "client/diff_csv.h"

#include <string>
#include <vector>

#include <absl/strings/str_split.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace profdiff::client {
namespace {

using ::testing::ElementsAre;
using ::testing::StartsWith;

// The lines of a CSV text, without the empty one after its last newline.
std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines = absl::StrSplit(text, '\n');
  if (!lines.empty() && lines.back().empty()) lines.pop_back();
  return lines;
}

TEST(DiffCsvTest, TablesComeInTheOrderOfTheirViews) {
  EXPECT_THAT(DiffCsvViews(),
              ElementsAre(v1::DIFF_VIEW_FINDINGS, v1::DIFF_VIEW_OVERVIEW,
                          v1::DIFF_VIEW_MODULES, v1::DIFF_VIEW_OPERATORS,
                          v1::DIFF_VIEW_KERNELS, v1::DIFF_VIEW_RANKS,
                          v1::DIFF_VIEW_COMMUNICATION, v1::DIFF_VIEW_MEMORY));
  EXPECT_THAT(DiffCsvTables(v1::DIFF_VIEW_OPERATORS), ElementsAre("operators"));
  EXPECT_THAT(DiffCsvTables(v1::DIFF_VIEW_COMMUNICATION),
              ElementsAre("comm_by_collective", "comm_collectives",
                          "comm_ranks", "comm_stragglers"));
  EXPECT_THAT(DiffCsvTables(v1::DIFF_VIEW_MEMORY),
              ElementsAre("memory_devices", "memory_holders",
                          "memory_operators", "memory_modules"));
  EXPECT_TRUE(DiffCsvTables(v1::DIFF_VIEW_UNSPECIFIED).empty());
}

TEST(DiffCsvTest, ATableNameFindsItsView) {
  EXPECT_EQ(DiffViewOfCsvTable("comm_ranks"), v1::DIFF_VIEW_COMMUNICATION);
  EXPECT_EQ(DiffViewOfCsvTable("overview"), v1::DIFF_VIEW_OVERVIEW);
  EXPECT_EQ(DiffViewOfCsvTable("communication"), std::nullopt);
  EXPECT_EQ(DiffViewOfCsvTable("hta"), std::nullopt);  // HTA mode's own
}

TEST(DiffCsvTest, HtaTableHasTheColumnsOfCompareTraces) {
  v1::DiffReport report;
  v1::HtaRow& row = *report.add_hta_rows();
  row.set_name("aten::mm");
  row.set_baseline_counts(3);
  row.set_baseline_total_duration_us(70);
  row.set_experimental_counts(5);
  row.set_experimental_total_duration_us(72.5);
  row.set_diff_counts(2);
  row.set_diff_duration_us(2.5);
  row.set_change(v1::HTA_CHANGE_MORE);
  const auto files = RenderDiffCsv(report, {"hta"}, {});
  ASSERT_TRUE(files.ok()) << files.status();
  ASSERT_EQ(files->size(), 1u);
  EXPECT_EQ((*files)[0].name, "hta");
  EXPECT_THAT(Lines((*files)[0].text),
              ElementsAre("name,Control_counts,Control_total_duration,"
                          "Test_counts,Test_total_duration,diff_counts,"
                          "diff_duration,counts_change_categories",
                          "aten::mm,3,70,5,72.5,2,2.5,+"));
  report.mutable_options()->set_hta_short_names(true);
  EXPECT_THAT(RenderDiffCsv(report, {"hta"}, {}).value()[0].text,
              StartsWith("short_name,"));
}

// (root) > Enc_0 > Attn_1, and Head_2; deltas 5, 40 and 20.
v1::DiffReport ModuleReport() {
  v1::DiffReport report;
  v1::ModuleDiffNode& root = *report.mutable_modules();
  root.set_name("(root)");
  v1::ModuleDiffNode& enc = *root.add_children();
  enc.set_name("Enc_0");
  enc.mutable_delta()->set_compare_us(5);
  v1::ModuleDiffNode& attn = *enc.add_children();
  attn.set_name("Attn_1");
  attn.mutable_delta()->set_compare_us(40);
  v1::ModuleDiffNode& head = *root.add_children();
  head.set_name("Head_2");
  head.mutable_delta()->set_compare_us(20);
  return report;
}

// The `name` cells of a modules table, in order.
std::vector<std::string> ModuleNames(const std::string& csv) {
  std::vector<std::string> names;
  const std::vector<std::string> lines = Lines(csv);
  for (size_t i = 1; i < lines.size(); ++i) {
    const std::vector<std::string> cells = absl::StrSplit(lines[i], ',');
    names.push_back(cells.at(3));  // depth,index_path,path,name,...
  }
  return names;
}

TEST(DiffCsvTest, ModulesAreWholeUnlessDepthFilterOrTopPickRows) {
  v1::DiffReport report = ModuleReport();
  EXPECT_THAT(ModuleNames(RenderDiffCsv(report, {"modules"}, {})->at(0).text),
              ElementsAre("(root)", "Enc_0", "Attn_1", "Head_2"));
  EXPECT_THAT(ModuleNames(RenderDiffCsv(report, {"modules"},
                                        DiffCsvOptions{.module_depth = 1})
                              ->at(0)
                              .text),
              ElementsAre("(root)", "Enc_0", "Head_2"));
  report.mutable_options()->set_top(1);
  EXPECT_THAT(ModuleNames(RenderDiffCsv(report, {"modules"}, {})->at(0).text),
              ElementsAre("(root)", "Enc_0", "Attn_1"));
  report.mutable_options()->set_top(0);
  report.mutable_options()->set_filter("Head");
  EXPECT_THAT(ModuleNames(RenderDiffCsv(report, {"modules"}, {})->at(0).text),
              ElementsAre("(root)", "Head_2"));
}

TEST(DiffCsvTest, TablesComeInTheOrderAskedAndUnknownNamesAreRefused) {
  const v1::DiffReport report = ModuleReport();
  const auto files = RenderDiffCsv(report, {"kernels", "overview"}, {});
  ASSERT_TRUE(files.ok()) << files.status();
  ASSERT_EQ(files->size(), 2u);
  EXPECT_EQ((*files)[0].name, "kernels");
  EXPECT_EQ((*files)[1].name, "overview");
  const auto unknown = RenderDiffCsv(report, {"overview", "speed"}, {});
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(unknown.status().message(),
            "--view speed: no CSV table of that name");
  v1::DiffReport bad_filter = ModuleReport();
  bad_filter.mutable_options()->set_filter("([");
  EXPECT_EQ(RenderDiffCsv(bad_filter, {"modules"}, {}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace profdiff::client
