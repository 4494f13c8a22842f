// CuptiRecordTranslator on hand-built cupti.h records (no GPU): every field
// that matters for kernels, memcpy, memset, API, synchronization and overhead
// records reaches the event, named as Kineto names it; external ids, the
// capture window and unsupported kinds; and a span of NVTX ranges + launches +
// kernels attributes its kernels to the launching operator in a profile.
#include "agent/cupti/cupti_record_translator.h"

#include <cstring>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "analysis/worker_profile.h"
#include "profdiff/v1/trace.pb.h"
#include "trace/event_batch.h"

namespace profdiff::agent::cupti {
namespace {

using trace::ArgKey;
using trace::EventKind;

constexpr uint32_t kLaunchCbid =
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000;

// A stand-in for cuptiGetCallbackName: CUPTI's versioned spelling for the one
// id tests use.
std::string FakeCallbackName(CUpti_CallbackDomain domain,
                             CUpti_CallbackId cbid) {
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API && cbid == kLaunchCbid)
    return "cudaLaunchKernel_v7000";
  if (domain == CUPTI_CB_DOMAIN_DRIVER_API && cbid == 1) return "cuInit";
  return "";
}

template <typename Record>
Record Zeroed(CUpti_ActivityKind kind) {
  Record record;
  std::memset(&record, 0, sizeof(record));
  record.kind = kind;
  return record;
}

const CUpti_Activity& AsActivity(const void* record) {
  return *static_cast<const CUpti_Activity*>(record);
}

CUpti_ActivityDevice5 A100Like() {
  auto device = Zeroed<CUpti_ActivityDevice5>(CUPTI_ACTIVITY_KIND_DEVICE);
  device.id = 0;
  device.name = "NVIDIA A100-SXM4-40GB";
  device.globalMemorySize = 40ull << 30;
  device.numMultiprocessors = 108;
  device.numThreadsPerWarp = 32;
  device.maxWarpsPerMultiprocessor = 64;
  device.computeCapabilityMajor = 8;
  device.computeCapabilityMinor = 0;
  return device;
}

CUpti_ActivityKernel10 Kernel(uint32_t correlation, uint64_t start,
                              uint64_t end) {
  auto kernel =
      Zeroed<CUpti_ActivityKernel10>(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  kernel.name = "_Z6vecAddPfS_S_i";
  kernel.start = start;
  kernel.end = end;
  kernel.deviceId = 0;
  kernel.streamId = 7;
  kernel.correlationId = correlation;
  kernel.gridX = 216;
  kernel.gridY = 1;
  kernel.gridZ = 1;
  kernel.blockX = 256;
  kernel.blockY = 1;
  kernel.blockZ = 1;
  kernel.registersPerThread = 32;
  kernel.staticSharedMemory = 1024;
  kernel.dynamicSharedMemory = 2048;
  return kernel;
}

CUpti_ActivityAPI Launch(uint32_t correlation, uint64_t start, uint64_t end) {
  auto api = Zeroed<CUpti_ActivityAPI>(CUPTI_ACTIVITY_KIND_RUNTIME);
  api.cbid = kLaunchCbid;
  api.start = start;
  api.end = end;
  api.processId = 4242;
  api.threadId = 77;
  api.correlationId = correlation;
  return api;
}

class TranslatorTest : public ::testing::Test {
 protected:
  std::string_view Name(size_t i) const {
    return trace_.strings.Get(trace_.events.name[i]);
  }
  std::string_view Category(size_t i) const {
    return trace_.strings.Get(trace_.events.category[i]);
  }
  std::string StringArg(size_t i, ArgKey key) const {
    std::optional<trace::StringId> id = trace_.StringArg(i, key);
    return id ? std::string(trace_.strings.Get(*id)) : "<absent>";
  }

  CuptiRecordTranslator translator_{FakeCallbackName};
  TimeWindow all_;
  trace::Trace trace_;
};

TEST_F(TranslatorTest,
       KernelCarriesGridBlockRegistersSharedMemoryStreamAndCorrelation) {
  const CUpti_ActivityDevice5 device = A100Like();
  translator_.Translate(AsActivity(&device), all_, trace_);
  const CUpti_ActivityKernel10 kernel = Kernel(42, 1'000, 3'500);
  translator_.Translate(AsActivity(&kernel), all_, trace_);

  ASSERT_EQ(trace_.events.size(),
            1u);  // the device record is state, not an event
  EXPECT_EQ(trace_.events.kind[0], EventKind::kKernel);
  EXPECT_EQ(Category(0), "kernel");
  EXPECT_EQ(
      Name(0),
      "vecAdd(float*, float*, float*, int)");  // demangled, as Kineto shows it
  EXPECT_EQ(trace_.events.start_ns[0], 1'000);
  EXPECT_EQ(trace_.events.duration_ns[0], 2'500);
  EXPECT_EQ(trace_.events.pid[0], 0);  // device
  EXPECT_EQ(trace_.events.tid[0], 7);  // stream
  EXPECT_EQ(trace_.events.correlation[0], 42);
  EXPECT_EQ(StringArg(0, ArgKey::kGrid), "[216, 1, 1]");
  EXPECT_EQ(StringArg(0, ArgKey::kBlock), "[256, 1, 1]");
  EXPECT_EQ(trace_.IntArg(0, ArgKey::kRegistersPerThread), 32);
  EXPECT_EQ(trace_.IntArg(0, ArgKey::kSharedMemoryBytes),
            1024 + 2048);  // static + dynamic
  EXPECT_EQ(trace_.IntArg(0, ArgKey::kDevice), 0);
  EXPECT_EQ(trace_.IntArg(0, ArgKey::kStream), 7);
  // 216 blocks over 108 SMs = 2 blocks per SM; 256 threads = 8 warps per block
  // -> 16 warps per SM.
  EXPECT_DOUBLE_EQ(trace_.DoubleArg(0, ArgKey::kBlocksPerSm).value_or(-1), 2.0);
  EXPECT_DOUBLE_EQ(trace_.DoubleArg(0, ArgKey::kWarpsPerSm).value_or(-1), 16.0);
}

TEST_F(TranslatorTest, KernelBeforeAnyDeviceRecordHasNoPerSmEstimates) {
  const CUpti_ActivityKernel10 kernel = Kernel(1, 0, 10);
  translator_.Translate(AsActivity(&kernel), all_, trace_);
  ASSERT_EQ(trace_.events.size(), 1u);
  EXPECT_FALSE(trace_.DoubleArg(0, ArgKey::kBlocksPerSm).has_value());
}

TEST_F(TranslatorTest, MemcpyIsNamedByCopyAndMemoryKindsWithBytesAndBandwidth) {
  auto memcpy = Zeroed<CUpti_ActivityMemcpy6>(CUPTI_ACTIVITY_KIND_MEMCPY);
  memcpy.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_HTOD;
  memcpy.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE;
  memcpy.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  memcpy.bytes = 4096;
  memcpy.start = 1'000;
  memcpy.end = 3'048;
  memcpy.deviceId = 1;
  memcpy.streamId = 13;
  memcpy.correlationId = 5;
  translator_.Translate(AsActivity(&memcpy), all_, trace_);

  ASSERT_EQ(trace_.events.size(), 1u);
  EXPECT_EQ(trace_.events.kind[0], EventKind::kMemcpy);
  EXPECT_EQ(Category(0), "gpu_memcpy");
  EXPECT_EQ(Name(0), "Memcpy HtoD (Pageable -> Device)");
  EXPECT_EQ(trace_.events.pid[0], 1);
  EXPECT_EQ(trace_.events.tid[0], 13);
  EXPECT_EQ(trace_.events.correlation[0], 5);
  EXPECT_EQ(trace_.IntArg(0, ArgKey::kBytes), 4096);
  // 4096 bytes in 2048 ns = 2 bytes/ns = 2 GB/s.
  EXPECT_DOUBLE_EQ(trace_.DoubleArg(0, ArgKey::kBandwidthGbps).value_or(-1),
                   2.0);
}

TEST_F(TranslatorTest, EveryCopyKindHasItsKinetoName) {
  EXPECT_STREQ(MemcpyKindName(CUPTI_ACTIVITY_MEMCPY_KIND_DTOH), "DtoH");
  EXPECT_STREQ(MemcpyKindName(CUPTI_ACTIVITY_MEMCPY_KIND_DTOD), "DtoD");
  EXPECT_STREQ(MemcpyKindName(CUPTI_ACTIVITY_MEMCPY_KIND_PTOP), "PtoP");
  EXPECT_STREQ(MemcpyKindName(200), "Unknown");
  EXPECT_STREQ(MemoryKindName(CUPTI_ACTIVITY_MEMORY_KIND_PINNED), "Pinned");
  EXPECT_STREQ(MemoryKindName(CUPTI_ACTIVITY_MEMORY_KIND_MANAGED), "Managed");
}

TEST_F(TranslatorTest, MemsetCarriesMemoryKindBytesAndStream) {
  auto memset = Zeroed<CUpti_ActivityMemset4>(CUPTI_ACTIVITY_KIND_MEMSET);
  memset.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  memset.bytes = 1024;
  memset.start = 100;
  memset.end = 612;
  memset.deviceId = 0;
  memset.streamId = 3;
  memset.correlationId = 9;
  translator_.Translate(AsActivity(&memset), all_, trace_);

  ASSERT_EQ(trace_.events.size(), 1u);
  EXPECT_EQ(trace_.events.kind[0], EventKind::kMemset);
  EXPECT_EQ(Name(0), "Memset (Device)");
  EXPECT_EQ(trace_.events.duration_ns[0], 512);
  EXPECT_EQ(trace_.events.tid[0], 3);
  EXPECT_EQ(trace_.events.correlation[0], 9);
  EXPECT_EQ(trace_.IntArg(0, ArgKey::kBytes), 1024);
  EXPECT_DOUBLE_EQ(trace_.DoubleArg(0, ArgKey::kBandwidthGbps).value_or(-1),
                   2.0);  // 1024/512
}

TEST_F(TranslatorTest,
       RuntimeAndDriverCallsSitOnTheirOsThreadWithoutVersionSuffix) {
  const CUpti_ActivityAPI launch = Launch(42, 200, 260);
  translator_.Translate(AsActivity(&launch), all_, trace_);
  auto driver = Zeroed<CUpti_ActivityAPI>(CUPTI_ACTIVITY_KIND_DRIVER);
  driver.cbid = 1;
  driver.start = 10;
  driver.end = 20;
  driver.processId = 4242;
  driver.threadId = 78;
  translator_.Translate(AsActivity(&driver), all_, trace_);
  auto unknown = Launch(43, 300, 310);
  unknown.cbid = 9999;
  translator_.Translate(AsActivity(&unknown), all_, trace_);

  ASSERT_EQ(trace_.events.size(), 3u);
  EXPECT_EQ(trace_.events.kind[0], EventKind::kRuntime);
  EXPECT_EQ(Category(0), "cuda_runtime");
  EXPECT_EQ(Name(0), "cudaLaunchKernel");
  EXPECT_EQ(trace_.events.pid[0], 4242);
  EXPECT_EQ(trace_.events.tid[0], 77);
  EXPECT_EQ(trace_.events.correlation[0], 42);
  EXPECT_EQ(trace_.events.duration_ns[0], 60);
  EXPECT_EQ(trace_.events.kind[1], EventKind::kDriver);
  EXPECT_EQ(Category(1), "cuda_driver");
  EXPECT_EQ(Name(1), "cuInit");
  EXPECT_EQ(trace_.events.tid[1], 78);
  EXPECT_EQ(Name(2),
            "cuda_runtime_cbid_9999");  // unnamed ids stay distinguishable
}

TEST_F(TranslatorTest, SynchronizationSitsOnItsContextsDeviceAndStream) {
  auto context = Zeroed<CUpti_ActivityContext3>(CUPTI_ACTIVITY_KIND_CONTEXT);
  context.contextId = 5;
  context.deviceId = 2;
  translator_.Translate(AsActivity(&context), all_, trace_);
  auto sync = Zeroed<CUpti_ActivitySynchronization2>(
      CUPTI_ACTIVITY_KIND_SYNCHRONIZATION);
  sync.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE;
  sync.contextId = 5;
  sync.streamId = 7;
  sync.start = 1'000;
  sync.end = 9'000;
  sync.correlationId = 11;
  translator_.Translate(AsActivity(&sync), all_, trace_);
  auto context_sync = sync;
  context_sync.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE;
  context_sync.streamId = CUPTI_SYNCHRONIZATION_INVALID_VALUE;
  context_sync.contextId = 6;  // no context record: device unknown
  translator_.Translate(AsActivity(&context_sync), all_, trace_);

  ASSERT_EQ(trace_.events.size(), 2u);
  EXPECT_EQ(trace_.events.kind[0], EventKind::kSync);
  EXPECT_EQ(Category(0), "cuda_sync");
  EXPECT_EQ(Name(0), "Stream Sync");
  EXPECT_EQ(trace_.events.pid[0], 2);
  EXPECT_EQ(trace_.events.tid[0], 7);
  EXPECT_EQ(trace_.events.duration_ns[0], 8'000);
  EXPECT_EQ(trace_.events.correlation[0], 11);
  EXPECT_EQ(Name(1), "Context Sync");
  EXPECT_EQ(trace_.events.pid[1], -1);
  EXPECT_EQ(trace_.events.tid[1], -1);
}

TEST_F(TranslatorTest, OverheadOnAThreadKeepsItsProcessAndThread) {
  auto overhead = Zeroed<CUpti_ActivityOverhead3>(CUPTI_ACTIVITY_KIND_OVERHEAD);
  overhead.overheadKind = CUPTI_ACTIVITY_OVERHEAD_CUPTI_BUFFER_FLUSH;
  overhead.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
  overhead.objectId.pt.processId = 4242;
  overhead.objectId.pt.threadId = 99;
  overhead.start = 50;
  overhead.end = 80;
  translator_.Translate(AsActivity(&overhead), all_, trace_);
  ASSERT_EQ(trace_.events.size(), 1u);
  EXPECT_EQ(trace_.events.kind[0], EventKind::kOverhead);
  EXPECT_EQ(Name(0), "Buffer Flush");
  EXPECT_EQ(trace_.events.pid[0], 4242);
  EXPECT_EQ(trace_.events.tid[0], 99);
  EXPECT_EQ(trace_.events.duration_ns[0], 30);
}

TEST_F(TranslatorTest,
       ExternalIdsReachTheirRuntimeCallsWhicheverRecordCameFirst) {
  auto external = Zeroed<CUpti_ActivityExternalCorrelation>(
      CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION);
  external.externalKind = CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0;
  external.correlationId = 42;
  external.externalId = 9001;
  const CUpti_ActivityAPI before = Launch(41, 100, 110);
  const CUpti_ActivityAPI after = Launch(42, 200, 210);
  translator_.Translate(AsActivity(&after), all_,
                        trace_);  // the call first ...
  translator_.Translate(AsActivity(&external), all_,
                        trace_);  // ... its external id later
  translator_.Translate(AsActivity(&before), all_, trace_);
  translator_.FinishSpan(trace_);

  ASSERT_EQ(trace_.events.size(), 2u);
  EXPECT_EQ(trace_.events.external_id[0], 9001);
  EXPECT_EQ(trace_.events.external_id[1],
            trace::kNoId);  // correlation 41 had none
  EXPECT_EQ(trace_.metadata.source_format, trace::SourceFormat::kCupti);
}

TEST_F(TranslatorTest, FinishSpanPutsTheDevicesSeenIntoTheMetadata) {
  const CUpti_ActivityDevice5 device = A100Like();
  translator_.Translate(AsActivity(&device), all_, trace_);
  translator_.FinishSpan(trace_);
  ASSERT_EQ(trace_.metadata.devices.size(), 1u);
  const trace::DeviceInfo& d = trace_.metadata.devices[0];
  EXPECT_EQ(d.name, "NVIDIA A100-SXM4-40GB");
  EXPECT_EQ(d.num_sms, 108);
  EXPECT_EQ(d.compute_major, 8);
  EXPECT_EQ(d.warp_size, 32);
  EXPECT_EQ(d.max_threads_per_multiprocessor, 64 * 32);
  EXPECT_EQ(d.total_global_mem_bytes, int64_t{40} << 30);
}

TEST_F(TranslatorTest, RecordsStartingOutsideTheWindowAreCountedNotKept) {
  const TimeWindow window{1'000, 2'000};
  const CUpti_ActivityKernel10 early = Kernel(1, 999, 1'500);
  const CUpti_ActivityKernel10 inside =
      Kernel(2, 1'000, 2'500);  // may end after the window
  const CUpti_ActivityKernel10 late = Kernel(3, 2'000, 2'100);
  for (const auto* k : {&early, &inside, &late})
    translator_.Translate(AsActivity(k), window, trace_);
  ASSERT_EQ(trace_.events.size(), 1u);
  EXPECT_EQ(trace_.events.correlation[0], 2);
  EXPECT_EQ(translator_.counters().outside_window, 2);
  EXPECT_EQ(translator_.counters().events, 1);
}

TEST_F(TranslatorTest,
       DeviceWorkLaunchedInsideTheWindowIsKeptWhenItRunsAfterIt) {
  const TimeWindow window{1'000, 2'000};
  const CUpti_ActivityAPI launch =
      Launch(7, 1'900, 1'950);  // launched in the last step
  const CUpti_ActivityKernel10 lagging =
      Kernel(7, 2'400, 2'600);  // runs after the window
  const CUpti_ActivityAPI early_launch =
      Launch(6, 900, 950);  // launched before the window
  const CUpti_ActivityKernel10 early =
      Kernel(6, 1'100, 1'200);  // ... runs inside it
  for (const void* r :
       {static_cast<const void*>(&launch), static_cast<const void*>(&lagging),
        static_cast<const void*>(&early_launch),
        static_cast<const void*>(&early)}) {
    translator_.Translate(AsActivity(r), window, trace_);
  }
  ASSERT_EQ(trace_.events.size(),
            3u);  // the launch, its lagging kernel, and the early kernel
  EXPECT_EQ(trace_.events.kind[1], EventKind::kKernel);
  EXPECT_EQ(trace_.events.correlation[1], 7);
  EXPECT_EQ(translator_.counters().outside_window,
            1);  // the launch before the window
}

TEST_F(TranslatorTest, KindsWithoutEventsAreCountedUnsupported) {
  auto marker = Zeroed<CUpti_ActivityMarker2>(CUPTI_ACTIVITY_KIND_MARKER);
  translator_.Translate(AsActivity(&marker), all_, trace_);
  EXPECT_EQ(trace_.events.size(), 0u);
  EXPECT_EQ(translator_.counters().unsupported, 1);
}

TEST_F(TranslatorTest, NvtxRangesBecomeOperatorsStepsAndAnnotations) {
  translator_.TranslateRange({"ProfilerStep#3", 77, 0, 1'000}, 4242, all_,
                             trace_);
  translator_.TranslateRange(
      {"aten::mm, seq = 5, sizes = [[2, 3], [3, 4]]", 77, 100, 500}, 4242, all_,
      trace_);
  translator_.TranslateRange({"forward", 77, 50, 900}, 4242, all_, trace_);
  ASSERT_EQ(trace_.events.size(), 3u);
  EXPECT_EQ(trace_.events.kind[0], EventKind::kProfilerStep);
  EXPECT_EQ(trace_.events.kind[1], EventKind::kCpuOp);
  EXPECT_EQ(Name(1), "aten::mm");
  EXPECT_EQ(Category(1), "cpu_op");
  EXPECT_EQ(trace_.events.sequence_number[1], 5);
  EXPECT_EQ(trace_.strings.Get(trace_.events.input_shapes[1]), "[[2,3],[3,4]]");
  EXPECT_EQ(trace_.events.pid[1], 4242);
  EXPECT_EQ(trace_.events.tid[1], 77);
  EXPECT_EQ(trace_.events.duration_ns[1], 400);
  EXPECT_EQ(trace_.events.kind[2], EventKind::kUserAnnotation);
  EXPECT_EQ(Category(2), "user_annotation");
}

// The whole path without a GPU: NVTX ranges, a launch and its kernel, through
// an EventBatch (as uploaded) into a worker profile, where the kernel's time
// belongs to the operator whose range was open on the launching thread
// (docs/semantics.md §5 containment).
TEST_F(TranslatorTest, KernelsAttributeToTheOperatorOpenOnTheLaunchingThread) {
  const CUpti_ActivityDevice5 device = A100Like();
  translator_.Translate(AsActivity(&device), all_, trace_);
  // Step 1 ms .. 2 ms; aten::mm 1.1 .. 1.5 ms launches at 1.2 ms a kernel
  // running 1.6 .. 1.9 ms.
  translator_.TranslateRange({"ProfilerStep#0", 77, 1'000'000, 2'000'000}, 4242,
                             all_, trace_);
  translator_.TranslateRange({"aten::mm, seq = 5", 77, 1'100'000, 1'500'000},
                             4242, all_, trace_);
  const CUpti_ActivityAPI launch = Launch(42, 1'200'000, 1'210'000);
  const CUpti_ActivityKernel10 kernel = Kernel(42, 1'600'000, 1'900'000);
  translator_.Translate(AsActivity(&launch), all_, trace_);
  translator_.Translate(AsActivity(&kernel), all_, trace_);
  translator_.FinishSpan(trace_);

  v1::EventBatch batch;
  trace::EncodeEventBatch(trace_, 0, trace_.events.size(), batch);
  trace::Trace received;
  ASSERT_TRUE(
      trace::AppendEventBatch(batch, trace::EventBatchLimits{}, received).ok());
  received.metadata = trace_.metadata;
  const v1::WorkerProfile profile = analysis::BuildWorkerProfile(
      received, {.run = "r", .worker_name = "host_4242"},
      analysis::ProfileOptions{});

  const v1::OperatorStats* mm = nullptr;
  for (const v1::OperatorStats& op : profile.operators()) {
    if (op.name() == "aten::mm") mm = &op;
  }
  ASSERT_NE(mm, nullptr);
  EXPECT_EQ(mm->calls(), 1);
  EXPECT_DOUBLE_EQ(mm->host_total_us(), 400.0);    // 1.5 - 1.1 ms
  EXPECT_DOUBLE_EQ(mm->device_total_us(), 300.0);  // the kernel's 1.9 - 1.6 ms
  ASSERT_EQ(profile.kernels_size(), 1);
  EXPECT_EQ(profile.kernels(0).name(), "vecAdd(float*, float*, float*, int)");
  EXPECT_EQ(profile.kernels(0).calls(), 1);
  EXPECT_DOUBLE_EQ(profile.kernels(0).total_us(), 300.0);
  ASSERT_EQ(profile.steps_size(), 1);
  EXPECT_DOUBLE_EQ(profile.steps(0).kernel_us(), 300.0);
}

}  // namespace
}  // namespace profdiff::agent::cupti
