#include "client/differ_client.h"

#include <grpcpp/client_context.h>

#include "base/status_annotate.h"
#include "base/str_cat.h"
#include "profdiff/v1/differ.grpc.pb.h"
#include "rpc/channel.h"
#include "rpc/status_conversion.h"

namespace profdiff::client {

absl::StatusOr<v1::DiffReport> DiffOnServer(
    const std::string& address, const rpc::ChannelSecurity& security,
    const v1::DiffRequest& request, absl::Duration timeout) {
  std::unique_ptr<v1::Differ::Stub> stub =
      v1::Differ::NewStub(rpc::MakeChannel(address, security));
  grpc::ClientContext context;
  rpc::SetTimeout(context, timeout);
  v1::DiffReport report;
  if (absl::Status status =
          rpc::FromGrpcStatus(stub->Diff(&context, request, &report));
      !status.ok()) {
    return base::Annotate(status, base::StrCat("server ", address));
  }
  return report;
}

absl::StatusOr<v1::MultiDiffReport> DiffManyOnServer(
    const std::string& address, const rpc::ChannelSecurity& security,
    const v1::DiffManyRequest& request, absl::Duration timeout) {
  std::unique_ptr<v1::Differ::Stub> stub =
      v1::Differ::NewStub(rpc::MakeChannel(address, security));
  grpc::ClientContext context;
  rpc::SetTimeout(context, timeout);
  v1::MultiDiffReport reports;
  if (absl::Status status =
          rpc::FromGrpcStatus(stub->DiffMany(&context, request, &reports));
      !status.ok()) {
    return base::Annotate(status, base::StrCat("server ", address));
  }
  return reports;
}

}  // namespace profdiff::client
