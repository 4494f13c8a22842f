// The ClickHouse store's profiles: built in the background when spans close and
// stored as rows.
#include <algorithm>
#include <map>
#include <tuple>
#include <utility>

#include "aggregator/clickhouse/clickhouse_store.h"
#include "aggregator/clickhouse/internal/store_parts.h"
#include "aggregator/clickhouse/row_binary.h"
#include "aggregator/store/worker_selector.h"
#include "base/log.h"
#include "base/status_macros.h"
#include "base/str_cat.h"

namespace profdiff::aggregator {

using clickhouse::RowBinaryReader;
using clickhouse::RowBinaryWriter;

using namespace clickhouse_parts;  // NOLINT(google-build-using-namespace): this
                                   // store's own parts

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
    // Every profile built in a pass goes in one insert per table and home
    // shard: a part per table per closed span would cost the servers more than
    // the rows do.
    std::map<size_t, ProfileRows> by_shard;
    for (const auto& [key, shard] : pass) {
      {
        absl::MutexLock lock(&mu_);
        if (stopping_)
          return;  // the rest is dropped: reads build what is missing
      }
      ProfileRows& rows = by_shard[shard];
      const absl::Status built =
          StoreWorkerProfile(key.first, key.second, shard, &rows);
      if (!built.ok()) {
        // The span is closed all the same; the first read of the profile builds
        // it.
        PD_LOG(WARNING, "profile of %s/%s not built now: %s", key.first,
               key.second, built.ToString());
      }
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

int ClickHouseStore::ProfileBuildsPending(const std::string& run) const {
  absl::MutexLock lock(&mu_);
  auto it = pending_builds_.find(run);
  return it == pending_builds_.end() ? 0 : it->second;
}

void ClickHouseStore::AppendProfileRows(
    const std::string& run, const std::string& worker, uint64_t generation,
    const v1::WorkerProfile& profile, const std::vector<std::string>& span_ids,
    ProfileRows& out) {
  ++out.count;
  RowBinaryWriter writer(out.profiles);
  writer.String(run);
  writer.String(worker);
  writer.Number<uint64_t>(generation);
  writer.StringArray(span_ids);
  writer.Number<int32_t>(profile.steps_size());
  writer.String(profile.SerializeAsString());
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

absl::Status ClickHouseStore::StoreWorkerProfile(const std::string& run,
                                                 const std::string& worker,
                                                 size_t shard,
                                                 ProfileRows* batch) const {
  // Taken before reading the spans: of two builds racing, the one that saw more
  // spans started later and so wins (the local store numbers its builds the
  // same way).
  const uint64_t generation = NewGeneration();
  PD_ASSIGN_OR_RETURN(const RunRows rows,
                      ReadRuns({run}, worker));  // this worker's rows only
  std::vector<SpanRow> closed;
  std::vector<std::string> ids;
  for (const SpanRow& span : rows.spans) {
    if (span.closed()) {
      closed.push_back(span);
      ids.push_back(span.span);
    }
  }
  if (closed.empty()) return absl::OkStatus();
  // A read may have built it since this build was queued.
  if (auto stored = rows.profiles.find({run, worker});
      stored != rows.profiles.end() && stored->second.spans == ids) {
    return absl::OkStatus();
  }
  PD_ASSIGN_OR_RETURN(const std::vector<StoredSpan> spans,
                      ReadSpans(run, closed));
  PD_ASSIGN_OR_RETURN(const v1::WorkerProfile profile,
                      BuildProfile(run, spans, options_.batch_limits,
                                   analysis::ProfileOptions{}));
  if (batch == nullptr)
    return InsertProfile(run, worker, shard, generation, profile, ids);
  AppendProfileRows(run, worker, generation, profile, ids, *batch);
  return absl::OkStatus();
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
      if (span->closed()) entry.closed.push_back(*span);
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
