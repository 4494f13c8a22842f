#include "base/page_buffer.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "base/page_size.h"

namespace profdiff::base {
namespace {

TEST(PageBufferTest, GrowsKeepingTheBytesAskedFor) {
  PageBuffer buffer;
  EXPECT_EQ(buffer.size(), 0u);
  ASSERT_TRUE(buffer.Grow(100, 0).ok());
  ASSERT_GE(buffer.size(), 100u);
  const std::string text = "{\"traceEvents\": []}";
  std::memcpy(buffer.data(), text.data(), text.size());
  const char* before = buffer.data();
  // Within the size: nothing moves.
  ASSERT_TRUE(buffer.Grow(buffer.size(), 0).ok());
  EXPECT_EQ(buffer.data(), before);
  // Past it: a new mapping holding the kept prefix, writable to its end.
  ASSERT_TRUE(buffer.Grow(size_t{5} << 20, text.size()).ok());
  ASSERT_GE(buffer.size(), size_t{5} << 20);
  EXPECT_EQ(std::string(buffer.data(), text.size()), text);
  buffer.data()[buffer.size() - 1] = 'x';
  EXPECT_EQ(buffer.data()[buffer.size() - 1], 'x');
}

TEST(PageBufferTest, AHugeBufferStartsOnAHugePage) {
  // Only an aligned 2 MiB range can be one huge page: a buffer of exactly one
  // that started anywhere else would get none. Several in a row, so that one
  // landing aligned by chance does not pass the test. (Linux 6.7 and later
  // align such mappings themselves; Debian 12's 6.1 does not.)
  std::vector<PageBuffer> buffers(8);
  for (PageBuffer& buffer : buffers) {
    ASSERT_TRUE(buffer.Grow(kHugePageBytes, 0).ok());
    EXPECT_EQ(reinterpret_cast<uintptr_t>(buffer.data()) % kHugePageBytes, 0u);
    EXPECT_EQ(buffer.size(), kHugePageBytes);
    buffer.data()[0] = 'a';
    buffer.data()[buffer.size() - 1] = 'z';  // mapped to its end
  }
}

TEST(PageBufferTest, AnImpossibleSizeIsResourceExhausted) {
  PageBuffer buffer;
  const absl::Status status = buffer.Grow(size_t{1} << 62, 0);
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(buffer.size(), 0u);
}

}  // namespace
}  // namespace profdiff::base
