// Who a trace file belongs to: the run, the span id and the worker name the
// agent uploads it under, and the worker's rank. Pure functions of paths, flags
// and environment values, so every precedence rule is unit-testable.
//
// Design:
// 1. Run: for a capture's trace (LOGDIR/profdiff-captures/<run>/...) its
//    folder; else --run, else TORCHELASTIC_RUN_ID, else the first folder of
//    the file below the log dir
//    (TensorBoard convention DIR/<run>/<worker>.<ts>.pt.trace.json.gz), else
//    the log dir's own name. Ids are [A-Za-z0-9._-]{1,128}; an invalid run is
//    refused, never rewritten, since a rewritten run would silently merge or
//    split jobs.
// 2. Span and worker name come from the file name and are sanitised instead
//    (other characters become '_'); a name longer than 128 keeps its head and
//    ends in a hash of the whole name, so two long names do not collide.
// 3. Rank: distributedInfo.rank, else RANK, else the first integer in the
//    worker name, else 0.
#ifndef PROFDIFF_AGENT_SPAN_IDENTITY_H_
#define PROFDIFF_AGENT_SPAN_IDENTITY_H_

#include <cstdint>
#include <string>
#include <string_view>

#include <absl/status/status.h>
#include <absl/status/statusor.h>

#include "profdiff/v1/trace.pb.h"

namespace profdiff::agent {

// The folder below the log dir that holds on-demand captures, one sub-folder
// per run (kineto_on_demand_config.h).
inline constexpr std::string_view kCaptureFolder = "profdiff-captures";

// Where identity comes from besides the file itself. Empty means "not given".
struct IdentitySources {
  std::string run_flag = {};             // --run
  std::string torchelastic_run_id = {};  // environment TORCHELASTIC_RUN_ID
  std::string rank_env = {};             // environment RANK
};

// The names one trace file is uploaded under.
struct SpanIdentity {
  std::string run;
  std::string span;
  std::string worker_name;
};

// IdentitySources with the environment values of this process and `run_flag`.
IdentitySources IdentitySourcesFromEnvironment(std::string run_flag);

// `name` with every character outside [A-Za-z0-9._-] replaced by '_'; when
// longer than 128, its first 111 characters, '-', and 16 hex digits of a stable
// hash of `name`. Empty stays empty.
std::string SanitizeId(std::string_view name);

// The span id of the trace file named `file_name` (a base name) whose content
// has fingerprint `fingerprint` (trace::TraceFingerprintHex):
// "<file_name>-<first 12 hex digits>", sanitised. Two files of one name with
// different content (two nodes' "trace.json.gz", a file rewritten after its
// upload) are two spans; the same content under the same name is the same span.
std::string SpanIdOf(std::string_view file_name, std::string_view fingerprint);

// The run of the trace file `path` watched under `logdir` (design note 1; it
// does not depend on the file's content). InvalidArgument as
// ResolveSpanIdentity's for an invalid run id.
absl::StatusOr<std::string> ResolveRun(std::string_view logdir,
                                       std::string_view path,
                                       const IdentitySources& sources);

// The identity of the trace file `path` watched under `logdir` (both absolute
// or both relative; an empty `logdir` means the file's own folder, as in
// `profdiff-agent upload`). InvalidArgument naming the file, the source of the
// run id and the rule when the run id does not match [A-Za-z0-9._-]{1,128}, or
// when the file name gives an empty worker name.
absl::StatusOr<SpanIdentity> ResolveSpanIdentity(std::string_view logdir,
                                                 std::string_view path,
                                                 const IdentitySources& sources,
                                                 std::string_view fingerprint);

// The rank of the worker: `worker.rank()` when the trace had distributedInfo
// (`worker.distributed_info_present()`), else `rank_env` when not empty, else
// the first integer in `worker_name`, else 0. InvalidArgument when `rank_env`
// is set but not an integer in [0, 2^31).
absl::StatusOr<int32_t> ResolveRank(const v1::WorkerInfo& worker,
                                    std::string_view rank_env,
                                    std::string_view worker_name);

}  // namespace profdiff::agent

#endif  // PROFDIFF_AGENT_SPAN_IDENTITY_H_
