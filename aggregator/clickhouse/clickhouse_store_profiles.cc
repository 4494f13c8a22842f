// The ClickHouse store's profiles: built in the background when spans close and
// stored as rows.
#include <algorithm>
#include <map>
#include <tuple>
#include <utility>

#include "aggregator/clickhouse/clickhouse_store.h"
#include "aggregator/clickhouse/internal/store_parts.h"
#include "aggregator/clickhouse/row_binary.h"
#include "aggregator/store/batch_codec.h"
#include "aggregator/store/batch_cursor.h"
#include "aggregator/store/kept_digest.h"
#include "aggregator/store/upload_rules.h"
#include "aggregator/store/worker_selector.h"
#include "base/log.h"
#include "base/status_macros.h"
#include "base/str_cat.h"

namespace profdiff::aggregator {

using clickhouse::RowBinaryReader;
using clickhouse::RowBinaryWriter;

using namespace clickhouse_parts;  // NOLINT(google-build-using-namespace): this
                                   // store's own parts

namespace {

// Rows of profiles built from batches gathered into one insert per home shard,
// at most, and the longest a row waits for others.
constexpr int kFlushProfilesAt = 64;
constexpr absl::Duration kFlushProfilesAfter = absl::Seconds(1);
// Batches kept for close-time profile builds, over all streams, at most: past
// it a span's profile is built from the ledger.
constexpr int64_t kMaxKeptBatchBytes = int64_t{256} << 20;

}  // namespace

bool ClickHouseStore::ReserveKeptBatchBytes(size_t bytes) {
  const auto want = static_cast<int64_t>(bytes);
  if (kept_batch_bytes_.fetch_add(want) + want <= kMaxKeptBatchBytes)
    return true;
  kept_batch_bytes_.fetch_sub(want);
  return false;
}

void ClickHouseStore::ReleaseKeptBatchBytes(size_t bytes) {
  kept_batch_bytes_.fetch_sub(static_cast<int64_t>(bytes));
}

void ClickHouseStore::ScheduleBuildFromBatches(ClosedSpanBatches closed) {
  // Counted in pending_builds_ by CloseSpan already.
  builds_.Post([this, closed = std::move(closed)]() mutable {
    BuildFromBatches(std::move(closed));
  });
}

void ClickHouseStore::BuildEnded(const std::string& run) {
  absl::MutexLock lock(&mu_);
  auto it = pending_builds_.find(run);
  if (it != pending_builds_.end() && --it->second <= 0)
    pending_builds_.erase(it);
}

void ClickHouseStore::BuildFromBatches(ClosedSpanBatches closed) {
  const uint64_t generation = closed.generation;
  bool stopping = false;
  {
    absl::MutexLock lock(&mu_);
    stopping = stopping_;
  }
  absl::StatusOr<v1::WorkerProfile> profile =
      absl::CancelledError("the store is stopping");
  if (!stopping) {
    const std::vector<std::string>* batches = &closed.batches;
    const StoredSpan span{closed.span, closed.info, [batches]() {
                            return absl::StatusOr<std::unique_ptr<BatchCursor>>(
                                std::make_unique<BatchesInMemory>(batches));
                          }};
    profile = BuildProfile(closed.run, {span}, options_.batch_limits,
                           analysis::ProfileOptions{});
  }
  ReleaseKeptBatchBytes(closed.bytes);
  closed.batches = {};
  std::vector<std::string> span_ids = {closed.span};
  ProfileRows rows;
  if (profile.ok()) {
    AppendProfileRows(closed.run, closed.worker, generation, *profile, span_ids,
                      rows);
  } else if (!stopping) {
    // The span is closed all the same; the first read of the profile builds
    // it from the ledger.
    PD_LOG(WARNING, "profile of %s/%s not built now: %s", closed.run,
           closed.worker, profile.status().ToString());
  }
  {
    absl::MutexLock lock(&mu_);
    if (rows.count > 0) {
      ++built_from_batches_;
      ProfileRows& pending = profile_rows_[closed.home];
      pending.profiles += rows.profiles;
      pending.count += rows.count;
      pending.workers.emplace_back(closed.run, closed.worker);
      profile_rows_count_ += rows.count;
    }
  }
  BuildEnded(closed.run);
}

int64_t ClickHouseStore::profiles_built_from_batches() const {
  absl::MutexLock lock(&mu_);
  return built_from_batches_;
}

void ClickHouseStore::FlushProfileRowsLoop() {
  for (bool last = false; !last;) {
    std::map<size_t, ProfileRows> rows;
    {
      absl::MutexLock lock(&mu_);
      const auto due = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
        return stopping_ || profile_rows_count_ >= kFlushProfilesAt;
      };
      mu_.AwaitWithTimeout(absl::Condition(&due), kFlushProfilesAfter);
      rows.swap(profile_rows_);
      profile_rows_count_ = 0;
      last = stopping_;
    }
    for (const auto& [shard, shard_rows] : rows) {
      if (const absl::Status stored = InsertProfileRows(shard, shard_rows);
          !stored.ok()) {
        PD_LOG(WARNING,
               "%d profiles for shard %d not stored now (built again from the "
               "ledger): %s",
               shard_rows.count, shard, stored.ToString());
        // Only this replica's memory has them: the ledger builds store them
        // (or, the store stopping, the first read).
        if (!last) {
          for (const auto& [run, worker] : shard_rows.workers)
            ScheduleProfileBuild(run, worker, shard);
        }
      }
    }
  }
}

