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

absl::StatusOr<v1::ListAgentsResponse> AgentsClient::ListAgents() {
  grpc::ClientContext context;
  rpc::SetTimeout(context, timeout_);
  v1::ListAgentsResponse response;
  const grpc::Status status = stub_->ListAgents(&context, {}, &response);
  if (!status.ok()) return Annotate(status);
  return response;
}

absl::StatusOr<v1::Capture> AgentsClient::StartCapture(
    const v1::StartCaptureRequest& request) {
  grpc::ClientContext context;
  rpc::SetTimeout(context, timeout_);
  v1::Capture capture;
  const grpc::Status status = stub_->StartCapture(&context, request, &capture);
  if (!status.ok()) return Annotate(status);
  return capture;
}

absl::StatusOr<v1::Capture> AgentsClient::GetCapture(
    const std::string& capture_id) {
  grpc::ClientContext context;
  rpc::SetTimeout(context, timeout_);
  v1::GetCaptureRequest request;
  request.set_capture_id(capture_id);
  v1::Capture capture;
  const grpc::Status status = stub_->GetCapture(&context, request, &capture);
  if (!status.ok()) return Annotate(status);
  return capture;
}

}  // namespace profdiff::client
