// What an event is (kind), how the Chrome trace wrote it (phase), and the typed
// arguments the reader keeps. Mirrors EventKind/EventPhase/ArgKey in
// protos/profdiff/v1/trace.proto.
#ifndef PROFDIFF_TRACE_EVENT_KIND_H_
#define PROFDIFF_TRACE_EVENT_KIND_H_

#include <cstdint>
#include <string_view>

namespace profdiff::trace {

enum class EventKind : uint8_t {
  kUnspecified = 0,
  kCpuOp = 1,
  kUserAnnotation = 2,
  kPythonFunction = 3,
  kModule = 4,
  kProfilerStep = 5,
  kRuntime = 6,
  kDriver = 7,
  kSync = 8,
  kKernel = 9,
  kMemcpy = 10,
  kMemset = 11,
  kGpuUserAnnotation = 12,
  kMemory = 13,
  kOverhead = 14,
  kTraceSpan = 15,
  kFlow = 16,
  kInstant = 17,
  kCounter = 18,
  kMetadata = 19,
  kOther = 20,
};
inline constexpr int kEventKindCount = 21;

enum class EventPhase : uint8_t {
  kUnspecified = 0,
  kComplete = 1,
  kInstant = 2,
  kFlowStart = 3,
  kFlowStep = 4,
  kFlowEnd = 5,
  kCounter = 6,
  kMetadata = 7,
};

enum class ArgKey : uint8_t {
  kUnspecified = 0,
  kGrid = 1,
  kBlock = 2,
  kRegistersPerThread = 3,
  kSharedMemoryBytes = 4,
  kBlocksPerSm = 5,
  kWarpsPerSm = 6,
  kAchievedOccupancyPct = 7,
  kBytes = 8,
  kBandwidthGbps = 9,
  kTotalAllocatedBytes = 10,
  kTotalReservedBytes = 11,
  kDeviceType = 12,
  kDeviceId = 13,
  kCollectiveName = 14,
  kDtype = 15,
  kInMsgNelems = 16,
  kOutMsgNelems = 17,
  kGroupSize = 18,
  kProcessGroupName = 19,
  kMetadataName = 20,
  kMetadataLabels = 21,
  kSortIndex = 22,
  kDevice = 23,
  kStream = 24,
  kInputTypes = 25,
  kPythonModuleId = 26,
  kFlowBindingEnclosing = 27,
  kProcessGroupRanks = 28,
  kAddr = 29,
  kSelfCpuMemoryUsage = 30,
};
inline constexpr int kArgKeyCount = 31;

// How an argument's value is stored.
enum class ArgType : uint8_t { kInt, kDouble, kString };

// The storage type of each ArgKey.
ArgType ArgTypeOf(ArgKey key);
// The JSON key the Chrome-trace format uses for `key` (modern spelling), e.g.
// "blocks per SM".
std::string_view ArgJsonName(ArgKey key);

// True for activities that run on a device timeline (kernels, memcpy, memset).
inline bool IsDeviceActivity(EventKind kind) {
  return kind == EventKind::kKernel || kind == EventKind::kMemcpy ||
         kind == EventKind::kMemset;
}

// True for events that run on a host thread with a duration (ops, annotations,
// runtime...).
inline bool IsHostRange(EventKind kind) {
  switch (kind) {
    case EventKind::kCpuOp:
    case EventKind::kUserAnnotation:
    case EventKind::kPythonFunction:
    case EventKind::kModule:
    case EventKind::kProfilerStep:
    case EventKind::kRuntime:
    case EventKind::kDriver:
    case EventKind::kSync:
    case EventKind::kOverhead:
      return true;
    default:
      return false;
  }
}

}  // namespace profdiff::trace

#endif  // PROFDIFF_TRACE_EVENT_KIND_H_
