// The job a local process belongs to, read from its environment
// (/proc/PID/environ): TORCHELASTIC_RUN_ID, else SLURM_JOB_ID. Kineto sends
// only SLURM_JOB_ID, as a number, so a torchrun job is found here. A job id is
// an id like --job's ([A-Za-z0-9._-]{1,128}): the environment is the process
// owner's word, and a job id becomes part of the agent's status.
#ifndef PROFDIFF_AGENT_PROCESS_JOB_ID_H_
#define PROFDIFF_AGENT_PROCESS_JOB_ID_H_

#include <cstdint>
#include <string>
#include <string_view>

#include <absl/status/statusor.h>

namespace profdiff::agent {

// The job id in an environ block (NUL-separated NAME=VALUE entries), or ""
// when it names none. InvalidArgument naming the variable and the rule (the
// value escaped and cut) when the id is not a valid id.
absl::StatusOr<std::string> JobIdOfEnvironment(std::string_view environ_block);

// The job id of process `pid` (in the agent's PID namespace), or "" when it
// has none or its environment cannot be read (another user's process, a
// process already gone). Errors as JobIdOfEnvironment's, naming the pid.
absl::StatusOr<std::string> JobIdOfProcess(int32_t pid);

}  // namespace profdiff::agent

#endif  // PROFDIFF_AGENT_PROCESS_JOB_ID_H_
