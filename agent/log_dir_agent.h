// The watch mode of profdiff-agent: a LogDirWatcher on the log dir whose
// complete trace files a TraceFileUploader uploads, one at a time, with their
// progress in the state dir.
//
// Design:
// 1. One upload worker, and it is the watcher's own thread: the watcher reads a
//    file once it is complete and the upload runs inside its on_ready callback.
//    So at most one Trace is in memory, nothing is read twice, and files go up
//    in the order they became complete. The files themselves are the spool:
//    while the aggregator is away nothing more is read.
// 2. Start-up: the state records are loaded and summarised; UPLOADING files are
//    resumed when the watcher's initial scan finds them; DONE and FAILED
//    versions are never read again.
// 3. A file below LOGDIR/profdiff-captures/ is read only when ArmedCaptures
//    admits it (a trace an armed process was told to write, owned by it,
//    written in time); any other is logged once per version and left alone.
#ifndef PROFDIFF_AGENT_LOG_DIR_AGENT_H_
#define PROFDIFF_AGENT_LOG_DIR_AGENT_H_

#include <memory>
#include <string>

#include <absl/status/statusor.h>

#include "agent/armed_captures.h"
#include "agent/log_dir_watcher.h"
#include "agent/span_uploader.h"
#include "agent/trace_file_uploader.h"

namespace profdiff::agent {

struct LogDirAgentOptions {
  std::string aggregator;  // HOST:PORT
  std::string logdir;
  std::string state_dir;
  TraceFileUploaderOptions files;  // `logdir` is set by Start
  SpanUploaderOptions upload;
  LogDirWatcherOptions watch;
  const ArmedCaptures* armed =
      nullptr;  // design note 3; must outlive the agent
};

// A running watch-and-upload agent. Stop() or the destructor ends it.
class LogDirAgent {
 public:
  // Opens the state dir and starts watching. Errors: InvalidArgument without
  // `armed`; the state dir's (AgentStateStore::Open) or the log dir's
  // (LogDirWatcher::Start).
  static absl::StatusOr<std::unique_ptr<LogDirAgent>> Start(
      LogDirAgentOptions options);

  ~LogDirAgent();
  LogDirAgent(const LogDirAgent&) = delete;
  LogDirAgent& operator=(const LogDirAgent&) = delete;

  // Stops the watcher and an upload in flight (which stays UPLOADING and
  // resumes on the next start), and joins. Call from the owner's thread.
  void Stop();

  // Use Start().
  explicit LogDirAgent(std::unique_ptr<TraceFileUploader> uploader);

 private:
  std::unique_ptr<TraceFileUploader> uploader_;
  std::unique_ptr<LogDirWatcher>
      watcher_;  // after uploader_: its thread uses the uploader
};

}  // namespace profdiff::agent

#endif  // PROFDIFF_AGENT_LOG_DIR_AGENT_H_
