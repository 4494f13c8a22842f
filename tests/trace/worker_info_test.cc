// A trace's worker facts to and from the WorkerInfo proto (worker_info.cc).
#include "trace/worker_info.h"

#include <gtest/gtest.h>

#include "tests/trace/kineto_read.h"

namespace profdiff::trace {
namespace {

TEST(WorkerInfoTest, CarriesEveryMetadataFieldAndCounter) {
  Trace trace = MustRead(kModernTrace);
  trace.metadata.trace_name = "rank3";
  trace.metadata.devices[0].max_threads_per_multiprocessor = 2048;
  trace.metadata.devices[0].warp_size = 32;
  trace.counters.unsupported_phase_events = 4;
  const v1::WorkerInfo info = WorkerInfoOf(trace);
  EXPECT_EQ(info.rank(), 3);
  EXPECT_EQ(info.world_size(), 8);
  EXPECT_EQ(info.backend(), "nccl");
  EXPECT_TRUE(info.distributed_info_present());
  EXPECT_EQ(info.base_time_ns(), 1700000000000000000);
  EXPECT_EQ(info.trace_name(), "rank3");
  EXPECT_EQ(info.source_path(), "test.json");
  EXPECT_EQ(info.source_format(), v1::SOURCE_FORMAT_KINETO_JSON);
  EXPECT_EQ(info.dropped_event_count(), 4);
  EXPECT_EQ(info.unknown_category_count(), 1);
  ASSERT_EQ(info.devices_size(), 1);
  const v1::DeviceProperties& d = info.devices(0);
  EXPECT_EQ(d.id(), 0);
  EXPECT_EQ(d.name(), "NVIDIA H100");
  EXPECT_EQ(d.total_global_mem_bytes(), 85000000000);
  EXPECT_EQ(d.num_sms(), 132);
  EXPECT_EQ(d.compute_major(), 9);
  EXPECT_EQ(d.compute_minor(), 0);
  EXPECT_EQ(d.max_threads_per_multiprocessor(), 2048);
  EXPECT_EQ(d.warp_size(), 32);
}

TEST(WorkerInfoTest, CallerFieldsAreLeftEmpty) {
  const v1::WorkerInfo info = WorkerInfoOf(MustRead(kModernTrace));
  EXPECT_EQ(info.run(), "");
  EXPECT_EQ(info.worker_name(), "");
  EXPECT_EQ(info.hostname(), "");
  EXPECT_EQ(info.pid(), 0);
}

TEST(WorkerInfoTest, ApplyIsTheInverseOfWorkerInfoOf) {
  for (std::string_view json :
       {kModernTrace,
        std::string_view(R"([{"ph": "X", "name": "a", "ts": 1, "dur": 1}])")}) {
    const Trace trace = MustRead(json);
    Trace applied;
    DeviceInfo stale;
    stale.id = 9;
    stale.name = "stale";
    applied.metadata.devices.push_back(stale);
    ApplyWorkerInfo(WorkerInfoOf(trace), applied);
    EXPECT_EQ(applied.metadata, trace.metadata);
    EXPECT_EQ(applied.counters, trace.counters);
  }
}

TEST(WorkerInfoTest, UnknownSourceFormatIsUnspecified) {
  v1::WorkerInfo info;
  info.set_source_format(static_cast<v1::SourceFormat>(77));
  Trace trace;
  trace.metadata.source_format = SourceFormat::kCupti;
  ApplyWorkerInfo(info, trace);
  EXPECT_EQ(trace.metadata.source_format, SourceFormat::kUnspecified);
  trace.metadata.source_format = SourceFormat::kCupti;
  EXPECT_EQ(WorkerInfoOf(trace).source_format(), v1::SOURCE_FORMAT_CUPTI);
}

}  // namespace
}  // namespace profdiff::trace
