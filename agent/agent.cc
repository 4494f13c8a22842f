#include "agent/agent.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <stop_token>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include <absl/base/thread_annotations.h>
#include <absl/synchronization/mutex.h>

#include "agent/absolute_folder.h"
#include "agent/agent_state_store.h"
#include "agent/armed_captures.h"
#include "agent/capture_orders.h"
#include "agent/collector_relay.h"
#include "agent/control_channel.h"
#include "agent/injected_processes.h"
#include "agent/kineto_daemon.h"
#include "agent/log_dir_agent.h"
#include "agent/relay_socket_server.h"
#include "agent/trace_reader_pool.h"
#include "agent/upload_queue.h"
#include "base/log.h"
#include "base/status_macros.h"
#include "trace/kineto_reader.h"

namespace profdiff::agent {
namespace {

// How long open relay streams may go on once the agent stops.
constexpr absl::Duration kRelayShutdownGrace = absl::Seconds(5);

}  // namespace

struct Agent::Parts {
  ~Parts() { Stop(); }

  void Stop() {
    if (stopped) return;
    stopped = true;
    if (control != nullptr) control->Stop();
    if (watcher != nullptr) watcher->Stop();
    if (kineto != nullptr) kineto->Stop();
    // The libraries' Control streams never end by themselves.
    if (injected != nullptr) injected->Stop();
    if (relay_socket != nullptr) {
      relay_socket->Shutdown(absl::Now() + kRelayShutdownGrace);
      relay_socket.reset();  // its server before the services it serves
    }
  }

