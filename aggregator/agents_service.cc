#include "aggregator/agents_service.h"

#include <deque>
#include <memory>
#include <optional>
#include <utility>

#include <absl/base/thread_annotations.h>
#include <absl/synchronization/mutex.h>

#include "aggregator/finish_on_pool.h"
#include "rpc/status_conversion.h"

namespace profdiff::aggregator {
namespace {

// One agent's Control stream. Orders come from the coordinator's thread
// through an Outbox the coordinator's Sender shares, so a Sender called after
// the stream ended drops its message instead of touching a deleted reactor.
// One write is in flight at a time; Finish waits for it (a write may not
// start after Finish).
class ControlReactor final
    : public grpc::ServerBidiReactor<v1::AgentReport, v1::ControlMessage> {
 public:
  explicit ControlReactor(CaptureCoordinator* coordinator)
      : coordinator_(coordinator), outbox_(std::make_shared<Outbox>()) {
    outbox_->reactor = this;
    StartRead(&report_);
  }

  void OnReadDone(bool ok) override {
    if (!ok) {
      End(grpc::Status::OK);
      return;
    }
    if (!connection_.has_value()) {
      if (!report_.has_status()) {
        End(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                         "the first report on Control is the agent's status"));
        return;
      }
      absl::StatusOr<int64_t> connected = coordinator_->Connect(
          std::move(*report_.mutable_status()),
          [outbox = outbox_](const v1::ControlMessage& message) {
            Push(outbox, message);
          });
      if (!connected.ok()) {
        End(rpc::ToGrpcStatus(connected.status()));
        return;
      }
      connection_ = *connected;
    } else {
      coordinator_->Report(*connection_, std::move(report_));
    }
    report_.Clear();
    StartRead(&report_);
  }

  void OnWriteDone(bool ok) override {
    bool write_next = false;
    bool finish = false;
    {
      absl::MutexLock lock(&outbox_->mu);
      if (ok && !outbox_->ending && !outbox_->queue.empty()) {
        outbox_->current = std::move(outbox_->queue.front());
        outbox_->queue.pop_front();
        write_next = true;
      } else {
        outbox_->writing = false;
        // A failed write: the stream is broken, and its read ends it.
        if (!ok) outbox_->ending = true;
        finish = outbox_->finish_wanted && !outbox_->finish_called;
        if (finish) outbox_->finish_called = true;
      }
    }
    if (write_next) {
      StartWrite(&outbox_->current);
    } else if (finish) {
      Finish(final_status_);
    }
  }

  void OnDone() override {
    {
      absl::MutexLock lock(&outbox_->mu);
      outbox_->reactor = nullptr;
    }
    if (connection_.has_value()) coordinator_->Disconnect(*connection_);
    delete this;
  }

 private:
  struct Outbox {
    absl::Mutex mu;
    ControlReactor* reactor ABSL_GUARDED_BY(mu) = nullptr;
    std::deque<v1::ControlMessage> queue ABSL_GUARDED_BY(mu);
    v1::ControlMessage current;  // the write in flight
    bool writing ABSL_GUARDED_BY(mu) = false;
    bool ending ABSL_GUARDED_BY(mu) = false;
    bool finish_wanted ABSL_GUARDED_BY(mu) = false;
    bool finish_called ABSL_GUARDED_BY(mu) = false;
  };

  static void Push(const std::shared_ptr<Outbox>& outbox,
                   const v1::ControlMessage& message) {
    ControlReactor* start = nullptr;
    {
      absl::MutexLock lock(&outbox->mu);
      if (outbox->reactor == nullptr || outbox->ending) return;
      outbox->queue.push_back(message);
      if (!outbox->writing) {
        outbox->writing = true;
        outbox->current = std::move(outbox->queue.front());
        outbox->queue.pop_front();
        start = outbox->reactor;
      }
    }
    if (start != nullptr) start->StartWrite(&outbox->current);
  }

  // Ends the stream once no write is in flight; the first status wins.
  void End(grpc::Status status) {
    bool finish_now = false;
    {
      absl::MutexLock lock(&outbox_->mu);
      if (outbox_->finish_wanted) return;
      outbox_->ending = true;
      outbox_->finish_wanted = true;
      final_status_ = std::move(status);
      finish_now = !outbox_->writing;
      if (finish_now) outbox_->finish_called = true;
    }
    if (finish_now) Finish(final_status_);
  }

  CaptureCoordinator* const coordinator_;
  std::shared_ptr<Outbox> outbox_;
  v1::AgentReport report_;
  std::optional<int64_t> connection_;
  grpc::Status final_status_;
};

}  // namespace

grpc::ServerBidiReactor<v1::AgentReport, v1::ControlMessage>*
AgentsService::Control(grpc::CallbackServerContext* /*context*/) {
  return new ControlReactor(coordinator_);
}

grpc::ServerUnaryReactor* AgentsService::ListAgents(
    grpc::CallbackServerContext* context,
    const v1::ListAgentsRequest* /*request*/,
    v1::ListAgentsResponse* response) {
  return FinishOnPool(context, pool_, response,
                      [this] { return coordinator_->ListAgents(); });
}

grpc::ServerUnaryReactor* AgentsService::StartCapture(
    grpc::CallbackServerContext* context,
    const v1::StartCaptureRequest* request, v1::Capture* response) {
  return FinishOnPool(context, pool_, response, [this, request] {
    return coordinator_->StartCapture(*request);
  });
}

grpc::ServerUnaryReactor* AgentsService::GetCapture(
    grpc::CallbackServerContext* context, const v1::GetCaptureRequest* request,
    v1::Capture* response) {
  return FinishOnPool(context, pool_, response, [this, request] {
    return coordinator_->GetCapture(*request);
  });
}

grpc::ServerUnaryReactor* AgentsService::CancelCapture(
    grpc::CallbackServerContext* context,
    const v1::CancelCaptureRequest* request, v1::Capture* response) {
  return FinishOnPool(context, pool_, response, [this, request] {
    return coordinator_->CancelCapture(*request);
  });
}

}  // namespace profdiff::aggregator
