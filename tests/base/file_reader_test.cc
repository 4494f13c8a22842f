// Whole files read with a size limit (base/file_reader.h): into a string and
// into a page buffer, the same bytes and the same errors, each naming the path.
#include "base/file_reader.h"

#include <fstream>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "base/page_buffer.h"
#include "tests/support/test_dir.h"

namespace profdiff::base {
namespace {

using ::testing::HasSubstr;

void Write(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

TEST(FileReaderTest, AStringAndAPageBufferGetTheSameBytes) {
  const test_support::TempDir dir;
  std::string big(size_t{3} << 20, '\0');  // past a huge page
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>(i * 7);
  for (const std::string& bytes : {std::string(), std::string("{}"), big}) {
    SCOPED_TRACE(bytes.size());
    Write(dir.Join("f"), bytes);
    std::string text = "left over";
    ASSERT_TRUE(ReadFileInto(dir.Join("f"), 1 << 30, text).ok());
    EXPECT_EQ(text, bytes);
    PageBuffer buffer;
    size_t size = 99;
    ASSERT_TRUE(ReadFileInto(dir.Join("f"), 1 << 30, buffer, size).ok());
    ASSERT_EQ(size, bytes.size());
    EXPECT_EQ(std::string(buffer.data(), size), bytes);
  }
}

TEST(FileReaderTest, ErrorsNameThePathAndTheLimit) {
  const test_support::TempDir dir;
  Write(dir.Join("five"), "12345");
  PageBuffer buffer;
  size_t size = 0;
  absl::Status status = ReadFileInto(dir.Join("five"), 4, buffer, size);
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(status.message(), HasSubstr("five: file is 5 bytes, over the "
                                          "limit of 4"));
  status = ReadFileInto(dir.Join("missing"), 4, buffer, size);
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(status.message(), HasSubstr("missing: open"));
  status = ReadFileInto(dir.path(), 4, buffer, size);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("is a folder"));
  std::string text;
  EXPECT_EQ(ReadFileInto(dir.Join("five"), 4, text).code(),
            absl::StatusCode::kResourceExhausted);
}

}  // namespace
}  // namespace profdiff::base
