// The local store: opening it, the write path (spans, chunks, leases, the
// profiles built when spans close) and the reads. They all work on one run
// index (runs_) under one mutex, mu_; one file keeps that lock's invariants in
// one place. Recovery at open (local_store_recovery.cc) runs before the store
// is shared and only publishes each run under mu_. Entries are
// internal/store_parts.h's, file names store_layout.h's, segments
// segment_log.cc's, read-back aggregator/store/stored_spans.cc's.
#include "aggregator/local/local_store.h"

#include <algorithm>
#include <optional>
#include <tuple>
#include <utility>

#include "aggregator/local/internal/store_parts.h"
#include "aggregator/local/segment_log.h"
#include "aggregator/local/store_layout.h"
#include "aggregator/store/kept_digest.h"
#include "aggregator/store/read_requests.h"
#include "aggregator/store/rewritten_spans.h"
#include "aggregator/store/run_state.h"
#include "aggregator/store/stored_spans.h"
#include "aggregator/store/upload_rules.h"
#include "aggregator/store/worker_selector.h"
#include "analysis/worker_profile.h"
#include "base/atomic_file.h"
#include "base/env.h"
#include "base/status_annotate.h"
#include "base/status_macros.h"
#include "base/str_cat.h"
#include "profdiff/v1/store.pb.h"
#include "trace/worker_info.h"

