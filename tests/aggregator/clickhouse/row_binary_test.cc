// ClickHouse's RowBinary wire format, written and read back.
#include "aggregator/clickhouse/row_binary.h"

#include <string>
#include <utility>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace profdiff::aggregator::clickhouse {
namespace {

TEST(RowBinaryTest, NumbersStringsAndArraysReadBackAsWritten) {
  std::string data;
  RowBinaryWriter writer(data);
  writer.Number<int64_t>(-5);
  writer.Number<uint8_t>(2);
  writer.String(std::string(300, 'x'));  // a two-byte length
  writer.String(std::string("a\0b", 3));
  writer.StringArray({"s1", "", "s3"});
  writer.Number<double>(1.5);
  RowBinaryReader reader(data);
  EXPECT_EQ(reader.Number<int64_t>(), -5);
  EXPECT_EQ(reader.Number<uint8_t>(), 2);
  EXPECT_EQ(reader.String(), std::string(300, 'x'));
  EXPECT_EQ(reader.String(), std::string("a\0b", 3));
  EXPECT_THAT(reader.StringArray(), ::testing::ElementsAre("s1", "", "s3"));
  EXPECT_EQ(reader.Number<double>(), 1.5);
  EXPECT_TRUE(reader.done());
  EXPECT_TRUE(reader.ok());
}

TEST(RowBinaryTest, AnAnswerCutShortIsDataLossNotAGuess) {
  std::string data;
  RowBinaryWriter writer(data);
  writer.String("complete");
  writer.String("cut here");
  data.resize(data.size() - 3);
  RowBinaryReader reader(data);
  EXPECT_EQ(reader.String(), "complete");
  EXPECT_EQ(reader.String(), "");
  EXPECT_FALSE(reader.ok());
  EXPECT_EQ(reader.status("the test").code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(reader.status("the test").message(),
              ::testing::HasSubstr("cut short"));
}

}  // namespace
}  // namespace profdiff::aggregator::clickhouse
