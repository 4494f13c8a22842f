// Turns CUPTI activity records into trace events. A pure function of the
// records (and of the device and context records seen before them), so it is
// tested on hand-built cupti.h structs without a GPU.
//
// Design:
// 1. One event per kernel, memcpy, memset, runtime or driver call,
//    synchronization and overhead record, named, categorised and given
//    arguments as Kineto does, so that a CUPTI span and a torch.profiler trace
//    of one program compare name for name: kernel names demangled,
//    "Memcpy HtoD (Pageable -> Device)", "Memset (Device)", "cudaLaunchKernel".
// 2. Device events sit on (pid = device, tid = stream); API calls on (pid = OS
//    pid, tid = OS thread id), the ids NVTX ranges carry, so a launch nests in
//    its thread's open operator.
// 3. Device and context records are state, not events: devices become
//    TraceMetadata.devices and the SM counts behind blocks per SM; contexts map
//    a synchronization record to its device.
// 4. EXTERNAL_CORRELATION records map a correlation id to an external id. Their
//    runtime record may come in another buffer, before or after, so FinishSpan
//    writes them onto the calls.
// 5. The window is the host's: a device activity is kept when it starts inside
//    the window or when its launch (runtime/driver record of the same
//    correlation id, translated before it) did, so GPU work that lags its
//    launch stays with the step that launched it.
// 6. Times stay CUPTI's absolute nanoseconds (base_time_ns 0); NVTX ranges are
//    stamped with cuptiGetTimestamp, the same clock.
#ifndef PROFDIFF_AGENT_CUPTI_CUPTI_RECORD_TRANSLATOR_H_
#define PROFDIFF_AGENT_CUPTI_CUPTI_RECORD_TRANSLATOR_H_

#include <cstdint>
#include <functional>
#include <string>

#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>
#include <cupti.h>

#include "agent/cupti/nvtx_ranges.h"
#include "trace/trace.h"

namespace profdiff::agent::cupti {

// Names a runtime or driver API callback id: cuptiGetCallbackName in the
// library, a table in tests. May return "" for an unknown id.
using CallbackNameFunction =
    std::function<std::string(CUpti_CallbackDomain, CUpti_CallbackId)>;

// Events whose start lies in [begin_ns, end_ns) are kept.
struct TimeWindow {
  uint64_t begin_ns = 0;
  uint64_t end_ns = UINT64_MAX;
  bool Contains(uint64_t t) const { return t >= begin_ns && t < end_ns; }
};

// What became of the records, for WorkerInfo and the log (nothing is dropped
// silently).
struct TranslationCounters {
  int64_t events = 0;          // events appended
  int64_t outside_window = 0;  // records that start outside the capture window
  int64_t unsupported = 0;     // records of kinds that carry no event here
};

// Appends the events of CUPTI records and NVTX ranges to a Trace. Not
// thread-safe: the injection calls it under its span lock.
class CuptiRecordTranslator {
 public:
  explicit CuptiRecordTranslator(CallbackNameFunction callback_name);

  // Appends the event `record` describes to `trace` when it starts inside
  // `window`; device, context and external-correlation records update state
  // instead.
  void Translate(const CUpti_Activity& record, const TimeWindow& window,
                 trace::Trace& trace);

  // Appends a finished NVTX range as a host event (its kind by TorchRangeName's
  // rules) when it starts inside `window`. `pid` is the process's id.
  void TranslateRange(const HostRange& range, int64_t pid,
                      const TimeWindow& window, trace::Trace& trace);

  // Completes `trace` as one span: external ids onto the runtime and driver
  // calls they correlate, the devices seen so far into its metadata, source
  // format CUPTI.
  void FinishSpan(trace::Trace& trace);

  const TranslationCounters& counters() const { return counters_; }

 private:
  void AddKernel(const CUpti_ActivityKernel10& kernel, trace::Trace& trace);
  void AddMemcpy(const CUpti_ActivityMemcpy6& memcpy, trace::Trace& trace);
  void AddMemset(const CUpti_ActivityMemset4& memset, trace::Trace& trace);
  void AddApi(const CUpti_ActivityAPI& api, CUpti_CallbackDomain domain,
              trace::Trace& trace);
  void AddSynchronization(const CUpti_ActivitySynchronization2& sync,
                          trace::Trace& trace);
  void AddOverhead(const CUpti_ActivityOverhead3& overhead,
                   trace::Trace& trace);
  void AddDevice(const CUpti_ActivityDevice5& device);
  // The runtime/driver function's name without CUPTI's "_v<N>" version suffix,
  // cached.
  const std::string& ApiName(CUpti_CallbackDomain domain,
                             CUpti_CallbackId cbid);

  CallbackNameFunction callback_name_;
  TranslationCounters counters_;
  absl::flat_hash_map<uint32_t, trace::DeviceInfo> devices_;  // by device id
  absl::flat_hash_map<uint32_t, uint32_t>
      context_device_;  // context id -> device id
  absl::flat_hash_map<uint32_t, uint64_t>
      external_id_;  // correlation id -> external id
  absl::flat_hash_map<uint64_t, std::string>
      api_names_;  // (domain << 32 | cbid) -> name
  // Kernel names demangled once: CUPTI shares one name pointer among a kernel's
  // records.
  absl::flat_hash_map<const char*, std::string> kernel_names_;
  // Correlation ids of launches kept in the window whose device activity has
  // not come yet.
  absl::flat_hash_set<uint32_t> launched_in_window_;
};

// True for the record kinds that become events; DEVICE, CONTEXT and
// EXTERNAL_CORRELATION records are state, and other kinds are not translated.
bool CarriesEvent(CUpti_ActivityKind kind);

// The Kineto spelling of a memcpy kind (CUPTI_ACTIVITY_MEMCPY_KIND_*) and a
// memory kind (CUPTI_ACTIVITY_MEMORY_KIND_*): "HtoD", "Pageable". "Unknown"
// outside the enums.
const char* MemcpyKindName(uint8_t kind);
const char* MemoryKindName(uint8_t kind);

// A C++ symbol demangled (__cxa_demangle), or `name` itself when it is not a
// mangled name.
std::string DemangledName(const char* name);

}  // namespace profdiff::agent::cupti

#endif  // PROFDIFF_AGENT_CUPTI_CUPTI_RECORD_TRANSLATOR_H_
