#include "agent/capture_orders.h"

#include <algorithm>

#include <absl/strings/str_join.h>

#include "base/log.h"

namespace profdiff::agent {
namespace {

// Both lists without repeats, and no pid busy that was also armed (a process
// reached through both Kineto and CUPTI counts once).
void Deduplicate(CaptureArming& arming) {
  for (std::vector<int32_t>* pids : {&arming.armed, &arming.busy}) {
    std::sort(pids->begin(), pids->end());
    pids->erase(std::unique(pids->begin(), pids->end()), pids->end());
  }
  std::erase_if(arming.busy, [&](int32_t pid) {
    return std::binary_search(arming.armed.begin(), arming.armed.end(), pid);
  });
}

}  // namespace

v1::CaptureAnswer CaptureOrders::Handle(const v1::CaptureOrder& order) {
  absl::MutexLock lock(&mu_);
  const absl::Time now = absl::Now();
  armed_->Expire(now);
  if (std::optional<v1::CaptureAnswer> answered =
          armed_->AnswerOf(order.capture_id())) {
    return *std::move(answered);
  }
  v1::CaptureAnswer answer;
  answer.set_capture_id(order.capture_id());
  const KinetoCaptureSpec spec{
      .capture_id = order.capture_id(),
      .run = order.run(),
      .steps = order.steps(),
      .duration = absl::Milliseconds(order.duration_ms()),
      .start_at_step = order.start_at_step(),
  };
  v1::ArmedCapture kept;
  kept.set_capture_id(order.capture_id());
  kept.set_run(order.run());
  kept.set_deadline_unix_ms(order.deadline_unix_ms());
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
      absl::StatusOr<KinetoArming> kineto = daemon_->Capture(
          order.job(), spec, absl::FromUnixMillis(order.deadline_unix_ms()));
      if (kineto.ok()) {
        arming = std::move(kineto->arming);
        for (v1::ArmedProcess& process : kineto->processes) {
          *kept.add_processes() = std::move(process);
        }
      } else {
        arming.errors.push_back(std::string(kineto.status().message()));
      }
    }
    if (injected_ != nullptr) {
      InjectedArming cupti = injected_->Capture(order);
      arming.armed.insert(arming.armed.end(), cupti.arming.armed.begin(),
                          cupti.arming.armed.end());
      arming.busy.insert(arming.busy.end(), cupti.arming.busy.begin(),
                         cupti.arming.busy.end());
      arming.errors.insert(arming.errors.end(), cupti.arming.errors.begin(),
                           cupti.arming.errors.end());
      for (v1::ArmedProcess& process : cupti.processes) {
        *kept.add_processes() = std::move(process);
      }
    }
  }
  Deduplicate(arming);
  for (const int32_t pid : arming.armed) answer.add_triggered_pids(pid);
  for (const int32_t pid : arming.busy) answer.add_busy_pids(pid);
  answer.set_error(absl::StrJoin(arming.errors, "; "));
  *kept.mutable_answer() = answer;
  if (absl::Status recorded = armed_->Record(std::move(kept)); !recorded.ok()) {
    PD_LOG(WARNING, "capture not kept in the state dir capture=%s error=%s",
           order.capture_id(), recorded.message());
  }
  PD_LOG(INFO, "capture order capture=%s job=%s triggered=%d busy=%d%s",
         order.capture_id(), order.job().empty() ? "(all)" : order.job(),
         answer.triggered_pids_size(), answer.busy_pids_size(),
         answer.error().empty() ? "" : " error=" + answer.error());
  return answer;
}

void CaptureOrders::Cancel(const v1::CaptureCancel& cancel) {
  absl::MutexLock lock(&mu_);
  const std::string& id = cancel.capture_id();
  const bool known = armed_->Cancel(id);
  std::vector<int32_t> ended;
  if (daemon_ != nullptr) ended = daemon_->Cancel(id);
  if (injected_ != nullptr) {
    const std::vector<int32_t> told = injected_->Cancel(cancel);
    ended.insert(ended.end(), told.begin(), told.end());
  }
  PD_LOG(INFO, "capture cancelled capture=%s known=%d pids=%s", id, known,
         absl::StrJoin(ended, ","));
}

std::vector<v1::LocalProcess> CaptureOrders::Processes() const {
  std::vector<v1::LocalProcess> out;
  if (daemon_ != nullptr) {
    for (const KinetoProcess& process : daemon_->Processes()) {
      v1::LocalProcess& local = out.emplace_back();
      local.set_pid(process.host_pid);
      local.set_job(process.job);
      local.set_gpu(process.gpu);
      local.set_source("kineto");
      local.set_capture_id(process.capture.capture_id);
      local.set_uid(process.uid);
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
