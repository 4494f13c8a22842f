// profdiff-agent: uploads PyTorch profiler traces from a watched log dir (or
// given files) to the profdiff aggregator. Parses flags, builds the agent/
// objects and runs them (STYLE.md §1).
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include <absl/strings/string_view.h>

#include "agent/agent_command_line.h"
#include "agent/agent_state_store.h"
#include "agent/collector_relay.h"
#include "agent/log_dir_agent.h"
#include "agent/span_identity.h"
#include "agent/span_uploader.h"
#include "agent/trace_file_uploader.h"
#include "base/hostname.h"
#include "base/log.h"
#include "rpc/credentials.h"
#include "rpc/server.h"
#include "trace/kineto_reader.h"

namespace {

using profdiff::agent::AgentCommandLine;

constexpr int kExitOk = 0;
constexpr int kExitFailed = 1;
constexpr int kExitUsage = 2;

std::string EnvOrEmpty(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? std::string() : std::string(value);
}

int Fail(int code, absl::string_view message) {
  std::fprintf(stderr, "profdiff-agent: error: %.*s\n",
               static_cast<int>(message.size()), message.data());
  return code;
}

profdiff::agent::SpanUploaderOptions UploadOptions(
    const AgentCommandLine& line, std::string agent_id,
    profdiff::rpc::ChannelSecurity security) {
  profdiff::agent::SpanUploaderOptions options;
  options.agent_id = std::move(agent_id);
  options.security = std::move(security);
  options.window_chunks = line.window;
  options.stream_timeout = line.rpc_timeout;
  options.backoff.initial_delay = line.backoff_initial;
  options.backoff.max_delay = line.backoff_max;
  return options;
}

profdiff::agent::TraceFileUploaderOptions FileOptions(
    const AgentCommandLine& line, const std::string& hostname) {
  profdiff::agent::TraceFileUploaderOptions options;
  options.identity = profdiff::agent::IdentitySourcesFromEnvironment(line.run);
  options.hostname = hostname;
  options.aggregator = line.aggregator;
  options.chunk_events = line.chunk_events;
  return options;
}

int RunUpload(const AgentCommandLine& line, const std::string& state_dir,
              const std::string& hostname, const std::string& agent_id,
              const profdiff::rpc::ChannelSecurity& security) {
  absl::StatusOr<profdiff::agent::AgentStateStore> store =
      profdiff::agent::AgentStateStore::Open(state_dir);
  if (!store.ok()) return Fail(kExitFailed, store.status().message());
  profdiff::agent::SpanUploaderOptions upload =
      UploadOptions(line, agent_id, security);
  upload.deadline =
      absl::Now() + line.timeout;  // bounds every file's retries together
  profdiff::agent::TraceFileUploader uploader(
      *std::move(store), FileOptions(line, hostname),
      std::make_unique<profdiff::agent::SpanUploader>(line.aggregator,
                                                      std::move(upload)));
  profdiff::trace::KinetoReader reader;
  // No stop is ever requested: SIGINT ends the process, and the state
  // (UPLOADING, fsync'd before the first chunk) lets the next run resume.
  const std::stop_token never_stopped;
  std::vector<std::string> failed;
  for (const std::string& file : line.files) {
    if (!uploader.UploadPath(file, reader, never_stopped).ok())
      failed.push_back(file);
  }
  for (const std::string& file : failed)
    PD_LOG(ERROR, "span not acknowledged path=%s", file);
  PD_LOG(INFO, "upload finished files=%d acknowledged=%d failed=%d",
         line.files.size(), line.files.size() - failed.size(), failed.size());
  return failed.empty() ? kExitOk : kExitFailed;
}

absl::StatusOr<std::unique_ptr<profdiff::agent::LogDirAgent>> StartWatcher(
    const AgentCommandLine& line, const std::string& state_dir,
    const std::string& hostname, const std::string& agent_id,
    const profdiff::rpc::ChannelSecurity& security);

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

int RunWatch(const AgentCommandLine& line, const std::string& state_dir,
             const std::string& hostname, const std::string& agent_id,
             const profdiff::rpc::ChannelSecurity& security) {
  // Blocked before any thread starts, so every thread inherits the mask and
  // sigwait below is the only receiver.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  // The relay for CUPTI injection libraries: a unix socket, so only this node
  // reaches it.
  std::unique_ptr<profdiff::agent::CollectorRelay> relay;
  profdiff::rpc::RunningServer relay_server;
  if (!line.listen_unix.empty()) {
    RemoveStaleSocket(line.listen_unix);
    relay = std::make_unique<profdiff::agent::CollectorRelay>(
        line.aggregator, security, agent_id,
        profdiff::agent::BackoffOptions{.initial_delay = line.backoff_initial,
                                        .max_delay = line.backoff_max});
    absl::StatusOr<profdiff::rpc::RunningServer> started =
        profdiff::rpc::StartServer("unix:" + line.listen_unix, {relay.get()});
    if (!started.ok()) return Fail(kExitFailed, started.status().message());
    relay_server = *std::move(started);
    PD_LOG(INFO, "relaying CUPTI spans socket=%s aggregator=%s",
           line.listen_unix, line.aggregator);
  }
  std::unique_ptr<profdiff::agent::LogDirAgent> watcher;
  if (!line.logdir.empty()) {
    absl::StatusOr<std::unique_ptr<profdiff::agent::LogDirAgent>> started =
        StartWatcher(line, state_dir, hostname, agent_id, security);
    if (!started.ok()) return Fail(kExitFailed, started.status().message());
    watcher = *std::move(started);
  }
  int signal = 0;
  sigwait(&signals, &signal);
  PD_LOG(INFO, "stopping signal=%d", signal);
  if (watcher != nullptr) watcher->Stop();
  // Open relay streams are cancelled after a grace period; their libraries
  // resume elsewhere.
  if (relay_server.server != nullptr) {
    relay_server.server->Shutdown(std::chrono::system_clock::now() +
                                  std::chrono::seconds(5));
  }
  if (!line.listen_unix.empty()) RemoveStaleSocket(line.listen_unix);
  return kExitOk;
}

absl::StatusOr<std::unique_ptr<profdiff::agent::LogDirAgent>> StartWatcher(
    const AgentCommandLine& line, const std::string& state_dir,
    const std::string& hostname, const std::string& agent_id,
    const profdiff::rpc::ChannelSecurity& security) {
  profdiff::agent::LogDirAgentOptions options;
  options.aggregator = line.aggregator;
  options.logdir = line.logdir;
  options.state_dir = state_dir;
  options.files = FileOptions(line, hostname);
  options.upload = UploadOptions(line, agent_id, security);
  options.watch.settle = line.settle;
  options.watch.give_up_after = line.give_up_after;
  options.watch.rescan_interval = line.rescan_interval;
  return profdiff::agent::LogDirAgent::Start(std::move(options));
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  absl::StatusOr<AgentCommandLine> line =
      profdiff::agent::ParseAgentCommandLine(args);
  if (!line.ok()) {
    Fail(kExitUsage, line.status().message());
    std::fputs(profdiff::agent::AgentUsage().c_str(), stderr);
    return kExitUsage;
  }
  if (line->help) {
    std::fputs(profdiff::agent::AgentUsage().c_str(), stdout);
    return kExitOk;
  }
  profdiff::base::SetLogVerbosity(line->verbosity);
  if (const std::string rank = EnvOrEmpty("RANK"); !rank.empty()) {
    PD_LOG(INFO,
           "environment RANK=%s is the rank of traces without distributedInfo",
           rank);
  }
  std::string state_dir = line->state_dir;
  if (state_dir.empty()) {
    state_dir = profdiff::agent::DefaultAgentStateDir(
        EnvOrEmpty("XDG_STATE_HOME"), EnvOrEmpty("HOME"));
    if (state_dir.empty())
      return Fail(kExitUsage,
                  "no --state-dir, and neither XDG_STATE_HOME nor HOME is set");
  }
  absl::StatusOr<profdiff::rpc::ChannelSecurity> security =
      profdiff::rpc::ChannelSecurity::Load(
          profdiff::rpc::WithEnvironmentDefaults(
              {.tls_ca_file = line->tls_ca_file,
               .tls_cert_file = line->tls_cert_file,
               .tls_key_file = line->tls_key_file,
               .token_file = line->auth_token_file,
               .tls = line->tls}));
  if (!security.ok()) return Fail(kExitUsage, security.status().message());
  const std::string hostname = profdiff::base::LocalHostname();
  const std::string agent_id =
      line->agent_id.empty() ? hostname : line->agent_id;
  return line->mode == profdiff::agent::AgentMode::kUpload
             ? RunUpload(*line, state_dir, hostname, agent_id, *security)
             : RunWatch(*line, state_dir, hostname, agent_id, *security);
}
