#include "agent/agent_command_line.h"

#include <functional>
#include <limits>
#include <map>
#include <string_view>
#include <type_traits>

#include <absl/strings/numbers.h>

#include "agent/span_identity.h"
#include "base/id_rules.h"
#include "base/status_annotate.h"
#include "base/str_cat.h"

namespace profdiff::agent {
namespace {

// Largest --chunk-events: the aggregator's EventBatchLimits::max_events.
constexpr int64_t kMaxChunkEvents = 1 << 20;
constexpr int64_t kMaxWindowChunks = 1024;
constexpr int64_t kMaxVerbosity = 10;

enum class Modes { kBoth, kWatchOnly, kUploadOnly };

absl::Status BadValue(std::string_view flag, std::string_view value,
                      std::string_view expected) {
  return absl::InvalidArgumentError(base::StrCat(
      "--", flag, "=", base::QuoteBytes(value), ": expected ", expected));
}

absl::Status ParseDurationFlag(std::string_view flag, std::string_view value,
                               bool allow_zero, absl::Duration& out) {
  absl::Duration duration;
  if (!absl::ParseDuration(base::ToAbsl(value), &duration) ||
      duration < absl::ZeroDuration() ||
      (!allow_zero && duration == absl::ZeroDuration()) ||
      duration == absl::InfiniteDuration()) {
    return BadValue(flag, value,
                    allow_zero ? "a duration >= 0 such as 2s or 150ms"
                               : "a duration > 0 such as 2s or 150ms");
  }
  out = duration;
  return absl::OkStatus();
}

absl::Status ParseIntFlag(std::string_view flag, std::string_view value,
                          int64_t min, int64_t max, int64_t& out) {
  int64_t number = 0;
  if (!absl::SimpleAtoi(base::ToAbsl(value), &number) || number < min ||
      number > max) {
    return BadValue(flag, value,
                    base::StrCat("an integer in [", min, ", ", max, "]"));
  }
  out = number;
  return absl::OkStatus();
}

struct FlagSpec {
  Modes modes;
  std::function<absl::Status(std::string_view value, AgentCommandLine& line)>
      set;
};

std::map<std::string, FlagSpec, std::less<>> FlagSpecs() {
  auto text = [](std::string AgentCommandLine::*field) {
    return [field](std::string_view value, AgentCommandLine& line) {
      line.*field = std::string(value);
      return absl::OkStatus();
    };
  };
  auto duration = [](std::string_view flag,
                     absl::Duration AgentCommandLine::*field, bool allow_zero) {
    return [flag, field, allow_zero](std::string_view value,
                                     AgentCommandLine& line) {
      return ParseDurationFlag(flag, value, allow_zero, line.*field);
    };
  };
  // An integer flag in [low, high] stored into a field of any integer type.
  auto integer = [](std::string_view flag, auto AgentCommandLine::*field,
                    int64_t low, int64_t high) {
    return [flag, field, low, high](std::string_view value,
                                    AgentCommandLine& line) {
      int64_t n = 0;
      absl::Status status = ParseIntFlag(flag, value, low, high, n);
      line.*field =
          static_cast<std::remove_reference_t<decltype(line.*field)>>(n);
      return status;
    };
  };
  return {
      {"aggregator", {Modes::kBoth, text(&AgentCommandLine::aggregator)}},
      {"logdir", {Modes::kWatchOnly, text(&AgentCommandLine::logdir)}},
      {"listen-unix",
       {Modes::kWatchOnly, text(&AgentCommandLine::listen_unix)}},
      {"run", {Modes::kBoth, text(&AgentCommandLine::run)}},
      {"state-dir", {Modes::kBoth, text(&AgentCommandLine::state_dir)}},
      {"agent-id", {Modes::kBoth, text(&AgentCommandLine::agent_id)}},
      {"tls-ca-file", {Modes::kBoth, text(&AgentCommandLine::tls_ca_file)}},
      {"tls-cert-file", {Modes::kBoth, text(&AgentCommandLine::tls_cert_file)}},
      {"tls-key-file", {Modes::kBoth, text(&AgentCommandLine::tls_key_file)}},
      {"auth-token-file",
       {Modes::kBoth, text(&AgentCommandLine::auth_token_file)}},
      {"settle",
       {Modes::kWatchOnly,
        duration("settle", &AgentCommandLine::settle, true)}},
      {"give-up-after",
       {Modes::kWatchOnly,
        duration("give-up-after", &AgentCommandLine::give_up_after, true)}},
      {"rescan-interval",
       {Modes::kWatchOnly,
        duration("rescan-interval", &AgentCommandLine::rescan_interval,
                 false)}},
      {"timeout",
       {Modes::kUploadOnly,
        duration("timeout", &AgentCommandLine::timeout, false)}},
      {"rpc-timeout",
       {Modes::kBoth,
        duration("rpc-timeout", &AgentCommandLine::rpc_timeout, false)}},
      {"backoff-initial",
       {Modes::kBoth, duration("backoff-initial",
                               &AgentCommandLine::backoff_initial, false)}},
      {"backoff-max",
       {Modes::kBoth,
        duration("backoff-max", &AgentCommandLine::backoff_max, false)}},
      {"window",
       {Modes::kBoth,
        integer("window", &AgentCommandLine::window, 1, kMaxWindowChunks)}},
      {"chunk-events",
       {Modes::kBoth, integer("chunk-events", &AgentCommandLine::chunk_events,
                              1, kMaxChunkEvents)}},
      {"v",
       {Modes::kBoth,
        integer("v", &AgentCommandLine::verbosity, 0, kMaxVerbosity)}},
  };
}

}  // namespace

absl::StatusOr<AgentCommandLine> ParseAgentCommandLine(
    const std::vector<std::string>& args) {
  AgentCommandLine line;
  size_t i = 0;
  if (!args.empty() && args[0] == "upload") {
    line.mode = AgentMode::kUpload;
    i = 1;
  }
  const std::map<std::string, FlagSpec, std::less<>> specs = FlagSpecs();
  bool only_files = false;
  for (; i < args.size(); ++i) {
    const std::string_view arg = args[i];
    if (only_files || !arg.starts_with("-") || arg == "-") {
      if (line.mode != AgentMode::kUpload) {
        return absl::InvalidArgumentError(
            base::StrCat("unexpected argument ", base::QuoteBytes(arg),
                         " (files are given to 'profdiff-agent upload')"));
      }
      line.files.emplace_back(arg);
      continue;
    }
    if (arg == "--") {
      only_files = true;
      continue;
    }
    if (arg == "--help" || arg == "-h") {
      line.help = true;
      return line;
    }
    if (arg == "--tls") {  // the one flag without a value
      line.tls = true;
      continue;
    }
    std::string_view name = arg.substr(arg.starts_with("--") ? 2 : 1);
    std::string_view value;
    bool has_value = false;
    if (const size_t eq = name.find('='); eq != std::string_view::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
      has_value = true;
    }
    const auto spec = specs.find(name);
    if (spec == specs.end())
      return absl::InvalidArgumentError(base::StrCat("unknown flag --", name));
    if ((spec->second.modes == Modes::kWatchOnly &&
         line.mode != AgentMode::kWatch) ||
        (spec->second.modes == Modes::kUploadOnly &&
         line.mode != AgentMode::kUpload)) {
      return absl::InvalidArgumentError(base::StrCat(
          "--", name, " applies only to ",
          line.mode == AgentMode::kWatch ? "'upload'" : "the watch mode"));
    }
    if (!has_value) {
      if (i + 1 >= args.size())
        return absl::InvalidArgumentError(
            base::StrCat("--", name, ": missing value"));
      value = args[++i];
    }
    if (absl::Status set = spec->second.set(value, line); !set.ok()) return set;
  }
  if (line.aggregator.empty())
    return absl::InvalidArgumentError("--aggregator HOST:PORT is required");
  if (line.mode == AgentMode::kWatch && line.logdir.empty() &&
      line.listen_unix.empty()) {
    return absl::InvalidArgumentError(
        "--logdir DIR or --listen-unix PATH is required");
  }
  if (line.mode == AgentMode::kUpload && line.files.empty()) {
    return absl::InvalidArgumentError("upload: at least one FILE is required");
  }
  if (!line.run.empty() && !base::IsValidId(line.run)) {
    return BadValue("run", line.run, "an id matching [A-Za-z0-9._-]{1,128}");
  }
  if (line.backoff_max < line.backoff_initial) {
    return absl::InvalidArgumentError(
        "--backoff-max must not be below --backoff-initial");
  }
  return line;
}

std::string AgentUsage() {
  return R"(usage: profdiff-agent --aggregator HOST:PORT [--logdir DIR] [--listen-unix PATH] [options]
       profdiff-agent upload --aggregator HOST:PORT [--run ID] [--timeout D] [options] FILE...

Watch mode: watches DIR recursively for PyTorch profiler traces (*.pt.trace.json[.gz], *.json[.gz]),
uploads each complete file once as a span, and keeps its progress in the state dir so that a
restart never uploads an acknowledged span again and resumes a partial one. Stop with SIGINT/SIGTERM.
upload: uploads the given files once, retrying while the aggregator is away for up to --timeout;
exits 0 when every span was acknowledged, 1 otherwise, 2 on usage errors.

  --aggregator HOST:PORT   the profdiff-aggregator (required)
  --logdir DIR             folder to watch (watch mode)
  --listen-unix PATH       serve the node's CUPTI injection libraries (libprofdiff_cupti.so) on
                           this unix socket and relay their spans to the aggregator; with
                           --logdir or alone (one of the two is required)
  --run ID                 run id; default $TORCHELASTIC_RUN_ID, else the sub-folder of DIR the
                           file is in (upload: the file's folder), else DIR's name
  --state-dir DIR          default $XDG_STATE_HOME/profdiff-agent or ~/.local/state/profdiff-agent
  --agent-id ID            sent with each upload (default: the hostname)
  --tls                    connect with TLS, trusting the system's CA roots
  --tls-ca-file FILE       connect with TLS, trusting this PEM CA ($PROFDIFF_TLS_CA_FILE)
  --tls-cert-file FILE     client certificate for mutual TLS, with --tls-key-file FILE
                           ($PROFDIFF_TLS_CERT_FILE, $PROFDIFF_TLS_KEY_FILE)
  --auth-token-file FILE   send the bearer token in FILE; implies TLS ($PROFDIFF_TOKEN_FILE)
  --settle D               a file is complete when unchanged this long and readable (2s)
  --give-up-after D        an unchanged file that stays unreadable this long fails (60s)
  --rescan-interval D      full rescan of DIR, for file systems without inotify events (30s)
  --timeout D              upload mode: total time, retries included (5m)
  --rpc-timeout D          deadline of one upload stream; a longer span resumes in a new one (5m)
  --backoff-initial D      first reconnect delay ceiling (100ms); doubles per failure, full jitter
  --backoff-max D          reconnect delay ceiling cap (10s)
  --window N               unacknowledged chunks in flight (8)
  --chunk-events N         events per chunk, before the 4 MiB bound (65536)
  --v N                    log verbosity (0)
Durations: 2s, 150ms, 5m, 1h.
)";
}

}  // namespace profdiff::agent
