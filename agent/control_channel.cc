#include "agent/control_channel.h"

#include <utility>

#include <absl/base/thread_annotations.h>
#include <absl/random/random.h>
#include <absl/synchronization/mutex.h>
#include <absl/synchronization/notification.h>
#include <google/protobuf/util/message_differencer.h>

#include "base/log.h"
#include "base/stoppable_wait.h"
#include "base/str_cat.h"
#include "rpc/channel.h"
#include "rpc/status_conversion.h"

namespace profdiff::agent {
namespace {

// A stream that lasted this long was a good one: the next failure starts the
// backoff over.
constexpr absl::Duration kHealthyStream = absl::Minutes(1);
// The same error is logged at most this often.
constexpr absl::Duration kErrorLogEvery = absl::Minutes(1);

}  // namespace

ControlChannel::ControlChannel(ControlChannelOptions options,
                               StatusSource status, OrderHandler on_order,
                               CancelHandler on_cancel)
    : options_(std::move(options)),
      status_(std::move(status)),
      on_order_(std::move(on_order)),
      on_cancel_(std::move(on_cancel)),
      stub_(v1::Agents::NewStub(
          rpc::MakeChannel(options_.aggregator, options_.security,
                           ReconnectBackoffOf(options_.backoff)))),
      thread_([this](const std::stop_token& stop) { Run(stop); }) {}

ControlChannel::~ControlChannel() { Stop(); }

void ControlChannel::Stop() {
  if (!thread_.joinable()) return;
  thread_.request_stop();
  thread_.join();
}

void ControlChannel::Run(const std::stop_token& stop) {
  Backoff backoff(options_.backoff);
  absl::BitGen gen;
  std::string last_error;
  absl::Time last_logged = absl::InfinitePast();
  while (!stop.stop_requested()) {
    const absl::Time started = absl::Now();
    const absl::Status ended = Session(stop);
    if (stop.stop_requested()) return;
    if (absl::Now() - started >= kHealthyStream) backoff.Reset();
    const absl::Duration delay = backoff.NextDelay(gen);
    // Design note 4: an agent the aggregator cannot hear must say so.
    const std::string error = ended.ToString();
    if (!ended.ok() &&
        (error != last_error || absl::Now() - last_logged >= kErrorLogEvery)) {
      PD_LOG(WARNING,
             "control stream to %s ended: %s; captures cannot reach this "
             "agent until it is back (again in %s)",
             options_.aggregator, error, absl::FormatDuration(delay));
      last_error = error;
      last_logged = absl::Now();
    }
    PD_VLOG(1, "control stream ended (%s); again in %s", error,
            absl::FormatDuration(delay));
    base::WaitUnlessStopped(stop, delay);
  }
}

absl::Status ControlChannel::Session(const std::stop_token& stop) {
  grpc::ClientContext context;
  std::stop_callback cancel(stop, [&context] { context.TryCancel(); });
  std::unique_ptr<grpc::ClientReaderWriter<v1::AgentReport, v1::ControlMessage>>
      stream = stub_->Control(&context);
  absl::Mutex write_mu;
  const auto write = [&](const v1::AgentReport& report) {
    absl::MutexLock lock(&write_mu);
    return stream->Write(report);
  };
  v1::AgentReport report;
  *report.mutable_status() = status_();
  if (!write(report)) {
    return rpc::FromGrpcStatus(stream->Finish());
  }
  PD_LOG(INFO, "control stream open aggregator=%s agent=%s",
         options_.aggregator, report.status().agent_id());
  v1::AgentStatus sent = report.status();
  absl::Time sent_at = absl::Now();

  absl::Notification reader_done;
  std::jthread reader([&] {
    v1::ControlMessage message;
    while (stream->Read(&message)) {
      if (message.has_cancel()) {
        if (on_cancel_) on_cancel_(message.cancel());
        continue;
      }
      if (!message.has_capture()) continue;
      v1::AgentReport answer;
      *answer.mutable_answer() = on_order_(message.capture());
      if (!write(answer)) break;
    }
    reader_done.Notify();
  });
  while (
      !reader_done.WaitForNotificationWithTimeout(options_.status_interval)) {
    if (stop.stop_requested()) break;
    v1::AgentStatus now = status_();
    const bool changed =
        !google::protobuf::util::MessageDifferencer::Equals(now, sent);
    if (!changed && absl::Now() - sent_at < options_.heartbeat) continue;
    *report.mutable_status() = now;
    if (!write(report)) break;
    sent = std::move(now);
    sent_at = absl::Now();
  }
  context.TryCancel();
  reader.join();
  return rpc::FromGrpcStatus(stream->Finish());
}

}  // namespace profdiff::agent
