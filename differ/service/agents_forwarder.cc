#include "differ/service/agents_forwarder.h"

#include "differ/service/forward_unary.h"
#include "rpc/channel.h"

namespace profdiff::differ {
namespace {

// Ends a Control stream opened on the differ at once.
class RefusedControl final
    : public grpc::ServerBidiReactor<v1::AgentReport, v1::ControlMessage> {
 public:
  RefusedControl() {
    Finish(grpc::Status(grpc::StatusCode::UNIMPLEMENTED,
                        "agents connect to the aggregator (--aggregator "
                        "HOST:PORT), not to the differ"));
  }
  void OnDone() override { delete this; }
};

}  // namespace

AgentsForwarder::AgentsForwarder(const std::string& store_address,
                                 const rpc::ChannelSecurity& security,
                                 const StoredRuns* store,
                                 absl::Duration store_timeout,
                                 AgentsAccess access)
    : stub_(v1::Agents::NewStub(rpc::MakeChannel(store_address, security))),
      store_(store),
      store_timeout_(store_timeout),
      access_(access) {}

template <typename Request, typename Response, typename Call>
grpc::ServerUnaryReactor* AgentsForwarder::Forward(
    grpc::CallbackServerContext* context, const Request* request,
    Response* response, Call call) {
  if (access_ == AgentsAccess::kRefusedUnauthenticated) {
    grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
    reactor->Finish(grpc::Status(
        grpc::StatusCode::PERMISSION_DENIED,
        "this differ serves clients without authentication "
        "(--allow-unauthenticated-clients), so it lists no agents and starts "
        "no captures: ask an authenticated differ, or restart this one with "
        "--auth-token-file (or --allow-unauthenticated-captures to open "
        "captures to anyone on purpose)"));
    return reactor;
  }
  return ForwardUnary(context, store_, *stub_, store_timeout_, request,
                      response, call);
}

grpc::ServerBidiReactor<v1::AgentReport, v1::ControlMessage>*
AgentsForwarder::Control(grpc::CallbackServerContext* /*context*/) {
  return new RefusedControl();
}

grpc::ServerUnaryReactor* AgentsForwarder::ListAgents(
    grpc::CallbackServerContext* context, const v1::ListAgentsRequest* request,
    v1::ListAgentsResponse* response) {
  return Forward(context, request, response,
                 [](auto* async, auto... args) { async->ListAgents(args...); });
}

grpc::ServerUnaryReactor* AgentsForwarder::StartCapture(
    grpc::CallbackServerContext* context,
    const v1::StartCaptureRequest* request, v1::Capture* response) {
  return Forward(context, request, response, [](auto* async, auto... args) {
    async->StartCapture(args...);
  });
}

grpc::ServerUnaryReactor* AgentsForwarder::GetCapture(
    grpc::CallbackServerContext* context, const v1::GetCaptureRequest* request,
    v1::Capture* response) {
  return Forward(context, request, response,
                 [](auto* async, auto... args) { async->GetCapture(args...); });
}

grpc::ServerUnaryReactor* AgentsForwarder::CancelCapture(
    grpc::CallbackServerContext* context,
    const v1::CancelCaptureRequest* request, v1::Capture* response) {
  return Forward(context, request, response, [](auto* async, auto... args) {
    async->CancelCapture(args...);
  });
}

}  // namespace profdiff::differ
