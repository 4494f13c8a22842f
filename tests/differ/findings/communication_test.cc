// The collective that changed (differ/findings/communication.h): its calls,
// bytes per call, time and bus bandwidth.
#include "differ/findings/communication.h"

#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/differ/findings/finding_fixture.h"

namespace profdiff::differ::testing {
namespace {

TEST(CommunicationTest, MoreSmallerAllReducesAreACommunicationFinding) {
  Rank a = Model(100, 100), b = Model(100, 100);
  a.all_reduce_us = {40, 40};
  b.all_reduce_us = std::vector<double>(8, 15);
  b.all_reduce_bytes = 1 << 20;
  const v1::DiffReport report = Diff(Profile("a", std::vector<Rank>(4, a)),
                                     Profile("b", std::vector<Rank>(4, b)));
  const v1::Finding* f = FirstOf(report, v1::FINDING_KIND_COMMUNICATION);
  ASSERT_NE(f, nullptr) << Texts(report);
  EXPECT_EQ(f->text(),
            "all_reduce: 2 -> 8 calls per step (+300%), 4.0 MiB -> 1.0 MiB per "
            "call; time 80 us -> 120 us (transfer 80 us -> 120 us, wait 0.0 "
            "us -> 0.0 us), bus bandwidth 157 GB/s -> 105 GB/s.");
  // busbw: 8 MiB / 80 us = 104.9 GB/s x 2(4-1)/4 = 157; 8 MiB / 120 us x 1.5.
  ASSERT_EQ(f->evidence_size(), 1);
  EXPECT_EQ(f->evidence(0).table(), v1::EVIDENCE_TABLE_COMMUNICATION);
  EXPECT_EQ(f->evidence(0).name(), "all_reduce");
  EXPECT_DOUBLE_EQ(f->evidence(0).experimental_calls(), 8);
}

TEST(CommunicationTest, TheSameAllReducesAreNoFinding) {
  Rank a = Model(100, 100);
  a.all_reduce_us = {40, 40};
  const std::vector<Rank> ranks(4, a);
  const v1::DiffReport report = Diff(Profile("a", ranks), Profile("b", ranks));
  EXPECT_EQ(FirstOf(report, v1::FINDING_KIND_COMMUNICATION), nullptr)
      << Texts(report);
}

}  // namespace
}  // namespace profdiff::differ::testing
