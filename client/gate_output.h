// What `profdiff diff --fail-on` prints, and how a failed gate leaves the
// command: its report still printed, then exit 3 (README "Exit codes").
#ifndef PROFDIFF_CLIENT_GATE_OUTPUT_H_
#define PROFDIFF_CLIENT_GATE_OUTPUT_H_

#include <optional>
#include <string>

#include <absl/status/status.h>
#include <google/protobuf/repeated_ptr_field.h>

#include "profdiff/v1/diff.pb.h"

namespace profdiff::client {

inline constexpr int kExitGateFailed = 3;

// "Gate (--fail-on)" and a line per condition, FAILED with what crossed it
// or passed; words wrapped at `line_width` (0: not wrapped).
std::string GateText(
    const google::protobuf::RepeatedPtrField<v1::GateResult>& gate,
    size_t line_width);

// The status of a command whose gate failed: `output` is still printed on
// standard output, the message names the failed conditions, and the exit code
// is kExitGateFailed.
absl::Status GateFailedError(
    std::string output,
    const google::protobuf::RepeatedPtrField<v1::GateResult>& gate);

// The output a GateFailedError carries; nullopt for any other status.
std::optional<std::string> GateFailedOutput(const absl::Status& status);

}  // namespace profdiff::client

#endif  // PROFDIFF_CLIENT_GATE_OUTPUT_H_
