#include "agent/capture_orders.h"

#include <absl/strings/str_join.h>

#include "base/log.h"

namespace profdiff::agent {

v1::CaptureAnswer CaptureOrders::Handle(const v1::CaptureOrder& order) {
  {
    absl::MutexLock lock(&mu_);
    if (auto it = answered_.find(order.capture_id()); it != answered_.end()) {
      return it->second;
    }
  }
  // The daemon makes folders and the libraries are waited for: no lock held.
  // Orders come from one stream's reader thread, so one order is not handled
  // twice at once.
  v1::CaptureAnswer answer;
  answer.set_capture_id(order.capture_id());
  const KinetoCaptureSpec spec{
      .capture_id = order.capture_id(),
      .run = order.run(),
      .steps = order.steps(),
      .duration = absl::Milliseconds(order.duration_ms()),
      .start_at_step = order.start_at_step(),
  };
  CaptureArming arming;
  if (daemon_ == nullptr && injected_ == nullptr) {
    arming.errors.push_back(
        "this agent reaches no training process: start it with "
        "--kineto-daemon (PyTorch processes) or --listen-unix (CUPTI "
        "injection libraries)");
  } else if (absl::Status valid = CheckKinetoCaptureSpec(spec); !valid.ok()) {
    arming.errors.push_back(std::string(valid.message()));
  } else {
    if (daemon_ != nullptr) {
      absl::StatusOr<CaptureArming> kineto = daemon_->Capture(
          order.job(), spec, absl::FromUnixMillis(order.deadline_unix_ms()));
      if (kineto.ok()) {
        arming = *std::move(kineto);
      } else {
        arming.errors.push_back(std::string(kineto.status().message()));
      }
    }
    if (injected_ != nullptr) {
      CaptureArming cupti = injected_->Capture(order);
      arming.armed.insert(arming.armed.end(), cupti.armed.begin(),
                          cupti.armed.end());
      arming.busy.insert(arming.busy.end(), cupti.busy.begin(),
                         cupti.busy.end());
      arming.errors.insert(arming.errors.end(), cupti.errors.begin(),
                           cupti.errors.end());
    }
  }
  for (const int32_t pid : arming.armed) answer.add_triggered_pids(pid);
  for (const int32_t pid : arming.busy) answer.add_busy_pids(pid);
  answer.set_error(absl::StrJoin(arming.errors, "; "));
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
  if (daemon_ != nullptr) {
    for (const KinetoProcess& process : daemon_->Processes()) {
      v1::LocalProcess& local = out.emplace_back();
      local.set_pid(process.pid);
      local.set_job(process.job);
      local.set_gpu(process.gpu);
      local.set_source("kineto");
      local.set_capture_id(process.capture_id);
    }
  }
  if (injected_ != nullptr) {
    for (v1::LocalProcess& process : injected_->Processes()) {
      out.push_back(std::move(process));
    }
  }
  return out;
}

}  // namespace profdiff::agent
