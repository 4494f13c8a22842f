#include "aggregator/clickhouse/profile_cache.h"

#include <gtest/gtest.h>

namespace profdiff::aggregator::clickhouse {
namespace {

// A profile told apart by its name, with `bytes` of printable noise (which
// compresses little).
v1::WorkerProfile Profile(const std::string& name, size_t bytes = 16) {
  v1::WorkerProfile profile;
  profile.mutable_worker()->set_worker_name(name);
  std::string noise;
  uint64_t state = std::hash<std::string>()(name) | 1;
  for (size_t i = 0; i < bytes; ++i) {
    state ^= state << 13, state ^= state >> 7, state ^= state << 17;
    noise.push_back(static_cast<char>('!' + state % 94));  // UTF-8
  }
  profile.mutable_worker()->set_hostname(noise);
  profile.add_steps();
  return profile;
}

// Keeps `profile` compressed, as the store does.
void Put(ProfileCache& cache, const std::string& run, const std::string& worker,
         std::vector<std::string> span_ids, const v1::WorkerProfile& profile) {
  absl::StatusOr<ProfileCache::Compressed> compressed =
      ProfileCache::Compress(profile);
  ASSERT_TRUE(compressed.ok()) << compressed.status();
  cache.Put(run, worker, std::move(span_ids), *std::move(compressed));
}

std::string NameOf(const std::optional<v1::WorkerProfile>& profile) {
  return profile.has_value() ? profile->worker().worker_name() : "(none)";
}

TEST(ProfileCacheTest, AnEntryServesOnlyTheSpansItCovers) {
  ProfileCache cache(1 << 20);
  const v1::WorkerProfile profile = Profile("w0", 5000);
  Put(cache, "run", "0.w", {"s1"}, profile);
  const std::optional<v1::WorkerProfile> found =
      cache.Find("run", "0.w", {"s1"});
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->SerializeAsString(), profile.SerializeAsString());
  EXPECT_TRUE(cache.Covers("run", "0.w", {"s1"}));
  EXPECT_EQ(cache.StepCount("run", "0.w", {"s1"}), 1);
  // A later span closed since: the entry is not that worker's profile.
  EXPECT_FALSE(cache.Find("run", "0.w", {"s1", "s2"}).has_value());
  EXPECT_FALSE(cache.Covers("run", "0.w", {"s1", "s2"}));
  EXPECT_FALSE(cache.StepCount("run", "0.w", {"s1", "s2"}).has_value());
  EXPECT_FALSE(cache.Find("run", "1.w", {"s1"}).has_value());
  EXPECT_FALSE(cache.Find("other", "0.w", {"s1"}).has_value());
}

TEST(ProfileCacheTest, KeepsProfilesCompressed) {
  ProfileCache cache(1 << 20);
  v1::WorkerProfile profile = Profile("w0");
  profile.mutable_worker()->set_hostname(std::string(100000, 'h'));
  Put(cache, "run", "0.w", {"s1"}, profile);
  EXPECT_LT(cache.bytes(), profile.ByteSizeLong() / 10);
  EXPECT_EQ(NameOf(cache.Find("run", "0.w", {"s1"})), "w0");
}

TEST(ProfileCacheTest, ALaterBuildReplacesTheWorkersEntry) {
  ProfileCache cache(1 << 20);
  Put(cache, "run", "0.w", {"s1"}, Profile("first"));
  Put(cache, "run", "0.w", {"s1", "s2"}, Profile("both"));
  EXPECT_FALSE(cache.Find("run", "0.w", {"s1"}).has_value());
  EXPECT_EQ(NameOf(cache.Find("run", "0.w", {"s1", "s2"})), "both");
  EXPECT_EQ(cache.entries(), 1u);
}

TEST(ProfileCacheTest, TheLeastRecentlyUsedGoFirstPastTheBound) {
  ProfileCache one_entry(1 << 20);
  Put(one_entry, "run", "x", {"s"}, Profile("x", 1000));
  const size_t one = one_entry.bytes();
  ProfileCache cache(3 * one + one / 2);
  Put(cache, "run", "0", {"s"}, Profile("0", 1000));
  Put(cache, "run", "1", {"s"}, Profile("1", 1000));
  Put(cache, "run", "2", {"s"}, Profile("2", 1000));
  ASSERT_TRUE(cache.Covers("run", "0", {"s"}));  // 0 used last now
  Put(cache, "run", "3", {"s"}, Profile("3", 1000));
  EXPECT_EQ(NameOf(cache.Find("run", "0", {"s"})), "0");
  EXPECT_FALSE(cache.Covers("run", "1", {"s"}));
  EXPECT_TRUE(cache.Covers("run", "2", {"s"}));
  EXPECT_TRUE(cache.Covers("run", "3", {"s"}));
  EXPECT_LE(cache.bytes(), 3 * one + one / 2);
  EXPECT_EQ(cache.entries(), 3u);
}

TEST(ProfileCacheTest, AProfileLargerThanTheBoundIsNotKept) {
  ProfileCache cache(500);
  Put(cache, "run", "0", {"s"}, Profile("small", 10));
  ASSERT_TRUE(cache.Covers("run", "0", {"s"}));
  Put(cache, "run", "0", {"s"}, Profile("large", 1000));
  EXPECT_FALSE(cache.Covers("run", "0", {"s"}));  // nor the older one
  EXPECT_EQ(cache.entries(), 0u);
  EXPECT_EQ(cache.bytes(), 0u);
}

}  // namespace
}  // namespace profdiff::aggregator::clickhouse
