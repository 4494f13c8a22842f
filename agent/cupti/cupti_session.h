// One process's CUPTI collection: the activity kinds, the buffer pool, the NVTX
// and cudaProfilerStart/Stop callbacks, the capture window and the span being
// built, handed to a BackgroundSpanUploader as each span finishes. The glue
// between the C APIs and the pure parts (translator, NVTX callback decoder and
// recorder, capture window), which carry the logic and the tests.
//
// Design:
// 1. Never block the application: CUPTI's buffer callbacks and the NVTX
//    callbacks only translate into the open span under `mu_`; uploading
//    happens on the uploader's thread, and a periodic flush on this session's
//    own thread.
// 2. Bounded memory: the buffer pool is fixed (an empty pool makes CUPTI drop
//    and count records), and an event that would take the open span plus the
//    upload queue past max_buffered_events is dropped and counted; the drops
//    go into the next finished span's WorkerInfo.dropped_event_count.
// 3. Spans: a steps or seconds window is one span, finished once the window
//    closed and a forced flush delivered its records; an "always" capture is
//    cut every span_period and at exit. Activity collection is on only while
//    a window may want it.
// 4. Locks: the NVTX recorder's mutex is released before `mu_` is taken; no
//    CUPTI call is made while `mu_` is held (CUPTI may call back into the
//    buffer callbacks).
// 5. On-demand: with the node's agent as target, a Control stream
//    (agent/control_channel.h) tells the agent which process this is and
//    what it captures, and takes its orders: a window (N steps or a
//    duration) armed once the last one is over, whose span goes to the
//    order's run. An order while a window waits or is open is answered busy;
//    an ordered window that has not closed by the order's deadline expires.
#ifndef PROFDIFF_AGENT_CUPTI_CUPTI_SESSION_H_
#define PROFDIFF_AGENT_CUPTI_CUPTI_SESSION_H_

#include <nvtx3/nvToolsExt.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>

#include <absl/base/thread_annotations.h>
#include <absl/container/flat_hash_map.h>
#include <absl/status/statusor.h>
#include <absl/synchronization/mutex.h>
#include <absl/synchronization/notification.h>
#include <cupti.h>

#include "agent/background_span_uploader.h"
#include "agent/control_channel.h"
#include "agent/cupti/activity_buffer_pool.h"
#include "agent/cupti/capture_window.h"
#include "agent/cupti/cupti_record_translator.h"
#include "agent/cupti/injection_config.h"
#include "agent/cupti/nvtx_ranges.h"
#include "profdiff/v1/agents.pb.h"

namespace profdiff::agent::cupti {

class CuptiSession {
 public:
  // A session that collects nothing yet; `now_ns` is the injection time
  // (cuptiGetTimestamp).
  CuptiSession(InjectionConfig config, std::string hostname, int64_t pid,
               uint64_t now_ns);

  // Registers the buffer callbacks (`request` and `complete`: process-wide
  // trampolines that must already forward to this session, see injection.cc),
  // subscribes to the NVTX and cudaProfilerStart/Stop callbacks, enables the
  // activity kinds and starts the flush thread. Errors name the CUPTI call that
  // failed and its result.
  absl::Status Begin(CUpti_BuffersCallbackRequestFunc request,
                     CUpti_BuffersCallbackCompleteFunc complete);
  ~CuptiSession();
  CuptiSession(const CuptiSession&) = delete;
  CuptiSession& operator=(const CuptiSession&) = delete;

  // Ends collection (the process exits): closes the window, flushes, finishes
  // the last span and waits up to exit_timeout for the spans to be
  // acknowledged. Idempotent.
  void Shutdown() ABSL_LOCKS_EXCLUDED(mu_);

  // CUPTI's buffer callbacks, forwarded by the trampolines.
  void OnBufferRequested(uint8_t** buffer, size_t* size, size_t* max_records);
  void OnBufferCompleted(CUcontext context, uint32_t stream, uint8_t* buffer,
                         size_t size, size_t valid) ABSL_LOCKS_EXCLUDED(mu_);

  // The callback API's subscriber function (userdata is the session).
  static void CUPTIAPI Callback(void* userdata, CUpti_CallbackDomain domain,
                                CUpti_CallbackId cbid, const void* data);

