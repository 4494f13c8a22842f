// The Agents service on the differ's address: ListAgents, StartCapture,
// GetCapture and CancelCapture go on to the aggregator (forward_unary.h), so
// `profdiff capture` and `profdiff agents` need only the differ's address, as
// every command does. Control is the agents' own stream to the aggregator:
// here it is refused. A differ that serves clients without authentication
// (--allow-unauthenticated-clients) refuses every Agents call unless told
// otherwise (AgentsAccess::kForwarded): it would start captures on the cluster
// with the aggregator's credentials for anyone who reaches it.
#ifndef PROFDIFF_DIFFER_SERVICE_AGENTS_FORWARDER_H_
#define PROFDIFF_DIFFER_SERVICE_AGENTS_FORWARDER_H_

#include <memory>
#include <string>

#include <absl/time/time.h>

#include "differ/service/stored_runs.h"
#include "profdiff/v1/agents.grpc.pb.h"
#include "rpc/credentials.h"

namespace profdiff::differ {

// Whether the Agents calls go on to the aggregator.
enum class AgentsAccess {
  kForwarded,
  // PERMISSION_DENIED naming the flags: the differ's clients are not
  // authenticated and --allow-unauthenticated-captures was not given.
  kRefusedUnauthenticated,
};

class AgentsForwarder final : public v1::Agents::CallbackService {
 public:
  // `store` (for its error prefix) must outlive the service.
  AgentsForwarder(const std::string& store_address,
                  const rpc::ChannelSecurity& security, const StoredRuns* store,
                  absl::Duration store_timeout, AgentsAccess access);

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
  // Forwards with `call`, or refuses (AgentsAccess).
  template <typename Request, typename Response, typename Call>
  grpc::ServerUnaryReactor* Forward(grpc::CallbackServerContext* context,
                                    const Request* request, Response* response,
                                    Call call);

  std::unique_ptr<v1::Agents::Stub> stub_;
  const StoredRuns* store_;
  absl::Duration store_timeout_;
  AgentsAccess access_;
};

}  // namespace profdiff::differ

#endif  // PROFDIFF_DIFFER_SERVICE_AGENTS_FORWARDER_H_
