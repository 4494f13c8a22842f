// absl::Status to grpc::Status and back (status_conversion.cc): every code
// maps to the code of the same name, messages travel unchanged.
#include "rpc/status_conversion.h"

#include <gtest/gtest.h>

namespace profdiff::rpc {
namespace {

TEST(StatusConversionTest, OkIsOkBothWays) {
  EXPECT_TRUE(ToGrpcStatus(absl::OkStatus()).ok());
  EXPECT_TRUE(FromGrpcStatus(grpc::Status::OK).ok());
}

TEST(StatusConversionTest, CodesMapToTheCodeOfTheSameName) {
  EXPECT_EQ(ToGrpcStatus(absl::NotFoundError("x")).error_code(),
            grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(ToGrpcStatus(absl::UnauthenticatedError("x")).error_code(),
            grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(ToGrpcStatus(absl::ResourceExhaustedError("x")).error_code(),
            grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_EQ(
      FromGrpcStatus(grpc::Status(grpc::StatusCode::DATA_LOSS, "x")).code(),
      absl::StatusCode::kDataLoss);
  EXPECT_EQ(
      FromGrpcStatus(grpc::Status(grpc::StatusCode::UNAVAILABLE, "x")).code(),
      absl::StatusCode::kUnavailable);
}

TEST(StatusConversionTest, EveryErrorCodeAndMessageRoundTrips) {
  for (int code = 1; code <= 16; ++code) {
    const absl::Status status(static_cast<absl::StatusCode>(code),
                              "run r1: worker 3: \xc3\xa9 failed");
    const grpc::Status grpc_status = ToGrpcStatus(status);
    EXPECT_EQ(static_cast<int>(grpc_status.error_code()), code);
    EXPECT_EQ(grpc_status.error_message(), "run r1: worker 3: \xc3\xa9 failed");
    EXPECT_EQ(FromGrpcStatus(grpc_status), status) << code;
  }
}

TEST(StatusConversionTest, ErrorWithoutAMessageStaysAnError) {
  const absl::Status status =
      FromGrpcStatus(grpc::Status(grpc::StatusCode::CANCELLED, ""));
  EXPECT_EQ(status.code(), absl::StatusCode::kCancelled);
  EXPECT_FALSE(ToGrpcStatus(absl::Status(absl::StatusCode::kAborted, "")).ok());
}

}  // namespace
}  // namespace profdiff::rpc
