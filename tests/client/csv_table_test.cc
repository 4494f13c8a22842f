// The CSV writer under every `--format csv` table (issue 45, item 4): RFC 4180
// quoting, numbers as plain numbers, booleans and enum values as words.
#include "client/csv_table.h"

#include <cmath>
#include <limits>
#include <string>

#include <gtest/gtest.h>

#include "profdiff/v1/diff.pb.h"
#include "profdiff/v1/profile.pb.h"

namespace profdiff::client {
namespace {

TEST(CsvTableTest, QuotesOnlyCellsThatNeedItAndDoublesTheirQuotes) {
  CsvTable table({"name", "input_shapes"});
  table.AddRow({"aten::mm", ""});
  table.AddRow({"aten::add", "[[8, 16], [8, 16]]"});
  table.AddRow({"say \"hi\"", "two\nlines"});
  table.AddRow({"cr\rhere", " spaces stay "});
  EXPECT_EQ(table.Render(),
            "name,input_shapes\n"
            "aten::mm,\n"
            "aten::add,\"[[8, 16], [8, 16]]\"\n"
            "\"say \"\"hi\"\"\",\"two\nlines\"\n"
            "\"cr\rhere\", spaces stay \n");
  EXPECT_EQ(table.row_count(), 4u);
}

TEST(CsvTableTest, AHeaderAloneIsATableWithoutRows) {
  EXPECT_EQ(CsvTable({"a", "b"}).Render(), "a,b\n");
}

TEST(CsvTableTest, NumbersArePlainAndKeepTheirNanoseconds) {
  EXPECT_EQ(CsvNumber(41), "41");
  EXPECT_EQ(CsvNumber(-5), "-5");
  EXPECT_EQ(CsvNumber(0.5), "0.5");
  // 20 / 41 = 0.48780487804878..., as a percentage to 12 digits.
  EXPECT_EQ(CsvNumber(20.0 / 41 * 100), "48.7804878049");
  // 92.917 computed as a difference carries a rounding error; 12 digits
  // drop it.
  EXPECT_EQ(CsvNumber(1000.123 - 907.206), "92.917");
  // A step start 4.9e12 us after the clock's origin keeps 3 decimals.
  EXPECT_EQ(CsvNumber(4900293653362.125), "4900293653362.125");
  EXPECT_EQ(CsvNumber(150109880320.0), "150109880320");
  EXPECT_EQ(CsvNumber(0.00001), "1e-05");  // float() reads it
  EXPECT_EQ(CsvNumber(-0.0), "0");
  EXPECT_EQ(CsvNumber(std::numeric_limits<double>::quiet_NaN()), "");
  EXPECT_EQ(CsvNumber(std::numeric_limits<double>::infinity()), "");
  EXPECT_EQ(CsvInteger(-42), "-42");
  EXPECT_EQ(CsvBool(true), "true");
  EXPECT_EQ(CsvBool(false), "false");
}

TEST(CsvTableTest, EnumValuesAreWords) {
  // diff.proto's display texts, as JSON and the tables print them.
  EXPECT_EQ(CsvEnumWord(v1::CHANGE_UNCHANGED), "unchanged");
  EXPECT_EQ(CsvEnumWord(v1::OVERVIEW_METRIC_STEP_TIME), "Average step time");
  EXPECT_EQ(CsvEnumWord(v1::HTA_CHANGE_MORE), "+");
  // Without display texts: the value name less the enum's prefix.
  EXPECT_EQ(CsvEnumWord(v1::MODULE_NODE_KIND_GRADIENT_SYNC), "gradient_sync");
  EXPECT_EQ(CsvEnumWord(v1::MEMORY_SOURCE_SELF_CPU_MEMORY_USAGE),
            "self_cpu_memory_usage");
  EXPECT_EQ(CsvEnumWord(v1::MODULE_NODE_KIND_UNSPECIFIED), "");
  EXPECT_EQ(CsvEnumWord(v1::CHANGE_UNSPECIFIED), "");
  EXPECT_EQ(CsvEnumWord(static_cast<v1::ModuleNodeKind>(99)), "");
}

TEST(CsvTableTest, ColumnsWriteEachRowByName) {
  struct Row {
    std::string name;
    double us;
  };
  CsvColumns<Row> columns;
  columns.Add("name", [](const Row& r) { return r.name; });
  columns.Add("total_us", [](const Row& r) { return CsvNumber(r.us); });
  const Row rows[] = {{"a,b", 1.5}, {"c", 2}};
  EXPECT_EQ(columns.Render(rows), "name,total_us\n\"a,b\",1.5\nc,2\n");
}

}  // namespace
}  // namespace profdiff::client