void ClickHouseStore::BuildQueuedProfiles() {
  // Profiles stored per insert, at most: a pass holds their rows until it
  // inserts them.
  constexpr size_t kProfilesPerPass = 64;
  for (;;) {
    std::vector<std::pair<std::pair<std::string, std::string>, size_t>> pass;
    {
      absl::MutexLock lock(&mu_);
      if (stopping_) {
        builds_queued_.clear();
        pending_builds_.clear();
      }
      while (!builds_queued_.empty() && pass.size() < kProfilesPerPass) {
        pass.emplace_back(builds_queued_.begin()->first,
                          builds_queued_.begin()->second);
        builds_queued_.erase(builds_queued_.begin());
      }
      if (pass.empty()) {
        builder_running_ = false;
        return;
      }
    }
    // Every profile built in a pass goes in one insert per home shard: a part
    // per closed span would cost the servers more than the rows do. The
    // pass's workers are read together, run by run.
    std::map<std::string, std::vector<std::pair<std::string, size_t>>> by_run;
    for (const auto& [key, shard] : pass)
      by_run[key.first].emplace_back(key.second, shard);
    std::map<size_t, ProfileRows> by_shard;
    for (const auto& [run, workers] : by_run) {
      {
        absl::MutexLock lock(&mu_);
        if (stopping_)
          return;  // the rest is dropped: reads build what is missing
      }
      BuildWorkerProfiles(run, workers, by_shard);
    }
    for (const auto& [shard, rows] : by_shard) {
      if (rows.count == 0) continue;
      if (const absl::Status stored = InsertProfileRows(shard, rows);
          !stored.ok()) {
        PD_LOG(WARNING,
               "%d profiles for shard %d not stored now (reads build them): %s",
               rows.count, shard, stored.ToString());
      }
    }
    absl::MutexLock lock(&mu_);
    for (const auto& [key, shard] : pass) {
      auto it = pending_builds_.find(key.first);
      if (it != pending_builds_.end() && --it->second <= 0)
        pending_builds_.erase(it);
    }
  }
}

absl::StatusOr<std::optional<v1::RunDigest>> ClickHouseStore::LoadDigest(
    const std::string& run, const std::string& key,
    const std::string& version) const {
  PD_ASSIGN_OR_RETURN(
      const std::string answer,
      Read(base::StrCat("SELECT argMax(digest, made_ms) FROM digests WHERE run "
                        "= ",
                        Quote(run), " AND digest_key = ", Quote(key),
                        " AND version = ", Quote(version),
                        " GROUP BY digest_key FORMAT RowBinary")));
  RowBinaryReader reader(answer);
  if (reader.done()) return std::nullopt;
  const std::string_view bytes = reader.String();
  PD_RETURN_IF_ERROR(reader.status("the digest read"));
  // Checked whole before use (aggregator/store/kept_digest.h): a cut, empty,
  // changed or copied row is DataLoss naming it, and is made again.
  return ReadKeptDigest(
      bytes, {run, key, version},
      base::StrCat("clickhouse digests row (run ", DisplayId(run), ", key ",
                   DisplayId(key), ", version ", DisplayId(version), ")"));
}

