#include "base/id_rules.h"

#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace profdiff::base {
namespace {

TEST(IdRulesTest, AcceptsTheRunIdAlphabetAndRefusesTheRest) {
  EXPECT_TRUE(ValidateId("run", "dlrm_kineto-2.v1").ok());
  EXPECT_EQ(ValidateId("run", "").code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ValidateId("run", "..").code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(ValidateId("run", "a/b").message(),
              ::testing::HasSubstr("byte 1"));
  EXPECT_THAT(ValidateId("run", std::string(129, 'a')).message(),
              ::testing::HasSubstr("129 bytes, the limit is 128"));
}

}  // namespace
}  // namespace profdiff::base