  bool stopped = false;
  std::unique_ptr<ArmedCaptures> armed;
  std::unique_ptr<RelaySocketServer> relay_socket;  // PeerOf for the two below
  std::unique_ptr<CollectorRelay> relay;
  std::unique_ptr<InjectedProcesses> injected;
  std::unique_ptr<LogDirAgent> watcher;
  std::unique_ptr<KinetoDaemon> kineto;
  std::unique_ptr<CaptureOrders> orders;    // uses `kineto` and `injected`
  std::unique_ptr<ControlChannel> control;  // uses `orders`
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
  if (!options.kineto_daemon.empty() && options.logdir.empty()) {
    return absl::InvalidArgumentError(
        "the Kineto daemon needs --logdir: captures are written there");
  }
  // One spelling of the log dir for the watcher, the daemon's configs and
  // the capture checks: kineto writes where the config says, relative to its
  // own working directory.
  if (!options.logdir.empty()) {
    PD_ASSIGN_OR_RETURN(options.logdir, AbsoluteFolder(options.logdir));
  }
  auto parts = std::make_unique<Parts>();
  PD_ASSIGN_OR_RETURN(parts->armed,
                      ArmedCaptures::Open(options.state_dir, absl::Now()));
  if (!options.listen_unix.empty()) {
    RelaySocketOptions socket{.path = options.listen_unix};
    if (!options.relay_group.empty()) {
      PD_ASSIGN_OR_RETURN(socket.group, GroupId(options.relay_group));
    }
    PD_ASSIGN_OR_RETURN(parts->relay_socket, RelaySocketServer::Bind(socket));
    RelaySocketServer* relay_socket = parts->relay_socket.get();
    const PeerLookup peers = [relay_socket](const grpc::ServerContextBase& c) {
      return relay_socket->PeerOf(c);
    };
    parts->relay = std::make_unique<CollectorRelay>(
        options.aggregator, options.upload.security, options.upload.agent_id,
        options.upload.backoff, peers);
    parts->injected = std::make_unique<InjectedProcesses>(peers);
    PD_RETURN_IF_ERROR(
        relay_socket->Serve({parts->relay.get(), parts->injected.get()}));
    PD_LOG(INFO, "relaying CUPTI spans socket=%s group=%s aggregator=%s",
           options.listen_unix,
           options.relay_group.empty() ? "(none)" : options.relay_group,
           options.aggregator);
  }
  if (!options.kineto_daemon.empty()) {
    PD_ASSIGN_OR_RETURN(parts->kineto,
                        KinetoDaemon::Start({
                            .name = options.kineto_daemon,
                            .socket_dir = options.kineto_socket_dir,
                            .logdir = options.logdir,
                            .armed = parts->armed.get(),
                        }));
  }
  // Copied before `options` is moved into the watcher.
  const std::string aggregator = options.aggregator;
  const v1::AgentStatus identity = [&] {
    v1::AgentStatus status;
    status.set_agent_id(options.upload.agent_id);
    status.set_node(options.files.hostname);
    status.set_kineto_daemon(!options.kineto_daemon.empty());
    status.set_cupti_relay(!options.listen_unix.empty());
    return status;
  }();
  ControlChannelOptions control{
      .aggregator = aggregator,
      .security = options.upload.security,
      .backoff = options.upload.backoff,
      .status_interval = options.control_status_interval,
      .heartbeat = options.control_heartbeat,
  };
  if (!options.logdir.empty()) {
    PD_ASSIGN_OR_RETURN(parts->watcher, LogDirAgent::Start({
                                            .aggregator = options.aggregator,
                                            .logdir = options.logdir,
                                            .state_dir = options.state_dir,
                                            .files = std::move(options.files),
                                            .upload = std::move(options.upload),
                                            .watch = options.watch,
                                            .armed = parts->armed.get(),
                                        }));
  }
  parts->orders = std::make_unique<CaptureOrders>(
      parts->kineto.get(), parts->injected.get(), parts->armed.get());
  CaptureOrders* orders = parts->orders.get();
  parts->control = std::make_unique<ControlChannel>(
      std::move(control),
      [identity, orders] {
        v1::AgentStatus status = identity;
        for (v1::LocalProcess& process : orders->Processes()) {
          *status.add_processes() = std::move(process);
        }
        return status;
      },
      [orders](const v1::CaptureOrder& order) { return orders->Handle(order); },
      [orders](const v1::CaptureCancel& cancel) { orders->Cancel(cancel); });
  return std::make_unique<Agent>(std::move(parts));
}

absl::StatusOr<std::vector<std::string>> UploadTraceFiles(
    const AgentOptions& options, const std::vector<std::string>& paths) {
  PD_ASSIGN_OR_RETURN(const AgentStateStore store,
                      AgentStateStore::Open(options.state_dir));
  TraceFileUploaderOptions files = options.files;
  files.logdir.clear();  // each file's run falls back to its own folder
  files.aggregator = options.aggregator;
  SpanUploaderOptions upload = options.upload;
  // One deadline for the whole command, whichever worker a file goes to.
  upload.deadline = absl::Now() + options.upload_timeout;
  // Several streams at once, so the aggregator can batch the chunks of
  // several spans into one insert (design note 3).
  const size_t parallel =
      static_cast<size_t>(std::max(options.upload_parallel, 1));
  UploadQueue queue(paths, /*repeats_together=*/parallel > 1,
                    options.upload_parallel_bytes);
  const int workers = static_cast<int>(
      std::min(parallel, std::max<size_t>(queue.group_count(), 1)));
  // Each worker has its own uploader and stream (neither is thread-safe) and
  // its own copy of the store, which shares the folder's journal: records of
  // different paths are written independently. Reads share as many readers as
  // there are cores (trace_reader_pool.h).
  TraceReaderPool readers(std::min<size_t>(
      static_cast<size_t>(workers),
      std::max<unsigned>(std::thread::hardware_concurrency(), 1)));
  const auto read = [&readers](const std::string& path) {
    return readers.ReadFile(path);
  };
  const auto work = [&] {
    TraceFileUploader uploader(
        store, files,
        std::make_unique<SpanUploader>(options.aggregator, upload));
    // No stop is ever requested: SIGINT ends the process, and the state
    // (UPLOADING, fsync'd before the first chunk) lets the next run resume.
    const std::stop_token never_stopped;
    for (UploadQueue::Group group = queue.Next(); !group.indices.empty();
         group = queue.Next()) {
      for (const size_t index : group.indices) {
        queue.Record(
            index, uploader.UploadPath(paths[index], read, never_stopped).ok());
      }
      queue.Done(group);
    }
  };
  {
    // The calling thread is one of the workers: --parallel 1 starts no thread
    // and uploads the files one after another, in order.
    std::vector<std::jthread> others;
    others.reserve(static_cast<size_t>(workers - 1));
    for (int i = 1; i < workers; ++i) others.emplace_back(work);
    work();
  }  // joins the others
  return queue.Failed();
}

}  // namespace profdiff::agent
