// The command line of profdiff-agent: the watch mode (`--aggregator --logdir`)
// and the one-shot `upload FILE...` mode, parsed without global flag objects so
// that it is testable.
#ifndef PROFDIFF_AGENT_AGENT_COMMAND_LINE_H_
#define PROFDIFF_AGENT_AGENT_COMMAND_LINE_H_

#include <cstdint>
#include <string>
#include <vector>

#include <absl/status/statusor.h>
#include <absl/time/time.h>

namespace profdiff::agent {

enum class AgentMode { kWatch, kUpload };

// Every flag of both modes, with its default.
struct AgentCommandLine {
  AgentMode mode = AgentMode::kWatch;
  bool help = false;          // --help / -h: print AgentUsage() and exit 0
  std::string aggregator;     // --aggregator HOST:PORT (required)
  std::string logdir;         // --logdir DIR (watch mode)
  std::string listen_unix;    // --listen-unix PATH (watch mode; this or logdir)
  std::string run;            // --run ID
  std::string state_dir;      // --state-dir DIR (default DefaultAgentStateDir)
  std::string agent_id;       // --agent-id ID (default the hostname)
  std::string tls_ca_file;    // --tls-ca-file (else $PROFDIFF_TLS_CA_FILE)
  std::string tls_cert_file;  // --tls-cert-file (else $PROFDIFF_TLS_CERT_FILE)
  std::string tls_key_file;   // --tls-key-file (else $PROFDIFF_TLS_KEY_FILE)
  std::string auth_token_file;  // --auth-token-file (else $PROFDIFF_TOKEN_FILE)
  bool tls = false;             // --tls: TLS with the system's CA roots
  absl::Duration settle = absl::Seconds(2);            // --settle
  absl::Duration give_up_after = absl::Seconds(60);    // --give-up-after
  absl::Duration rescan_interval = absl::Seconds(30);  // --rescan-interval
  absl::Duration timeout = absl::Minutes(5);  // --timeout (upload mode)
  absl::Duration rpc_timeout =
      absl::Minutes(5);  // --rpc-timeout: one Upload stream
  absl::Duration backoff_initial =
      absl::Milliseconds(100);                     // --backoff-initial
  absl::Duration backoff_max = absl::Seconds(10);  // --backoff-max
  int window = 8;                   // --window: unacknowledged chunks in flight
  uint32_t chunk_events = 1 << 16;  // --chunk-events
  int verbosity = 0;                // --v
  std::vector<std::string> files;   // upload mode's FILE...
};

// Parses `args` (without the program name): "upload" first selects the upload
// mode; flags are
// "--name value" or "--name=value"; durations as absl::ParseDuration takes them
// ("2s", "150ms"). InvalidArgument naming the flag for an unknown flag, a
// missing or malformed value, a value out of range, a flag of the other mode,
// or a missing required flag or FILE.
absl::StatusOr<AgentCommandLine> ParseAgentCommandLine(
    const std::vector<std::string>& args);

// The usage text of both modes.
std::string AgentUsage();

}  // namespace profdiff::agent

#endif  // PROFDIFF_AGENT_AGENT_COMMAND_LINE_H_
