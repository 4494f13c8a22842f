// This machine's host name (hostname.cc).
#include "base/hostname.h"

#include <unistd.h>

#include <climits>

#include <gtest/gtest.h>

namespace profdiff::base {
namespace {

TEST(HostnameTest, IsWhatGethostnameSays) {
  char expected[HOST_NAME_MAX + 1] = {};
  ASSERT_EQ(::gethostname(expected, sizeof(expected)), 0);
  EXPECT_EQ(LocalHostname(), expected);
}

TEST(HostnameTest, IsNeverEmptyOrLongerThanAHostName) {
  const std::string name = LocalHostname();
  EXPECT_FALSE(name.empty());
  EXPECT_LE(name.size(), static_cast<size_t>(HOST_NAME_MAX));
  EXPECT_EQ(name.find('\0'), std::string::npos);
}

}  // namespace
}  // namespace profdiff::base
