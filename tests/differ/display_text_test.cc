// The words users read for a diff enum (differ/display_text.h): the
// `display_text` option of each value in diff.proto, "" where there is none.
#include "differ/display_text.h"

#include <gtest/gtest.h>

#include "profdiff/v1/diff.pb.h"

namespace profdiff::differ {
namespace {

TEST(DisplayTextTest, ValuesPrintTheirSchemaText) {
  EXPECT_EQ(DisplayText(v1::CHANGE_INCREASED), "increased");
  EXPECT_EQ(DisplayText(v1::DIFF_STATUS_REMOVED), "removed");
  EXPECT_EQ(DisplayText(v1::OVERVIEW_METRIC_SM_EFFICIENCY),
            "Est. SM efficiency");
  EXPECT_EQ(DisplayText(v1::HTA_CHANGE_FEWER), "-");
  EXPECT_EQ(DisplayText(v1::VALUE_UNIT_PERCENT), "%");
  EXPECT_EQ(DisplayText(v1::RUN_SIDE_EXPERIMENTAL), "experimental");
}

TEST(DisplayTextTest, UnspecifiedValueIsEmpty) {
  EXPECT_EQ(DisplayText(v1::CHANGE_UNSPECIFIED), "");
  EXPECT_EQ(DisplayText(v1::OVERVIEW_METRIC_UNSPECIFIED), "");
}

TEST(DisplayTextTest, NumberThisBuildDoesNotKnowIsEmpty) {
  // A newer peer's value: no descriptor, no text, no crash.
  EXPECT_EQ(DisplayText(*v1::Change_descriptor(), 999), "");
  EXPECT_EQ(DisplayText(*v1::Change_descriptor(), -1), "");
  EXPECT_EQ(DisplayText(*v1::Change_descriptor(), 2), "deleted");
}

TEST(DisplayTextTest, OnlyEnumsWithTextsSayTheyHaveThem) {
  EXPECT_TRUE(HasDisplayText(*v1::Change_descriptor()));
  EXPECT_TRUE(HasDisplayText(*v1::RunSide_descriptor()));
  EXPECT_TRUE(HasDisplayText(*v1::ValueUnit_descriptor()));
  // These print their value names.
  EXPECT_FALSE(HasDisplayText(*v1::DiffView_descriptor()));
  EXPECT_FALSE(HasDisplayText(*v1::Normalization_descriptor()));
}

TEST(DisplayTextTest, TextLivesAsLongAsTheProgram) {
  const std::string& first = DisplayText(v1::CHANGE_ADDED);
  const std::string& again = DisplayText(v1::CHANGE_ADDED);
  EXPECT_EQ(&first, &again);  // the descriptor's string, not a copy
}

}  // namespace
}  // namespace profdiff::differ
