#include "agent/cupti/cupti_record_translator.h"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>
#include <utility>

#include "agent/cupti/torch_range_name.h"
#include "base/str_cat.h"

namespace profdiff::agent::cupti {
namespace {

using trace::ArgKey;
using trace::EventKind;

// Appends one complete event and its arguments to a Trace, column by column.
class EventAppender {
 public:
  EventAppender(trace::Trace& trace, EventKind kind, std::string_view category,
                std::string_view name, uint64_t start_ns, uint64_t end_ns,
                int64_t pid, int64_t tid)
      : trace_(trace) {
    trace::EventTable& t = trace.events;
    if (t.arg_begin.empty()) t.arg_begin.push_back(0);
    t.kind.push_back(kind);
    t.phase.push_back(trace::EventPhase::kComplete);
    t.name.push_back(trace.strings.Intern(name));
    t.category.push_back(trace.strings.Intern(category));
    t.start_ns.push_back(static_cast<int64_t>(start_ns));
    // A record whose end precedes its start (seen on some drivers for overhead
    // records) lasts 0.
    t.duration_ns.push_back(
        end_ns > start_ns ? static_cast<int64_t>(end_ns - start_ns) : 0);
    t.pid.push_back(pid);
    t.tid.push_back(tid);
    t.correlation.push_back(trace::kNoId);
    t.external_id.push_back(trace::kNoId);
    t.sequence_number.push_back(trace::kNoSequence);
    t.forward_thread_id.push_back(trace::kNoId);
    t.python_id.push_back(trace::kNoSequence);
    t.python_parent_id.push_back(trace::kNoSequence);
    t.flow_id.push_back(trace::kNoId);
    t.input_shapes.push_back(trace.strings.Intern(""));
    t.arg_begin.push_back(static_cast<uint32_t>(trace.args.size()));
  }

  EventAppender& Correlation(uint32_t id) {
    trace_.events.correlation.back() = id;
    return *this;
  }
  EventAppender& Int(ArgKey key, int64_t value) {
    return Arg(key, value, 0, "");
  }
  EventAppender& Double(ArgKey key, double value) {
    return Arg(key, 0, value, "");
  }
  EventAppender& String(ArgKey key, std::string_view value) {
    return Arg(key, 0, 0, value);
  }

 private:
  EventAppender& Arg(ArgKey key, int64_t i, double d, std::string_view s) {
    trace::ArgTable& a = trace_.args;
    a.key.push_back(key);
    a.int_value.push_back(i);
    a.double_value.push_back(d);
    a.string_value.push_back(trace_.strings.Intern(s));
    ++trace_.events.arg_begin.back();
    return *this;
  }

  trace::Trace& trace_;
};

std::string Dim3(int64_t x, int64_t y, int64_t z) {
  return base::StrCat("[", x, ", ", y, ", ", z,
                      "]");  // Kineto's "grid"/"block" text
}

// The start of a record that becomes an event, for the window test.
uint64_t RecordStart(const CUpti_Activity& record) {
  switch (record.kind) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
    case CUPTI_ACTIVITY_KIND_KERNEL:
      return reinterpret_cast<const CUpti_ActivityKernel10&>(record).start;
    case CUPTI_ACTIVITY_KIND_MEMCPY:
      return reinterpret_cast<const CUpti_ActivityMemcpy6&>(record).start;
    case CUPTI_ACTIVITY_KIND_MEMSET:
      return reinterpret_cast<const CUpti_ActivityMemset4&>(record).start;
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER:
      return reinterpret_cast<const CUpti_ActivityAPI&>(record).start;
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
      return reinterpret_cast<const CUpti_ActivitySynchronization2&>(record)
          .start;
    case CUPTI_ACTIVITY_KIND_OVERHEAD:
      return reinterpret_cast<const CUpti_ActivityOverhead3&>(record).start;
    default:
      return 0;
  }
}

uint32_t DeviceCorrelation(const CUpti_Activity& record) {
  switch (record.kind) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
    case CUPTI_ACTIVITY_KIND_KERNEL:
      return reinterpret_cast<const CUpti_ActivityKernel10&>(record)
          .correlationId;
    case CUPTI_ACTIVITY_KIND_MEMCPY:
      return reinterpret_cast<const CUpti_ActivityMemcpy6&>(record)
          .correlationId;
    case CUPTI_ACTIVITY_KIND_MEMSET:
      return reinterpret_cast<const CUpti_ActivityMemset4&>(record)
          .correlationId;
    default:
      return 0;
  }
}

