// The command line of profdiff-agent: the watch mode (`--aggregator --logdir`)
// and the one-shot `upload FILE...` mode. Parsed with base::FlagSet straight
// into AgentOptions' fields, so the defaults are AgentOptions' own, and
// testable without global flag objects.
#ifndef PROFDIFF_AGENT_AGENT_COMMAND_LINE_H_
#define PROFDIFF_AGENT_AGENT_COMMAND_LINE_H_

#include <string>
#include <vector>

#include <absl/status/statusor.h>

#include "agent/agent.h"
#include "rpc/credentials.h"

namespace profdiff::agent {

enum class AgentMode { kWatch, kUpload };

// Every flag of both modes. Flags without a field here set `options`:
// --aggregator, --logdir, --listen-unix, --state-dir, --run
// (files.identity.run_flag), --agent-id (upload.agent_id), --settle,
// --give-up-after, --rescan-interval (watch), --timeout (upload_timeout),
// --parallel (upload_parallel), --parallel-bytes (upload_parallel_bytes),
// --rpc-timeout (upload.stream_timeout),
// --backoff-initial, --backoff-max (upload.backoff), --window
// (upload.window_chunks), --chunk-events (files.chunk_events).
struct AgentCommandLine {
  AgentMode mode = AgentMode::kWatch;
  bool help = false;     // --help / -h: print AgentUsage() and exit 0
  bool version = false;  // --version: print the version line and exit 0
  AgentOptions options;
  // --tls, --tls-ca-file, --tls-cert-file, --tls-key-file, --auth-token-file
  // (rpc::ClientSecurityFlags; empty ones from $PROFDIFF_*).
  rpc::ChannelSecurityFiles security;
  int verbosity = 0;                           // --v
  bool kineto_daemon = false;                  // --kineto-daemon
  std::string kineto_daemon_name = "dynolog";  // --kineto-daemon-name
  std::vector<std::string> files;              // upload mode's FILE...
};

// Parses `args` (without the program name): "upload" first selects the upload
// mode; flags as base::FlagSet takes them ("--state-dir DIR",
// "--state_dir=DIR"), durations as absl::ParseDuration does ("2s", "150ms").
// InvalidArgument naming the flag for an unknown flag, a missing, malformed or
// out-of-range value, a flag of the other mode, an invalid --run, or a missing
// required flag or FILE.
absl::StatusOr<AgentCommandLine> ParseAgentCommandLine(
    const std::vector<std::string>& args);

// The usage text of both modes: synopsis, then every flag with its default.
std::string AgentUsage();

// `line.options` completed from the environment: the state dir
// ($XDG_STATE_HOME, $HOME) when --state-dir is not given, the hostname, the
// agent id (default: the hostname), the run id sources ($TORCHELASTIC_RUN_ID,
// $RANK) and the credentials (rpc::LoadChannelSecurity). InvalidArgument when
// no state dir can be found or a credential file is unusable.
absl::StatusOr<AgentOptions> ResolveAgentOptions(const AgentCommandLine& line);

}  // namespace profdiff::agent

#endif  // PROFDIFF_AGENT_AGENT_COMMAND_LINE_H_
