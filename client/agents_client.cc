#include "client/agents_client.h"

#include "base/status_annotate.h"
#include "base/str_cat.h"
#include "rpc/channel.h"
#include "rpc/status_conversion.h"

namespace profdiff::client {

AgentsClient::AgentsClient(const std::string& address,
                           const rpc::ChannelSecurity& security,
                           absl::Duration timeout)
    : address_(address),
      timeout_(timeout),
      stub_(v1::Agents::NewStub(rpc::MakeChannel(address, security))) {}

absl::Status AgentsClient::Annotate(const grpc::Status& status) const {
  return base::Annotate(rpc::FromGrpcStatus(status),
                        base::StrCat("server ", address_));
}

template <typename Response, typename Call>
absl::StatusOr<Response> AgentsClient::Unary(Call call) const {
  grpc::ClientContext context;
  rpc::SetTimeout(context, timeout_);
  Response response;
  const grpc::Status status = call(&context, &response);
  if (!status.ok()) return Annotate(status);
  return response;
}

absl::StatusOr<v1::ListAgentsResponse> AgentsClient::ListAgents() {
  return Unary<v1::ListAgentsResponse>(
      [&](grpc::ClientContext* context, v1::ListAgentsResponse* response) {
        return stub_->ListAgents(context, {}, response);
      });
}

absl::StatusOr<v1::Capture> AgentsClient::StartCapture(
    const v1::StartCaptureRequest& request) {
  return Unary<v1::Capture>(
      [&](grpc::ClientContext* context, v1::Capture* capture) {
        return stub_->StartCapture(context, request, capture);
      });
}

absl::StatusOr<v1::Capture> AgentsClient::GetCapture(
    const std::string& capture_id) {
  v1::GetCaptureRequest request;
  request.set_capture_id(capture_id);
  return Unary<v1::Capture>(
      [&](grpc::ClientContext* context, v1::Capture* capture) {
        return stub_->GetCapture(context, request, capture);
      });
}

absl::StatusOr<v1::Capture> AgentsClient::CancelCapture(
    const std::string& capture_id) {
  v1::CancelCaptureRequest request;
  request.set_capture_id(capture_id);
  return Unary<v1::Capture>(
      [&](grpc::ClientContext* context, v1::Capture* capture) {
        return stub_->CancelCapture(context, request, capture);
      });
}

}  // namespace profdiff::client