absl::Status ClickHouseStore::SaveDigest(const std::string& run,
                                         const std::string& key,
                                         const std::string& version,
                                         const v1::RunDigest& digest) const {
  PD_ASSIGN_OR_RETURN(const size_t home, HomeShard(run, key));
  // The row made now must outrank any kept for this version (argMax by
  // made_ms), a damaged one it replaces included, whatever the clocks of the
  // replicas that made them said. A shard that is down is skipped: a row
  // there cannot be read either.
  PD_ASSIGN_OR_RETURN(
      const std::string newest,
      Read(base::StrCat("SELECT max(made_ms) FROM digests WHERE run = ",
                        Quote(run), " AND digest_key = ", Quote(key),
                        " AND version = ", Quote(version), " FORMAT RowBinary"),
           /*skip_unreachable=*/true));
  RowBinaryReader newest_reader(newest);
  const int64_t newest_ms =
      newest_reader.done() ? 0 : newest_reader.Number<int64_t>();
  PD_RETURN_IF_ERROR(newest_reader.status("the digests' newest time"));
  std::string rows;
  RowBinaryWriter writer(rows);
  writer.String(run);
  writer.String(key);
  writer.String(version);
  writer.Number<int64_t>(
      std::max(absl::ToUnixMillis(absl::Now()), newest_ms + 1));
  writer.String(FrameKeptDigest({run, key, version}, digest));
  return InsertFailingOver(home, "digests", rows).status();
}

int ClickHouseStore::ProfileBuildsPending(const std::string& run) const {
  absl::MutexLock lock(&mu_);
  auto it = pending_builds_.find(run);
  return it == pending_builds_.end() ? 0 : it->second;
}

void ClickHouseStore::AppendProfileRows(
    const std::string& run, const std::string& worker, uint64_t generation,
    const v1::WorkerProfile& profile, const std::vector<std::string>& span_ids,
    ProfileRows& out) const {
  ++out.count;
  const size_t start = out.profiles.size();
  RowBinaryWriter writer(out.profiles);
  writer.String(run);
  writer.String(worker);
  writer.Number<uint64_t>(generation);
  writer.StringArray(span_ids);
  writer.Number<int32_t>(profile.steps_size());
  absl::StatusOr<clickhouse::ProfileCache::Compressed> compressed =
      clickhouse::ProfileCache::Compress(profile);
  if (!compressed.ok()) {
    // Not stored then: the profile is only a cache of the ledger.
    PD_LOG(WARNING, "profile of %s/%s not stored: %s", run, worker,
           compressed.status().ToString());
    out.profiles.resize(start);
    --out.count;
    return;
  }
  writer.Number<uint64_t>(compressed->raw_bytes);
  writer.String(*compressed->zstd);
  profile_cache_.Put(run, worker, span_ids, *std::move(compressed));
}

absl::Status ClickHouseStore::InsertProfileRows(size_t shard,
                                                const ProfileRows& rows) const {
  if (rows.profiles.empty()) return absl::OkStatus();
  return InsertFailingOver(shard, "profiles", rows.profiles).status();
}

absl::Status ClickHouseStore::InsertProfile(
    const std::string& run, const std::string& worker, size_t shard,
    uint64_t generation, const v1::WorkerProfile& profile,
    const std::vector<std::string>& span_ids) const {
  ProfileRows rows;
  AppendProfileRows(run, worker, generation, profile, span_ids, rows);
  return InsertProfileRows(shard, rows);
}

