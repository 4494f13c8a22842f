// profdiff-agent: uploads PyTorch profiler traces from a watched log dir (or
// given files) to the profdiff aggregator. Parses flags, builds an Agent (or
// uploads the given files), runs it and maps the outcome to an exit code.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include <absl/strings/string_view.h>

#include "agent/agent.h"
#include "agent/agent_command_line.h"
#include "base/command_line.h"
#include "base/log.h"
#include "base/termination_signals.h"

namespace {

using profdiff::agent::AgentCommandLine;
using profdiff::agent::AgentOptions;

constexpr int kExitOk = 0;
using profdiff::base::kExitFailed;
using profdiff::base::kExitUsage;

int Fail(int code, absl::string_view message) {
  return profdiff::base::FailWith("profdiff-agent", code, message);
}

int RunUpload(const AgentCommandLine& line) {
  absl::StatusOr<AgentOptions> options =
      profdiff::agent::ResolveAgentOptions(line);
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
  absl::StatusOr<AgentOptions> options =
      profdiff::agent::ResolveAgentOptions(line);
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
  absl::StatusOr<AgentCommandLine> line =
      profdiff::agent::ParseAgentCommandLine(
          std::vector<std::string>(argv + 1, argv + argc));
  if (!line.ok()) {
    Fail(kExitUsage, line.status().message());
    std::fputs(profdiff::agent::AgentUsage().c_str(), stderr);
    return kExitUsage;
  }
  if (line->help) {
    std::fputs(profdiff::agent::AgentUsage().c_str(), stdout);
    return kExitOk;
  }
  if (line->version) {
    std::fputs(profdiff::base::VersionLine("profdiff-agent").c_str(), stdout);
    return kExitOk;
  }
  profdiff::base::SetLogVerbosity(line->verbosity);
  if (const char* rank = std::getenv("RANK"); rank != nullptr && *rank != 0) {
    PD_LOG(INFO,
           "environment RANK=%s is the rank of traces without distributedInfo",
           rank);
  }
  return line->mode == profdiff::agent::AgentMode::kUpload ? RunUpload(*line)
                                                           : RunWatch(*line);
}
