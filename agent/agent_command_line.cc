#include "agent/agent_command_line.h"

#include <array>
#include <cstdlib>
#include <string_view>

#include "agent/agent_state_store.h"
#include "agent/span_identity.h"
#include "base/command_line.h"
#include "base/hostname.h"
#include "base/id_rules.h"
#include "base/status_annotate.h"
#include "base/str_cat.h"
#include "rpc/security_flags.h"

namespace profdiff::agent {
namespace {

// Largest --chunk-events: the aggregator's EventBatchLimits::max_events.
constexpr int64_t kMaxChunkEvents = 1 << 20;
constexpr int64_t kMaxWindowChunks = 1024;
constexpr int64_t kMaxVerbosity = 10;
// Largest --parallel: the aggregator's default --max-streams-per-agent (a
// stream past it is refused and retried, so more would only wait).
constexpr int64_t kMaxParallelUploads = 64;

constexpr rpc::ChannelSecurityFlagSpec kSecurityFlags =
    rpc::ClientSecurityFlags("the aggregator");

// Flags that mean something in one mode only.
constexpr std::array<std::string_view, 8> kWatchOnlyFlags = {
    "logdir",        "listen-unix",     "relay-group",   "settle",
    "give-up-after", "rescan-interval", "kineto-daemon", "kineto-daemon-name"};
constexpr std::array<std::string_view, 3> kUploadOnlyFlags = {
    "timeout", "parallel", "parallel-bytes"};

constexpr char kSynopsis[] =
    R"(usage: profdiff-agent --aggregator HOST:PORT [--logdir DIR [--kineto-daemon]] [--listen-unix PATH] [options]
       profdiff-agent upload --aggregator HOST:PORT [--run ID] [--timeout D] [--parallel N] [options] FILE...

Watch mode: watches DIR recursively for PyTorch profiler traces (*.pt.trace.json[.gz], *.json[.gz]),
uploads each complete file once as a span, and keeps its progress in the state dir so that a
restart never uploads an acknowledged span again and resumes a partial one. Stop with SIGINT/SIGTERM.
upload: uploads the given files once, up to --parallel at once (one stream each) while they are
at most --parallel-bytes on disk together, retrying while the aggregator is away for up to
--timeout in all; exits 0 when every span was acknowledged, 1 otherwise, 2 on usage errors.
Flag names may be written with '-' or '_' (--state-dir = --state_dir).

)";

base::FlagSet FlagsOf(AgentCommandLine& line) {
  using base::DurationRule;
  base::FlagSet flags;
  AgentOptions& options = line.options;
  flags.AddString("aggregator", &options.aggregator, "HOST:PORT",
                  "the profdiff-aggregator (required)");
  flags.AddString("logdir", &options.logdir, "DIR",
                  "folder to watch (watch mode)");
  flags.AddString("listen-unix", &options.listen_unix, "PATH",
                  "serve the node's CUPTI injection libraries "
                  "(libprofdiff_cupti.so) on this unix socket and relay their "
                  "spans to the aggregator; with --logdir or alone (one of the "
                  "two is required). The socket is mode 0600: only the "
                  "agent's user and root may connect, unless --relay-group");
  flags.AddString("relay-group", &options.relay_group, "GROUP",
                  "let members of GROUP (a name or gid) connect to the "
                  "--listen-unix socket too (mode 0660, that group): the "
                  "training users whose CUPTI libraries send spans");
  flags.AddBool("kineto-daemon", &line.kineto_daemon,
                "serve Kineto's daemon protocol (dynolog's IPC fabric) so "
                "PyTorch processes started with KINETO_USE_DAEMON=1 and "
                "KINETO_ONDEMAND_TRACE_DIR=DIR can be captured on demand "
                "(profdiff capture); needs --logdir; $KINETO_IPC_SOCKET_DIR "
                "as kineto reads it");
  flags.AddString("kineto-daemon-name", &line.kineto_daemon_name, "NAME",
                  "the fabric endpoint kineto sends to");
  flags.AddString("run", &options.files.identity.run_flag, "ID",
                  "run id (captures: their folder's); default "
                  "$TORCHELASTIC_RUN_ID, else the sub-folder "
                  "of DIR the file is in (upload: the file's folder), else "
                  "DIR's name");
  flags.AddString("state-dir", &options.state_dir, "DIR",
                  "default $XDG_STATE_HOME/profdiff-agent or "
                  "~/.local/state/profdiff-agent");
  flags.AddString("agent-id", &options.upload.agent_id, "ID",
                  "sent with each upload (default: the hostname)");
  rpc::AddChannelSecurityFlags(flags, kSecurityFlags, &line.security);
  flags.AddDuration("settle", &options.watch.settle, "D",
                    "a file is complete when unchanged this long and readable",
                    DurationRule::kNonNegative);
  flags.AddDuration("give-up-after", &options.watch.give_up_after, "D",
                    "an unchanged file that stays unreadable this long fails",
                    DurationRule::kNonNegative);
  flags.AddDuration(
      "rescan-interval", &options.watch.rescan_interval, "D",
      "full rescan of DIR, for file systems without inotify events",
      DurationRule::kPositive);
  flags.AddDuration("timeout", &options.upload_timeout, "D",
                    "upload mode: total time, retries included",
                    DurationRule::kPositive);
  flags.AddInt("parallel", &options.upload_parallel, "N",
               "upload mode: files uploaded at once, each on its own stream "
               "and held in memory while it uploads (1: one after another)",
               {.min = 1, .max = kMaxParallelUploads});
  flags.AddUint64("parallel-bytes", &options.upload_parallel_bytes, "BYTES",
                  "upload mode: bytes on disk of the files uploaded at once "
                  "(a larger file goes alone; 0: no bound)");
  flags.AddDuration("rpc-timeout", &options.upload.stream_timeout, "D",
                    "deadline of one upload stream; a longer span resumes in "
                    "a new one",
                    DurationRule::kPositive);
  flags.AddDuration("backoff-initial", &options.upload.backoff.initial_delay,
                    "D",
                    "first reconnect delay ceiling; doubles per failure, full "
                    "jitter",
                    DurationRule::kPositive);
  flags.AddDuration("backoff-max", &options.upload.backoff.max_delay, "D",
                    "reconnect delay ceiling cap", DurationRule::kPositive);
  flags.AddInt("window", &options.upload.window_chunks, "N",
               "unacknowledged chunks in flight",
               {.min = 1, .max = kMaxWindowChunks});
  flags.AddInt("chunk-events", &options.files.chunk_events, "N",
               "events per chunk, before the 4 MiB bound",
               {.min = 1, .max = kMaxChunkEvents});
  flags.AddInt("v", &line.verbosity, "N", "log verbosity",
               {.min = 0, .max = kMaxVerbosity});
  return flags;
}

std::string EnvOrEmpty(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? std::string() : std::string(value);
}

}  // namespace

