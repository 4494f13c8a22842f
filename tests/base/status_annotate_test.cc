// Context added to a Status (status_annotate.cc), and bytes quoted for a
// message.
#include "base/status_annotate.h"

#include <string>

#include <absl/strings/cord.h>
#include <gtest/gtest.h>

namespace profdiff::base {
namespace {

TEST(StatusAnnotateTest, PrefixesTheMessageAndKeepsTheCode) {
  const absl::Status status =
      Annotate(absl::NotFoundError("no such file"), "/runs/a/w.json");
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(status.message(), "/runs/a/w.json: no such file");
}

TEST(StatusAnnotateTest, EachLayerAddsItsOwnPrefix) {
  const absl::Status status =
      Annotate(Annotate(absl::DataLossError("bad crc"), "segment 7"), "run r1");
  EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(status.message(), "run r1: segment 7: bad crc");
}

// A payload says what kind of failure it is (a file that is no trace at all):
// context must not lose it.
TEST(StatusAnnotateTest, PayloadsAreKept) {
  absl::Status status = absl::InvalidArgumentError("not JSON");
  status.SetPayload("type.example/kind", absl::Cord("1"));
  const absl::Status annotated = Annotate(status, "config.json");
  ASSERT_TRUE(annotated.GetPayload("type.example/kind").has_value());
  EXPECT_EQ(*annotated.GetPayload("type.example/kind"), "1");
}

TEST(StatusAnnotateTest, OkStaysOkWithoutAMessage) {
  const absl::Status status = Annotate(absl::OkStatus(), "context");
  EXPECT_TRUE(status.ok());
  EXPECT_EQ(status.message(), "");
}

TEST(StatusAnnotateTest, QuotesPrintableBytesAsTheyAre) {
  EXPECT_EQ(QuoteBytes("N/A"), "\"N/A\"");
  EXPECT_EQ(QuoteBytes(""), "\"\"");
}

TEST(StatusAnnotateTest, QuotedBytesAreCEscaped) {
  EXPECT_EQ(QuoteBytes("a\"b\n"), "\"a\\\"b\\n\"");
  EXPECT_EQ(QuoteBytes(std::string("caf\xe9", 4)), "\"caf\\xe9\"");
  EXPECT_EQ(QuoteBytes(std::string("\0x", 2)), "\"\\x00x\"");
}

TEST(StatusAnnotateTest, QuotedBytesAreCutAtSixtyFourWithAnEllipsis) {
  const std::string exactly(64, 'a');
  EXPECT_EQ(QuoteBytes(exactly), "\"" + exactly + "\"");
  EXPECT_EQ(QuoteBytes(exactly + "b"), "\"" + exactly + "...\"");
}

}  // namespace
}  // namespace profdiff::base
