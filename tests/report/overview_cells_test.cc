// One side's cell of an overview row (report/overview_cells.h): its value in
// the row's unit, the device's name for a text row, "-" where the side lacks
// the row.
#include "report/overview_cells.h"

#include <gtest/gtest.h>

namespace profdiff::report {
namespace {

v1::OverviewRow Row(v1::ValueUnit unit, double baseline, double experimental) {
  v1::OverviewRow row;
  row.set_unit(unit);
  row.set_baseline(baseline);
  row.set_experimental(experimental);
  return row;
}

TEST(OverviewCellsTest, EachUnitPrintsItsWay) {
  const v1::OverviewRow fraction = Row(v1::VALUE_UNIT_FRACTION, 0.125, 1);
  EXPECT_EQ(OverviewCell(fraction, false), "12.5%");
  EXPECT_EQ(OverviewCell(fraction, true), "100.0%");
  const v1::OverviewRow bytes =
      Row(v1::VALUE_UNIT_BYTES, 1.5 * 1024 * 1024, 512);
  EXPECT_EQ(OverviewCell(bytes, false), "1.5 MiB");
  EXPECT_EQ(OverviewCell(bytes, true), "512 B");
  const v1::OverviewRow us = Row(v1::VALUE_UNIT_US, 830.06, 12);
  EXPECT_EQ(OverviewCell(us, false), "830.1");
  EXPECT_EQ(OverviewCell(us, true), "12.0");
  // Counts (ranks, steps) and percentages: four significant digits.
  const v1::OverviewRow count = Row(v1::VALUE_UNIT_UNSPECIFIED, 8, 123456);
  EXPECT_EQ(OverviewCell(count, false), "8");
  EXPECT_EQ(OverviewCell(count, true), "1.235e+05");
  EXPECT_EQ(OverviewCell(Row(v1::VALUE_UNIT_PERCENT, 45.678, 0), false),
            "45.68");
}

TEST(OverviewCellsTest, AMissingSideIsADash) {
  v1::OverviewRow row = Row(v1::VALUE_UNIT_FRACTION, 0, 0.5);
  row.set_baseline_missing(true);
  EXPECT_EQ(OverviewCell(row, false), "-");
  EXPECT_EQ(OverviewCell(row, true), "50.0%");
}

TEST(OverviewCellsTest, TextRowsPrintTheDevicesName) {
  v1::OverviewRow device = Row(v1::VALUE_UNIT_UNSPECIFIED, 0, 0);
  EXPECT_FALSE(IsTextRow(device));  // a count of 0, not words
  device.set_experimental_text("NVIDIA H100");
  EXPECT_TRUE(IsTextRow(device));
  EXPECT_EQ(OverviewCell(device, true), "NVIDIA H100");
  EXPECT_EQ(OverviewCell(device, false), "");
  // A row with a unit is never a text row.
  v1::OverviewRow us = Row(v1::VALUE_UNIT_US, 1, 2);
  us.set_baseline_text("x");
  EXPECT_FALSE(IsTextRow(us));
  EXPECT_EQ(OverviewCell(us, false), "1.0");
}

}  // namespace
}  // namespace profdiff::report
