#include "aggregator/run_digests.h"

#include <algorithm>
#include <utility>

#include "base/log.h"
#include "base/status_macros.h"
#include "base/str_cat.h"

namespace profdiff::aggregator {
namespace {

// How often a run whose profiles are still being built is looked at again.
constexpr absl::Duration kBuildsPoll = absl::Milliseconds(50);
// How long closing spans are left to settle before their runs are looked at.
constexpr absl::Duration kSettle = absl::Milliseconds(200);
// How long a look that found a run incomplete stands, however few of its spans
// closed here since: spans close on other replicas too.
constexpr absl::Duration kLookAgain = absl::Seconds(3);
// Runs whose last look is remembered, at most.
constexpr size_t kMaxLooked = 4096;
// How long a digest asked of a COMPLETE run waits for its profiles still being
// built, at most (design note 5); past it the digest builds what is missing.
constexpr absl::Duration kAwaitBuildsAtMost = absl::Seconds(30);

}  // namespace

RunDigests::RunDigests(const Store* store, size_t max_bytes)
    : store_(store),
      max_bytes_(max_bytes),
      thread_([this](const std::stop_token& stop) { PrepareLoop(stop); }) {}

RunDigests::~RunDigests() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  thread_.request_stop();
  thread_.join();
}

std::string RunDigests::KeyOf(const v1::GetRunDigestRequest& request) {
  // UNSPECIFIED is NAME (the stored profiles' grouping): one entry for both.
  const auto grouping = [](v1::Grouping g) {
    return g == v1::GROUPING_UNSPECIFIED ? v1::GROUPING_NAME : g;
  };
  std::string key =
      base::StrCat(request.run(), "|", grouping(request.operator_grouping()),
                   "|", grouping(request.kernel_grouping()), "|");
  for (const int32_t rank : request.ranks()) base::StrAppend(&key, rank, ",");
  return key;
}

absl::StatusOr<std::shared_ptr<const v1::RunDigest>> RunDigests::Get(
    const v1::GetRunDigestRequest& request) {
  return GetOrBuild(request, /*prepared=*/false);
}

absl::StatusOr<std::shared_ptr<const v1::RunDigest>> RunDigests::GetOrBuild(
    const v1::GetRunDigestRequest& request, bool prepared) {
  PD_ASSIGN_OR_RETURN(const v1::StoredRun run,
                      store_->GetRun(request.run(), RunDetail::kSummary));
  if (run.state() == v1::RUN_STATE_COMPLETE) AwaitProfileBuilds(request.run());
  const Version version{.updated_unix_ms = run.updated_unix_ms(),
                        .event_count = run.event_count(),
                        .closed_workers = run.closed_worker_count()};
  const std::string key = KeyOf(request);
  {
    absl::MutexLock lock(&mu_);
    const auto free = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      return !building_.contains(key);
    };
    mu_.Await(absl::Condition(&free));  // design note 2
    if (auto it = index_.find(key);
        it != index_.end() && it->second->version == version) {
      lru_.splice(lru_.begin(), lru_, it->second);
      ++stats_.hits;
      return it->second->digest;
    }
    building_.insert(key);
  }
  // Kept in the store by another replica, or before a restart (design note 4);
  // else made here and kept there.
  const std::string version_text =
      base::StrCat(version.updated_unix_ms, "/", version.event_count, "/",
                   version.closed_workers);
  bool loaded = false;
  absl::StatusOr<v1::RunDigest> built = absl::UnknownError("not made");
  absl::StatusOr<std::optional<v1::RunDigest>> kept =
      store_->LoadDigest(request.run(), key, version_text);
  if (kept.ok() && kept->has_value()) {
    built = **std::move(kept);
    loaded = true;
  } else {
    if (absl::IsDataLoss(kept.status())) {
      // Design note 4: never served; the one made below replaces it.
      PD_LOG(WARNING,
             "kept digest damaged, making it again run=%s version=%s: %s",
             request.run(), version_text, kept.status().message());
      absl::MutexLock lock(&mu_);
      ++stats_.damaged;
    } else if (!kept.ok()) {
      PD_LOG(WARNING, "kept digest of %s not read (making it): %s",
             request.run(), kept.status().ToString());
    }
    built = store_->GetRunDigest(request);
    if (built.ok()) {
      if (absl::Status saved =
              store_->SaveDigest(request.run(), key, version_text, *built);
          !saved.ok()) {
        PD_LOG(WARNING, "digest of %s not kept in the store: %s", request.run(),
               saved.ToString());
      }
    }
  }
  absl::MutexLock lock(&mu_);
  building_.erase(key);
  if (!built.ok()) return built.status();
  auto digest = std::make_shared<const v1::RunDigest>(*std::move(built));
  ++(loaded ? stats_.loaded : stats_.builds);
  if (prepared) ++stats_.prepared;
  Insert(key, version, digest);
  return digest;
}

