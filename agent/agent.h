// profdiff-agent assembled: the watch mode (a LogDirAgent on the log dir and a
// CollectorRelay on the node's unix socket) and the one-shot upload of given
// files. The binary and the tests run these same objects.
//
// Design:
// 1. One AgentOptions holds every setting with its default (the flags bind to
//    its fields): the uploads, the watcher and the relay read the same
//    aggregator, credentials, agent id and backoff.
// 2. Watch mode: the relay (with the libraries' own Control streams,
//    injected_processes.h) and the Kineto daemon start before the watcher, so
//    CUPTI injection libraries and PyTorch processes can connect while the
//    watcher's first scan runs; then the Control stream to the aggregator
//    opens (control_channel.h), carrying capture orders to the daemon and the
//    libraries (capture_orders.h). Stop() closes the Control stream, ends the
//    watcher (an upload in flight resumes on the next start), stops the daemon,
//    then gives open relay streams a grace period (their libraries resume
//    elsewhere).
// 3. Upload mode: up to `upload_parallel` files at once (and
//    `upload_parallel_bytes` of them on disk: upload_queue.h), each on its own
//    worker (its own TraceFileUploader, SpanUploader and KinetoReader, so one
//    Upload stream per worker) taking files from one queue; every file's
//    retries are bounded by one deadline. Concurrent streams let the
//    aggregator batch the chunks of several spans into one insert (the
//    ClickHouse store's group commit per shard); one stream at a time leaves
//    it doing tiny ones. A path given twice goes to one worker, in turn: one
//    state record is never written by two threads.
#ifndef PROFDIFF_AGENT_AGENT_H_
#define PROFDIFF_AGENT_AGENT_H_

#include <memory>
#include <string>
#include <vector>

#include <absl/status/statusor.h>
#include <absl/time/time.h>

#include "agent/log_dir_watcher.h"
#include "agent/span_uploader.h"
#include "agent/trace_file_uploader.h"

namespace profdiff::agent {

struct AgentOptions {
  std::string aggregator;   // HOST:PORT of the profdiff-aggregator
  std::string logdir;       // watch mode: the folder watched; empty: none
  std::string listen_unix;  // watch mode: the relay's unix socket; empty: none
  // The group whose members may connect to the relay socket besides the
  // agent's user and root (a name or a gid); empty: nobody else.
  std::string relay_group;
  // Watch mode: serve Kineto's daemon protocol on this fabric endpoint
  // ("dynolog"); empty: none. Needs `logdir`, where captures land.
  std::string kineto_daemon;
  std::string kineto_socket_dir;  // KINETO_IPC_SOCKET_DIR; empty: abstract
  // The Control stream's timing (its aggregator, security and backoff are the
  // uploads').
  absl::Duration control_status_interval = absl::Seconds(1);
  absl::Duration control_heartbeat = absl::Seconds(5);
  std::string state_dir;  // the AgentStateStore's folder
  // Identity sources, hostname, chunking; `logdir` and `aggregator` are set
  // from the fields above.
  TraceFileUploaderOptions files;
  // Agent id, credentials, window, stream deadline, backoff: also the relay's
  // agent id, credentials and backoff. `deadline` is set in upload mode.
  SpanUploaderOptions upload;
  LogDirWatcherOptions watch;  // settle, give-up and rescan times
  // Upload mode: every file's upload and retries together.
  absl::Duration upload_timeout = absl::Minutes(5);
  // Upload mode: files uploaded at once, each on its own stream, >= 1 (1: one
  // after another), while their bytes on disk together are at most
  // upload_parallel_bytes (0: no bound; a larger file goes alone): each file
  // in flight is held in memory while it uploads. Sixteen small rank traces
  // at once let the aggregator batch their spans' lookups and inserts; a few
  // large traces still fit in memory.
  int upload_parallel = 16;
  uint64_t upload_parallel_bytes = uint64_t{256} << 20;
};

// The watch mode, running. Stop() or the destructor ends it.
class Agent {
 public:
  // Serves the relay on options.listen_unix (removing a socket an earlier
  // agent left behind) when set, and watches options.logdir (made absolute
  // once, for every part that uses it) when set (design note 2). Errors:
  // InvalidArgument when neither is set; Unavailable when the socket cannot
  // be bound; NotFound for an unknown relay group; LogDirAgent::Start's and
  // ArmedCaptures::Open's (the state dir, the log dir).
  static absl::StatusOr<std::unique_ptr<Agent>> Start(AgentOptions options);
  ~Agent();

  // Stops as design note 2 says and removes the socket; later calls do
  // nothing. Call from the owner's thread.
  void Stop();

 private:
  struct Parts;

 public:
  // Use Start(); `Parts` cannot be named outside.
  explicit Agent(std::unique_ptr<Parts> parts);

 private:
  std::unique_ptr<Parts> parts_;
};

// The upload mode: uploads each of `paths` once as a span, up to
// options.upload_parallel at once (design note 3), retrying while the
// aggregator is away until options.upload_timeout from now (one deadline for
// all); each file's outcome is logged (as it finishes) and kept in the state
// dir, so a later call resumes a span that was cut short. Returns the paths
// whose span the aggregator did not acknowledge, in the order given. Errors:
// AgentStateStore::Open's for the state dir.
absl::StatusOr<std::vector<std::string>> UploadTraceFiles(
    const AgentOptions& options, const std::vector<std::string>& paths);

}  // namespace profdiff::agent

#endif  // PROFDIFF_AGENT_AGENT_H_
