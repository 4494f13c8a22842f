#include "rpc/bearer_token_checker.h"

#include <string_view>

namespace profdiff::rpc {
namespace {

constexpr std::string_view kScheme = "Bearer ";

}  // namespace

bool ConstantTimeEquals(std::string_view a, std::string_view b) {
  unsigned char difference = a.size() == b.size() ? 0 : 1;
  const std::string_view& shorter = a.size() < b.size() ? a : b;
  const std::string_view& longer = a.size() < b.size() ? b : a;
  for (size_t i = 0; i < longer.size(); ++i) {
    const unsigned char x =
        i < shorter.size() ? static_cast<unsigned char>(shorter[i]) : 0;
    difference |= x ^ static_cast<unsigned char>(longer[i]);
  }
  return difference == 0;
}

grpc::Status BearerTokenChecker::Process(
    const InputMetadata& auth_metadata, grpc::AuthContext* /*context*/,
    OutputMetadata* consumed_auth_metadata,
    OutputMetadata* /*response_metadata*/) {
  const auto found = auth_metadata.find("authorization");
  if (found == auth_metadata.end()) {
    return grpc::Status(
        grpc::StatusCode::UNAUTHENTICATED,
        "no bearer token: this server wants \"authorization: Bearer TOKEN\" "
        "(profdiff tools: --auth-token-file FILE or PROFDIFF_TOKEN_FILE)");
  }
  const std::string_view value(found->second.data(), found->second.size());
  if (!value.starts_with(kScheme)) {
    return grpc::Status(
        grpc::StatusCode::UNAUTHENTICATED,
        "the authorization metadata is not a bearer token (\"Bearer TOKEN\")");
  }
  if (!ConstantTimeEquals(value.substr(kScheme.size()), token_)) {
    return grpc::Status(
        grpc::StatusCode::UNAUTHENTICATED,
        "wrong bearer token (check --auth-token-file / PROFDIFF_TOKEN_FILE)");
  }
  consumed_auth_metadata->insert(
      {std::string(found->first.data(), found->first.size()),
       std::string(value)});
  return grpc::Status::OK;
}

}  // namespace profdiff::rpc
