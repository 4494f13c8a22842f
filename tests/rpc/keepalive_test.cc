// gRPC keepalive settings (keepalive.cc): the defaults, the environment's
// override, and durations as gRPC's integer milliseconds.
#include "rpc/keepalive.h"

#include <stdlib.h>

#include <climits>

#include <gtest/gtest.h>

namespace profdiff::rpc {
namespace {

// Clears PROFDIFF_GRPC_KEEPALIVE_MS before and after each test.
class KeepaliveTest : public ::testing::Test {
 protected:
  void SetUp() override { ::unsetenv("PROFDIFF_GRPC_KEEPALIVE_MS"); }
  void TearDown() override { ::unsetenv("PROFDIFF_GRPC_KEEPALIVE_MS"); }
};

TEST_F(KeepaliveTest, DefaultsPingClientsEvery30sAndServersEvery60s) {
  EXPECT_EQ(ClientKeepalive().time, absl::Seconds(30));
  EXPECT_EQ(ClientKeepalive().timeout, absl::Seconds(10));
  EXPECT_EQ(ServerKeepalive().time, absl::Seconds(60));
  EXPECT_EQ(ServerKeepalive().timeout, absl::Seconds(20));
  EXPECT_EQ(MinClientPingInterval(), absl::Seconds(5));
}

TEST_F(KeepaliveTest, EnvironmentReplacesBothTimesWithATimeoutOfAThird) {
  ::setenv("PROFDIFF_GRPC_KEEPALIVE_MS", "900", 1);
  EXPECT_EQ(ClientKeepalive().time, absl::Milliseconds(900));
  EXPECT_EQ(ClientKeepalive().timeout, absl::Milliseconds(300));
  EXPECT_EQ(ServerKeepalive().time, absl::Milliseconds(900));
  EXPECT_EQ(ServerKeepalive().timeout, absl::Milliseconds(300));
  // Servers must accept the clients' faster pings.
  EXPECT_EQ(MinClientPingInterval(), absl::Milliseconds(900));
}

TEST_F(KeepaliveTest, TimeoutIsAtLeastOneMillisecond) {
  ::setenv("PROFDIFF_GRPC_KEEPALIVE_MS", "2", 1);
  EXPECT_EQ(ClientKeepalive().time, absl::Milliseconds(2));
  EXPECT_EQ(ClientKeepalive().timeout, absl::Milliseconds(1));
}

TEST_F(KeepaliveTest, UnusableOverridesAreIgnored) {
  for (const char* text : {"", "0", "-5", "fast", "10ms"}) {
    ::setenv("PROFDIFF_GRPC_KEEPALIVE_MS", text, 1);
    EXPECT_EQ(ClientKeepalive().time, absl::Seconds(30)) << text;
    EXPECT_EQ(ServerKeepalive().timeout, absl::Seconds(20)) << text;
  }
}

TEST_F(KeepaliveTest, GrpcMillisIsClampedToAPositiveInt) {
  EXPECT_EQ(GrpcMillis(absl::Seconds(30)), 30000);
  EXPECT_EQ(GrpcMillis(absl::Microseconds(1500)), 1);
  EXPECT_EQ(GrpcMillis(absl::ZeroDuration()), 1);
  EXPECT_EQ(GrpcMillis(-absl::Seconds(1)), 1);
  EXPECT_EQ(GrpcMillis(absl::Hours(24 * 365)), INT_MAX);
  EXPECT_EQ(GrpcMillis(absl::InfiniteDuration()), INT_MAX);
}

}  // namespace
}  // namespace profdiff::rpc