absl::StatusOr<AgentCommandLine> ParseAgentCommandLine(
    const std::vector<std::string>& args) {
  AgentCommandLine line;
  std::vector<std::string> rest = args;
  if (!rest.empty() && rest.front() == "upload") {
    line.mode = AgentMode::kUpload;
    rest.erase(rest.begin());
  }
  base::FlagSet flags = FlagsOf(line);
  absl::StatusOr<base::ParsedCommandLine> parsed = flags.Parse(rest);
  if (!parsed.ok()) return parsed.status();
  if (parsed->help || parsed->version) {
    line.help = parsed->help;
    line.version = parsed->version;
    return line;
  }
  for (const std::string_view flag : kWatchOnlyFlags) {
    if (line.mode == AgentMode::kUpload && parsed->Given(flag)) {
      return absl::InvalidArgumentError(
          base::StrCat("--", flag, " applies only to the watch mode"));
    }
  }
  for (const std::string_view flag : kUploadOnlyFlags) {
    if (line.mode == AgentMode::kWatch && parsed->Given(flag)) {
      return absl::InvalidArgumentError(
          base::StrCat("--", flag, " applies only to 'upload'"));
    }
  }
  if (line.mode == AgentMode::kWatch && !parsed->positionals.empty()) {
    return absl::InvalidArgumentError(base::StrCat(
        "unexpected argument ", base::QuoteBytes(parsed->positionals.front()),
        " (files are given to 'profdiff-agent upload')"));
  }
  line.files = std::move(parsed->positionals);
  const AgentOptions& options = line.options;
  if (options.aggregator.empty())
    return absl::InvalidArgumentError("--aggregator HOST:PORT is required");
  if (line.mode == AgentMode::kWatch && options.logdir.empty() &&
      options.listen_unix.empty()) {
    return absl::InvalidArgumentError(
        "--logdir DIR or --listen-unix PATH is required");
  }
  if (line.kineto_daemon && options.logdir.empty()) {
    return absl::InvalidArgumentError(
        "--kineto-daemon needs --logdir DIR: captures are written there");
  }
  if (line.mode == AgentMode::kUpload && line.files.empty())
    return absl::InvalidArgumentError("upload: at least one FILE is required");
  const std::string& run = options.files.identity.run_flag;
  if (!run.empty() && !base::IsValidId(run)) {
    return absl::InvalidArgumentError(
        base::StrCat("--run=", base::QuoteBytes(run),
                     ": expected an id matching [A-Za-z0-9._-]{1,128}"));
  }
  if (options.upload.backoff.max_delay < options.upload.backoff.initial_delay) {
    return absl::InvalidArgumentError(
        "--backoff-max must not be below --backoff-initial");
  }
  return line;
}

std::string AgentUsage() {
  AgentCommandLine defaults;
  return base::StrCat(kSynopsis, FlagsOf(defaults).Usage(),
                      "Durations: 2s, 150ms, 5m, 1h.\n");
}

absl::StatusOr<AgentOptions> ResolveAgentOptions(const AgentCommandLine& line) {
  AgentOptions options = line.options;
  if (options.state_dir.empty()) {
    options.state_dir =
        DefaultAgentStateDir(EnvOrEmpty("XDG_STATE_HOME"), EnvOrEmpty("HOME"));
    if (options.state_dir.empty()) {
      return absl::InvalidArgumentError(
          "no --state-dir, and neither XDG_STATE_HOME nor HOME is set");
    }
  }
  absl::StatusOr<rpc::ChannelSecurity> security =
      rpc::LoadChannelSecurity(kSecurityFlags, line.security);
  if (!security.ok()) return security.status();
  options.upload.security = *std::move(security);
  options.files.hostname = base::LocalHostname();
  if (options.upload.agent_id.empty())
    options.upload.agent_id = options.files.hostname;
  options.files.identity =
      IdentitySourcesFromEnvironment(options.files.identity.run_flag);
  if (line.kineto_daemon) {
    options.kineto_daemon = line.kineto_daemon_name;
    options.kineto_socket_dir = EnvOrEmpty("KINETO_IPC_SOCKET_DIR");
  }
  return options;
}

}  // namespace profdiff::agent