// Launches remembered at most: far more than a GPU's queues hold in flight.
constexpr size_t kMaxPendingLaunches = 1 << 20;

const char* SynchronizationName(CUpti_ActivitySynchronizationType type) {
  switch (type) {  // Kineto's names for cuda_sync events
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE:
      return "Event Sync";
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT:
      return "Stream Wait Event";
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE:
      return "Stream Sync";
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE:
      return "Context Sync";
    default:
      return "Unknown Sync";
  }
}

const char* OverheadName(CUpti_ActivityOverheadKind kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_OVERHEAD_DRIVER_COMPILER:
      return "Driver Compiler";
    case CUPTI_ACTIVITY_OVERHEAD_CUPTI_BUFFER_FLUSH:
      return "Buffer Flush";
    case CUPTI_ACTIVITY_OVERHEAD_CUPTI_INSTRUMENTATION:
      return "Instrumentation";
    case CUPTI_ACTIVITY_OVERHEAD_CUPTI_RESOURCE:
      return "Resource";
    default:
      return "Unknown Overhead";
  }
}

// The "_v<digits>" suffix CUPTI puts on versioned API names
// ("cudaLaunchKernel_v7000").
std::string WithoutVersionSuffix(std::string name) {
  const size_t at = name.rfind("_v");
  if (at == std::string::npos || at + 2 == name.size()) return name;
  for (size_t i = at + 2; i < name.size(); ++i) {
    if (name[i] < '0' || name[i] > '9') return name;
  }
  name.resize(at);
  return name;
}

}  // namespace

bool CarriesEvent(CUpti_ActivityKind kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_MEMCPY:
    case CUPTI_ACTIVITY_KIND_MEMSET:
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER:
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
    case CUPTI_ACTIVITY_KIND_OVERHEAD:
      return true;
    default:
      return false;
  }
}

const char* MemcpyKindName(uint8_t kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD:
      return "HtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH:
      return "DtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA:
      return "HtoA";
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH:
      return "AtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOA:
      return "AtoA";
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOD:
      return "AtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOA:
      return "DtoA";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD:
      return "DtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH:
      return "HtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP:
      return "PtoP";
    default:
      return "Unknown";
  }
}

const char* MemoryKindName(uint8_t kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE:
      return "Pageable";
    case CUPTI_ACTIVITY_MEMORY_KIND_PINNED:
      return "Pinned";
    case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE:
      return "Device";
    case CUPTI_ACTIVITY_MEMORY_KIND_ARRAY:
      return "Array";
    case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED:
      return "Managed";
    case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE_STATIC:
      return "Device Static";
    case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED_STATIC:
      return "Managed Static";
    default:
      return "Unknown";
  }
}

std::string DemangledName(const char* name) {
  if (name == nullptr) return "";
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> demangled(
      abi::__cxa_demangle(name, nullptr, nullptr, &status), &std::free);
  return status == 0 && demangled != nullptr ? std::string(demangled.get())
                                             : std::string(name);
}

CuptiRecordTranslator::CuptiRecordTranslator(CallbackNameFunction callback_name)
    : callback_name_(std::move(callback_name)) {}

