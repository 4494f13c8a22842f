#include "agent/kineto_on_demand_config.h"

#include <absl/status/status.h>

#include "base/id_rules.h"
#include "base/status_macros.h"
#include "base/str_cat.h"

namespace profdiff::agent {
namespace {

constexpr std::string_view kTraceSuffix = ".pt.trace.json";

}  // namespace

absl::Status CheckKinetoCaptureSpec(const KinetoCaptureSpec& spec) {
  PD_RETURN_IF_ERROR(base::ValidateId("capture id", spec.capture_id));
  PD_RETURN_IF_ERROR(base::ValidateId("run", spec.run));
  if (spec.steps < 0) {
    return absl::InvalidArgumentError(
        base::StrCat("steps ", spec.steps, " is negative"));
  }
  const bool by_steps = spec.steps > 0;
  const bool by_time = spec.duration != absl::ZeroDuration();
  if (by_steps == by_time) {
    return absl::InvalidArgumentError(
        "a capture takes either steps or a duration");
  }
  if (by_time && spec.duration < absl::Milliseconds(1)) {
    return absl::InvalidArgumentError(
        base::StrCat("duration ", absl::FormatDuration(spec.duration),
                     " is under the 1 ms kineto counts in"));
  }
  return absl::OkStatus();
}

KinetoCaptureConfig KinetoOnDemandConfig(const KinetoCaptureSpec& spec,
                                         std::string_view folder_path,
                                         int32_t pid) {
  const std::string folder = base::StrCat(folder_path, "/");
  KinetoCaptureConfig out;
  // Kineto puts "_<pid>" before the suffix (Config.cpp, ACTIVITIES_LOG_FILE).
  out.trace_file =
      base::StrCat(folder, spec.capture_id, "_", pid, kTraceSuffix);
  base::StrAppend(&out.config, "ACTIVITIES_LOG_FILE=", folder, spec.capture_id,
                  kTraceSuffix, "\n");
  if (spec.steps > 0) {
    // PROFILE_START_ITERATION 0 with a round-up of 1: the next step.
    base::StrAppend(
        &out.config, "PROFILE_START_ITERATION=",
        spec.start_at_step < 0 ? 0 : spec.start_at_step,
        "\nPROFILE_START_ITERATION_ROUNDUP=1\nACTIVITIES_ITERATIONS=",
        spec.steps, "\n");
  } else {
    base::StrAppend(&out.config, "PROFILE_START_TIME=0\n",
                    "ACTIVITIES_DURATION_MSECS=",
                    absl::ToInt64Milliseconds(spec.duration), "\n");
  }
  // What profdiff reads: shapes for the operator view, stacks and modules for
  // the module tree.
  base::StrAppend(&out.config,
                  "PROFILE_REPORT_INPUT_SHAPES=true\n"
                  "PROFILE_WITH_STACK=true\n"
                  "PROFILE_WITH_MODULES=true\n"
                  "REQUEST_TRACE_ID=",
                  spec.capture_id, "\n");
  return out;
}

}  // namespace profdiff::agent
