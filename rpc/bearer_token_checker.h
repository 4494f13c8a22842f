// Checks the bearer token of every call a TLS server receives, before any
// handler runs.
#ifndef PROFDIFF_RPC_BEARER_TOKEN_CHECKER_H_
#define PROFDIFF_RPC_BEARER_TOKEN_CHECKER_H_

#include <string>
#include <string_view>

#include <grpcpp/security/auth_metadata_processor.h>

namespace profdiff::rpc {

// Whether `a` equals `b`, in a time that does not depend on where the bytes
// differ (token checks: the gRPC side's and the web UI's).
bool ConstantTimeEquals(std::string_view a, std::string_view b);

// Accepts a call whose "authorization" metadata is "Bearer TOKEN"; refuses any
// other with UNAUTHENTICATED saying what was wrong (missing, not a bearer
// token, wrong token). The comparison takes the same time wherever the tokens
// differ.
class BearerTokenChecker final : public grpc::AuthMetadataProcessor {
 public:
  explicit BearerTokenChecker(std::string token) : token_(std::move(token)) {}

  bool IsBlocking() const override {
    return false;
  }  // a comparison: no need for a thread
  grpc::Status Process(const InputMetadata& auth_metadata,
                       grpc::AuthContext* context,
                       OutputMetadata* consumed_auth_metadata,
                       OutputMetadata* response_metadata) override;

 private:
  std::string token_;
};

}  // namespace profdiff::rpc

#endif  // PROFDIFF_RPC_BEARER_TOKEN_CHECKER_H_
