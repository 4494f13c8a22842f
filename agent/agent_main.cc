// profdiff-agent: uploads PyTorch profiler traces from a watched log dir (or
// given files) to the profdiff aggregator. Parses flags, builds an Agent (or
// uploads the given files), runs it and maps the outcome to an exit code
// (STYLE.md §1).
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include <absl/strings/string_view.h>

#include "agent/agent.h"
#include "agent/agent_command_line.h"
#include "agent/span_identity.h"
#include "base/hostname.h"
#include "base/log.h"
#include "base/termination_signals.h"
#include "rpc/credentials.h"

namespace {

using profdiff::agent::AgentCommandLine;
using profdiff::agent::AgentOptions;

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

// The options the command line asks for, with the defaults that come from the
// environment (state dir, hostname, agent id, credentials' files).
absl::StatusOr<AgentOptions> OptionsOf(const AgentCommandLine& line) {
  AgentOptions options;
  options.aggregator = line.aggregator;
  options.logdir = line.logdir;
  options.listen_unix = line.listen_unix;
  options.state_dir = line.state_dir;
  if (options.state_dir.empty()) {
    options.state_dir = profdiff::agent::DefaultAgentStateDir(
        EnvOrEmpty("XDG_STATE_HOME"), EnvOrEmpty("HOME"));
    if (options.state_dir.empty()) {
      return absl::InvalidArgumentError(
          "no --state-dir, and neither XDG_STATE_HOME nor HOME is set");
    }
  }
  absl::StatusOr<profdiff::rpc::ChannelSecurity> security =
      profdiff::rpc::ChannelSecurity::Load(
          profdiff::rpc::WithEnvironmentDefaults(
              {.tls_ca_file = line.tls_ca_file,
               .tls_cert_file = line.tls_cert_file,
               .tls_key_file = line.tls_key_file,
               .token_file = line.auth_token_file,
               .tls = line.tls}));
  if (!security.ok()) return security.status();
  const std::string hostname = profdiff::base::LocalHostname();
  options.files.identity =
      profdiff::agent::IdentitySourcesFromEnvironment(line.run);
  options.files.hostname = hostname;
  options.files.chunk_events = line.chunk_events;
  options.upload.agent_id = line.agent_id.empty() ? hostname : line.agent_id;
  options.upload.security = *std::move(security);
  options.upload.window_chunks = line.window;
  options.upload.stream_timeout = line.rpc_timeout;
  options.upload.backoff.initial_delay = line.backoff_initial;
  options.upload.backoff.max_delay = line.backoff_max;
  options.watch.settle = line.settle;
  options.watch.give_up_after = line.give_up_after;
  options.watch.rescan_interval = line.rescan_interval;
  options.upload_timeout = line.timeout;
  return options;
}

int RunUpload(const AgentCommandLine& line) {
  absl::StatusOr<AgentOptions> options = OptionsOf(line);
  if (!options.ok()) return Fail(kExitUsage, options.status().message());
  absl::StatusOr<std::vector<std::string>> failed =
      profdiff::agent::UploadTraceFiles(*options, line.files);
  if (!failed.ok()) return Fail(kExitFailed, failed.status().message());
  for (const std::string& file : *failed)
    PD_LOG(ERROR, "span not acknowledged path=%s", file);
  PD_LOG(INFO, "upload finished files=%d acknowledged=%d failed=%d",
         line.files.size(), line.files.size() - failed->size(), failed->size());
  return failed->empty() ? kExitOk : kExitFailed;
}

int RunWatch(const AgentCommandLine& line) {
  const profdiff::base::TerminationSignals signals;  // before any thread starts
  absl::StatusOr<AgentOptions> options = OptionsOf(line);
  if (!options.ok()) return Fail(kExitUsage, options.status().message());
  absl::StatusOr<std::unique_ptr<profdiff::agent::Agent>> agent =
      profdiff::agent::Agent::Start(*std::move(options));
  if (!agent.ok()) return Fail(kExitFailed, agent.status().message());
  PD_LOG(INFO, "stopping signal=%d", signals.Wait());
  (*agent)->Stop();
  return kExitOk;
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
  return line->mode == profdiff::agent::AgentMode::kUpload ? RunUpload(*line)
                                                           : RunWatch(*line);
}
