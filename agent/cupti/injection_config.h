// The injection library's settings, all from the environment of the process it
// is injected into (there is no command line): a pure function of an
// environment lookup, so every variable and its errors are unit-tested.
//
// Variables (defaults in brackets):
//   PROFDIFF_AGENT_SOCKET  the node's profdiff-agent
//   [/run/profdiff/agent.sock];
//                          when given, it wins over the next
//   PROFDIFF_INJECTION_AGGREGATOR  HOST:PORT: send to an aggregator directly
//                          instead (PROFDIFF_AGGREGATOR, the agents' and
//                          tools' address in the quick start's env file, is
//                          not read: it must not change an injected process's
//                          path)
//   PROFDIFF_CAPTURE       always | on-demand | seconds:D | seconds:S-E |
//                          steps:N | steps:A-B [always]; on-demand waits for
//                          the agent's orders (`profdiff capture`)
//   PROFDIFF_RUN_ID        the run, else TORCHELASTIC_RUN_ID, else
//                          "cupti-<hostname>-<pid>"
//   TORCHELASTIC_RUN_ID, SLURM_JOB_ID  the job on-demand captures match ["0"]
//   RANK, WORLD_SIZE       the worker's rank [0] and the run's world size [1]
//   PROFDIFF_BUFFER_EVENTS events held while the agent is away before new
//                          ones drop [2000000]
//   PROFDIFF_CUPTI_BUFFERS CUPTI activity buffers in the pool [32]
//   PROFDIFF_CUPTI_BUFFER_KB  size of each [4096]
//   PROFDIFF_FLUSH_MS      period of cuptiActivityFlushAll [1000]
//   PROFDIFF_SPAN_SECONDS  "always" captures are cut into spans this long [60]
//   PROFDIFF_EXIT_TIMEOUT_SECONDS  how long exit waits for spans to be
//                          acknowledged [30]
//   PROFDIFF_LOG_V         log verbosity [0]
//   PROFDIFF_TLS_*, PROFDIFF_TOKEN_FILE  as for every profdiff client
//                          (rpc/credentials.h)
#ifndef PROFDIFF_AGENT_CUPTI_INJECTION_CONFIG_H_
#define PROFDIFF_AGENT_CUPTI_INJECTION_CONFIG_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include <absl/status/statusor.h>
#include <absl/time/time.h>

#include "agent/cupti/capture_window.h"
#include "rpc/credentials.h"

namespace profdiff::agent::cupti {

inline constexpr std::string_view kDefaultAgentSocket =
    "/run/profdiff/agent.sock";

struct InjectionConfig {
  std::string target;  // gRPC target: "unix:/path" or "HOST:PORT"
  // Why the path is not what one variable asked for (logged at start); empty
  // when nothing was overridden.
  std::string path_note;
  CaptureSpec capture;
  std::string run;
  // TORCHELASTIC_RUN_ID, else SLURM_JOB_ID, else "0": what on-demand captures
  // (`profdiff capture --job`) match.
  std::string job = "0";
  std::string
      worker_name;  // "<hostname>_<pid>", as Kineto names its trace files
  int32_t rank = 0;
  int32_t world_size = 1;
  int64_t max_buffered_events = 2'000'000;
  size_t activity_buffers = 32;
  size_t activity_buffer_bytes = 4 << 20;
  absl::Duration flush_period = absl::Seconds(1);
  absl::Duration span_period = absl::Seconds(60);
  absl::Duration exit_timeout = absl::Seconds(30);
  int log_verbosity = 0;
  rpc::ChannelSecurityFiles security;
};

// Returns the value of an environment variable, nullopt when unset.
using EnvironmentLookup =
    std::function<std::optional<std::string>(std::string_view)>;

// The configuration of a process on `hostname` with `pid`. InvalidArgument
// naming the variable, its value and what was expected, for a malformed or
// out-of-range value or an invalid run id ([A-Za-z0-9._-]{1,128}).
absl::StatusOr<InjectionConfig> InjectionConfigFromEnvironment(
    const EnvironmentLookup& env, std::string_view hostname, int64_t pid);

}  // namespace profdiff::agent::cupti

#endif  // PROFDIFF_AGENT_CUPTI_INJECTION_CONFIG_H_
