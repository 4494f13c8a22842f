// Uploads one read trace file as one span and keeps the file's AgentFileState:
// what the watch mode and `profdiff-agent upload` do for each file, and the one
// log line per file.
//
// Design:
// 1. State machine per (path, size, mtime): none -> UPLOADING (fsync'd before
//    the first byte goes out) -> DONE (only after the aggregator acknowledged
//    the span closed) or FAILED (the aggregator refused it, or the file is not
//    a usable trace). A stop or the `upload` timeout leaves UPLOADING, which
//    the next start resumes with the run, span, rank and chunking it recorded,
//    so a resumed span is cut exactly as before.
// 2. The watch mode never reads a DONE or FAILED version again (ShouldRead).
//    `upload FILE` offers a DONE span again under its recorded identity with
//    resume = true: the aggregator that has it answers span_closed and nothing
//    is sent, while a different or emptied one (the state does not know which
//    aggregator acknowledged) gets the span it lacks.
// 3. A span's id includes its content's fingerprint (SpanIdOf), so a file whose
//    content changed is a new span, and two files of one name are two spans,
//    never one acknowledged unstored.
// 4. UNAUTHENTICATED / PERMISSION_DENIED are a credential problem, not the
//    file's: the file stays UPLOADING (the next start resumes it) and
//    PathsToRetry offers it again while running. A span the aggregator reports
//    damaged is set back from DONE to UPLOADING and offered again.
#ifndef PROFDIFF_AGENT_TRACE_FILE_UPLOADER_H_
#define PROFDIFF_AGENT_TRACE_FILE_UPLOADER_H_

#include <cstdint>
#include <memory>
#include <set>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include <absl/functional/function_ref.h>
#include <absl/status/status.h>
#include <absl/status/statusor.h>
#include <absl/time/time.h>

#include "agent/agent_state_store.h"
#include "agent/file_version.h"
#include "agent/span_identity.h"
#include "agent/span_uploader.h"
#include "trace/kineto_reader.h"
#include "trace/trace.h"

namespace profdiff::agent {

struct TraceFileUploaderOptions {
  // The watched log dir, for the run-from-sub-folder rule; empty in `upload`
  // mode (the run then falls back to each file's own folder name).
  std::string logdir = {};
  IdentitySources identity = {};
  std::string hostname = {};    // WorkerInfo.hostname
  std::string aggregator = {};  // its address: part of each record's key
  uint32_t chunk_events = kDefaultChunkEvents;  // for spans not started before
};

// Uploads trace files through one SpanUploader and records their state in one
// store. Not thread-safe: one file at a time (the state of one path is written
// by one thread).
class TraceFileUploader {
 public:
  TraceFileUploader(AgentStateStore store, TraceFileUploaderOptions options,
                    std::unique_ptr<SpanUploader> uploader);

  // False when the state says `version` of `path` is DONE or FAILED already, so
  // it need not be read. An unreadable state record is logged and counts as
  // none.
  bool ShouldRead(const std::string& path, const FileVersion& version) const;

  // Uploads `trace`, read from `path` at `version` (absolute path), and records
  // the outcome. OK once the span is acknowledged closed. A DONE or UPLOADING
  // version resumes its recorded span; a FAILED version is tried again
  // (ShouldRead keeps the watch mode from asking either; `upload` of a named
  // file means try again). Otherwise the status says why: Cancelled /
  // DeadlineExceeded (stopped or out of time; state stays UPLOADING and
  // resumes), InvalidArgument for an unusable identity (bad run id, RANK), the
  // aggregator's refusal, or a state dir write error; every failure is logged
  // with the file's line.
  absl::Status UploadFile(const std::string& path, const FileVersion& version,
                          const trace::Trace& trace,
                          const std::stop_token& stop);

  // `profdiff-agent upload` of one file: makes `path` absolute, reads it with
  // `read` (a reader's or a pool's ReadFile) and uploads it as UploadFile
  // does. OK when the span is acknowledged closed; otherwise the stat, read or
  // upload error (logged with the file's line; an unreadable file is recorded
  // FAILED).
  using ReadTrace = absl::FunctionRef<absl::StatusOr<trace::Trace>(
      const std::string& absolute_path)>;
  absl::Status UploadPath(const std::string& path, ReadTrace read,
                          const std::stop_token& stop);
  absl::Status UploadPath(const std::string& path, trace::KinetoReader& reader,
                          const std::stop_token& stop) {
    return UploadPath(
        path,
        [&reader](const std::string& absolute) {
          return reader.ReadFile(absolute);
        },
        stop);
  }

  // Paths the watch mode should offer again (their state says UPLOADING, so
  // ShouldRead lets them through): those refused for credentials since the last
  // call, and those whose DONE spans the aggregator lists as damaged (asked
  // within `timeout`; when it cannot be asked, none). Called between uploads,
  // on their thread (the watcher's).
  std::vector<std::string> PathsToRetry(absl::Duration timeout);

  // Records `path` at `version` as FAILED because it could not be read
  // (`error`, the reader's), and logs the file's line.
  void RecordUnreadable(const std::string& path, const FileVersion& version,
                        const absl::Status& error);

 private:
  // The run `path` goes to (the middle of its records' key); "" when its run id
  // is invalid.
  std::string RunOf(const std::string& path) const;
  // Marks `state` FAILED with `error`, writes it, logs; returns `error`.
  absl::Status Fail(v1::AgentFileState& state, const absl::Status& error,
                    const SpanUploadStats& stats);
  // The one line per file: counts, rate, result (OK or the status code's name),
  // error.
  void LogFileLine(const v1::AgentFileState& state,
                   const SpanUploadStats& stats,
                   const absl::Status& result) const;

  AgentStateStore store_;
  TraceFileUploaderOptions options_;
  std::unique_ptr<SpanUploader> uploader_;
  std::set<std::string>
      retry_paths_;  // refused for credentials since the last PathsToRetry
};

}  // namespace profdiff::agent

#endif  // PROFDIFF_AGENT_TRACE_FILE_UPLOADER_H_
