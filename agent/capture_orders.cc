#include "agent/capture_orders.h"

#include "base/log.h"

namespace profdiff::agent {

v1::CaptureAnswer CaptureOrders::Handle(const v1::CaptureOrder& order) {
  {
    absl::MutexLock lock(&mu_);
    if (auto it = answered_.find(order.capture_id()); it != answered_.end()) {
      return it->second;
    }
  }
  // The daemon makes folders: no lock held. Orders come from one stream's
  // reader thread, so one order is not handled twice at once.
  v1::CaptureAnswer answer;
  answer.set_capture_id(order.capture_id());
  if (daemon_ == nullptr) {
    answer.set_error(
        "this agent serves no Kineto daemon (start it with --kineto-daemon)");
  } else {
    const KinetoCaptureSpec spec{
        .capture_id = order.capture_id(),
        .run = order.run(),
        .steps = order.steps(),
        .duration = absl::Milliseconds(order.duration_ms()),
        .start_at_step = order.start_at_step(),
    };
    absl::StatusOr<KinetoArming> arming = daemon_->Capture(
        order.job(), spec, absl::FromUnixMillis(order.deadline_unix_ms()));
    if (!arming.ok()) {
      answer.set_error(std::string(arming.status().message()));
    } else {
      for (const int32_t pid : arming->armed) answer.add_triggered_pids(pid);
      for (const int32_t pid : arming->busy) answer.add_busy_pids(pid);
    }
  }
  PD_LOG(INFO, "capture order capture=%s job=%s triggered=%d busy=%d%s",
         order.capture_id(), order.job().empty() ? "(all)" : order.job(),
         answer.triggered_pids_size(), answer.busy_pids_size(),
         answer.error().empty() ? "" : " error=" + answer.error());
  absl::MutexLock lock(&mu_);
  return answered_.try_emplace(order.capture_id(), std::move(answer))
      .first->second;
}

std::vector<v1::LocalProcess> CaptureOrders::Processes() const {
  std::vector<v1::LocalProcess> out;
  if (daemon_ == nullptr) return out;
  for (const KinetoProcess& process : daemon_->Processes()) {
    v1::LocalProcess& local = out.emplace_back();
    local.set_pid(process.pid);
    local.set_job(process.job);
    local.set_gpu(process.gpu);
    local.set_source("kineto");
    local.set_capture_id(process.capture_id);
  }
  return out;
}

}  // namespace profdiff::agent
