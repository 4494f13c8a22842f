// How the terminal table prints cells: cut in the middle, never two different
// cells alike, control characters escaped.
#include "client/text_table.h"

#include <set>
#include <string>
#include <vector>

#include <absl/strings/str_split.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace profdiff::client {
namespace {

using ::testing::HasSubstr;

// The first column of every row under the header and the rule.
std::vector<std::string> FirstColumn(const std::string& text) {
  std::vector<std::string> out;
  int line = 0;
  for (absl::string_view row : absl::StrSplit(text, '\n', absl::SkipEmpty())) {
    if (line++ < 2) continue;
    out.emplace_back(row.substr(0, row.find("  ")));
  }
  return out;
}

TEST(TextTableTest, LongCellsAreCutInTheMiddleKeepingTheirTail) {
  TextTable table({{"kernel", Align::kLeft}, {"calls"}});
  const std::string name = std::string(100, 'a') + "_TAIL";
  table.AddRow({name, "3"});
  table.AddRow({"short", "1"});
  const std::vector<std::string> printed = FirstColumn(table.RenderText(40));
  ASSERT_EQ(printed.size(), 2u);
  EXPECT_EQ(printed[0].size(), 40u);
  EXPECT_THAT(printed[0], HasSubstr("..."));
  EXPECT_TRUE(printed[0].ends_with("_TAIL")) << printed[0];
  EXPECT_EQ(printed[1], "short");
}

TEST(TextTableTest, DifferentCellsNeverPrintAlike) {
  // Three kernels alike but for a few characters near the end, past where a
  // third of the width keeps the tail, and two that differ in the middle.
  const std::string head = "Cijk_Alik_Bljk_HHS_BH_MT128x128x64_MI32x32x8x1_SN_";
  const std::string tail = std::string(60, 'x');
  const std::vector<std::string> names = {
      head + "LDSB1_GRVW8" + tail, head + "LDSB1_GRVW4" + tail,
      head + "LDSB0_GRVW8" + tail, std::string(50, 'm') + "A" + tail + "end",
      std::string(50, 'm') + "B" + tail + "end"};
  TextTable table({{"kernel", Align::kLeft}, {"calls"}});
  for (const std::string& name : names) table.AddRow({name, "1"});
  const std::vector<std::string> printed = FirstColumn(table.RenderText(80));
  ASSERT_EQ(printed.size(), names.size());
  EXPECT_EQ(std::set<std::string>(printed.begin(), printed.end()).size(),
            names.size())
      << ::testing::PrintToString(printed);
  // Equal cells stay equal (and cut).
  TextTable same({{"kernel", Align::kLeft}});
  same.AddRow({names[0]});
  same.AddRow({names[0]});
  const std::vector<std::string> twice = FirstColumn(same.RenderText(80));
  ASSERT_EQ(twice.size(), 2u);
  EXPECT_EQ(twice[0], twice[1]);
  EXPECT_EQ(twice[0].size(), 80u);
}

TEST(TextTableTest, ControlCharactersAreEscapedBeforeTheCut) {
  TextTable table({{"name", Align::kLeft}});
  table.AddRow({"a\x1b[31mred"});
  EXPECT_THAT(table.RenderText(), HasSubstr("a\\x1b[31mred"));
}

}  // namespace
}  // namespace profdiff::client
