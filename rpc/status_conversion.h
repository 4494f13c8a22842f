// The one place absl::Status and grpc::Status meet: codes map one to one.
#ifndef PROFDIFF_RPC_STATUS_CONVERSION_H_
#define PROFDIFF_RPC_STATUS_CONVERSION_H_

#include <absl/status/status.h>
#include <grpcpp/support/status.h>

namespace profdiff::rpc {

grpc::Status ToGrpcStatus(const absl::Status& status);
absl::Status FromGrpcStatus(const grpc::Status& status);

}  // namespace profdiff::rpc

#endif  // PROFDIFF_RPC_STATUS_CONVERSION_H_
