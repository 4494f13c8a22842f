// The job a local process belongs to, read from its environment
// (/proc/PID/environ): TORCHELASTIC_RUN_ID, else SLURM_JOB_ID. Kineto sends
// only SLURM_JOB_ID, as a number, so a torchrun job is found here.
#ifndef PROFDIFF_AGENT_PROCESS_JOB_ID_H_
#define PROFDIFF_AGENT_PROCESS_JOB_ID_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace profdiff::agent {

// The job id in an environ block (NUL-separated NAME=VALUE entries), or "".
std::string JobIdOfEnvironment(std::string_view environ_block);

// The job id of process `pid`, or "" when it has none, its environment cannot
// be read (another user's process, a process already gone), or `parent` is
// given (> 0) and is not the process's parent: a pid from another PID
// namespace (a training pod's) can name an unrelated process here, and the
// ancestors kineto sends with its pid tell the two apart.
std::string JobIdOfProcess(int32_t pid, int32_t parent = 0);

}  // namespace profdiff::agent

#endif  // PROFDIFF_AGENT_PROCESS_JOB_ID_H_
