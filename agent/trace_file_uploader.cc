#include "agent/trace_file_uploader.h"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <set>
#include <system_error>
#include <utility>

#include "base/log.h"
#include "base/status_annotate.h"
#include "base/str_cat.h"
#include "trace/event_kind.h"
#include "trace/trace_fingerprint.h"
#include "trace/worker_info.h"

namespace profdiff::agent {
namespace {

// The OS pid of the process that wrote the trace: the pid of its first
// operator, as analysis/ worker_profile.cc takes it (device events carry device
// indices in `pid`).
int64_t ProcessIdOf(const trace::Trace& trace) {
  for (size_t i = 0; i < trace.events.size(); ++i) {
    if (trace.events.kind[i] == trace::EventKind::kCpuOp &&
        trace.events.pid[i] > 0) {
      return trace.events.pid[i];
    }
  }
  return 0;
}

// The log line's result: OK or the status code's name.
std::string ResultName(const absl::Status& status) {
  return status.ok() ? "OK" : absl::StatusCodeToString(status.code());
}

bool SameVersion(const v1::AgentFileState& state, const FileVersion& version) {
  return state.size_bytes() == version.size_bytes &&
         state.mtime_ns() == version.mtime_ns;
}

// The state on record for `path`, or none; an unreadable record is logged and
// treated as none (at worst the span is offered again, and the aggregator
// answers that it is closed).
std::optional<v1::AgentFileState> ReadStateOrNone(
    const AgentStateStore& store, const AgentStateStore::Key& key) {
  absl::StatusOr<std::optional<v1::AgentFileState>> state = store.Read(key);
  if (!state.ok()) {
    PD_LOG(WARNING, "ignoring unreadable agent state path=%s error=%s",
           key.path, state.status().message());
    return std::nullopt;
  }
  return *std::move(state);
}

bool IsCredentialError(const absl::Status& status) {
  return absl::IsUnauthenticated(status) || absl::IsPermissionDenied(status);
}

}  // namespace

TraceFileUploader::TraceFileUploader(AgentStateStore store,
                                     TraceFileUploaderOptions options,
                                     std::unique_ptr<SpanUploader> uploader)
    : store_(std::move(store)),
      options_(std::move(options)),
      uploader_(std::move(uploader)) {}

std::string TraceFileUploader::RunOf(const std::string& path) const {
  absl::StatusOr<std::string> run =
      ResolveRun(options_.logdir, path, options_.identity);
  return run.ok() ? *std::move(run) : std::string();
}

bool TraceFileUploader::ShouldRead(const std::string& path,
                                   const FileVersion& version) const {
  const std::string run = RunOf(path);
  const std::optional<v1::AgentFileState> state =
      ReadStateOrNone(store_, {path, options_.aggregator, run});
  if (!state.has_value() || !SameVersion(*state, version)) return true;
  if (state->state() == v1::UPLOAD_STATE_DONE ||
      state->state() == v1::UPLOAD_STATE_FAILED) {
    PD_VLOG(1, "skipping trace file path=%s state=%s", path,
            v1::UploadState_Name(state->state()));
    return false;
  }
  return true;
}

absl::Status TraceFileUploader::UploadFile(const std::string& path,
                                           const FileVersion& version,
                                           const trace::Trace& trace,
                                           const std::stop_token& stop) {
  const std::string run = RunOf(path);
  const std::optional<v1::AgentFileState> prior =
      ReadStateOrNone(store_, {path, options_.aggregator, run});
  const bool same_version = prior.has_value() && SameVersion(*prior, version);
  SpanUploadStats stats;
  stats.events = static_cast<int64_t>(trace.events.size());
  // An opened span of this very content continues under its recorded identity
  // (design note 2).
  const bool resume =
      same_version && (prior->state() == v1::UPLOAD_STATE_UPLOADING ||
                       prior->state() == v1::UPLOAD_STATE_DONE);

  v1::AgentFileState state;
  state.set_path(path);
  state.set_aggregator(options_.aggregator);
  state.set_run(run);  // the key; "" when the run id is invalid (the failure is
                       // recorded there)
  state.set_size_bytes(version.size_bytes);
  state.set_mtime_ns(version.mtime_ns);
  state.set_acked_sequence(-1);

  SpanHeader header;
  header.worker = trace::WorkerInfoOf(trace);
  header.content_fingerprint = trace::TraceFingerprintHex(trace);
  if (struct stat info; ::stat(path.c_str(), &info) == 0) {
    header.local_uid = info.st_uid;  // whose data this is, for the aggregator
  }
  if (resume) {
    // The identity and chunking of the span already started, whatever flags say
    // now.
    state.set_run(prior->run());
    state.set_span(prior->span());
    state.set_worker_name(prior->worker_name());
    state.set_rank(prior->rank());
    state.set_chunk_events(prior->chunk_events() > 0 ? prior->chunk_events()
                                                     : options_.chunk_events);
    state.set_acked_sequence(prior->acked_sequence());
  } else {
    absl::StatusOr<SpanIdentity> identity = ResolveSpanIdentity(
        options_.logdir, path, options_.identity, header.content_fingerprint);
    if (!identity.ok()) return Fail(state, identity.status(), stats);
    state.set_run(identity->run);
    state.set_span(identity->span);
    state.set_worker_name(identity->worker_name);
    state.set_chunk_events(options_.chunk_events);
    absl::StatusOr<int32_t> rank = ResolveRank(
        header.worker, options_.identity.rank_env, identity->worker_name);
    if (!rank.ok())
      return Fail(state, base::Annotate(rank.status(), path), stats);
    state.set_rank(*rank);
  }
  header.run = state.run();
  header.span = state.span();
  header.resume = resume;
  header.chunk_events = state.chunk_events();
  header.worker.set_run(state.run());
  header.worker.set_rank(state.rank());
  // Without distributedInfo the world size is unknown: at least this rank's.
  if (!header.worker.distributed_info_present()) {
    header.worker.set_world_size(
        std::max(header.worker.world_size(), state.rank() + 1));
  }
  header.worker.set_worker_name(state.worker_name());
  header.worker.set_hostname(options_.hostname);
  header.worker.set_pid(ProcessIdOf(trace));
  header.worker.set_source_path(path);

  // Durable before the header goes out: a restart then resumes instead of
  // starting over.
  state.set_state(v1::UPLOAD_STATE_UPLOADING);
  if (absl::Status written = store_.Write(state); !written.ok()) {
    LogFileLine(state, stats, written);
    return written;
  }

  const absl::Status uploaded = uploader_->Upload(trace, header, stop, stats);
  state.set_acked_sequence(
      std::max(state.acked_sequence(), stats.acked_sequence));
  if (uploaded.ok()) {
    state.set_state(v1::UPLOAD_STATE_DONE);
  } else if (absl::IsCancelled(uploaded) ||
             absl::IsDeadlineExceeded(uploaded)) {
    // Not the aggregator's verdict: stays UPLOADING and resumes on the next
    // start.
  } else if (IsCredentialError(uploaded)) {
    // Not a verdict on the file either: stays UPLOADING, tried again (design
    // note 4).
    retry_paths_.insert(path);
  } else {
    return Fail(state, uploaded, stats);
  }
  absl::Status result = uploaded;
  if (absl::Status written = store_.Write(state); !written.ok()) {
    if (result.ok()) {
      result =
          written;  // acknowledged, but a restart would offer the span again
    } else {
      PD_LOG(ERROR, "cannot record trace file state path=%s error=%s", path,
             written.message());
    }
  }
  LogFileLine(state, stats, result);
  return result;
}

absl::Status TraceFileUploader::UploadPath(const std::string& path,
                                           ReadTrace read,
                                           const std::stop_token& stop) {
  std::error_code error;
  const std::string absolute =
      std::filesystem::absolute(path, error).lexically_normal().string();
  if (error) {
    absl::Status status = absl::ErrnoToStatus(
        error.value(), base::ToAbsl(base::StrCat(path, ": absolute path")));
    PD_LOG(WARNING, "file done path=%s result=%s error=%s", path,
           ResultName(status), status.message());
    return status;
  }
  const absl::StatusOr<FileVersion> version = StatFileVersion(absolute);
  if (!version.ok()) {
    PD_LOG(WARNING, "file done path=%s result=%s error=%s", absolute,
           ResultName(version.status()), version.status().message());
    return version.status();
  }
  absl::StatusOr<trace::Trace> trace = read(absolute);
  if (!trace.ok()) {
    RecordUnreadable(absolute, *version, trace.status());
    return trace.status();
  }
  // The Trace lives for this upload only (released when this returns).
  return UploadFile(absolute, *version, *trace, stop);
}

std::vector<std::string> TraceFileUploader::PathsToRetry(
    absl::Duration timeout) {
  std::vector<std::string> paths(retry_paths_.begin(), retry_paths_.end());
  retry_paths_.clear();
  absl::StatusOr<std::vector<v1::DamagedSpan>> damaged =
      uploader_->ListDamagedSpans(timeout);
  if (!damaged.ok()) {
    PD_VLOG(1, "cannot list damaged spans error=%s",
            damaged.status().message());
    return paths;
  }
  if (damaged->empty()) return paths;
  std::set<std::pair<std::string, std::string>> wanted;  // (run, span)
  for (const v1::DamagedSpan& span : *damaged)
    wanted.emplace(span.run(), span.span());
  const AgentStateStore::Loaded loaded = store_.LoadAll();
  for (v1::AgentFileState state : loaded.states) {
    if (state.state() != v1::UPLOAD_STATE_DONE ||
        state.aggregator() != options_.aggregator ||
        !wanted.contains({state.run(), state.span()})) {
      continue;
    }
    // Sent again under its identity: the aggregator rebuilds the span from the
    // first chunk.
    state.set_state(v1::UPLOAD_STATE_UPLOADING);
    state.set_acked_sequence(-1);
    if (absl::Status written = store_.Write(state); !written.ok()) {
      PD_LOG(ERROR, "cannot record trace file state path=%s error=%s",
             state.path(), written.message());
      continue;
    }
    PD_LOG(WARNING,
           "aggregator lost span run=%s span=%s; sending it again path=%s",
           state.run(), state.span(), state.path());
    paths.push_back(state.path());
  }
  return paths;
}

void TraceFileUploader::RecordUnreadable(const std::string& path,
                                         const FileVersion& version,
                                         const absl::Status& error) {
  v1::AgentFileState state;
  state.set_path(path);
  state.set_aggregator(options_.aggregator);
  state.set_run(RunOf(path));
  state.set_size_bytes(version.size_bytes);
  state.set_mtime_ns(version.mtime_ns);
  state.set_acked_sequence(-1);
  Fail(state, error, SpanUploadStats{})
      .IgnoreError();  // the error is the caller's input
}

absl::Status TraceFileUploader::Fail(v1::AgentFileState& state,
                                     const absl::Status& error,
                                     const SpanUploadStats& stats) {
  state.set_state(v1::UPLOAD_STATE_FAILED);
  state.set_error(std::string(error.message()));
  if (absl::Status written = store_.Write(state); !written.ok()) {
    PD_LOG(ERROR, "cannot record failed trace file path=%s error=%s",
           state.path(), written.message());
  }
  LogFileLine(state, stats, error);
  return error;
}

void TraceFileUploader::LogFileLine(const v1::AgentFileState& state,
                                    const SpanUploadStats& stats,
                                    const absl::Status& result) const {
  const std::string result_name = ResultName(result);
  const double seconds = absl::ToDoubleSeconds(stats.elapsed);
  const double events_per_s =
      seconds > 0 ? static_cast<double>(stats.events) / seconds : 0.0;
  if (result.ok()) {
    PD_LOG(INFO,
           "file done path=%s run=%s span=%s events=%d bytes=%d "
           "events_per_s=%.0f chunks=%d "
           "retries=%d result=%s",
           state.path(), state.run(), state.span(), stats.events,
           stats.bytes_sent, events_per_s, stats.chunks_sent, stats.retries,
           result_name);
  } else {
    PD_LOG(WARNING,
           "file done path=%s run=%s span=%s events=%d bytes=%d "
           "events_per_s=%.0f chunks=%d "
           "retries=%d result=%s error=%s",
           state.path(), state.run(), state.span(), stats.events,
           stats.bytes_sent, events_per_s, stats.chunks_sent, stats.retries,
           result_name, result.message());
  }
}

}  // namespace profdiff::agent
