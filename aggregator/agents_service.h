// The Agents gRPC service: each agent's Control stream, ListAgents, and the
// captures (StartCapture, GetCapture, CancelCapture), over a
// CaptureCoordinator.
#ifndef PROFDIFF_AGGREGATOR_AGENTS_SERVICE_H_
#define PROFDIFF_AGGREGATOR_AGENTS_SERVICE_H_

#include "aggregator/capture_coordinator.h"
#include "base/thread_pool.h"
#include "profdiff/v1/agents.grpc.pb.h"

namespace profdiff::aggregator {

// A Control stream's first report must be the agent's status (else
// INVALID_ARGUMENT); orders are written in the order they are queued. The
// unary calls run on `pool` (they read the ControlStore and the Store).
// `coordinator` and `pool` must outlive the service.
class AgentsService final : public v1::Agents::CallbackService {
 public:
  AgentsService(CaptureCoordinator* coordinator, base::ThreadPool* pool)
      : coordinator_(coordinator), pool_(pool) {}

  grpc::ServerBidiReactor<v1::AgentReport, v1::ControlMessage>* Control(
      grpc::CallbackServerContext* context) override;
  grpc::ServerUnaryReactor* ListAgents(
      grpc::CallbackServerContext* context,
      const v1::ListAgentsRequest* request,
      v1::ListAgentsResponse* response) override;
  grpc::ServerUnaryReactor* StartCapture(grpc::CallbackServerContext* context,
                                         const v1::StartCaptureRequest* request,
                                         v1::Capture* response) override;
  grpc::ServerUnaryReactor* GetCapture(grpc::CallbackServerContext* context,
                                       const v1::GetCaptureRequest* request,
                                       v1::Capture* response) override;
  grpc::ServerUnaryReactor* CancelCapture(
      grpc::CallbackServerContext* context,
      const v1::CancelCaptureRequest* request, v1::Capture* response) override;

 private:
  CaptureCoordinator* coordinator_;
  base::ThreadPool* pool_;
};

}  // namespace profdiff::aggregator

#endif  // PROFDIFF_AGGREGATOR_AGENTS_SERVICE_H_
