// Reading a trace file into a padded buffer (trace_file.cc): gzip found by its
// magic bytes (several members, trailing zeros), blanks after the text, and the
// limits and damage that are errors naming the source.
#include "trace/trace_file.h"

#include <filesystem>
#include <fstream>
#include <string>

#include <absl/strings/str_cat.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/support/test_dir.h"
#include "tests/trace/kineto_read.h"

namespace profdiff::trace {
namespace {

using ::testing::HasSubstr;

constexpr std::string_view kJson = R"({"traceEvents": []})";

// The kJsonPadding bytes after the text are all blanks.
bool PaddedWithBlanks(const TraceFileBuffer& buffer) {
  if (buffer.capacity() < buffer.json().size() + kJsonPadding) return false;
  const std::string_view padding(buffer.data() + buffer.json().size(),
                                 kJsonPadding);
  return padding.find_first_not_of(' ') == std::string_view::npos;
}

TEST(TraceFileTest, GzipIsKnownByItsMagicBytes) {
  EXPECT_TRUE(IsGzip("\x1f\x8b"));
  EXPECT_TRUE(IsGzip(Gzip(kJson)));
  EXPECT_FALSE(IsGzip("\x1f"));
  EXPECT_FALSE(IsGzip("\x8b\x1f"));
  EXPECT_FALSE(IsGzip(""));
  EXPECT_FALSE(IsGzip(kJson));
}

TEST(TraceFileTest, PlainTextIsCopiedAndFollowedByBlanks) {
  TraceFileBuffer buffer;
  ASSERT_TRUE(buffer.LoadBytes(kJson, "t.json", {}).ok());
  EXPECT_EQ(buffer.json(), kJson);
  EXPECT_TRUE(PaddedWithBlanks(buffer));
}

TEST(TraceFileTest, GzipIsGunzippedWhateverTheName) {
  TraceFileBuffer buffer;
  ASSERT_TRUE(buffer.LoadBytes(Gzip(kJson), "t.json", {}).ok());
  EXPECT_EQ(buffer.json(), kJson);
  EXPECT_TRUE(PaddedWithBlanks(buffer));
}

TEST(TraceFileTest, GzipMembersAreConcatenatedAndTrailingZerosIgnored) {
  TraceFileBuffer buffer;
  const std::string two = Gzip("{\"traceEvents\": ") + Gzip("[]}");
  ASSERT_TRUE(buffer.LoadBytes(two, "t.gz", {}).ok());
  EXPECT_EQ(buffer.json(), kJson);
  ASSERT_TRUE(
      buffer.LoadBytes(Gzip(kJson) + std::string(512, '\0'), "t.gz", {}).ok());
  EXPECT_EQ(buffer.json(), kJson);
}

TEST(TraceFileTest, GunzipGrowsPastItsFirstGuess) {
  // 200 KiB of one byte compresses about 1000x: the first guess (64 KiB, at
  // most 64 times the compressed size) is short and the buffer grows.
  const std::string text(200 << 10, 'x');
  TraceFileBuffer buffer;
  ASSERT_TRUE(buffer.LoadBytes(Gzip(text), "t.gz", {}).ok());
  EXPECT_EQ(buffer.json(), text);
  EXPECT_TRUE(PaddedWithBlanks(buffer));
}

TEST(TraceFileTest, TruncatedOrTrailedGzipIsDataLoss) {
  const std::string gz = Gzip(kJson);
  TraceFileBuffer buffer;
  absl::Status status =
      buffer.LoadBytes(gz.substr(0, gz.size() - 3), "cut.gz", {});
  EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(status.message(), HasSubstr(absl::StrCat(
                                    "cut.gz: gzip data is corrupt or truncated "
                                    "(member at compressed byte 0 of ",
                                    gz.size() - 3, ")")));
  status = buffer.LoadBytes(gz + "junk", "tail.gz", {});
  EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(status.message(),
              HasSubstr(absl::StrCat("tail.gz: unexpected bytes after gzip "
                                     "member at compressed byte ",
                                     gz.size())));
}

TEST(TraceFileTest, GrowingMembersInflateWhereTheyStopped) {
  // Each member outgrows the buffer in turn: inflating resumes in the grown
  // buffer with the member's history (the second member's text refers back to
  // its first bytes, 200 KiB before the end).
  std::string first;
  std::string second;
  for (int i = 0; i < 20000; ++i) {
    first += absl::StrCat(i * 7919 % 10007, ",");
    second += absl::StrCat(i * 104729 % 10009, ";");
  }
  second += second.substr(0, 4096);
  TraceFileBuffer buffer;
  ASSERT_TRUE(buffer.LoadBytes(Gzip(first) + Gzip(second), "t.gz", {}).ok());
  EXPECT_EQ(buffer.json(), first + second);
  EXPECT_TRUE(PaddedWithBlanks(buffer));
}

TEST(TraceFileTest, ADamagedByteIsDataLoss) {
  // Text that compresses poorly: flipping a byte in the middle changes the
  // output or breaks the code, and inflate or the CRC finds it either way.
  std::string text;
  for (int i = 0; i < 4000; ++i) text += absl::StrCat(i * 2654435761u % 997);
  std::string gz = Gzip(text);
  gz[gz.size() / 2] = static_cast<char>(gz[gz.size() / 2] ^ 0x10);
  TraceFileBuffer buffer;
  const absl::Status status = buffer.LoadBytes(gz, "flip.gz", {});
  EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(status.message(),
              HasSubstr("flip.gz: gzip data is corrupt or truncated"));
}

TEST(TraceFileTest, GunzippedJsonOfExactlyMaxJsonBytesIsRead) {
  ReaderLimits limits;
  limits.max_json_bytes = kJson.size();
  TraceFileBuffer buffer;
  ASSERT_TRUE(buffer.LoadBytes(Gzip(kJson), "exact.gz", limits).ok());
  EXPECT_EQ(buffer.json(), kJson);
  limits.max_json_bytes = kJson.size() - 1;
  EXPECT_EQ(buffer.LoadBytes(Gzip(kJson), "over.gz", limits).code(),
            absl::StatusCode::kResourceExhausted);
}

TEST(TraceFileTest, ABombStopsAtMaxGzipRatioPastItsFloor) {
  // 80 MiB of blanks gzip to ~80 KB: past the guard's 64 MiB floor and over
  // 100 times the compressed size, so the read stops there.
  ReaderLimits limits;
  limits.max_gzip_ratio = 100;
  const std::string gz = Gzip(std::string(size_t{80} << 20, ' '));
  TraceFileBuffer buffer;
  const absl::Status status = buffer.LoadBytes(gz, "bomb.gz", limits);
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(status.message(),
              HasSubstr(absl::StrCat("bomb.gz: gunzipped JSON is over ",
                                     uint64_t{64} << 20,
                                     " bytes, max_gzip_ratio 100 times its ",
                                     gz.size(), " compressed bytes")));
}

TEST(TraceFileTest, JsonOverMaxJsonBytesIsResourceExhausted) {
  ReaderLimits limits;
  limits.max_json_bytes = 10;
  TraceFileBuffer buffer;
  absl::Status status = buffer.LoadBytes(kJson, "big.json", limits);
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(status.message(),
              HasSubstr("big.json: JSON is 19 bytes, over max_json_bytes 10"));
  status = buffer.LoadBytes(Gzip(kJson), "big.gz", limits);
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(status.message(),
              HasSubstr("big.gz: gunzipped JSON is over max_json_bytes 10"));
}

TEST(TraceFileTest, ShorterTextAfterALongerOneIsStillPaddedWithBlanks) {
  TraceFileBuffer buffer;
  ASSERT_TRUE(buffer.LoadBytes(std::string(1000, 'x'), "long", {}).ok());
  ASSERT_TRUE(buffer.LoadBytes("[]", "short", {}).ok());
  EXPECT_EQ(buffer.json(), "[]");
  EXPECT_TRUE(PaddedWithBlanks(buffer));
}

TEST(TraceFileTest, ItsOwnTextCanBeLoadedAgain) {
  TraceFileBuffer buffer;
  ASSERT_TRUE(buffer.LoadBytes(kJson, "t.json", {}).ok());
  ASSERT_TRUE(buffer.LoadBytes(buffer.json(), "again", {}).ok());
  EXPECT_EQ(buffer.json(), kJson);
  ASSERT_TRUE(buffer.LoadBytes(buffer.json().substr(1), "tail", {}).ok());
  EXPECT_EQ(buffer.json(), kJson.substr(1));
}

TEST(TraceFileTest, LoadReadsTheFileAndNamesItInErrors) {
  const std::filesystem::path dir = test_support::FreshTestDir("trace_file");
  const std::string path = (dir / "w.pt.trace.json.gz").string();
  std::ofstream(path, std::ios::binary) << Gzip(kJson);
  TraceFileBuffer buffer;
  ASSERT_TRUE(buffer.Load(path, {}).ok());
  EXPECT_EQ(buffer.json(), kJson);

  ReaderLimits limits;
  limits.max_file_bytes = 4;
  absl::Status status = buffer.Load(path, limits);
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(status.message(), HasSubstr(path));
  status = buffer.Load((dir / "missing.json").string(), {});
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(status.message(), HasSubstr("missing.json"));
}

}  // namespace
}  // namespace profdiff::trace