namespace profdiff::aggregator {

using namespace local_parts;  // NOLINT(google-build-using-namespace): this
                              // store's own parts

LocalStore::SpanLease::SpanLease(Passkey, LocalStore* store, std::string run,
                                 WorkerEntry* worker, SpanEntry* span)
    : store_(store), run_(std::move(run)), worker_(worker), span_(span) {}

LocalStore::SpanLease::~SpanLease() { store_->ReleaseLease(span_); }

namespace {

constexpr int kMaxDamagedSpansListed = 1000;

}  // namespace

namespace local_parts {

StoredSpan SegmentSpan(base::Env& env, const std::string& id,
                       const LocalStore::SpanEntry& span) {
  return {id, span.manifest.header().worker(),
          [env = &env,
           dir = span.dir]() -> absl::StatusOr<std::unique_ptr<BatchCursor>> {
            return OpenSpanSegments(*env, dir);
          }};
}

std::vector<ReplacedSpan> ReplacedSpansOf(
    const LocalStore::WorkerEntry& worker) {
  std::vector<ClosedSpanVersion> closed;
  for (const auto& [id, span] : worker.spans) {
    if (span.closed()) {
      closed.push_back({id, &span.manifest.header(),
                        span.manifest.opened_unix_ms(),
                        span.manifest.closed_unix_ms()});
    }
  }
  return FindReplacedSpans(closed);
}

std::vector<StoredSpan> ClosedSpansOf(base::Env& env,
                                      const LocalStore::WorkerEntry& worker) {
  const std::vector<ReplacedSpan> replaced = ReplacedSpansOf(worker);
  std::vector<StoredSpan> spans;
  for (const auto& [id, span] : worker.spans) {
    if (span.closed() && !IsReplaced(replaced, id))
      spans.push_back(SegmentSpan(env, id, span));
  }
  return spans;
}

}  // namespace local_parts

LocalStore::LocalStore(Passkey, StoreOptions options,
                       std::unique_ptr<base::FileLockHandle> lock)
    : options_(std::move(options)),
      env_(*options_.env),
      lock_(std::move(lock)) {}
LocalStore::~LocalStore() = default;

absl::StatusOr<std::unique_ptr<LocalStore>> LocalStore::Open(
    StoreOptions options) {
  if (options.data_dir.empty())
    return absl::InvalidArgumentError("--data-dir is empty");
  if (options.env == nullptr) return absl::InvalidArgumentError("no Env given");
  base::Env& env = *options.env;
  PD_RETURN_IF_ERROR(
      base::CreateDirectoriesDurably(env, RunsDir(options.data_dir)));
  // Two aggregators on one folder would both append and cut each other's
  // segments.
  absl::StatusOr<std::unique_ptr<base::FileLockHandle>> lock =
      env.LockFile(LockPath(options.data_dir));
  if (!lock.ok()) {
    return base::Annotate(
        lock.status(),
        base::StrCat("--data-dir ", options.data_dir,
                     " is in use by another profdiff-aggregator"));
  }
  auto store = std::make_unique<LocalStore>(Passkey{}, std::move(options),
                                            *std::move(lock));
  PD_RETURN_IF_ERROR(store->Recover());
  return store;
}

absl::StatusOr<LocalStore::OpenedSpan> LocalStore::OpenSpan(
    const v1::UploadHeader& header) {
  const v1::WorkerInfo& info = header.worker();
  PD_RETURN_IF_ERROR(ValidateUploadHeader(header));
  const std::string worker_key = WorkerKey(info.rank(), info.worker_name());
  const absl::Time now = env_.Now();

  absl::MutexLock create_lock(&create_mu_);
  RunEntry* run = nullptr;
  {
    absl::MutexLock lock(&mu_);
    auto run_it = runs_.find(header.run());
    if (run_it != runs_.end()) {
      run = run_it->second.get();
      // Checked and noted under create_mu_, so two new spans cannot both set
      // the world size.
      PD_RETURN_IF_ERROR(run->world_size.Check(header.run(), info));
      run->last_activity = now;  // a late span reopens a PARTIAL run
      run->updated_unix_ms = UnixMillis(now);
      auto worker_it = run->workers.find(worker_key);
      if (worker_it != run->workers.end()) {
        WorkerEntry& worker = worker_it->second;
        auto span_it = worker.spans.find(header.span());
        if (span_it != worker.spans.end()) {
          SpanEntry& span = span_it->second;
          PD_RETURN_IF_ERROR(CheckSameContent(span.manifest.header(), header));
          if (span.closed())
            return OpenedSpan{nullptr, span.durable_sequence, true};
          if (span.leased) {
            return absl::AbortedError(
                base::StrCat("span ", header.span(), " of run ", header.run(),
                             " is being uploaded by another stream; retry when "
                             "it has ended"));
          }
          if (span.manifest_lost) {
            // The span starts over (its old segments are in quarantine/): a
            // manifest first.
            v1::SpanManifest manifest;
            *manifest.mutable_header() = header;
            manifest.set_state(v1::SPAN_STATE_OPEN);
            manifest.set_opened_unix_ms(UnixMillis(now));
            PD_RETURN_IF_ERROR(
                WriteProto(env_, SpanManifestPath(span.dir), manifest));
            span.manifest = std::move(manifest);
            span.manifest_lost = false;
          }
          span.leased = true;
          worker.info = info;
          run->world_size.Note(info);
          return OpenedSpan{std::make_unique<SpanLease>(
                                Passkey{}, this, header.run(), &worker, &span),
                            span.durable_sequence, false};
        }
      }
    }
  }
  // A new span (and maybe a new run and worker): make its folders and manifests
  // first, so whatever is in the index exists on disk.
  const std::string run_dir = RunDir(options_.data_dir, header.run());
  if (run == nullptr) {
    PD_RETURN_IF_ERROR(
        base::CreateDirectoriesDurably(env_, WorkersDir(run_dir)));
    auto entry = std::make_unique<RunEntry>();
    entry->dir = run_dir;
    entry->manifest.set_run(header.run());
    entry->manifest.set_created_unix_ms(UnixMillis(now));
    entry->last_activity = now;
    entry->updated_unix_ms = UnixMillis(now);
    PD_RETURN_IF_ERROR(
        WriteProto(env_, RunManifestPath(run_dir), entry->manifest));
    absl::MutexLock lock(&mu_);
    run = entry.get();
    runs_[header.run()] = std::move(entry);
  }
  const std::string worker_dir = WorkerDir(run_dir, worker_key);
  SpanEntry span;
  span.dir = SpanDir(worker_dir, header.span());
  PD_RETURN_IF_ERROR(base::CreateDirectoriesDurably(env_, span.dir));
  span.manifest.mutable_header()->CopyFrom(header);
  span.manifest.set_state(v1::SPAN_STATE_OPEN);
  span.manifest.set_opened_unix_ms(UnixMillis(now));
  PD_RETURN_IF_ERROR(
      WriteProto(env_, SpanManifestPath(span.dir), span.manifest));
  PD_ASSIGN_OR_RETURN(SegmentWriter writer,
                      SegmentWriter::Open(env_, span.dir, span.scan,
                                          options_.max_segment_bytes));
  span.writer.emplace(std::move(writer));
  span.leased = true;

  absl::MutexLock lock(&mu_);
  WorkerEntry& worker = run->workers[worker_key];
  worker.dir = worker_dir;
  worker.info = info;
  run->world_size.Note(info);
  SpanEntry& stored = worker.spans[header.span()] = std::move(span);
  return OpenedSpan{std::make_unique<SpanLease>(Passkey{}, this, header.run(),
                                                &worker, &stored),
                    -1, false};
}

void LocalStore::ReleaseLease(SpanEntry* span) {
  absl::MutexLock lock(&mu_);
  span->leased = false;
}

absl::StatusOr<int64_t> LocalStore::AppendChunk(Store::SpanLease& any_lease,
                                                const v1::TraceChunk& chunk) {
  SpanLease& lease =
      static_cast<SpanLease&>(any_lease);  // leases come from OpenSpan
  SpanEntry& span = *lease.span_;
  const int64_t sequence = static_cast<int64_t>(chunk.sequence());
  int64_t durable;
  uint64_t stored_bytes;
  {
    absl::MutexLock lock(&mu_);
    if (span.closed()) {
      return absl::FailedPreconditionError(
          base::StrCat("span ", span.manifest.header().span(),
                       " is closed; chunk ", sequence, " refused"));
    }
    durable = span.durable_sequence;
    stored_bytes = span.stored_bytes;
  }
  if (sequence <= durable) return durable;  // a duplicate: already durable
  if (sequence != durable + 1) {
    return absl::InvalidArgumentError(
        base::StrCat("chunk sequence ", sequence, " is out of order: expected ",
                     durable + 1));
  }
  PD_RETURN_IF_ERROR(CheckChunkSize(chunk));
  PD_RETURN_IF_ERROR(base::Annotate(
      trace::ValidateEventBatch(chunk.events(), options_.batch_limits),
      base::StrCat("chunk ", sequence)));
  chunk.events().SerializeToString(&lease.batch_bytes_);
  if (stored_bytes + lease.batch_bytes_.size() > options_.max_span_bytes) {
    return absl::ResourceExhaustedError(base::StrCat(
        "chunk ", sequence, ": span would exceed max_span_bytes (",
        options_.max_span_bytes, "); ", stored_bytes, " bytes stored"));
  }
  if (!span.writer.has_value()) {
    PD_ASSIGN_OR_RETURN(SegmentWriter writer,
                        SegmentWriter::Open(env_, span.dir, span.scan,
                                            options_.max_segment_bytes));
    span.writer.emplace(std::move(writer));
    span.scan =
        SpanScan{};  // what came after the prefix is cut; the writer follows it
  }
  const uint32_t events = static_cast<uint32_t>(chunk.events().kind_size());
  PD_ASSIGN_OR_RETURN(
      const uint64_t record_bytes,
      span.writer->Append(chunk.sequence(), events, lease.batch_bytes_));
  absl::MutexLock lock(&mu_);
  span.durable_sequence = sequence;
  span.event_count += events;
  span.stored_bytes += record_bytes;
  RunEntry& run = *runs_[lease.run_];
  run.last_activity = env_.Now();
  run.updated_unix_ms = UnixMillis(run.last_activity);
  return sequence;
}

absl::Status LocalStore::CloseSpan(Store::SpanLease& any_lease,
                                   const v1::SpanEnd& end) {
  SpanLease& lease = static_cast<SpanLease&>(any_lease);
  SpanEntry& span = *lease.span_;
  v1::SpanManifest manifest;
  {
    absl::MutexLock lock(&mu_);
    if (span.closed()) return absl::OkStatus();
    const uint64_t chunks = static_cast<uint64_t>(span.durable_sequence + 1);
    if (end.chunk_count() != chunks || end.event_count() != span.event_count) {
      return absl::InvalidArgumentError(
          base::StrCat("span end says ", end.chunk_count(), " chunks and ",
                       end.event_count(), " events, but ", chunks,
                       " chunks and ", span.event_count, " events are stored"));
    }
    manifest = span.manifest;
  }
  manifest.set_state(v1::SPAN_STATE_CLOSED);
  manifest.set_chunk_count(end.chunk_count());
  manifest.set_event_count(end.event_count());
  const absl::Time closed_at = env_.Now();
  manifest.set_closed_unix_ms(UnixMillis(closed_at));
  {
    absl::MutexLock create_lock(&create_mu_);
    PD_RETURN_IF_ERROR(WriteProto(env_, SpanManifestPath(span.dir), manifest));
  }
  {
    absl::MutexLock lock(&mu_);
    span.manifest = manifest;
    span.problem.clear();
    span.writer.reset();
    RunEntry& run = *runs_[lease.run_];
    run.last_activity = closed_at;
    run.updated_unix_ms =
        UnixMillis(closed_at);  // what a restart reads back from span.pb
  }
  // The span is closed and durable whatever the build says: a profile is a
  // cache, and a build that fails is kept as the worker's profile_problem
  // (design note 7).
  StoreWorkerProfile(lease.run_, lease.worker_).IgnoreError();
  return absl::OkStatus();
}

absl::StatusOr<std::optional<v1::WorkerProfile>> LocalStore::StoreWorkerProfile(
    const std::string& run, const WorkerEntry* worker) const {
  std::vector<StoredSpan> spans;
  std::string dir;
  uint64_t generation = 0;
  {
    absl::MutexLock lock(&mu_);
    spans = ClosedSpansOf(env_, *worker);
    dir = worker->dir;
    generation = worker->next_generation++;
  }
  if (spans.empty()) return std::nullopt;
  absl::StatusOr<v1::WorkerProfile> profile = BuildProfile(
      run, spans, options_.batch_limits, analysis::ProfileOptions{});
  if (!profile.ok()) {
    absl::MutexLock lock(&mu_);
    worker->profile_problem =
        base::StrCat("profile not built: ", profile.status().message());
    return profile.status();
  }
  v1::StoredWorkerProfile stored;
  for (const StoredSpan& span : spans) stored.add_spans(span.id);
  *stored.mutable_profile() = *std::move(profile);
  const std::string path = ProfilePath(dir, generation);
  if (absl::Status written = WriteProto(env_, path, stored); !written.ok()) {
    // Disk full, say (the message has the errno's text): reads build it from
    // the events until one of them, or a later close, stores it.
    absl::MutexLock lock(&mu_);
    worker->profile_problem =
        base::StrCat("profile not stored: ", written.message(),
                     "; reads build it from the stored events");
    return std::move(*stored.mutable_profile());
  }
  std::string stale;
  {
    absl::MutexLock lock(&mu_);
    if (generation > worker->profile_generation) {
      if (worker->profile_generation != 0)
        stale = ProfilePath(dir, worker->profile_generation);
      worker->profile_generation = generation;
      worker->profile_spans.assign(stored.spans().begin(),
                                   stored.spans().end());
      worker->step_count = stored.profile().steps_size();
      worker->profile_problem.clear();
    } else {
      stale = path;  // a newer build won the race
    }
  }
  // A stale file left behind only takes space: the next open removes it.
  if (!stale.empty()) env_.RemoveFile(stale).IgnoreError();
  return std::move(*stored.mutable_profile());
}

const LocalStore::RunEntry* LocalStore::FindRun(const std::string& run) const {
  auto it = runs_.find(run);
  return it == runs_.end() ? nullptr : it->second.get();
}

namespace {

absl::Status UnknownRun(const std::string& run, size_t stored) {
  return absl::NotFoundError(base::StrCat(
      "run ", DisplayId(run), ": no such run (", stored, " runs stored)"));
}

v1::SpanState SpanStateOf(const LocalStore::SpanEntry& span) {
  if (!span.problem.empty()) return v1::SPAN_STATE_INCOMPLETE;
  return span.manifest.state() == v1::SPAN_STATE_CLOSED ? v1::SPAN_STATE_CLOSED
                                                        : v1::SPAN_STATE_OPEN;
}

}  // namespace

v1::StoredRun LocalStore::Summarize(const RunEntry& run,
                                    std::optional<RunDetail> detail,
                                    absl::Time now) const {
  const bool with_workers = detail == RunDetail::kWorkers;
  v1::StoredRun out;
  out.set_run(run.manifest.run());
  out.set_created_unix_ms(run.manifest.created_unix_ms());
  out.set_updated_unix_ms(run.updated_unix_ms);
  RunActivity activity;
  activity.last_activity = run.last_activity;
  ClosedRanks closed_ranks;
  for (const auto& [key, worker] : run.workers) {
    activity.world_size =
        std::max(activity.world_size, worker.info.world_size());
    bool has_closed = false;
    v1::WorkerSummary* summary = with_workers ? out.add_workers() : nullptr;
    for (const auto& [id, span] : worker.spans) {
      out.set_event_count(out.event_count() + span.event_count);
      has_closed |= span.closed();
      if (span.problem.empty() && !span.closed()) ++activity.open_spans;
      if (!span.problem.empty()) {
        out.add_warnings(base::StrCat("span ", id, " of worker ", key,
                                      " is INCOMPLETE: ", span.problem));
      }
      if (summary == nullptr) continue;
      v1::SpanSummary* s = summary->add_spans();
      s->set_span(id);
      s->set_agent_id(span.manifest.header().agent_id());
      if (span.manifest.header().has_local_uid()) {
        s->set_local_uid(span.manifest.header().local_uid());
      }
      s->set_state(SpanStateOf(span));
      s->set_durable_sequence(span.durable_sequence);
      s->set_event_count(span.event_count);
      s->set_stored_bytes(static_cast<int64_t>(span.stored_bytes));
      s->set_opened_unix_ms(span.manifest.opened_unix_ms());
      s->set_closed_unix_ms(span.manifest.closed_unix_ms());
      s->set_problem(span.problem);
      s->set_content_fingerprint(span.manifest.header().content_fingerprint());
    }
    if (has_closed) {
      closed_ranks.Add(worker.info.rank(), key);
      for (const ReplacedSpan& replaced : ReplacedSpansOf(worker))
        out.add_warnings(ReplacedSpanWarning(key, replaced));
    }
    if (has_closed && worker.profile_generation == 0 &&
        !worker.profile_problem.empty()) {
      out.add_warnings(
          base::StrCat("worker ", key, ": ", worker.profile_problem));
    }
    if (summary != nullptr) {
      *summary->mutable_worker() = worker.info;
      summary->mutable_worker()->set_run(run.manifest.run());
      summary->set_profile_ready(worker.profile_generation != 0);
      summary->set_step_count(worker.step_count);
      summary->set_profile_problem(
          worker.profile_generation == 0 ? worker.profile_problem : "");
    }
  }
  closed_ranks.AddWarnings(out);
  if (detail.has_value()) closed_ranks.AddRanks(out);
  activity.closed_ranks = closed_ranks.count();
  out.set_world_size(activity.world_size);
  out.set_worker_count(static_cast<int32_t>(run.workers.size()));
  out.set_closed_worker_count(activity.closed_ranks);
  out.set_state(RunStateOf(activity, now, options_.partial_after));
  return out;
}

absl::StatusOr<v1::ListRunsResponse> LocalStore::ListRuns(
    const v1::ListRunsRequest& request) const {
  PD_ASSIGN_OR_RETURN(const int page_size, ListRunsPageSize(request));
  const absl::Time now = env_.Now();
  v1::ListRunsResponse response;
  absl::MutexLock lock(&mu_);
  // The page token is the last run id of the previous page; runs are listed by
  // id.
  for (auto it = runs_.upper_bound(request.page_token()); it != runs_.end();
       ++it) {
    if (!request.filter().empty() &&
        it->first.find(request.filter()) == std::string::npos)
      continue;
    if (response.runs_size() == page_size) {
      response.set_next_page_token(response.runs(page_size - 1).run());
      break;
    }
    *response.add_runs() = Summarize(*it->second, std::nullopt, now);
  }
  return response;
}

absl::StatusOr<v1::StoredRun> LocalStore::GetRun(const std::string& run,
                                                 RunDetail detail) const {
  absl::MutexLock lock(&mu_);
  const RunEntry* entry = FindRun(run);
  if (entry == nullptr) return UnknownRun(run, runs_.size());
  return Summarize(*entry, detail, env_.Now());
}

absl::Status LocalStore::VisitProfiles(const v1::GetProfileRequest& request,
                                       ProfileVisitor visit) const {
  const RequestedProfile requested = ProfileOptionsOf(request);
  const analysis::ProfileOptions& options = requested.options;
  const bool stored_grouping = requested.stored_options;
  struct Wanted {
    int32_t rank;
    std::string name;
    std::string profile_path;  // empty: no stored profile
    const WorkerEntry* worker;
    std::vector<StoredSpan> spans;
  };
  std::vector<Wanted> wanted;
  {
    absl::MutexLock lock(&mu_);
    const RunEntry* run = FindRun(request.run());
    if (run == nullptr) return UnknownRun(request.run(), runs_.size());
    size_t matched = 0;
    for (const auto& [key, worker] : run->workers) {
      if (!Selected(request.workers(), worker.info)) continue;
      ++matched;
      std::vector<StoredSpan> closed = ClosedSpansOf(env_, worker);
      if (closed.empty()) continue;
      wanted.push_back(
          {worker.info.rank(), worker.info.worker_name(),
           worker.profile_generation == 0
               ? ""
               : ProfilePath(worker.dir, worker.profile_generation),
           &worker, std::move(closed)});
    }
    if (matched == 0) {
      return absl::NotFoundError(
          base::StrCat("run ", request.run(), ": no worker matches ",
                       DescribeSelector(request.workers())));
    }
    if (wanted.empty()) {
      return absl::FailedPreconditionError(base::StrCat(
          "run ", request.run(), ": no selected worker has a closed span yet"));
    }
  }
  std::sort(wanted.begin(), wanted.end(), [](const Wanted& a, const Wanted& b) {
    return std::tie(a.rank, a.name) < std::tie(b.rank, b.name);
  });
  for (const Wanted& worker : wanted) {
    v1::StoredWorkerProfile stored;
    // A newer generation may replace the file between the lookup and the read:
    // then rebuild.
    if (stored_grouping && !worker.profile_path.empty() &&
        ReadProto(env_, worker.profile_path, stored, kMaxProfileFileBytes)
            .ok()) {
      PD_RETURN_IF_ERROR(visit(std::move(*stored.mutable_profile())));
      continue;
    }
    if (stored_grouping && worker.profile_path.empty()) {
      // Not stored (a build that failed, disk full): build it now and try to
      // store it again.
      PD_ASSIGN_OR_RETURN(std::optional<v1::WorkerProfile> built,
                          StoreWorkerProfile(request.run(), worker.worker));
      if (built.has_value()) {
        PD_RETURN_IF_ERROR(visit(*std::move(built)));
        continue;
      }
    }
    PD_ASSIGN_OR_RETURN(v1::WorkerProfile built,
                        BuildProfile(request.run(), worker.spans,
                                     options_.batch_limits, options));
    PD_RETURN_IF_ERROR(visit(std::move(built)));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::optional<v1::RunDigest>> LocalStore::LoadDigest(
    const std::string& run, const std::string& key,
    const std::string& version) const {
  std::string dir;
  {
    absl::MutexLock lock(&mu_);
    const RunEntry* entry = FindRun(run);
    if (entry == nullptr) return std::nullopt;
    dir = entry->dir;
  }
  const std::string path = DigestPath(dir, key, version);
  if (!env_.FileExists(path)) return std::nullopt;
  std::string bytes;
  PD_RETURN_IF_ERROR(env_.ReadFileInto(path, kMaxProfileFileBytes, bytes));
  // Checked whole before use (aggregator/store/kept_digest.h): a cut, empty,
  // changed or copied file is DataLoss naming it, and is made again.
  return ReadKeptDigest(bytes, {run, key, version}, path);
}

absl::Status LocalStore::SaveDigest(const std::string& run,
                                    const std::string& key,
                                    const std::string& version,
                                    const v1::RunDigest& digest) const {
  std::string dir;
  {
    absl::MutexLock lock(&mu_);
    const RunEntry* entry = FindRun(run);
    if (entry == nullptr) return absl::NotFoundError("run " + run);
    dir = entry->dir;
  }
  // Durably, like every other folder: a digest renamed into a folder whose
  // own entry a crash can drop is not kept.
  PD_RETURN_IF_ERROR(base::CreateDirectoriesDurably(env_, DigestsDir(dir)));
  const std::string path = DigestPath(dir, key, version);
  PD_RETURN_IF_ERROR(base::WriteFileAtomically(
      env_, path, FrameKeptDigest({run, key, version}, digest)));
  // Earlier versions of the same key are of no use any more; one left behind
  // only takes space.
  const std::string stem = DigestFileStem(key);
  absl::StatusOr<std::vector<base::DirEntry>> files =
      env_.ListDir(DigestsDir(dir));
  if (!files.ok()) return absl::OkStatus();
  for (const base::DirEntry& file : *files) {
    const std::string file_path = base::StrCat(DigestsDir(dir), "/", file.name);
    if (file.name.starts_with(stem) && file_path != path)
      env_.RemoveFile(file_path).IgnoreError();
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<TraceExport>> LocalStore::ExportTrace(
    const v1::ExportTraceRequest& request) const {
  std::vector<StoredSpan> spans;
  {
    absl::MutexLock lock(&mu_);
    const RunEntry* run = FindRun(request.run());
    if (run == nullptr) return UnknownRun(request.run(), runs_.size());
    std::vector<const WorkerEntry*> matched;
    std::string names;
    for (const auto& [key, worker] : run->workers) {
      base::StrAppend(&names, names.empty() ? "" : ", ", key);
      if (Selected(request.worker(), worker.info)) matched.push_back(&worker);
    }
    if (matched.size() != 1) {
      return absl::InvalidArgumentError(base::StrCat(
          "run ", request.run(), ": ", DescribeSelector(request.worker()),
          " selects ", matched.size(),
          " workers, expected exactly one (workers: ", names, ")"));
    }
    const WorkerEntry& worker = *matched.front();
    if (request.span().empty()) {
      spans = ClosedSpansOf(env_, worker);
      if (spans.empty()) {
        return absl::FailedPreconditionError(base::StrCat(
            "run ", request.run(), " worker ", worker.info.worker_name(),
            ": no closed span to export yet"));
      }
    } else {
      auto it = worker.spans.find(request.span());
      if (it == worker.spans.end()) {
        return absl::NotFoundError(base::StrCat(
            "run ", request.run(), ": no span ", DisplayId(request.span())));
      }
      const SpanEntry& span = it->second;
      if (!span.problem.empty()) {
        return absl::DataLossError(base::StrCat(
            "span ", request.span(), " is INCOMPLETE: ", span.problem));
      }
      if (!span.closed()) {
        return absl::FailedPreconditionError(
            base::StrCat("span ", request.span(), " is still being uploaded"));
      }
      spans.push_back(SegmentSpan(env_, it->first, span));
    }
  }
  return ExportSpans(std::move(spans), options_.batch_limits);
}

absl::StatusOr<v1::ListDamagedSpansResponse> LocalStore::ListDamagedSpans(
    const v1::ListDamagedSpansRequest& request) const {
  v1::ListDamagedSpansResponse response;
  absl::MutexLock lock(&mu_);
  for (const auto& [run_id, run] : runs_) {
    for (const auto& [key, worker] : run->workers) {
      for (const auto& [id, span] : worker.spans) {
        if (span.problem.empty()) continue;
        const std::string& sender = span.manifest.header().agent_id();
        if (!request.agent_id().empty() && !sender.empty() &&
            sender != request.agent_id())
          continue;
        if (response.spans_size() == kMaxDamagedSpansListed) return response;
        v1::DamagedSpan* damaged = response.add_spans();
        damaged->set_run(run_id);
        damaged->set_rank(worker.info.rank());
        damaged->set_worker_name(worker.info.worker_name());
        damaged->set_span(id);
        damaged->set_agent_id(sender);
        damaged->set_problem(span.problem);
      }
    }
  }
  return response;
}

}  // namespace profdiff::aggregator
