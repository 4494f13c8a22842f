// The kinds, phases and typed argument keys of an event (event_kind.cc): each
// key's storage type and Kineto's JSON name, which kinds run on a device or a
// host thread, and that the enums keep the numbers of trace.proto.
#include "trace/event_kind.h"

#include <set>
#include <string>

#include <gtest/gtest.h>

#include "profdiff/v1/trace.pb.h"

namespace profdiff::trace {
namespace {

TEST(EventKindTest, ArgumentsHaveKinetosNamesAndTypes) {
  EXPECT_EQ(ArgJsonName(ArgKey::kGrid), "grid");
  EXPECT_EQ(ArgTypeOf(ArgKey::kGrid), ArgType::kString);
  EXPECT_EQ(ArgJsonName(ArgKey::kBlocksPerSm), "blocks per SM");
  EXPECT_EQ(ArgTypeOf(ArgKey::kBlocksPerSm), ArgType::kDouble);
  EXPECT_EQ(ArgJsonName(ArgKey::kAchievedOccupancyPct),
            "est. achieved occupancy %");
  EXPECT_EQ(ArgJsonName(ArgKey::kTotalAllocatedBytes), "Total Allocated");
  EXPECT_EQ(ArgTypeOf(ArgKey::kTotalAllocatedBytes), ArgType::kInt);
  EXPECT_EQ(ArgJsonName(ArgKey::kBandwidthGbps), "memory bandwidth (GB/s)");
  EXPECT_EQ(ArgTypeOf(ArgKey::kBandwidthGbps), ArgType::kDouble);
  EXPECT_EQ(ArgJsonName(ArgKey::kProcessGroupRanks), "Process Group Ranks");
  EXPECT_EQ(ArgTypeOf(ArgKey::kProcessGroupRanks), ArgType::kString);
  EXPECT_EQ(ArgJsonName(ArgKey::kFlowBindingEnclosing), "bp");
  EXPECT_EQ(ArgJsonName(ArgKey::kSelfCpuMemoryUsage), "Self CPU Memory Usage");
  EXPECT_EQ(ArgTypeOf(ArgKey::kSelfCpuMemoryUsage), ArgType::kInt);
}

TEST(EventKindTest, EveryArgumentButUnspecifiedHasItsOwnJsonName) {
  EXPECT_EQ(ArgJsonName(ArgKey::kUnspecified), "");
  std::set<std::string> names;
  for (int k = 1; k < kArgKeyCount; ++k) {
    const std::string name(ArgJsonName(static_cast<ArgKey>(k)));
    EXPECT_FALSE(name.empty()) << "ArgKey " << k;
    EXPECT_TRUE(names.insert(name).second) << name << " named twice";
  }
}

TEST(EventKindTest, OnlyKernelsMemcpysAndMemsetsAreDeviceActivities) {
  std::set<EventKind> device;
  for (int k = 0; k < kEventKindCount; ++k) {
    if (IsDeviceActivity(static_cast<EventKind>(k)))
      device.insert(static_cast<EventKind>(k));
  }
  EXPECT_EQ(device, (std::set<EventKind>{EventKind::kKernel, EventKind::kMemcpy,
                                         EventKind::kMemset}));
}

TEST(EventKindTest, HostRangesAreTheHostThreadKindsWithADuration) {
  std::set<EventKind> host;
  for (int k = 0; k < kEventKindCount; ++k) {
    if (IsHostRange(static_cast<EventKind>(k)))
      host.insert(static_cast<EventKind>(k));
  }
  EXPECT_EQ(host,
            (std::set<EventKind>{EventKind::kCpuOp, EventKind::kUserAnnotation,
                                 EventKind::kPythonFunction, EventKind::kModule,
                                 EventKind::kProfilerStep, EventKind::kRuntime,
                                 EventKind::kDriver, EventKind::kSync,
                                 EventKind::kOverhead}));
  for (int k = 0; k < kEventKindCount; ++k) {
    const auto kind = static_cast<EventKind>(k);
    EXPECT_FALSE(IsHostRange(kind) && IsDeviceActivity(kind));
  }
}

TEST(EventKindTest, EnumsKeepTheNumbersOfTheProto) {
  EXPECT_EQ(kEventKindCount, v1::EventKind_ARRAYSIZE);
  EXPECT_EQ(kArgKeyCount, v1::ArgKey_ARRAYSIZE);
  EXPECT_EQ(static_cast<int>(EventKind::kKernel), v1::EVENT_KIND_KERNEL);
  EXPECT_EQ(static_cast<int>(EventKind::kOther), v1::EVENT_KIND_OTHER);
  EXPECT_EQ(static_cast<int>(EventPhase::kMetadata), v1::EVENT_PHASE_METADATA);
  EXPECT_EQ(static_cast<int>(ArgKey::kGrid), v1::ARG_KEY_GRID);
  EXPECT_EQ(static_cast<int>(ArgKey::kSelfCpuMemoryUsage),
            v1::ARG_KEY_SELF_CPU_MEMORY_USAGE);
}

}  // namespace
}  // namespace profdiff::trace
