// Inflating gzip a piece at a time (gzip_stream.cc): any room gives the same
// text, the end is known with the last byte, members follow one another, and
// damage is DataLoss naming the source and the compressed byte.
#include "trace/gzip_stream.h"

#include <string>

#include <absl/strings/str_cat.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/support/gzip_text.h"

namespace profdiff::trace {
namespace {

using test_support::Gzip;
using ::testing::HasSubstr;

std::string SomeText() {
  std::string text;
  for (int i = 0; i < 5000; ++i) text += absl::StrCat(i * 7919 % 10007, ",");
  return text;
}

// The whole text, read `room` bytes at a time.
std::string ReadAll(std::string_view gz, size_t room) {
  GzipStream stream(gz, "t.gz");
  std::string out;
  std::string piece(room, '\0');
  while (!stream.done()) {
    absl::StatusOr<size_t> read = stream.Read(piece.data(), room);
    EXPECT_TRUE(read.ok()) << read.status();
    if (!read.ok()) break;
    out.append(piece, 0, *read);
  }
  return out;
}

TEST(GzipStreamTest, AnyRoomGivesTheSameText) {
  const std::string text = SomeText();
  const std::string gz = Gzip(text);
  for (size_t room : {size_t{1}, size_t{7}, size_t{4096}, text.size() + 1})
    EXPECT_EQ(ReadAll(gz, room), text) << room;
}

TEST(GzipStreamTest, TheReadThatTakesTheLastByteSaysItIsDone) {
  // A reader that sized its buffer from the trailer must not have to grow it
  // to learn that the text has ended.
  const std::string text = SomeText();
  const std::string gz = Gzip(text) + std::string(16, '\0');
  GzipStream stream(gz, "t.gz");
  std::string out(text.size(), '\0');
  absl::StatusOr<size_t> read = stream.Read(out.data(), out.size());
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(*read, text.size());
  EXPECT_TRUE(stream.done());
  EXPECT_EQ(out, text);
}

TEST(GzipStreamTest, MembersFollowOneAnother) {
  const std::string gz = Gzip("{\"traceEvents\": ") + Gzip("[]}");
  EXPECT_EQ(ReadAll(gz, 5), "{\"traceEvents\": []}");
}

TEST(GzipStreamTest, DamageIsDataLossAtItsMember) {
  const std::string first = Gzip("[]");
  std::string gz = first + Gzip(SomeText());
  gz.resize(gz.size() - 3);  // the second member cut short
  GzipStream stream(gz, "cut.gz");
  std::string out(1 << 20, '\0');
  absl::StatusOr<size_t> read = stream.Read(out.data(), out.size());
  EXPECT_EQ(read.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(read.status().message(),
              HasSubstr(absl::StrCat("cut.gz: gzip data is corrupt or "
                                     "truncated (member at compressed byte ",
                                     first.size(), " of ", gz.size(), ")")));
  GzipStream trailed(Gzip("[]") + "junk", "tail.gz");
  read = trailed.Read(out.data(), out.size());
  EXPECT_EQ(read.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(read.status().message(),
              HasSubstr("tail.gz: unexpected bytes after gzip member"));
}

}  // namespace
}  // namespace profdiff::trace