void CuptiRecordTranslator::Translate(const CUpti_Activity& record,
                                      const TimeWindow& window,
                                      trace::Trace& trace) {
  switch (record.kind) {
    case CUPTI_ACTIVITY_KIND_DEVICE:
      AddDevice(reinterpret_cast<const CUpti_ActivityDevice5&>(record));
      return;
    case CUPTI_ACTIVITY_KIND_CONTEXT: {
      const auto& context =
          reinterpret_cast<const CUpti_ActivityContext3&>(record);
      context_device_[context.contextId] = context.deviceId;
      return;
    }
    case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: {
      const auto& external =
          reinterpret_cast<const CUpti_ActivityExternalCorrelation&>(record);
      external_id_[external.correlationId] = external.externalId;
      return;
    }
    default:
      break;
  }
  if (!CarriesEvent(record.kind)) {
    ++counters_.unsupported;
    return;
  }
  const bool device = record.kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL ||
                      record.kind == CUPTI_ACTIVITY_KIND_KERNEL ||
                      record.kind == CUPTI_ACTIVITY_KIND_MEMCPY ||
                      record.kind == CUPTI_ACTIVITY_KIND_MEMSET;
  const bool launched_inside =
      device && launched_in_window_.erase(DeviceCorrelation(record)) > 0;
  if (!launched_inside && !window.Contains(RecordStart(record))) {
    ++counters_.outside_window;
    return;
  }
  if (record.kind == CUPTI_ACTIVITY_KIND_RUNTIME ||
      record.kind == CUPTI_ACTIVITY_KIND_DRIVER) {
    const uint32_t correlation =
        reinterpret_cast<const CUpti_ActivityAPI&>(record).correlationId;
    // Bounded: a launch whose activity never comes (a failed launch) must not
    // pile up.
    if (launched_in_window_.size() >= kMaxPendingLaunches)
      launched_in_window_.clear();
    if (correlation != 0) launched_in_window_.insert(correlation);
  }
  switch (record.kind) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
    case CUPTI_ACTIVITY_KIND_KERNEL:
      AddKernel(reinterpret_cast<const CUpti_ActivityKernel10&>(record), trace);
      break;
    case CUPTI_ACTIVITY_KIND_MEMCPY:
      AddMemcpy(reinterpret_cast<const CUpti_ActivityMemcpy6&>(record), trace);
      break;
    case CUPTI_ACTIVITY_KIND_MEMSET:
      AddMemset(reinterpret_cast<const CUpti_ActivityMemset4&>(record), trace);
      break;
    case CUPTI_ACTIVITY_KIND_RUNTIME:
      AddApi(reinterpret_cast<const CUpti_ActivityAPI&>(record),
             CUPTI_CB_DOMAIN_RUNTIME_API, trace);
      break;
    case CUPTI_ACTIVITY_KIND_DRIVER:
      AddApi(reinterpret_cast<const CUpti_ActivityAPI&>(record),
             CUPTI_CB_DOMAIN_DRIVER_API, trace);
      break;
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
      AddSynchronization(
          reinterpret_cast<const CUpti_ActivitySynchronization2&>(record),
          trace);
      break;
    case CUPTI_ACTIVITY_KIND_OVERHEAD:
      AddOverhead(reinterpret_cast<const CUpti_ActivityOverhead3&>(record),
                  trace);
      break;
    default:
      return;
  }
  ++counters_.events;
}

void CuptiRecordTranslator::AddKernel(const CUpti_ActivityKernel10& kernel,
                                      trace::Trace& trace) {
  auto [name, inserted] = kernel_names_.try_emplace(kernel.name);
  if (inserted) name->second = DemangledName(kernel.name);
  EventAppender event(trace, EventKind::kKernel, "kernel", name->second,
                      kernel.start, kernel.end, kernel.deviceId,
                      kernel.streamId);
  event.Correlation(kernel.correlationId)
      .Int(ArgKey::kDevice, kernel.deviceId)
      .Int(ArgKey::kStream, kernel.streamId)
      .Int(ArgKey::kRegistersPerThread, kernel.registersPerThread)
      .Int(ArgKey::kSharedMemoryBytes, int64_t{kernel.staticSharedMemory} +
                                           int64_t{kernel.dynamicSharedMemory})
      .String(ArgKey::kGrid, Dim3(kernel.gridX, kernel.gridY, kernel.gridZ))
      .String(ArgKey::kBlock,
              Dim3(kernel.blockX, kernel.blockY, kernel.blockZ));
  // Kineto's estimates, which need the device's SM count (its record comes
  // first).
  if (auto it = devices_.find(kernel.deviceId);
      it != devices_.end() && it->second.num_sms) {
    const trace::DeviceInfo& device = it->second;
    const double blocks =
        static_cast<double>(kernel.gridX) * kernel.gridY * kernel.gridZ;
    const int64_t threads =
        int64_t{kernel.blockX} * kernel.blockY * kernel.blockZ;
    const int64_t warp = device.warp_size > 0 ? device.warp_size : 32;
    const double blocks_per_sm = blocks / device.num_sms;
    // A block's last warp counts whole even when it is partly filled.
    const int64_t warps_per_block = (threads + warp - 1) / warp;
    event.Double(ArgKey::kBlocksPerSm, blocks_per_sm)
        .Double(ArgKey::kWarpsPerSm,
                blocks_per_sm * static_cast<double>(warps_per_block));
  }
}

