// Backoff ceilings grow by the multiplier up to the cap; delays are uniform
// below the ceiling.
#include "agent/backoff.h"

#include <random>
#include <set>

#include <gtest/gtest.h>

namespace profdiff::agent {
namespace {

constexpr uint32_t kSeed = 42;

TEST(BackoffTest, CeilingDoublesFromTheInitialDelay) {
  Backoff backoff({.initial_delay = absl::Milliseconds(100),
                   .max_delay = absl::Seconds(10)});
  std::mt19937 gen(kSeed);
  // 100 ms * 2^n for the first four attempts.
  for (const int64_t expected_ms : {100, 200, 400, 800}) {
    EXPECT_EQ(backoff.NextCeiling(), absl::Milliseconds(expected_ms));
    backoff.NextDelay(gen);
  }
}

TEST(BackoffTest, CeilingStopsAtTheCap) {
  Backoff backoff({.initial_delay = absl::Milliseconds(100),
                   .max_delay = absl::Seconds(1)});
  std::mt19937 gen(kSeed);
  // 100, 200, 400, 800, then 1600 > 1000 is capped; a thousand attempts do not
  // overflow.
  for (int i = 0; i < 4; ++i) backoff.NextDelay(gen);
  EXPECT_EQ(backoff.NextCeiling(), absl::Seconds(1));
  for (int i = 0; i < 1000; ++i) backoff.NextDelay(gen);
  EXPECT_EQ(backoff.NextCeiling(), absl::Seconds(1));
}

TEST(BackoffTest, DelaysAreJitteredWithinZeroAndTheCeiling) {
  Backoff backoff({.initial_delay = absl::Milliseconds(100),
                   .max_delay = absl::Seconds(1)});
  std::mt19937 gen(kSeed);
  std::set<int64_t> distinct_ns;
  for (int i = 0; i < 200; ++i) {
    const absl::Duration ceiling = backoff.NextCeiling();
    const absl::Duration delay = backoff.NextDelay(gen);
    EXPECT_GE(delay, absl::ZeroDuration());
    EXPECT_LE(delay, ceiling);
    distinct_ns.insert(absl::ToInt64Nanoseconds(delay));
  }
  // Full jitter: 200 draws over [0, 1 s] in nanoseconds are not all alike.
  EXPECT_GT(distinct_ns.size(), 100u);
}

TEST(BackoffTest, SameSeedGivesSameDelays) {
  Backoff a({});
  Backoff b({});
  std::mt19937 gen_a(kSeed);
  std::mt19937 gen_b(kSeed);
  for (int i = 0; i < 10; ++i)
    EXPECT_EQ(a.NextDelay(gen_a), b.NextDelay(gen_b));
}

TEST(BackoffTest, ResetStartsOverFromTheInitialDelay) {
  Backoff backoff({.initial_delay = absl::Milliseconds(100),
                   .max_delay = absl::Seconds(10)});
  std::mt19937 gen(kSeed);
  for (int i = 0; i < 5; ++i) backoff.NextDelay(gen);
  backoff.Reset();
  EXPECT_EQ(backoff.attempts(), 0);
  EXPECT_EQ(backoff.NextCeiling(), absl::Milliseconds(100));
}

}  // namespace
}  // namespace profdiff::agent