 private:
  void OnNvtx(CUpti_CallbackId cbid, const void* data) ABSL_LOCKS_EXCLUDED(mu_);
  void OnProfilerApi(CUpti_CallbackId cbid, const CUpti_CallbackData& data)
      ABSL_LOCKS_EXCLUDED(mu_);
  // A range opened (step markers) or finished (appended to the span).
  void RangeOpened(std::string_view message, uint64_t t_ns)
      ABSL_LOCKS_EXCLUDED(mu_);
  void RangeFinished(const HostRange& range) ABSL_LOCKS_EXCLUDED(mu_);
  // True when one more event fits under max_buffered_events with `queued`
  // events waiting for upload (read before taking mu_); counts a drop
  // otherwise.
  bool Room(int64_t queued) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The flush thread: periodic flushes, seconds windows, span cuts, the
  // window's end.
  void FlushLoop(const std::stop_token& stop) ABSL_LOCKS_EXCLUDED(mu_);
  // Finishes the open span and offers it to the uploader (no lock held while
  // offering).
  void FinishSpan() ABSL_LOCKS_EXCLUDED(mu_);
  std::string RegisteredString(nvtxStringHandle_t handle)
      ABSL_LOCKS_EXCLUDED(mu_);
  // The window events are kept in: nothing while it has not opened.
  TimeWindow Window() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // This process as the agent lists it, and its answer to an order (design
  // note 5); called on the Control stream's threads.
  v1::AgentStatus ProcessStatus() ABSL_LOCKS_EXCLUDED(mu_);
  // A cancel from the agent: a window of that capture not yet open is
  // dropped, an open one closes now (its span is sent).
  void OnCancel(const v1::CaptureCancel& cancel) ABSL_LOCKS_EXCLUDED(mu_);
  v1::CaptureAnswer OnOrder(const v1::CaptureOrder& order)
      ABSL_LOCKS_EXCLUDED(mu_);
  // The window is over (finished, or expired without opening): activity
  // collection off, then the next order may arm another.
  void EndWindow() ABSL_LOCKS_EXCLUDED(mu_);

  const InjectionConfig config_;
  const std::string hostname_;
  const int64_t pid_;
  ActivityBufferPool pool_;
  NvtxRangeRecorder ranges_;
  std::unique_ptr<BackgroundSpanUploader> uploader_;
  CUpti_SubscriberHandle subscriber_ = nullptr;
  absl::Status
      security_error_;  // TLS settings that did not load: Begin refuses

  absl::Mutex mu_;
  CaptureWindow window_ ABSL_GUARDED_BY(mu_);
  CuptiRecordTranslator translator_ ABSL_GUARDED_BY(mu_);
  trace::Trace span_ ABSL_GUARDED_BY(mu_);
  uint64_t span_started_ns_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t spans_finished_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t dropped_ ABSL_GUARDED_BY(mu_) = 0;  // since the last finished span
  int64_t dropped_total_ ABSL_GUARDED_BY(mu_) = 0;
  // The window's span was finished (or no window was asked for): later
  // records and ranges are not kept, and an order may arm a new window.
  bool window_done_ ABSL_GUARDED_BY(mu_) = false;
  // The run the window's span goes to: config_.run, or an order's.
  std::string run_ ABSL_GUARDED_BY(mu_);
  // The order that armed the window ("" for PROFDIFF_CAPTURE's own), and when
  // it expires.
  std::string capture_id_ ABSL_GUARDED_BY(mu_);
  absl::Time capture_deadline_ ABSL_GUARDED_BY(mu_) = absl::InfiniteFuture();
  bool shut_down_ ABSL_GUARDED_BY(mu_) = false;
  absl::flat_hash_map<nvtxStringHandle_t, std::string> registered_
      ABSL_GUARDED_BY(mu_);
  absl::Notification stop_flushing_;
  // With the agent as target (design note 5); stopped before the flusher.
  std::unique_ptr<ControlChannel> control_;
  std::jthread flusher_;  // last: stopped and joined first
};

}  // namespace profdiff::agent::cupti

#endif  // PROFDIFF_AGENT_CUPTI_CUPTI_SESSION_H_
