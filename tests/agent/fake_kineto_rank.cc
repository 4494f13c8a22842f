// A stand-in for one PyTorch rank started with KINETO_USE_DAEMON=1: it
// registers with the daemon and polls it as libkineto does
// (libkineto_client.h), and when a poll brings an on-demand config it "trains"
// the asked steps and writes a real trace where kineto would: the config's
// ACTIVITIES_LOG_FILE with "_<pid>" put before ".pt.trace.json". The trace is
// a real one from ../shared/traces with its distributedInfo rank and
// world_size rewritten.
//
// usage: fake_kineto_rank --daemon NAME --trace FILE --rank R --world W
//                         [--step-ms MS]
// The job id is SLURM_JOB_ID (sent, as kineto sends it) or
// TORCHELASTIC_RUN_ID (read by the daemon from this process's environment).
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <thread>

#include <absl/strings/ascii.h>
#include <absl/strings/numbers.h>
#include <absl/strings/str_split.h>
#include <absl/time/clock.h>

#include "tests/agent/libkineto_client.h"
#include "trace/trace_file.h"

namespace {

std::map<std::string, std::string> ConfigLines(const std::string& config) {
  std::map<std::string, std::string> out;
  for (absl::string_view line : absl::StrSplit(config, '\n')) {
    line = absl::StripAsciiWhitespace(line);
    const size_t eq = line.find('=');
    if (eq == absl::string_view::npos) continue;
    out[std::string(line.substr(0, eq))] = std::string(line.substr(eq + 1));
  }
  return out;
}

// The number after `key` in the distributedInfo object replaced by `value`.
bool RewriteNumber(std::string& json, size_t from, const std::string& key,
                   int value) {
  const size_t at = json.find("\"" + key + "\"", from);
  if (at == std::string::npos) return false;
  size_t begin = json.find(':', at) + 1;
  while (json[begin] == ' ') ++begin;
  size_t end = begin;
  while (end < json.size() && json[end] >= '0' && json[end] <= '9') ++end;
  json.replace(begin, end - begin, std::to_string(value));
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  std::map<std::string, std::string> flags;
  for (int i = 1; i + 1 < argc; i += 2) flags[argv[i]] = argv[i + 1];
  int rank = 0;
  int world = 0;
  int step_ms = 200;
  if (!flags.contains("--daemon") || !flags.contains("--trace") ||
      !absl::SimpleAtoi(flags["--rank"], &rank) ||
      !absl::SimpleAtoi(flags["--world"], &world) ||
      (flags.contains("--step-ms") &&
       !absl::SimpleAtoi(flags["--step-ms"], &step_ms))) {
    std::fprintf(stderr,
                 "usage: fake_kineto_rank --daemon NAME --trace FILE --rank R "
                 "--world W [--step-ms MS]\n");
    return 2;
  }
  // kineto's getJobId(): SLURM_JOB_ID through strtoll, else 0.
  const char* slurm = std::getenv("SLURM_JOB_ID");
  const int64_t job_id =
      slurm == nullptr ? 0 : std::strtoll(slurm, nullptr, 10);
  profdiff::agent::testing::LibkinetoClient client(flags["--daemon"]);
  if (!client.ok()) {
    std::fprintf(stderr, "fake_kineto_rank: cannot bind an endpoint\n");
    return 1;
  }
  const pid_t pid = ::getpid();
  // registerInstance is retried until a daemon answers, as a rank started
  // before its agent would keep polling.
  while (!client.Register(0, pid, job_id).has_value()) {
    absl::SleepFor(absl::Milliseconds(100));
  }
  std::fprintf(stderr, "fake_kineto_rank: registered pid=%d rank=%d\n", pid,
               rank);
  // Kineto's on-demand scheduling, as libkineto's AsyncActivityProfilerHandler
  // does it: a config waits for its start step (PROFILE_START_ITERATION, 0 =
  // the next step); a newer config is ignored while one waits ("another
  // profile request is pending") or while a trace is collected ("profiler
  // busy"). Steps tick every --step-ms from registration; polls come every
  // 100 ms throughout.
  const absl::Time started = absl::Now();
  const auto step_now = [&] {
    return (absl::Now() - started) / absl::Milliseconds(step_ms);
  };
  struct Pending {
    std::string file;
    int64_t start_step = 0;
    int steps = 1;
  };
  std::optional<Pending> pending;
  while (true) {
    absl::SleepFor(absl::Milliseconds(100));  // kineto polls about every second
    const std::optional<std::string> config =
        client.Poll(2, job_id, {pid, ::getppid()});
    if (config.has_value() && !config->empty()) {
      std::map<std::string, std::string> keys = ConfigLines(*config);
      Pending asked;
      if (!absl::SimpleAtoi(keys["ACTIVITIES_ITERATIONS"], &asked.steps)) {
        asked.steps = 1;
      }
      int64_t start = 0;
      if (!absl::SimpleAtoi(keys["PROFILE_START_ITERATION"], &start)) start = 0;
      asked.start_step = start > 0 ? start : step_now() + 1;
      asked.file = keys["ACTIVITIES_LOG_FILE"];
      const std::string suffix = ".pt.trace.json";
      const size_t at = asked.file.find(suffix);
      if (at == std::string::npos) continue;
      asked.file.insert(at, "_" + std::to_string(pid));
      if (pending.has_value()) {
        std::fprintf(stderr,
                     "fake_kineto_rank: config ignored: another profile "
                     "request is pending\n");
      } else {
        std::fprintf(stderr,
                     "fake_kineto_rank: config for steps=%d from step %lld\n",
                     asked.steps, static_cast<long long>(asked.start_step));
        pending = std::move(asked);
      }
    }
    if (!pending.has_value() || step_now() < pending->start_step) continue;
    const Pending capture = *pending;
    pending.reset();
    std::fprintf(stderr, "fake_kineto_rank: capturing steps=%d file=%s\n",
                 capture.steps, capture.file.c_str());
    // Collecting: configs that come meanwhile are ignored, as kineto's busy
    // profiler ignores them (this rank does not poll while it collects).
    absl::SleepFor(absl::Milliseconds(int64_t{step_ms} * capture.steps));
    profdiff::trace::TraceFileBuffer buffer;
    if (!buffer.Load(flags["--trace"], profdiff::trace::ReaderLimits()).ok()) {
      std::fprintf(stderr, "fake_kineto_rank: cannot read %s\n",
                   flags["--trace"].c_str());
      return 1;
    }
    std::string json(buffer.json());
    const size_t info = json.find("\"distributedInfo\"");
    if (info == std::string::npos || !RewriteNumber(json, info, "rank", rank) ||
        !RewriteNumber(json, info, "world_size", world)) {
      std::fprintf(stderr, "fake_kineto_rank: no distributedInfo in %s\n",
                   flags["--trace"].c_str());
      return 1;
    }
    std::ofstream(capture.file, std::ios::binary) << json;
    std::fprintf(stderr, "fake_kineto_rank: wrote %s\n", capture.file.c_str());
  }
}