void CuptiRecordTranslator::AddMemcpy(const CUpti_ActivityMemcpy6& memcpy,
                                      trace::Trace& trace) {
  const std::string name =
      base::StrCat("Memcpy ", MemcpyKindName(memcpy.copyKind), " (",
                   MemoryKindName(memcpy.srcKind), " -> ",
                   MemoryKindName(memcpy.dstKind), ")");
  EventAppender event(trace, EventKind::kMemcpy, "gpu_memcpy", name,
                      memcpy.start, memcpy.end, memcpy.deviceId,
                      memcpy.streamId);
  event.Correlation(memcpy.correlationId)
      .Int(ArgKey::kDevice, memcpy.deviceId)
      .Int(ArgKey::kStream, memcpy.streamId)
      .Int(ArgKey::kBytes, static_cast<int64_t>(memcpy.bytes));
  if (memcpy.end > memcpy.start) {  // bytes per ns = GB/s
    event.Double(ArgKey::kBandwidthGbps,
                 static_cast<double>(memcpy.bytes) /
                     static_cast<double>(memcpy.end - memcpy.start));
  }
}

void CuptiRecordTranslator::AddMemset(const CUpti_ActivityMemset4& memset,
                                      trace::Trace& trace) {
  const std::string name = base::StrCat(
      "Memset (", MemoryKindName(static_cast<uint8_t>(memset.memoryKind)), ")");
  EventAppender event(trace, EventKind::kMemset, "gpu_memset", name,
                      memset.start, memset.end, memset.deviceId,
                      memset.streamId);
  event.Correlation(memset.correlationId)
      .Int(ArgKey::kDevice, memset.deviceId)
      .Int(ArgKey::kStream, memset.streamId)
      .Int(ArgKey::kBytes, static_cast<int64_t>(memset.bytes));
  if (memset.end > memset.start) {
    event.Double(ArgKey::kBandwidthGbps,
                 static_cast<double>(memset.bytes) /
                     static_cast<double>(memset.end - memset.start));
  }
}

void CuptiRecordTranslator::AddApi(const CUpti_ActivityAPI& api,
                                   CUpti_CallbackDomain domain,
                                   trace::Trace& trace) {
  const bool runtime = domain == CUPTI_CB_DOMAIN_RUNTIME_API;
  EventAppender(trace, runtime ? EventKind::kRuntime : EventKind::kDriver,
                runtime ? "cuda_runtime" : "cuda_driver",
                ApiName(domain, api.cbid), api.start, api.end, api.processId,
                api.threadId)
      .Correlation(api.correlationId);
}

void CuptiRecordTranslator::AddSynchronization(
    const CUpti_ActivitySynchronization2& sync, trace::Trace& trace) {
  // Kineto puts synchronization on its device and stream; a context-wide sync
  // has no stream.
  auto device = context_device_.find(sync.contextId);
  const int64_t pid =
      device == context_device_.end() ? -1 : int64_t{device->second};
  const int64_t tid = sync.streamId == CUPTI_SYNCHRONIZATION_INVALID_VALUE
                          ? -1
                          : int64_t{sync.streamId};
  EventAppender(trace, EventKind::kSync, "cuda_sync",
                SynchronizationName(sync.type), sync.start, sync.end, pid, tid)
      .Correlation(sync.correlationId);
}

