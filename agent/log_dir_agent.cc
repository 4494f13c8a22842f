#include "agent/log_dir_agent.h"

#include <utility>

#include "agent/absolute_folder.h"
#include "agent/agent_state_store.h"
#include "base/log.h"
#include "base/status_macros.h"
#include "base/str_cat.h"

namespace profdiff::agent {
namespace {

// Logs what the state dir holds; a record that does not parse is reported, not
// fatal.
void SummariseState(const AgentStateStore& store) {
  const AgentStateStore::Loaded loaded = store.LoadAll();
  int64_t counts[v1::UploadState_ARRAYSIZE] = {};
  for (const v1::AgentFileState& state : loaded.states) {
    if (v1::UploadState_IsValid(state.state())) ++counts[state.state()];
  }
  for (const absl::Status& error : loaded.errors) {
    PD_LOG(WARNING, "unreadable agent state ignored error=%s", error.message());
  }
  PD_LOG(INFO,
         "agent state dir=%s done=%d uploading=%d failed=%d unreadable=%d",
         store.dir(), counts[v1::UPLOAD_STATE_DONE],
         counts[v1::UPLOAD_STATE_UPLOADING], counts[v1::UPLOAD_STATE_FAILED],
         loaded.errors.size());
}

}  // namespace

LogDirAgent::LogDirAgent(std::unique_ptr<TraceFileUploader> uploader)
    : uploader_(std::move(uploader)) {}

absl::StatusOr<std::unique_ptr<LogDirAgent>> LogDirAgent::Start(
    LogDirAgentOptions options) {
  if (options.armed == nullptr) {
    return absl::InvalidArgumentError(
        "the watch mode needs the ArmedCaptures that admit captures' files");
  }
  // Absolute, like the paths the watcher reports, so the run-from-sub-folder
  // rule lines up.
  PD_ASSIGN_OR_RETURN(const std::string logdir, AbsoluteFolder(options.logdir));
  PD_ASSIGN_OR_RETURN(AgentStateStore store,
                      AgentStateStore::Open(options.state_dir));
  SummariseState(store);
  options.files.logdir = logdir;
  options.files.aggregator = options.aggregator;  // part of every record's key
  auto agent =
      std::make_unique<LogDirAgent>(std::make_unique<TraceFileUploader>(
          std::move(store), std::move(options.files),
          std::make_unique<SpanUploader>(options.aggregator,
                                         std::move(options.upload))));
  TraceFileUploader* uploader = agent->uploader_.get();
  const ArmedCaptures* armed = options.armed;
  const std::string captures = base::StrCat(logdir, "/", kCaptureFolder, "/");
  LogDirWatcherCallbacks callbacks{
      .should_read =
          [uploader, armed, captures](const std::string& path,
                                      const FileVersion& version) {
            // Design note 3: the watcher asks once per version.
            if (path.starts_with(captures)) {
              if (absl::Status admitted =
                      armed->AdmitTraceFile(path, absl::Now());
                  !admitted.ok()) {
                PD_LOG(WARNING, "capture folder file refused: %s",
                       admitted.message());
                return false;
              }
            }
            return uploader->ShouldRead(path, version);
          },
      .on_ready =
          [uploader](const std::stop_token& stop, ReadyTraceFile& file) {
            // The outcome is logged and recorded by UploadFile; a failed file
            // waits for a change (FAILED) or the next start (UPLOADING).
            uploader->UploadFile(file.path, file.version, file.trace, stop)
                .IgnoreError();
          },
      .paths_to_retry =
          [uploader] {
            constexpr absl::Duration kAskTimeout = absl::Seconds(10);
            return uploader->PathsToRetry(kAskTimeout);
          },
      .on_failed =
          [uploader](const std::string& path, const FileVersion& version,
                     const absl::Status& error) {
            uploader->RecordUnreadable(path, version, error);
          },
  };
  PD_ASSIGN_OR_RETURN(
      agent->watcher_,
      LogDirWatcher::Start(logdir, options.watch, std::move(callbacks)));
  PD_LOG(INFO, "agent watching logdir=%s aggregator=%s",
         agent->watcher_->logdir(), options.aggregator);
  return agent;
}

LogDirAgent::~LogDirAgent() { Stop(); }

void LogDirAgent::Stop() {
  if (watcher_ != nullptr) watcher_->Stop();
}

}  // namespace profdiff::agent
