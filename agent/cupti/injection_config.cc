#include "agent/cupti/injection_config.h"

#include "agent/span_identity.h"
#include "base/id_rules.h"
#include "base/parse_int.h"
#include "base/str_cat.h"

namespace profdiff::agent::cupti {
namespace {

// Reads integer variable `name` into `out` when set; InvalidArgument outside
// [min, max].
absl::Status ReadInt(const EnvironmentLookup& env, std::string_view name,
                     int64_t min, int64_t max, int64_t& out) {
  const std::optional<std::string> value = env(name);
  if (!value.has_value() || value->empty()) return absl::OkStatus();
  int64_t parsed = 0;
  if (!base::ParseInt64(*value, parsed) || parsed < min || parsed > max) {
    return absl::InvalidArgumentError(
        base::StrCat(name, "=\"", *value, "\": expected an integer in [", min,
                     ", ", max, "]"));
  }
  out = parsed;
  return absl::OkStatus();
}

std::string ValueOr(const EnvironmentLookup& env, std::string_view name,
                    std::string fallback) {
  std::optional<std::string> value = env(name);
  return value.has_value() && !value->empty() ? *std::move(value)
                                              : std::move(fallback);
}

}  // namespace

absl::StatusOr<InjectionConfig> InjectionConfigFromEnvironment(
    const EnvironmentLookup& env, std::string_view hostname, int64_t pid) {
  InjectionConfig config;
  // The path (docs/cupti.md "Where spans go"): an explicitly given agent
  // socket wins; else PROFDIFF_INJECTION_AGGREGATOR sends directly; else the
  // default socket. PROFDIFF_AGGREGATOR, which the quick start's env file
  // exports for agents and tools, is never read here: sourcing it must not
  // move an injected process off its path.
  const std::string socket = ValueOr(env, "PROFDIFF_AGENT_SOCKET", "");
  const std::string direct = ValueOr(env, "PROFDIFF_INJECTION_AGGREGATOR", "");
  std::string aggregator;
  if (!socket.empty()) {
    config.target = "unix:" + socket;
    if (!direct.empty()) {
      config.path_note = base::StrCat(
          "PROFDIFF_INJECTION_AGGREGATOR=", direct,
          " is ignored: PROFDIFF_AGENT_SOCKET is set, and the agent wins");
    }
  } else if (!direct.empty()) {
    aggregator = direct;
    config.target = direct;
  } else {
    config.target = "unix:" + std::string(kDefaultAgentSocket);
  }

  absl::StatusOr<CaptureSpec> capture =
      ParseCaptureSpec(ValueOr(env, "PROFDIFF_CAPTURE", ""));
  if (!capture.ok()) return capture.status();
  config.capture = *capture;
  if (config.capture.mode == CaptureMode::kOnDemand && !aggregator.empty()) {
    // Orders come from the node's agent; a library sending to an aggregator
    // directly has none.
    return absl::InvalidArgumentError(
        "PROFDIFF_CAPTURE=on-demand needs the node's profdiff-agent "
        "(PROFDIFF_AGENT_SOCKET); PROFDIFF_INJECTION_AGGREGATOR is set");
  }
  // The job the agent matches `profdiff capture --job` against, as for
  // Kineto's processes (docs/on-demand-capture.md).
  config.job =
      ValueOr(env, "TORCHELASTIC_RUN_ID", ValueOr(env, "SLURM_JOB_ID", "0"));

  const std::string host =
      SanitizeId(hostname.empty() ? "unknown-host" : hostname);
  config.worker_name = SanitizeId(base::StrCat(host, "_", pid));
  std::string run = ValueOr(env, "PROFDIFF_RUN_ID", "");
  std::string_view run_source = "PROFDIFF_RUN_ID";
  if (run.empty()) {
    run = ValueOr(env, "TORCHELASTIC_RUN_ID", "");
    run_source = "TORCHELASTIC_RUN_ID";
  }
  if (run.empty()) {
    run = SanitizeId(base::StrCat("cupti-", host, "-", pid));
  } else if (!base::IsValidId(run)) {
    return absl::InvalidArgumentError(base::StrCat(
        run_source, "=\"", run, "\": a run id is 1 to 128 of [A-Za-z0-9._-]"));
  }
  config.run = std::move(run);

  int64_t rank = 0, world_size = 1, buffered = config.max_buffered_events;
  int64_t buffers = static_cast<int64_t>(config.activity_buffers);
  int64_t buffer_kb = static_cast<int64_t>(config.activity_buffer_bytes >> 10);
  int64_t flush_ms = 1000, span_seconds = 60, exit_seconds = 30, verbosity = 0;
  for (absl::Status s : {
           ReadInt(env, "RANK", 0, INT32_MAX - 1, rank),
           ReadInt(env, "WORLD_SIZE", 1, INT32_MAX, world_size),
           ReadInt(env, "PROFDIFF_BUFFER_EVENTS", 0, int64_t{1} << 34,
                   buffered),
           // CUPTI asks for buffers of at least a few records; 1 GiB in all is
           // plenty.
           ReadInt(env, "PROFDIFF_CUPTI_BUFFERS", 1, 1024, buffers),
           ReadInt(env, "PROFDIFF_CUPTI_BUFFER_KB", 64, 1 << 20, buffer_kb),
           ReadInt(env, "PROFDIFF_FLUSH_MS", 10, 3'600'000, flush_ms),
           ReadInt(env, "PROFDIFF_SPAN_SECONDS", 1, 86'400, span_seconds),
           ReadInt(env, "PROFDIFF_EXIT_TIMEOUT_SECONDS", 0, 3'600,
                   exit_seconds),
           ReadInt(env, "PROFDIFF_LOG_V", 0, 9, verbosity),
       }) {
    if (!s.ok()) return s;
  }
  if (rank >= world_size) {
    return absl::InvalidArgumentError(
        base::StrCat("RANK=", rank, " is not below WORLD_SIZE=", world_size));
  }
  if (buffers * buffer_kb > (int64_t{1} << 20)) {
    return absl::InvalidArgumentError(base::StrCat(
        "PROFDIFF_CUPTI_BUFFERS=", buffers, " x PROFDIFF_CUPTI_BUFFER_KB=",
        buffer_kb, " is more than 1 GiB of activity buffers"));
  }
  config.rank = static_cast<int32_t>(rank);
  config.world_size = static_cast<int32_t>(world_size);
  config.max_buffered_events = buffered;
  config.activity_buffers = static_cast<size_t>(buffers);
  config.activity_buffer_bytes = static_cast<size_t>(buffer_kb) << 10;
  config.flush_period = absl::Milliseconds(flush_ms);
  config.span_period = absl::Seconds(span_seconds);
  config.exit_timeout = absl::Seconds(exit_seconds);
  config.log_verbosity = static_cast<int>(verbosity);
  config.security.tls_ca_file = ValueOr(env, "PROFDIFF_TLS_CA_FILE", "");
  config.security.tls_cert_file = ValueOr(env, "PROFDIFF_TLS_CERT_FILE", "");
  config.security.tls_key_file = ValueOr(env, "PROFDIFF_TLS_KEY_FILE", "");
  config.security.token_file = ValueOr(env, "PROFDIFF_TOKEN_FILE", "");
  return config;
}

}  // namespace profdiff::agent::cupti
