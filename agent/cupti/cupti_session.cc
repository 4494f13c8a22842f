#include "agent/cupti/cupti_session.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include "agent/cupti/nvtx_callback.h"
#include "agent/cupti/torch_range_name.h"
#include "agent/span_uploader.h"
#include "base/log.h"
#include "base/status_macros.h"
#include "base/str_cat.h"
#include "trace/worker_info.h"

namespace profdiff::agent::cupti {
namespace {

// The kinds issue #7 names, plus DEVICE and CONTEXT records (state for the
// translator).
constexpr CUpti_ActivityKind kActivityKinds[] = {
    CUPTI_ACTIVITY_KIND_DEVICE,
    CUPTI_ACTIVITY_KIND_CONTEXT,
    CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
    CUPTI_ACTIVITY_KIND_MEMCPY,
    CUPTI_ACTIVITY_KIND_MEMSET,
    CUPTI_ACTIVITY_KIND_RUNTIME,
    CUPTI_ACTIVITY_KIND_DRIVER,
    CUPTI_ACTIVITY_KIND_SYNCHRONIZATION,
    CUPTI_ACTIVITY_KIND_OVERHEAD,
    CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION,
};

// OK, or the failed call named with CUPTI's own text for the result.
absl::Status CuptiCall(CUptiResult result, std::string_view call) {
  if (result == CUPTI_SUCCESS) return absl::OkStatus();
  const char* text = nullptr;
  cuptiGetResultString(result, &text);
  return absl::InternalError(base::StrCat(
      call, " failed: ", text == nullptr ? "unknown CUPTI error" : text, " (",
      static_cast<int>(result), ")"));
}

uint64_t Now() {
  uint64_t t = 0;
  cuptiGetTimestamp(&t);
  return t;
}

int64_t ThisThread() { return static_cast<int64_t>(::syscall(SYS_gettid)); }

// Collection on or off (design note 3): every kind is tried; the first error
// names its call and kind.
absl::Status SetActivities(bool on) {
  absl::Status first;
  for (CUpti_ActivityKind kind : kActivityKinds) {
    const CUptiResult result =
        on ? cuptiActivityEnable(kind) : cuptiActivityDisable(kind);
    first.Update(CuptiCall(result, base::StrCat(on ? "cuptiActivityEnable"
                                                   : "cuptiActivityDisable",
                                                "(kind ", kind, ")")));
  }
  return first;
}

OrderedWindow OrderedWindowOf(const v1::CaptureOrder& order) {
  return {.steps = order.steps(),
          .start_at_step = order.start_at_step(),
          .duration_ns = static_cast<uint64_t>(
              std::max<int64_t>(order.duration_ms(), 0) * 1'000'000)};
}

// Names runtime and driver calls the way Kineto does (CUPTI's name; the
// translator drops the version suffix).
std::string CallbackName(CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
  const char* name = nullptr;
  if (cuptiGetCallbackName(domain, cbid, &name) != CUPTI_SUCCESS ||
      name == nullptr)
    return "";
  return name;
}

}  // namespace

CuptiSession::CuptiSession(InjectionConfig config, std::string hostname,
                           int64_t pid, uint64_t now_ns)
    : config_(std::move(config)),
      hostname_(std::move(hostname)),
      pid_(pid),
      pool_(config_.activity_buffers, config_.activity_buffer_bytes),
      window_(config_.capture, now_ns),
      translator_(CallbackName),
      span_started_ns_(now_ns),
      window_done_(config_.capture.mode == CaptureMode::kOnDemand),
      run_(config_.run) {
  SpanUploaderOptions upload;
  upload.agent_id = base::StrCat("cupti-", config_.worker_name);
  // The agent's unix socket is local and plaintext; TLS and tokens are for an
  // aggregator.
  if (!config_.target.starts_with("unix:")) {
    absl::StatusOr<rpc::ChannelSecurity> security =
        rpc::ChannelSecurity::Load(config_.security);
    if (security.ok()) {
      upload.security = *std::move(security);
    } else {
      security_error_ =
          security.status();  // Begin refuses: never fall back to plaintext
    }
  }
  uploader_ = std::make_unique<BackgroundSpanUploader>(
      std::make_unique<SpanUploader>(config_.target, std::move(upload)),
      config_.max_buffered_events);
}

CuptiSession::~CuptiSession() {
  // Shutdown may have notified already; Notify twice is fatal in Abseil.
  if (!stop_flushing_.HasBeenNotified()) stop_flushing_.Notify();
  if (flusher_.joinable()) flusher_.join();
}

absl::Status CuptiSession::Begin(CUpti_BuffersCallbackRequestFunc request,
                                 CUpti_BuffersCallbackCompleteFunc complete) {
  if (!security_error_.ok()) return security_error_;
  // System thread ids on API records: the ids NVTX ranges carry (gettid).
  if (absl::Status s =
          CuptiCall(cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM),
                    "cuptiSetThreadIdType");
      !s.ok()) {
    return s;
  }
  if (absl::Status s =
          CuptiCall(cuptiActivityRegisterCallbacks(request, complete),
                    "cuptiActivityRegisterCallbacks");
      !s.ok()) {
    return s;
  }
  if (absl::Status s =
          CuptiCall(cuptiSubscribe(&subscriber_, &CuptiSession::Callback, this),
                    "cuptiSubscribe");
      !s.ok()) {
    return s;
  }
  if (absl::Status s =
          CuptiCall(cuptiEnableDomain(1, subscriber_, CUPTI_CB_DOMAIN_NVTX),
                    "cuptiEnableDomain(NVTX)");
      !s.ok()) {
    return s;
  }
  for (CUpti_CallbackId cbid :
       {CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000,
        CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStop_v4000}) {
    if (absl::Status s =
            CuptiCall(cuptiEnableCallback(1, subscriber_,
                                          CUPTI_CB_DOMAIN_RUNTIME_API, cbid),
                      "cuptiEnableCallback(cudaProfilerStart/Stop)");
        !s.ok()) {
      return s;
    }
  }
  // On demand, nothing is collected until an order arms a window.
  if (config_.capture.mode != CaptureMode::kOnDemand) {
    PD_RETURN_IF_ERROR(SetActivities(/*on=*/true));
  }
  flusher_ =
      std::jthread([this](const std::stop_token& stop) { FlushLoop(stop); });
  if (config_.target.starts_with("unix:")) {  // the node's agent
    control_ = std::make_unique<ControlChannel>(
        ControlChannelOptions{.aggregator = config_.target},
        [this] { return ProcessStatus(); },
        [this](const v1::CaptureOrder& order) { return OnOrder(order); },
        [this](const v1::CaptureCancel& cancel) { OnCancel(cancel); });
  }
  if (!config_.path_note.empty()) PD_LOG(WARNING, "%s", config_.path_note);
  PD_LOG(INFO,
         "cupti capture started run=%s worker=%s rank=%d capture=%s target=%s",
         config_.run, config_.worker_name, config_.rank,
         CaptureSpecText(config_.capture), config_.target);
  return absl::OkStatus();
}

