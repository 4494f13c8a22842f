#include "agent/cupti/torch_range_name.h"

#include <array>

#include <absl/strings/ascii.h>

#include "base/parse_int.h"

namespace profdiff::agent::cupti {
namespace {

constexpr std::string_view kStepPrefix = "ProfilerStep#";
constexpr std::string_view kModulePrefix = "nn.Module: ";
// emit_nvtx's fields after the name (torch/csrc/profiler/util.cpp getNvtxStr),
// in any order.
constexpr std::array<std::string_view, 4> kFieldKeys = {
    "seq = ", "op_id = ", "sizes = ", "input_op_ids = "};

// Where the first ", <known key>" starts, or npos.
size_t SuffixStart(std::string_view message) {
  size_t first = std::string_view::npos;
  for (std::string_view key : kFieldKeys) {
    for (size_t at = message.find(", "); at != std::string_view::npos;
         at = message.find(", ", at + 1)) {
      if (message.substr(at + 2).starts_with(key)) {
        if (at < first) first = at;
        break;
      }
    }
  }
  return first;
}

// The value of `key` in the suffix: up to the next ", <known key>" (sizes hold
// commas).
std::string_view FieldValue(std::string_view suffix, std::string_view key) {
  const size_t at = suffix.find(std::string(", ") + std::string(key));
  if (at == std::string_view::npos) return {};
  std::string_view rest = suffix.substr(at + 2 + key.size());
  const size_t next = SuffixStart(rest);
  return next == std::string_view::npos ? rest : rest.substr(0, next);
}

}  // namespace

TorchRangeName ParseTorchRangeName(std::string_view message) {
  TorchRangeName parsed;
  parsed.name = message;
  if (message.starts_with(kStepPrefix)) {
    // emit_nvtx may append its fields: "ProfilerStep#5, op_id = 9".
    const std::string_view step_name = message.substr(0, SuffixStart(message));
    int64_t step = 0;
    if (base::ParseInt64(step_name.substr(kStepPrefix.size()), step) &&
        step >= 0) {
      parsed.kind = trace::EventKind::kProfilerStep;
      parsed.name = step_name;
      parsed.step = step;
      return parsed;
    }
  }
  if (message.starts_with(kModulePrefix)) return parsed;  // a user annotation
  const size_t suffix_start = SuffixStart(message);
  if (suffix_start != std::string_view::npos) {
    const std::string_view suffix = message.substr(suffix_start);
    parsed.name = message.substr(0, suffix_start);
    parsed.kind = trace::EventKind::kCpuOp;
    int64_t seq = -1;
    if (base::ParseInt64(FieldValue(suffix, "seq = "), seq) && seq >= 0) {
      parsed.sequence_number = seq;
    }
    for (char c : FieldValue(suffix, "sizes = ")) {
      if (!absl::ascii_isspace(static_cast<unsigned char>(c)))
        parsed.input_shapes.push_back(c);
    }
    return parsed;
  }
  if (message.find("::") != std::string_view::npos)
    parsed.kind = trace::EventKind::kCpuOp;
  return parsed;
}

}  // namespace profdiff::agent::cupti
