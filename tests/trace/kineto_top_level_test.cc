// The top-level object of a Kineto trace (kineto_top_level.cc): the run's
// fields beside the events (deviceProperties, distributedInfo, base time,
// trace name) and the errors for each when it is misshapen.
#include <absl/strings/str_cat.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/trace/kineto_read.h"
#include "trace/kineto_reader.h"

namespace profdiff::trace {
namespace {

using ::testing::HasSubstr;

TEST(KinetoTopLevelTest, ObjectWithoutTraceEventsIsInvalidArgument) {
  EXPECT_THAT(ReadError(R"({"schemaVersion": 1})").message(),
              HasSubstr("no \"traceEvents\""));
}

TEST(KinetoTopLevelTest, ReadsEveryDevicePropertyAndTheRunFields) {
  const Trace trace = MustRead(R"({
    "traceName": "rank0", "baseTimeNanoseconds": 1234, "unknownField": {"x": [1]},
    "deviceProperties": [
      {"id": 1, "name": "A100", "totalGlobalMem": 42949672960, "numSms": 108, "computeMajor": 8,
       "computeMinor": 0, "maxThreadsPerMultiprocessor": 2048, "warpSize": 32, "regsPerBlock": 65536},
      {"id": 2, "name": "A10"}],
    "distributedInfo": {"backend": "gloo", "rank": 1, "world_size": 2, "pg_count": 3},
    "traceEvents": []})");
  const TraceMetadata& m = trace.metadata;
  EXPECT_EQ(m.trace_name, "rank0");
  EXPECT_EQ(m.base_time_ns, 1234);
  ASSERT_EQ(m.devices.size(), 2u);
  EXPECT_EQ(m.devices[0],
            (DeviceInfo{1, "A100", 42949672960, 108, 8, 0, 2048, 32}));
  EXPECT_EQ(m.devices[1], (DeviceInfo{2, "A10", 0, 0, 0, 0, 0, 0}));
  EXPECT_TRUE(m.has_distributed_info);
  EXPECT_EQ(m.backend, "gloo");
  EXPECT_EQ(m.rank, 1);
  EXPECT_EQ(m.world_size, 2);
}

TEST(KinetoTopLevelTest, WithoutDistributedInfoTheTraceIsRankZeroOfOne) {
  const TraceMetadata m = MustRead(R"({"traceEvents": []})").metadata;
  EXPECT_FALSE(m.has_distributed_info);
  EXPECT_EQ(m.rank, 0);
  EXPECT_EQ(m.world_size, 1);
  EXPECT_EQ(m.backend, "");
  EXPECT_TRUE(m.devices.empty());
}

TEST(KinetoTopLevelTest, NullNumbersAreZeroAndNonStringNamesAreSkipped) {
  const TraceMetadata m = MustRead(R"({"traceName": 7,
    "distributedInfo": {"backend": null, "rank": null, "world_size": "4"},
    "traceEvents": []})")
                              .metadata;
  EXPECT_EQ(m.trace_name, "");
  EXPECT_EQ(m.backend, "");
  EXPECT_EQ(m.rank, 0);
  EXPECT_EQ(m.world_size, 4);  // quoted integers read as elsewhere
}

TEST(KinetoTopLevelTest, NonIntegerTopFieldIsInvalidArgumentNamingIt) {
  constexpr std::string_view kJson =
      R"({"baseTimeNanoseconds": "soon", "traceEvents": []})";
  const absl::Status status = ReadError(kJson);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(),
              HasSubstr("bad.json: byte 2: field \"baseTimeNanoseconds\": "
                        "expected an integer"));
}

TEST(KinetoTopLevelTest, MisshapenRunFieldsAreInvalidArgument) {
  EXPECT_THAT(ReadError(R"({"traceEvents": {}})").message(),
              HasSubstr("bad.json: byte 2: \"traceEvents\" is not an array"));
  EXPECT_THAT(
      ReadError(R"({"deviceProperties": {}, "traceEvents": []})").message(),
      HasSubstr("\"deviceProperties\" is not an array"));
  EXPECT_THAT(
      ReadError(R"({"deviceProperties": [3], "traceEvents": []})").message(),
      HasSubstr("\"deviceProperties\" entry is not an object"));
  EXPECT_THAT(
      ReadError(R"({"deviceProperties": [{"name": 3}], "traceEvents": []})")
          .message(),
      HasSubstr("deviceProperties \"name\" is not a string"));
  EXPECT_THAT(
      ReadError(
          R"({"deviceProperties": [{"numSms": true}], "traceEvents": []})")
          .message(),
      HasSubstr("field \"numSms\": expected an integer"));
  EXPECT_THAT(
      ReadError(R"({"distributedInfo": [], "traceEvents": []})").message(),
      HasSubstr("\"distributedInfo\" is not an object"));
  EXPECT_THAT(
      ReadError(R"({"distributedInfo": {"rank": "first"}, "traceEvents": []})")
          .message(),
      HasSubstr("field \"rank\": expected an integer"));
}

TEST(KinetoTopLevelTest, ObjectWithoutTraceEventsIsNotATrace) {
  EXPECT_TRUE(IsNotATrace(ReadError(R"({"traceName": "x"})")));
  EXPECT_FALSE(IsNotATrace(ReadError(R"({"traceEvents": 1})")));
}

}  // namespace
}  // namespace profdiff::trace