void CuptiSession::OnBufferRequested(uint8_t** buffer, size_t* size,
                                     size_t* max_records) {
  *buffer = pool_.Acquire();
  *size = *buffer == nullptr
              ? 0
              : pool_.buffer_bytes();  // 0: CUPTI drops and counts records
  *max_records = 0;                    // as many as fit
}

void CuptiSession::OnBufferCompleted(CUcontext context, uint32_t stream,
                                     uint8_t* buffer, size_t /*size*/,
                                     size_t valid) {
  std::vector<const CUpti_Activity*> records;
  CUpti_Activity* record = nullptr;
  while (buffer != nullptr && valid > 0 &&
         cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
    records.push_back(record);
  }
  // Records CUPTI could not store (the pool was empty): the completion
  // callback's context is always NULL since CUDA 6, so ask for the global
  // queue, whose count resets on each read.
  (void)context;
  (void)stream;
  size_t cupti_dropped = 0;
  if (cuptiActivityGetNumDroppedRecords(nullptr, 0, &cupti_dropped) !=
      CUPTI_SUCCESS) {
    cupti_dropped = 0;
  }
  const int64_t queued =
      uploader_->queued_events();  // once per buffer, not per record
  {
    absl::MutexLock lock(&mu_);
    const TimeWindow window = Window();
    for (const CUpti_Activity* r : records) {
      if (window_done_)
        break;  // the window's span is gone: nothing more is kept
      if (CarriesEvent(r->kind) && !Room(queued)) continue;
      translator_.Translate(*r, window, span_);
    }
    dropped_ += static_cast<int64_t>(cupti_dropped);
    dropped_total_ += static_cast<int64_t>(cupti_dropped);
  }
  if (buffer != nullptr) pool_.Release(buffer);
}

