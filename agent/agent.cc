#include "agent/agent.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <stop_token>
#include <utility>

#include "agent/agent_state_store.h"
#include "agent/collector_relay.h"
#include "agent/log_dir_agent.h"
#include "base/log.h"
#include "base/status_macros.h"
#include "rpc/server.h"
#include "trace/kineto_reader.h"

namespace profdiff::agent {
namespace {

// How long open relay streams may go on once the agent stops.
constexpr absl::Duration kRelayShutdownGrace = absl::Seconds(5);

// Removes a socket an earlier agent left (killed before it could). A socket
// some process still accepts on, or anything that is not a socket, is left
// alone: binding then fails and says so.
void RemoveStaleSocket(const std::string& path) {
  struct stat info;
  if (::lstat(path.c_str(), &info) != 0 || !S_ISSOCK(info.st_mode)) return;
  sockaddr_un address = {};
  address.sun_family = AF_UNIX;
  if (path.size() >= sizeof(address.sun_path)) return;
  std::memcpy(address.sun_path, path.c_str(), path.size());
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return;
  const bool live = ::connect(fd, reinterpret_cast<sockaddr*>(&address),
                              sizeof(address)) == 0;
  ::close(fd);
  if (!live) ::unlink(path.c_str());
}

}  // namespace

struct Agent::Parts {
  ~Parts() { Stop(); }

  void Stop() {
    if (stopped) return;
    stopped = true;
    if (watcher != nullptr) watcher->Stop();
    if (relay_server.server != nullptr) {
      relay_server.server->Shutdown(
          absl::ToChronoTime(absl::Now() + kRelayShutdownGrace));
    }
    if (!socket.empty()) RemoveStaleSocket(socket);
  }

  bool stopped = false;
  std::string socket;  // the relay's, once bound
  std::unique_ptr<CollectorRelay> relay;
  rpc::RunningServer relay_server;  // after `relay`: serves it
  std::unique_ptr<LogDirAgent> watcher;
};

Agent::Agent(std::unique_ptr<Parts> parts) : parts_(std::move(parts)) {}

Agent::~Agent() = default;

void Agent::Stop() { parts_->Stop(); }

absl::StatusOr<std::unique_ptr<Agent>> Agent::Start(AgentOptions options) {
  if (options.logdir.empty() && options.listen_unix.empty()) {
    return absl::InvalidArgumentError(
        "the agent has nothing to do: neither a log dir to watch nor a unix "
        "socket to relay on");
  }
  auto parts = std::make_unique<Parts>();
  if (!options.listen_unix.empty()) {
    RemoveStaleSocket(options.listen_unix);
    parts->relay = std::make_unique<CollectorRelay>(
        options.aggregator, options.upload.security, options.upload.agent_id,
        options.upload.backoff);
    PD_ASSIGN_OR_RETURN(
        parts->relay_server,
        rpc::StartServer("unix:" + options.listen_unix, {parts->relay.get()}));
    parts->socket = options.listen_unix;
    PD_LOG(INFO, "relaying CUPTI spans socket=%s aggregator=%s",
           options.listen_unix, options.aggregator);
  }
  if (!options.logdir.empty()) {
    PD_ASSIGN_OR_RETURN(parts->watcher, LogDirAgent::Start({
                                            .aggregator = options.aggregator,
                                            .logdir = options.logdir,
                                            .state_dir = options.state_dir,
                                            .files = std::move(options.files),
                                            .upload = std::move(options.upload),
                                            .watch = std::move(options.watch),
                                        }));
  }
  return std::make_unique<Agent>(std::move(parts));
}

absl::StatusOr<std::vector<std::string>> UploadTraceFiles(
    const AgentOptions& options, const std::vector<std::string>& paths) {
  PD_ASSIGN_OR_RETURN(AgentStateStore store,
                      AgentStateStore::Open(options.state_dir));
  TraceFileUploaderOptions files = options.files;
  files.logdir.clear();  // each file's run falls back to its own folder
  files.aggregator = options.aggregator;
  SpanUploaderOptions upload = options.upload;
  upload.deadline = absl::Now() + options.upload_timeout;
  TraceFileUploader uploader(
      std::move(store), std::move(files),
      std::make_unique<SpanUploader>(options.aggregator, std::move(upload)));
  trace::KinetoReader reader;
  // No stop is ever requested: SIGINT ends the process, and the state
  // (UPLOADING, fsync'd before the first chunk) lets the next run resume.
  const std::stop_token never_stopped;
  std::vector<std::string> failed;
  for (const std::string& path : paths) {
    if (!uploader.UploadPath(path, reader, never_stopped).ok())
      failed.push_back(path);
  }
  return failed;
}

}  // namespace profdiff::agent
