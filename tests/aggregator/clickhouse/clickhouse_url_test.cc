// The --store grammar: clickhouse://HOST:PORT[,HOST:PORT...]/DATABASE.
#include "aggregator/clickhouse/clickhouse_url.h"

#include <string>
#include <utility>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace profdiff::aggregator::clickhouse {
namespace {

TEST(ClickHouseUrlTest, ShardsInOrderAndTheDatabase) {
  absl::StatusOr<ClickHouseUrl> url =
      ParseClickHouseUrl("clickhouse://a:8123,10.0.0.2:18123/prof_db");
  ASSERT_TRUE(url.ok()) << url.status();
  EXPECT_THAT(url->shards, ::testing::ElementsAre("a:8123", "10.0.0.2:18123"));
  EXPECT_EQ(url->database, "prof_db");
}

TEST(ClickHouseUrlTest, EachBadPartIsNamed) {
  const std::pair<const char*, const char*> cases[] = {
      {"http://a:1/db", "must start with clickhouse://"},
      {"clickhouse://a:1", "no /DATABASE"},
      {"clickhouse://a:1/1db", "database \"1db\""},
      {"clickhouse://a:1/db;drop", "database \"db;drop\""},
      {"clickhouse://a/db", "shard address \"a\""},
      {"clickhouse://a:1,b:99999/db", "shard address \"b:99999\""},
      {"clickhouse://a:1,/db", "shard address \"\""},
  };
  for (const auto& [text, message] : cases) {
    absl::StatusOr<ClickHouseUrl> url = ParseClickHouseUrl(text);
    ASSERT_FALSE(url.ok()) << text;
    EXPECT_EQ(url.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(url.status().message(), ::testing::HasSubstr(message)) << text;
  }
}

}  // namespace
}  // namespace profdiff::aggregator::clickhouse