void CUPTIAPI CuptiSession::Callback(void* userdata,
                                     CUpti_CallbackDomain domain,
                                     CUpti_CallbackId cbid, const void* data) {
  // Called on the application's threads from C: nothing may escape.
  try {
    auto* session = static_cast<CuptiSession*>(userdata);
    if (domain == CUPTI_CB_DOMAIN_NVTX) {
      session->OnNvtx(cbid, data);
    } else if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
      session->OnProfilerApi(cbid,
                             *static_cast<const CUpti_CallbackData*>(data));
    }
  } catch (...) {
  }
}

void CuptiSession::OnNvtx(CUpti_CallbackId cbid, const void* data) {
  const uint64_t now = Now();
  const int64_t thread = ThisThread();
  NvtxCall call = DecodeNvtxCallback(
      cbid, *static_cast<const CUpti_NvtxData*>(data),
      [this](nvtxStringHandle_t h) { return RegisteredString(h); });
  switch (call.kind) {
    case NvtxCallKind::kPush:
      ranges_.Push(thread, call.domain, now, call.message);
      RangeOpened(call.message, now);
      return;
    case NvtxCallKind::kStart:
      if (call.range_id.has_value())
        ranges_.Start(*call.range_id, thread, now, call.message);
      RangeOpened(call.message, now);
      return;
    case NvtxCallKind::kPop:
      if (std::optional<HostRange> range =
              ranges_.Pop(thread, call.domain, now))
        RangeFinished(*range);
      return;
    case NvtxCallKind::kEnd:
      if (std::optional<HostRange> range = ranges_.End(*call.range_id, now))
        RangeFinished(*range);
      return;
    case NvtxCallKind::kRegisterString: {
      absl::MutexLock lock(&mu_);
      registered_.insert_or_assign(call.string_handle, std::move(call.message));
      return;
    }
    case NvtxCallKind::kOther:
      return;
  }
}

void CuptiSession::OnProfilerApi(CUpti_CallbackId cbid,
                                 const CUpti_CallbackData& data) {
  if (data.callbackSite != CUPTI_API_ENTER) return;
  const uint64_t now = Now();
  absl::MutexLock lock(&mu_);
  if (cbid == CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000)
    window_.OnProfilerStart(now);
  if (cbid == CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStop_v4000)
    window_.OnProfilerStop(now);
}

void CuptiSession::RangeOpened(std::string_view message, uint64_t t_ns) {
  const TorchRangeName parsed = ParseTorchRangeName(message);
  if (!parsed.step.has_value()) return;
  absl::MutexLock lock(&mu_);
  window_.OnStepRangeStart(*parsed.step, t_ns);
}

void CuptiSession::RangeFinished(const HostRange& range) {
  const TorchRangeName parsed = ParseTorchRangeName(range.message);
  const int64_t queued = uploader_->queued_events();
  absl::MutexLock lock(&mu_);
  if (parsed.step.has_value())
    window_.OnStepRangeEnd(*parsed.step, range.end_ns);
  if (window_done_) return;
  if (Room(queued)) translator_.TranslateRange(range, pid_, Window(), span_);
}

std::string CuptiSession::RegisteredString(nvtxStringHandle_t handle) {
  absl::MutexLock lock(&mu_);
  auto it = registered_.find(handle);
  return it == registered_.end() ? std::string() : it->second;
}

TimeWindow CuptiSession::Window() const {
  if (window_.state() == CaptureWindow::State::kWaiting ||
      window_.state() == CaptureWindow::State::kIdle)
    return {UINT64_MAX, UINT64_MAX};
  return {window_.begin_ns(), window_.end_ns()};
}

bool CuptiSession::Room(int64_t queued) {
  if (static_cast<int64_t>(span_.events.size()) + queued <
      config_.max_buffered_events) {
    return true;
  }
  ++dropped_;
  ++dropped_total_;
  return false;
}