void RunDigests::Insert(const std::string& key, const Version& version,
                        std::shared_ptr<const v1::RunDigest> digest) {
  if (auto it = index_.find(key); it != index_.end()) {
    bytes_ -= it->second->bytes;
    lru_.erase(it->second);
    index_.erase(it);
  }
  const size_t bytes = digest->ByteSizeLong();
  if (bytes > max_bytes_) return;
  lru_.push_front({key, version, std::move(digest), bytes});
  index_[key] = lru_.begin();
  bytes_ += bytes;
  while (bytes_ > max_bytes_) {
    bytes_ -= lru_.back().bytes;
    index_.erase(lru_.back().key);
    lru_.pop_back();
  }
}

void RunDigests::Prepare(const std::string& run) {
  absl::MutexLock lock(&mu_);
  queued_.insert(run);
  if (auto it = looked_.find(run); it != looked_.end())
    ++it->second.closes_since;
}

void RunDigests::AwaitProfileBuilds(const std::string& run) {
  const absl::Time give_up = absl::Now() + kAwaitBuildsAtMost;
  while (store_->ProfileBuildsPending(run) > 0 && absl::Now() < give_up) {
    absl::MutexLock lock(&mu_);
    if (stopping_) return;
    PauseUnlessStopping(kBuildsPoll);
  }
}

void RunDigests::PauseUnlessStopping(absl::Duration timeout) {
  const auto stopping = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return stopping_;
  };
  mu_.AwaitWithTimeout(absl::Condition(&stopping), timeout);
}

void RunDigests::PrepareLoop(const std::stop_token& stop) {
  while (!stop.stop_requested()) {
    std::string run;
    {
      absl::MutexLock lock(&mu_);
      const auto ready = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
        return stopping_ || !queued_.empty();
      };
      mu_.Await(absl::Condition(&ready));
      // Spans of a run close in bursts: let them settle, so a run of a
      // thousand ranks is looked at a few times, not a thousand.
      PauseUnlessStopping(kSettle);
      if (stopping_) return;
      // The first run whose last look may be out of date (design note 3).
      const absl::Time now = absl::Now();
      auto next = std::find_if(
          queued_.begin(), queued_.end(),
          [&](const std::string& queued) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
            auto it = looked_.find(queued);
            return it == looked_.end() ||
                   it->second.closes_since >= it->second.missing ||
                   now - it->second.at >= kLookAgain;
          });
      if (next == queued_.end()) continue;  // looked again after a settle
      run = *next;
      queued_.erase(next);
      preparing_ = true;
    }
    if (store_->ProfileBuildsPending(run) > 0) {
      // The background builds first: a digest made now would build their
      // profiles again. Look again shortly (or at once when stopping).
      absl::MutexLock lock(&mu_);
      queued_.insert(run);
      preparing_ = false;
      PauseUnlessStopping(kBuildsPoll);
      continue;
    }
    absl::StatusOr<v1::StoredRun> stored =
        store_->GetRun(run, RunDetail::kSummary);
    {
      absl::MutexLock lock(&mu_);
      if (stored.ok() && stored->state() != v1::RUN_STATE_COMPLETE) {
        if (looked_.size() >= kMaxLooked) looked_.clear();
        looked_[run] = {
            .missing = std::max(
                stored->world_size() - stored->closed_worker_count(), 1),
            .closes_since = 0,
            .at = absl::Now()};
      } else {
        looked_.erase(run);
      }
    }
    if (stored.ok() && stored->state() == v1::RUN_STATE_COMPLETE) {
      v1::GetRunDigestRequest request;
      request.set_run(run);
      const absl::Time start = absl::Now();
      absl::StatusOr<std::shared_ptr<const v1::RunDigest>> digest =
          GetOrBuild(request, /*prepared=*/true);
      if (digest.ok()) {
        PD_LOG(INFO, "run digest ready run=%s ranks=%d bytes=%d in %s", run,
               (*digest)->ranks_size(), (*digest)->ByteSizeLong(),
               absl::FormatDuration(absl::Now() - start));
      } else {
        PD_LOG(WARNING, "run digest of %s not made now: %s", run,
               digest.status().ToString());
      }
    }
    absl::MutexLock lock(&mu_);
    preparing_ = false;
  }
}

bool RunDigests::AwaitPrepared(absl::Duration timeout) {
  absl::MutexLock lock(&mu_);
  const auto idle = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return queued_.empty() && !preparing_;
  };
  return mu_.AwaitWithTimeout(absl::Condition(&idle), timeout);
}

RunDigestsStats RunDigests::stats() const {
  absl::MutexLock lock(&mu_);
  RunDigestsStats out = stats_;
  out.entries = static_cast<int64_t>(lru_.size());
  out.bytes = static_cast<int64_t>(bytes_);
  return out;
}

}  // namespace profdiff::aggregator
