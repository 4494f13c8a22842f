// The bearer token check every call to a TLS server passes
// (bearer_token_checker.cc), called as gRPC calls it: with the call's
// metadata.
#include "rpc/bearer_token_checker.h"

#include <deque>
#include <map>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace profdiff::rpc {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Pair;
using ::testing::UnorderedElementsAre;

// The metadata of one call; string_refs point into `strings`.
class Call {
 public:
  Call& With(std::string key, std::string value) {
    const auto& stored =
        strings_.emplace_back(std::move(key), std::move(value));
    metadata_.emplace(grpc::string_ref(stored.first),
                      grpc::string_ref(stored.second));
    return *this;
  }
  const grpc::AuthMetadataProcessor::InputMetadata& metadata() const {
    return metadata_;
  }

 private:
  std::deque<std::pair<std::string, std::string>> strings_;
  grpc::AuthMetadataProcessor::InputMetadata metadata_;
};

struct Outcome {
  grpc::Status status;
  grpc::AuthMetadataProcessor::OutputMetadata consumed;
  grpc::AuthMetadataProcessor::OutputMetadata response;
};

Outcome Check(const std::string& token, const Call& call) {
  BearerTokenChecker checker(token);
  Outcome outcome;
  outcome.status = checker.Process(call.metadata(), nullptr, &outcome.consumed,
                                   &outcome.response);
  return outcome;
}

TEST(BearerTokenCheckerTest, RightTokenIsAcceptedAndItsMetadataConsumed) {
  const Outcome outcome =
      Check("s3cret", Call()
                          .With("authorization", "Bearer s3cret")
                          .With("user-agent", "grpc-c++"));
  EXPECT_TRUE(outcome.status.ok()) << outcome.status.error_message();
  EXPECT_THAT(outcome.consumed,
              UnorderedElementsAre(Pair("authorization", "Bearer s3cret")));
  EXPECT_THAT(outcome.response, IsEmpty());
}

TEST(BearerTokenCheckerTest, MissingTokenIsUnauthenticatedSayingHowToSendOne) {
  const Outcome outcome = Check("s3cret", Call().With("user-agent", "x"));
  EXPECT_EQ(outcome.status.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_THAT(outcome.status.error_message(),
              HasSubstr("no bearer token: this server wants \"authorization: "
                        "Bearer TOKEN\""));
  EXPECT_THAT(outcome.consumed, IsEmpty());
}

TEST(BearerTokenCheckerTest, OtherSchemesAreNotBearerTokens) {
  for (const char* value :
       {"Basic czNjcmV0", "bearer s3cret", "s3cret", "Bearer"}) {
    const Outcome outcome =
        Check("s3cret", Call().With("authorization", value));
    EXPECT_EQ(outcome.status.error_code(), grpc::StatusCode::UNAUTHENTICATED)
        << value;
    EXPECT_THAT(outcome.status.error_message(), HasSubstr("not a bearer token"))
        << value;
  }
}

TEST(BearerTokenCheckerTest, WrongTokensAreUnauthenticated) {
  for (const char* value : {"Bearer s3cre", "Bearer s3cret2", "Bearer S3cret",
                            "Bearer ", "Bearer  s3cret"}) {
    const Outcome outcome =
        Check("s3cret", Call().With("authorization", value));
    EXPECT_EQ(outcome.status.error_code(), grpc::StatusCode::UNAUTHENTICATED)
        << value;
    EXPECT_THAT(outcome.status.error_message(), HasSubstr("wrong bearer token"))
        << value;
    EXPECT_THAT(outcome.consumed, IsEmpty());
  }
}

TEST(BearerTokenCheckerTest, ChecksWithoutBlockingAThread) {
  EXPECT_FALSE(BearerTokenChecker("t").IsBlocking());
}

TEST(ConstantTimeEqualsTest, EqualOnlyForTheSameBytes) {
  EXPECT_TRUE(ConstantTimeEquals("", ""));
  EXPECT_TRUE(ConstantTimeEquals("token", "token"));
  EXPECT_FALSE(ConstantTimeEquals("token", "tokeN"));
  EXPECT_FALSE(ConstantTimeEquals("Token", "token"));
  EXPECT_FALSE(ConstantTimeEquals("token", "token2"));
  EXPECT_FALSE(ConstantTimeEquals("token2", "token"));
  EXPECT_FALSE(ConstantTimeEquals("", "a"));
  // A prefix padded with NULs is still shorter.
  EXPECT_FALSE(ConstantTimeEquals(std::string_view("ab\0", 3), "ab"));
}

}  // namespace
}  // namespace profdiff::rpc