void CuptiSession::FlushLoop(const std::stop_token& stop) {
  while (!stop.stop_requested() &&
         !stop_flushing_.WaitForNotificationWithTimeout(config_.flush_period)) {
    cuptiActivityFlushAll(0);
    const uint64_t now = Now();
    bool finish_window = false, cut = false, expired_unopened = false;
    {
      absl::MutexLock lock(&mu_);
      window_.OnTime(now);
      if (!window_done_ && !capture_id_.empty() &&
          absl::Now() >= capture_deadline_) {
        window_.Expire(now);
        expired_unopened = window_.state() == CaptureWindow::State::kIdle;
        PD_LOG(WARNING, "capture %s: its deadline passed %s", capture_id_,
               expired_unopened ? "before its window opened"
                                : "with its window open; sending what it has");
      }
      if (window_.state() == CaptureWindow::State::kClosed && !window_done_) {
        finish_window = true;
      } else if (window_.state() == CaptureWindow::State::kOpen &&
                 config_.capture.mode == CaptureMode::kAlways &&
                 now - span_started_ns_ >=
                     static_cast<uint64_t>(
                         absl::ToInt64Nanoseconds(config_.span_period))) {
        cut = true;
      }
    }
    if (expired_unopened) EndWindow();
    if (!finish_window && !cut) continue;
    // Forced: also the buffers still being filled, so the span holds what ran
    // before now.
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    FinishSpan();
    if (finish_window) EndWindow();
  }
}

void CuptiSession::EndWindow() {
  // Nothing after the window is kept: stop paying for its collection. Off
  // before the window counts as done, so an order arming the next one turns
  // it on after this, never before.
  if (absl::Status off = SetActivities(/*on=*/false); !off.ok()) {
    PD_LOG(WARNING, "%s", off.message());
  }
  absl::MutexLock lock(&mu_);
  window_done_ = true;
  PD_LOG(INFO, "cupti capture window over run=%s worker=%s%s", run_,
         config_.worker_name,
         capture_id_.empty() ? "" : " capture=" + capture_id_);
  capture_id_.clear();
  capture_deadline_ = absl::InfiniteFuture();
}

v1::AgentStatus CuptiSession::ProcessStatus() {
  v1::AgentStatus status;
  status.set_agent_id(base::StrCat("cupti-", config_.worker_name));
  status.set_node(hostname_);
  v1::LocalProcess* process = status.add_processes();
  process->set_pid(static_cast<int32_t>(pid_));
  process->set_job(config_.job);
  process->set_gpu(-1);  // the library does not know which device is the rank's
  process->set_source("cupti");
  absl::MutexLock lock(&mu_);
  if (window_.last_step_started() >= 0) {
    process->set_step(window_.last_step_started());
  }
  if (!window_done_) {
    process->set_capture_id(capture_id_.empty()
                                ? "PROFDIFF_CAPTURE=" +
                                      CaptureSpecText(config_.capture)
                                : capture_id_);
  }
  return status;
}

v1::CaptureAnswer CuptiSession::OnOrder(const v1::CaptureOrder& order) {
  v1::CaptureAnswer answer;
  answer.set_capture_id(order.capture_id());
  if (!order.job().empty() && order.job() != config_.job) {
    answer.set_error(base::StrCat("the order is for job ", order.job(),
                                  "; this process is job ", config_.job));
    return answer;
  }
  const uint64_t now = Now();
  std::string described;
  {
    absl::MutexLock lock(&mu_);
    if (shut_down_) {
      answer.set_error("the process is exiting");
      return answer;
    }
    if (!window_done_) {
      answer.add_busy_pids(static_cast<int32_t>(pid_));
      return answer;
    }
    if (absl::Status armed = window_.Arm(OrderedWindowOf(order), now);
        !armed.ok()) {
      answer.set_error(std::string(armed.message()));
      return answer;
    }
    window_done_ = false;
    described = window_.Describe();
    run_ = order.run();
    capture_id_ = order.capture_id();
    capture_deadline_ = absl::FromUnixMillis(order.deadline_unix_ms());
    span_ = trace::Trace();
    span_started_ns_ = now;
  }
  // Outside mu_ (design note 4); EndWindow turned it off before the window
  // counted as done.
  if (absl::Status on = SetActivities(/*on=*/true); !on.ok()) {
    PD_LOG(ERROR, "capture %s: %s", order.capture_id(), on.message());
    answer.set_error(std::string(on.message()));
    absl::MutexLock lock(&mu_);
    window_.Expire(now);
    window_done_ = true;
    capture_id_.clear();
    return answer;
  }
  PD_LOG(INFO, "cupti capture armed capture=%s run=%s window=%s",
         order.capture_id(), order.run(), described);
  answer.add_triggered_pids(static_cast<int32_t>(pid_));
  return answer;
}

