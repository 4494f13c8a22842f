// The Agents service (on the differ, which forwards it, or the aggregator) for
// `profdiff capture` and `profdiff agents`.
#ifndef PROFDIFF_CLIENT_AGENTS_CLIENT_H_
#define PROFDIFF_CLIENT_AGENTS_CLIENT_H_

#include <memory>
#include <string>

#include <absl/status/statusor.h>
#include <absl/time/time.h>

#include "profdiff/v1/agents.grpc.pb.h"
#include "rpc/credentials.h"

namespace profdiff::client {

// Every call has a deadline of `timeout`; errors are the server's status with
// "server ADDR: " in front.
class AgentsClient {
 public:
  explicit AgentsClient(
      const std::string& address,
      const rpc::ChannelSecurity& security = rpc::ChannelSecurity(),
      absl::Duration timeout = absl::Minutes(1));

  absl::StatusOr<v1::ListAgentsResponse> ListAgents();
  absl::StatusOr<v1::Capture> StartCapture(
      const v1::StartCaptureRequest& request);
  absl::StatusOr<v1::Capture> GetCapture(const std::string& capture_id);
  absl::StatusOr<v1::Capture> CancelCapture(const std::string& capture_id);

 private:
  absl::Status Annotate(const grpc::Status& status) const;
  // One call with the deadline; `call(context, response)` makes it.
  template <typename Response, typename Call>
  absl::StatusOr<Response> Unary(Call call) const;

  std::string address_;
  absl::Duration timeout_;
  std::unique_ptr<v1::Agents::Stub> stub_;
};

}  // namespace profdiff::client

#endif  // PROFDIFF_CLIENT_AGENTS_CLIENT_H_