void ClickHouseStore::BuildWorkerProfiles(
    const std::string& run,
    const std::vector<std::pair<std::string, size_t>>& workers,
    std::map<size_t, ProfileRows>& by_shard) const {
  // Stored batch bytes read back at once, at most (one worker's may be more).
  constexpr int64_t kMaxBatchBytesPerRead = int64_t{64} << 20;
  // Taken before reading the spans: of two builds racing, the one that saw
  // more spans started later and so wins (the local store numbers its builds
  // the same way).
  const uint64_t generation = NewGeneration();
  std::vector<std::string> names;
  names.reserve(workers.size());
  for (const auto& [worker, shard] : workers) names.push_back(worker);
  absl::StatusOr<RunRows> read = ReadRuns({run}, names);
  if (!read.ok()) {
    PD_LOG(WARNING, "profiles of %d workers of %s not built now: %s",
           workers.size(), run, read.status().ToString());
    return;
  }
  const RunRows& rows = *read;
  struct Build {
    std::string worker;
    size_t shard;
    std::vector<SpanRow> closed;
    std::vector<std::string> ids;
  };
  std::vector<Build> builds;
  const std::map<std::string, size_t> shard_of(workers.begin(), workers.end());
  for (const WorkerRows& worker : WorkersOf(rows, run)) {
    Build build{worker.worker, shard_of.at(worker.worker), {}, {}};
    for (const SpanRow* span : worker.spans) {
      if (!worker.Counts(*span)) continue;
      build.closed.push_back(*span);
      build.ids.push_back(span->span);
    }
    if (build.closed.empty()) continue;
    // A read may have built it since this build was queued.
    if (auto stored = rows.profiles.find({run, worker.worker});
        stored != rows.profiles.end() && stored->second.spans == build.ids) {
      continue;
    }
    builds.push_back(std::move(build));
  }
  const auto bytes_of = [&](const Build& build) {
    int64_t bytes = 0;
    for (const SpanRow& span : build.closed) {
      auto totals = rows.chunks.find({run, build.worker, span.span});
      if (totals != rows.chunks.end()) bytes += totals->second.bytes;
    }
    return bytes;
  };
  for (size_t first = 0; first < builds.size();) {
    // Workers whose batches, read back together, stay under the bound.
    size_t end = first;
    int64_t bytes = 0;
    std::vector<SpanRow> spans;
    while (end < builds.size() &&
           (end == first ||
            bytes + bytes_of(builds[end]) <= kMaxBatchBytesPerRead)) {
      bytes += bytes_of(builds[end]);
      spans.insert(spans.end(), builds[end].closed.begin(),
                   builds[end].closed.end());
      ++end;
    }
    absl::StatusOr<std::vector<StoredSpan>> stored = ReadSpans(run, spans);
    if (!stored.ok()) {
      PD_LOG(WARNING, "profiles of %d workers of %s not built now: %s",
             end - first, run, stored.status().ToString());
      first = end;
      continue;
    }
    size_t at = 0;  // ReadSpans keeps the order: each worker's spans in turn
    for (size_t b = first; b < end; ++b) {
      const Build& build = builds[b];
      const std::vector<StoredSpan> mine(
          std::make_move_iterator(stored->begin() + static_cast<ptrdiff_t>(at)),
          std::make_move_iterator(
              stored->begin() +
              static_cast<ptrdiff_t>(at + build.closed.size())));
      at += build.closed.size();
      absl::StatusOr<v1::WorkerProfile> profile = BuildProfile(
          run, mine, options_.batch_limits, analysis::ProfileOptions{});
      if (!profile.ok()) {
        // The span is closed all the same; the first read of the profile
        // builds it.
        PD_LOG(WARNING, "profile of %s/%s not built now: %s", run, build.worker,
               profile.status().ToString());
        continue;
      }
      AppendProfileRows(run, build.worker, generation, *profile, build.ids,
                        by_shard[build.shard]);
    }
    first = end;
  }
}

absl::StatusOr<std::vector<ClickHouseStore::Wanted>>
ClickHouseStore::SelectWorkers(const std::string& run,
                               const v1::WorkerSelector& selector) const {
  PD_ASSIGN_OR_RETURN(const RunRows rows, ReadRuns({run}));
  if (rows.spans.empty())
    return absl::NotFoundError(base::StrCat("run ", run, ": no such run"));
  std::vector<Wanted> wanted;
  size_t matched = 0;
  for (const WorkerRows& worker : WorkersOf(rows, run)) {
    if (!Selected(selector, worker.info())) continue;
    ++matched;
    if (worker.closed_ids.empty()) continue;
    Wanted entry{worker.info().rank(),
                 worker.info().worker_name(),
                 worker.worker,
                 {},
                 worker.closed_ids};
    for (const SpanRow* span : worker.spans) {
      if (worker.Counts(*span)) entry.closed.push_back(*span);
    }
    auto profile = rows.profiles.find({run, worker.worker});
    entry.stored = profile != rows.profiles.end() &&
                   profile->second.spans == worker.closed_ids;
    wanted.push_back(std::move(entry));
  }
  if (matched == 0) {
    return absl::NotFoundError(base::StrCat("run ", run, ": no worker matches ",
                                            DescribeSelector(selector)));
  }
  if (wanted.empty()) {
    return absl::FailedPreconditionError(base::StrCat(
        "run ", run, ": no selected worker has a closed span yet"));
  }
  std::sort(wanted.begin(), wanted.end(), [](const Wanted& a, const Wanted& b) {
    return std::tie(a.rank, a.name) < std::tie(b.rank, b.name);
  });
  return wanted;
}

}  // namespace profdiff::aggregator
