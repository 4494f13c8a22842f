// The local store's recovery at open (design note 3 of local_store.h): every
// run, worker and span folder read back into the run index, damage repaired or
// set aside, and profiles that no longer match rebuilt. It runs in Open before
// the store is shared: each run is built unlocked and published under mu_.
#include <algorithm>
#include <memory>
#include <optional>
#include <utility>

#include "aggregator/local/internal/store_parts.h"
#include "aggregator/local/local_store.h"
#include "aggregator/local/segment_log.h"
#include "aggregator/local/store_layout.h"
#include "aggregator/store/stored_spans.h"
#include "base/id_rules.h"
#include "base/status_macros.h"
#include "base/str_cat.h"
#include "profdiff/v1/store.pb.h"

namespace profdiff::aggregator {

using namespace local_parts;  // NOLINT(google-build-using-namespace): this
                              // store's own parts

absl::Status LocalStore::Recover() {
  const std::string runs_dir = RunsDir(options_.data_dir);
  if (const int removed = RemoveTempFiles(env_, runs_dir); removed > 0) {
    recovery_notes_.push_back(base::StrCat(
        runs_dir, ": removed ", removed, " temp files of interrupted writes"));
  }
  for (const std::string& run : SubFolders(env_, runs_dir)) {
    if (absl::Status status = base::ValidateId("run folder", run);
        !status.ok()) {
      recovery_notes_.push_back(
          base::StrCat(runs_dir, ": skipped: ", status.message()));
      continue;
    }
    if (absl::Status status = RecoverRun(RunDir(options_.data_dir, run), run);
        !status.ok()) {
      recovery_notes_.push_back(
          base::StrCat("run ", run, ": not served: ", status.message()));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::optional<LocalStore::SpanEntry>> LocalStore::RecoverSpan(
    const std::string& span_dir, const std::string& span_id,
    const std::string& worker_key) {
  SpanEntry span;
  span.dir = span_dir;
  if (absl::Status status =
          ReadProto(env_, SpanManifestPath(span.dir), span.manifest);
      !status.ok()) {
    // A folder made just before a crash, with no manifest and no segment:
    // nothing acknowledged.
    if (ListSegments(env_, span.dir).empty()) {
      recovery_notes_.push_back(
          base::StrCat(span.dir, ": skipped: ", status.message()));
      return std::nullopt;
    }
    // Its chunks cannot be tied to a header: keep them aside, and have the span
    // sent again.
    PD_ASSIGN_OR_RETURN(const uint64_t bytes,
                        QuarantineSegments(env_, span.dir));
    span.manifest.Clear();
    span.manifest.mutable_header()->set_span(span_id);
    *span.manifest.mutable_header()->mutable_worker() =
        WorkerOfFolder(worker_key);
    span.manifest.set_state(v1::SPAN_STATE_OPEN);
    span.manifest_lost = true;
    span.problem = base::StrCat(
        "span.pb is damaged (", status.message(), "); its segments (", bytes,
        " bytes) were moved to quarantine/; not served until its agent "
        "sends it again");
    recovery_notes_.push_back(
        base::StrCat(span.dir, ": INCOMPLETE: ", span.problem));
    return span;
  }
  PD_ASSIGN_OR_RETURN(span.scan, ScanAndRepairSpanSegments(env_, span.dir));
  span.durable_sequence = span.scan.last_sequence;
  span.event_count = span.scan.event_count;
  span.stored_bytes = span.scan.stored_bytes;
  if (!span.scan.problem.empty())
    recovery_notes_.push_back(base::StrCat(span.dir, ": ", span.scan.problem));
  const v1::SpanManifest& m = span.manifest;
  if (m.state() == v1::SPAN_STATE_CLOSED &&
      (static_cast<uint64_t>(span.durable_sequence + 1) != m.chunk_count() ||
       span.event_count != m.event_count())) {
    span.problem = base::StrCat(
        "closed with ", m.chunk_count(), " chunks and ", m.event_count(),
        " events, but only ", span.durable_sequence + 1, " chunks and ",
        span.event_count, " events are intact (",
        span.scan.problem.empty() ? "segments missing" : span.scan.problem,
        "); not served until its agent sends it again");
    recovery_notes_.push_back(
        base::StrCat(span.dir, ": INCOMPLETE: ", span.problem));
  }
  return span;
}

absl::Status LocalStore::RecoverRun(const std::string& run_dir,
                                    const std::string& run_id) {
  auto run = std::make_unique<RunEntry>();
  run->dir = run_dir;
  if (absl::Status status =
          ReadProto(env_, RunManifestPath(run_dir), run->manifest);
      !status.ok()) {
    // It holds only the id and the creation time: write it again rather than
    // lose the run.
    run->manifest.Clear();
    run->manifest.set_run(run_id);
    run->manifest.set_created_unix_ms(UnixMillis(env_.Now()));
    PD_RETURN_IF_ERROR(
        WriteProto(env_, RunManifestPath(run_dir), run->manifest));
    recovery_notes_.push_back(base::StrCat(
        RunManifestPath(run_dir), ": rewritten (", status.message(), ")"));
  }
  // An agent gets the whole idle timeout again after a restart before its run
  // turns PARTIAL.
  run->last_activity = env_.Now();
  run->updated_unix_ms = run->manifest.created_unix_ms();
  for (const std::string& worker_key : SubFolders(env_, WorkersDir(run_dir))) {
    WorkerEntry worker;
    worker.dir = WorkerDir(run_dir, worker_key);
    for (const std::string& span_id : SubFolders(env_, SpansDir(worker.dir))) {
      PD_ASSIGN_OR_RETURN(
          std::optional<SpanEntry> span,
          RecoverSpan(SpanDir(worker.dir, span_id), span_id, worker_key));
      if (!span.has_value()) continue;
      run->updated_unix_ms =
          std::max({run->updated_unix_ms, span->manifest.opened_unix_ms(),
                    span->manifest.closed_unix_ms()});
      if (!span->manifest_lost || worker.info.worker_name().empty())
        worker.info = span->manifest.header().worker();
      run->world_size.Note(span->manifest.header().worker());
      worker.spans.emplace(span_id, *std::move(span));
    }
    if (worker.spans.empty()) continue;
    // Keep the newest profile that covers exactly the closed spans; rebuild
    // otherwise.
    const std::vector<StoredSpan> closed = ClosedSpansOf(env_, worker);
    std::vector<std::string> closed_ids;
    closed_ids.reserve(closed.size());
    for (const StoredSpan& span : closed) closed_ids.push_back(span.id);
    const std::vector<uint64_t> generations =
        ProfileGenerations(env_, worker.dir);
    if (!generations.empty()) worker.next_generation = generations.back() + 1;
    for (auto it = generations.rbegin();
         it != generations.rend() && worker.profile_generation == 0; ++it) {
      v1::StoredWorkerProfile stored;
      if (!ReadProto(env_, ProfilePath(worker.dir, *it), stored,
                     kMaxProfileFileBytes)
               .ok())
        continue;
      if (std::vector<std::string>(stored.spans().begin(),
                                   stored.spans().end()) != closed_ids)
        break;
      worker.profile_generation = *it;
      worker.profile_spans = closed_ids;
      worker.step_count = stored.profile().steps_size();
    }
    for (uint64_t generation : generations) {
      // One that stays is removed at the next open.
      if (generation != worker.profile_generation)
        env_.RemoveFile(ProfilePath(worker.dir, generation)).IgnoreError();
    }
    const WorkerEntry* entry =
        &run->workers.emplace(worker_key, std::move(worker)).first->second;
    if (!closed.empty() && entry->profile_generation == 0) {
      if (absl::StatusOr<std::optional<v1::WorkerProfile>> built =
              StoreWorkerProfile(run_id, entry);
          !built.ok()) {
        recovery_notes_.push_back(base::StrCat(
            entry->dir, ": profile not rebuilt: ", built.status().message()));
      }
    }
  }
  absl::MutexLock lock(&mu_);
  runs_[run_id] = std::move(run);
  return absl::OkStatus();
}

}  // namespace profdiff::aggregator
