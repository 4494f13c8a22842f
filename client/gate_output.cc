#include "client/gate_output.h"

#include <string_view>
#include <utility>

#include <absl/strings/cord.h>

#include "base/str_cat.h"
#include "client/text_table.h"

namespace profdiff::client {
namespace {

constexpr std::string_view kGatePayload = "type.profdiff.dev/gate-output";

}  // namespace

std::string GateText(
    const google::protobuf::RepeatedPtrField<v1::GateResult>& gate,
    size_t line_width) {
  if (gate.empty()) return "";
  int failed = 0;
  for (const v1::GateResult& g : gate) failed += g.failed() ? 1 : 0;
  std::string out = base::StrCat(
      "Gate (--fail-on): ",
      failed == 0 ? "passed"
                  : base::StrCat("FAILED, ", failed, " of ", gate.size(),
                                 " condition", gate.size() == 1 ? "" : "s"),
      "\n");
  for (const v1::GateResult& g : gate) {
    if (!g.failed()) {
      out += WrapWords(
          "  passed  ",
          base::StrCat(g.condition(), ": no significant change crosses it"),
          line_width);
      continue;
    }
    out += WrapWords("  FAILED  ", g.condition(), line_width);
    for (const std::string& crossed : g.crossed())
      out += WrapWords("          - ", crossed, line_width);
  }
  return out;
}

absl::Status GateFailedError(
    std::string output,
    const google::protobuf::RepeatedPtrField<v1::GateResult>& gate) {
  std::string failed;
  for (const v1::GateResult& g : gate) {
    if (!g.failed()) continue;
    base::StrAppend(&failed, failed.empty() ? "" : ", ", g.condition());
    if (!g.crossed().empty()) base::StrAppend(&failed, " (", g.crossed(0), ")");
  }
  absl::Status status = absl::FailedPreconditionError(
      base::StrCat("--fail-on: the gate failed: ", failed));
  status.SetPayload(base::ToAbsl(kGatePayload), absl::Cord(std::move(output)));
  return status;
}

std::optional<std::string> GateFailedOutput(const absl::Status& status) {
  const auto payload = status.GetPayload(base::ToAbsl(kGatePayload));
  if (!payload.has_value()) return std::nullopt;
  return std::string(*payload);
}

}  // namespace profdiff::client
