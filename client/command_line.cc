#include "client/command_line.h"

#include <absl/strings/cord.h>
#include <absl/strings/match.h>

#include "base/str_cat.h"
#include "client/gate_output.h"

namespace profdiff::client {
namespace {

constexpr std::string_view kUsagePayload = "type.profdiff.dev/usage";

}  // namespace

absl::Status UsageError(std::string_view message) {
  absl::Status status = absl::InvalidArgumentError(base::ToAbsl(message));
  status.SetPayload(base::ToAbsl(kUsagePayload), absl::Cord("1"));
  return status;
}

bool WantsUsage(const absl::Status& status) {
  return status.GetPayload(base::ToAbsl(kUsagePayload)).has_value();
}

int ExitCodeOf(const absl::Status& status) {
  if (GateFailedOutput(status).has_value()) return kExitGateFailed;
  switch (status.code()) {
    case absl::StatusCode::kCancelled:
      return kExitInterrupted;
    case absl::StatusCode::kUnavailable:
    case absl::StatusCode::kDeadlineExceeded:
      return 2;
    case absl::StatusCode::kInvalidArgument:
      return WantsUsage(status) || absl::StartsWith(status.message(), "--") ||
                     absl::StartsWith(status.message(), "-o ")
                 ? 2
                 : 1;
    default:
      return 1;
  }
}

base::FlagSet CommandFlags() {
  return base::FlagSet(base::FlagSpelling::kCommand);
}

absl::StatusOr<base::ParsedCommandLine> ParseCommandLine(
    base::FlagSet& flags, const std::vector<std::string>& args) {
  absl::StatusOr<base::ParsedCommandLine> parsed = flags.Parse(args);
  // An unknown option or a flag without its value (FlagSpelling::kCommand's
  // wording): the command line itself is malformed, and the usage follows
  // (README "Exit codes"). A value that breaks its rule names the rule.
  if (!parsed.ok() &&
      (absl::StartsWith(parsed.status().message(), "unknown option ") ||
       absl::StrContains(parsed.status().message(), ": missing value (")))
    return UsageError(std::string(parsed.status().message()));
  return parsed;
}

void AddGroupingFlags(base::FlagSet& flags, analysis::ProfileOptions* options) {
  flags.AddEnum("group-by", &options->operator_grouping,
                {{"name", analysis::OperatorGrouping::kName},
                 {"shape", analysis::OperatorGrouping::kNameAndShape}},
                "operator rows by name, or by name and input shapes");
  flags.AddEnum("kernels-by", &options->kernel_grouping,
                {{"name", analysis::KernelGrouping::kName},
                 {"op", analysis::KernelGrouping::kNameAndOp}},
                "kernel rows by name, or by name and launching operator");
}

std::string JoinedList(const std::vector<std::string>& values,
                       std::string_view fallback) {
  if (values.empty()) return std::string(fallback);
  std::string joined = values.front();
  for (size_t i = 1; i < values.size(); ++i)
    base::StrAppend(&joined, ",", values[i]);
  return joined;
}

}  // namespace profdiff::client
