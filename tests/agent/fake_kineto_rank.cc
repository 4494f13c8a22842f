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
  while (true) {
    absl::SleepFor(absl::Milliseconds(100));  // kineto polls about every second
    const std::optional<std::string> config =
        client.Poll(2, job_id, {pid, ::getppid()});
    if (!config.has_value() || config->empty()) continue;
    std::map<std::string, std::string> keys = ConfigLines(*config);
    int steps = 1;
    if (!absl::SimpleAtoi(keys["ACTIVITIES_ITERATIONS"], &steps)) steps = 1;
    std::string file = keys["ACTIVITIES_LOG_FILE"];
    const std::string suffix = ".pt.trace.json";
    const size_t at = file.find(suffix);
    if (at == std::string::npos) continue;
    file.insert(at, "_" + std::to_string(pid));
    std::fprintf(stderr, "fake_kineto_rank: capturing steps=%d file=%s\n",
                 steps, file.c_str());
    absl::SleepFor(absl::Milliseconds(int64_t{step_ms} * steps));
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
    std::ofstream(file, std::ios::binary) << json;
    std::fprintf(stderr, "fake_kineto_rank: wrote %s\n", file.c_str());
  }
}