void CuptiSession::OnCancel(const v1::CaptureCancel& cancel) {
  const uint64_t now = Now();
  bool unopened = false;
  {
    absl::MutexLock lock(&mu_);
    if (window_done_ || capture_id_ != cancel.capture_id()) return;
    window_.Expire(now);
    unopened = window_.state() == CaptureWindow::State::kIdle;
    PD_LOG(INFO, "capture %s cancelled %s", capture_id_,
           unopened ? "before its window opened"
                    : "with its window open; sending what it has");
  }
  // An open window is now closed: the flusher sends its span and ends it.
  if (unopened) EndWindow();
}

void CuptiSession::FinishSpan() {
  FinishedSpan finished;
  const uint64_t now = Now();  // no CUPTI call under mu_ (design note 4)
  {
    absl::MutexLock lock(&mu_);
    if (span_.events.size() == 0) {
      span_started_ns_ = now;
      translator_.FinishSpan(
          span_);  // forgets external ids as a finished span would
      return;  // its drops, if any, go with the next span (and into the exit
               // summary)
    }
    translator_.FinishSpan(span_);
    span_.metadata.rank = config_.rank;
    span_.metadata.world_size = config_.world_size;
    span_.metadata.source = base::StrCat("cupti:", hostname_, ":", pid_);
    finished.trace = std::move(span_);
    span_ = trace::Trace();
    finished.header.run = run_;
    finished.header.span = base::StrCat("cupti.", spans_finished_++);
    finished.header.worker = trace::WorkerInfoOf(finished.trace);
    finished.header.worker.set_run(run_);
    finished.header.worker.set_worker_name(config_.worker_name);
    finished.header.worker.set_hostname(hostname_);
    finished.header.worker.set_pid(pid_);
    finished.header.worker.set_dropped_event_count(dropped_);
    dropped_ = 0;
    span_started_ns_ = now;
  }
  const std::string span_id = finished.header.span;
  const size_t events = finished.trace.events.size();
  if (!uploader_->Offer(finished)) {
    absl::MutexLock lock(&mu_);
    dropped_ += static_cast<int64_t>(events);
    dropped_total_ += static_cast<int64_t>(events);
    PD_LOG(WARNING, "span dropped, upload queue full run=%s span=%s events=%d",
           finished.header.run, span_id, events);
    return;
  }
  PD_VLOG(1, "span finished run=%s span=%s events=%d", finished.header.run,
          span_id, events);
}

void CuptiSession::Shutdown() {
  {
    absl::MutexLock lock(&mu_);
    if (shut_down_) return;
    shut_down_ = true;
  }
  if (control_ != nullptr) control_->Stop();  // no order after this
  stop_flushing_.Notify();
  if (flusher_.joinable()) flusher_.join();
  bool finish = false;
  const uint64_t now = Now();
  {
    absl::MutexLock lock(&mu_);
    window_.OnExit(now);
    finish = !window_done_ && window_.state() == CaptureWindow::State::kClosed;
  }
  if (finish) {
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    FinishSpan();
    absl::MutexLock lock(&mu_);
    window_done_ = true;
  }
  // No callback after this: NVTX and profiler-API callbacks unsubscribed,
  // activity off.
  cuptiEnableDomain(0, subscriber_, CUPTI_CB_DOMAIN_NVTX);
  cuptiUnsubscribe(subscriber_);
  static_cast<void>(SetActivities(/*on=*/false));  // exiting: nothing to say
  cuptiActivityFlushAll(0);
  const bool drained = uploader_->Drain(absl::Now() + config_.exit_timeout);
  const BackgroundUploadStats stats = uploader_->stats();
  absl::MutexLock lock(&mu_);
  const TranslationCounters& counters = translator_.counters();
  const NvtxRangeCounters ranges = ranges_.counters();
  if (!drained) {
    PD_LOG(WARNING,
           "spans not acknowledged within PROFDIFF_EXIT_TIMEOUT_SECONDS=%d",
           absl::ToInt64Seconds(config_.exit_timeout));
  }
  PD_LOG(
      INFO,
      "cupti capture done run=%s worker=%s spans=%d acknowledged=%d refused=%d "
      "events=%d "
      "dropped=%d outside_window=%d unsupported_records=%d unmatched_nvtx=%d "
      "buffer_pool_empty=%d all_acknowledged=%s",
      config_.run, config_.worker_name, spans_finished_,
      stats.spans_acknowledged, stats.spans_refused, counters.events,
      dropped_total_, counters.outside_window, counters.unsupported,
      ranges.unmatched_pops, pool_.exhausted(), drained ? "true" : "false");
}

}  // namespace profdiff::agent::cupti