void CuptiRecordTranslator::AddOverhead(const CUpti_ActivityOverhead3& overhead,
                                        trace::Trace& trace) {
  const bool on_thread = overhead.objectKind == CUPTI_ACTIVITY_OBJECT_THREAD ||
                         overhead.objectKind == CUPTI_ACTIVITY_OBJECT_PROCESS;
  const int64_t pid = on_thread ? int64_t{overhead.objectId.pt.processId}
                                : int64_t{overhead.objectId.dcs.deviceId};
  const int64_t tid = on_thread ? int64_t{overhead.objectId.pt.threadId}
                                : int64_t{overhead.objectId.dcs.streamId};
  EventAppender(trace, EventKind::kOverhead, "overhead",
                OverheadName(overhead.overheadKind), overhead.start,
                overhead.end, pid, tid);
}

void CuptiRecordTranslator::AddDevice(const CUpti_ActivityDevice5& device) {
  trace::DeviceInfo& d = devices_[device.id];
  d.id = device.id;
  d.name = device.name == nullptr ? "" : device.name;
  d.total_global_mem_bytes = static_cast<int64_t>(device.globalMemorySize);
  d.num_sms = static_cast<int32_t>(device.numMultiprocessors);
  d.compute_major = static_cast<int32_t>(device.computeCapabilityMajor);
  d.compute_minor = static_cast<int32_t>(device.computeCapabilityMinor);
  d.warp_size = static_cast<int32_t>(device.numThreadsPerWarp);
  d.max_threads_per_multiprocessor = static_cast<int32_t>(
      device.maxWarpsPerMultiprocessor * device.numThreadsPerWarp);
}

const std::string& CuptiRecordTranslator::ApiName(CUpti_CallbackDomain domain,
                                                  CUpti_CallbackId cbid) {
  const uint64_t key = (uint64_t{static_cast<uint32_t>(domain)} << 32) | cbid;
  auto [it, inserted] = api_names_.try_emplace(key);
  if (inserted) {
    std::string name =
        callback_name_ ? callback_name_(domain, cbid) : std::string();
    it->second = name.empty()
                     ? base::StrCat(domain == CUPTI_CB_DOMAIN_RUNTIME_API
                                        ? "cuda_runtime_cbid_"
                                        : "cuda_driver_cbid_",
                                    cbid)
                     : WithoutVersionSuffix(std::move(name));
  }
  return it->second;
}

void CuptiRecordTranslator::TranslateRange(const HostRange& range, int64_t pid,
                                           const TimeWindow& window,
                                           trace::Trace& trace) {
  if (!window.Contains(range.start_ns)) {
    ++counters_.outside_window;
    return;
  }
  const TorchRangeName parsed = ParseTorchRangeName(range.message);
  const std::string_view category =
      parsed.kind == EventKind::kCpuOp ? "cpu_op" : "user_annotation";
  EventAppender(trace, parsed.kind, category, parsed.name, range.start_ns,
                range.end_ns, pid, range.thread);
  trace.events.sequence_number.back() = parsed.sequence_number;
  if (!parsed.input_shapes.empty()) {
    trace.events.input_shapes.back() =
        trace.strings.Intern(parsed.input_shapes);
  }
  ++counters_.events;
}

void CuptiRecordTranslator::FinishSpan(trace::Trace& trace) {
  trace::EventTable& t = trace.events;
  if (t.arg_begin.empty()) t.arg_begin.push_back(0);
  for (size_t i = 0; i < t.size(); ++i) {
    if (t.kind[i] != EventKind::kRuntime && t.kind[i] != EventKind::kDriver)
      continue;
    auto it = external_id_.find(static_cast<uint32_t>(t.correlation[i]));
    if (it != external_id_.end())
      t.external_id[i] = static_cast<int64_t>(it->second);
  }
  // Correlation ids only grow; the next span's calls never need this span's
  // map.
  external_id_.clear();
  trace.metadata.devices.clear();
  for (const auto& [id, device] : devices_)
    trace.metadata.devices.push_back(device);
  std::sort(trace.metadata.devices.begin(), trace.metadata.devices.end(),
            [](const trace::DeviceInfo& a, const trace::DeviceInfo& b) {
              return a.id < b.id;
            });
  trace.metadata.source_format = trace::SourceFormat::kCupti;
}

}  // namespace profdiff::agent::cupti
