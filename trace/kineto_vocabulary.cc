#include "trace/kineto_vocabulary.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <string>

namespace profdiff::trace {

ArgNameTable::ArgNameTable() {
  Add({"correlation", ArgSlot::kCorrelation, ArgKey::kUnspecified});
  Add({"External id", ArgSlot::kExternalId, ArgKey::kUnspecified});
  Add({"external id", ArgSlot::kExternalId,
       ArgKey::kUnspecified});  // 2021 spelling
  Add({"Sequence number", ArgSlot::kSequenceNumber, ArgKey::kUnspecified});
  Add({"Fwd thread id", ArgSlot::kForwardThreadId, ArgKey::kUnspecified});
  Add({"Python id", ArgSlot::kPythonId, ArgKey::kUnspecified});
  Add({"Python parent id", ArgSlot::kPythonParentId, ArgKey::kUnspecified});
  Add({"Input Dims", ArgSlot::kInputShapes, ArgKey::kUnspecified});
  Add({"Input dims", ArgSlot::kInputShapes,
       ArgKey::kUnspecified});  // legacy spelling
  // A memory event's size ("bytes" is a memcpy's): negative for a free.
  Add({"Bytes", ArgSlot::kTyped, ArgKey::kBytes});
  for (int k = 1; k < kArgKeyCount; ++k) {
    const auto key = static_cast<ArgKey>(k);
    if (key == ArgKey::kFlowBindingEnclosing)
      continue;  // "bp" is an event field
    Add({ArgJsonName(key), ArgSlot::kTyped, key});
  }
}

void ArgNameTable::Add(ArgName name) {
  std::string quoted(name.json);
  quoted.push_back('"');
  const size_t n = std::min<size_t>(quoted.size(), sizeof(uint64_t));
  std::memcpy(&name.head, quoted.data(), n);
  name.head_mask =
      n == sizeof(uint64_t) ? ~uint64_t{0} : (uint64_t{1} << (8 * n)) - 1;
  buckets_[static_cast<unsigned char>(name.json[0])].push_back(name);
}

EventKind KindOfCategory(std::string_view category) {
  std::string lower(category);
  for (char& c : lower)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower == "cpu_op" || lower == "operator") return EventKind::kCpuOp;
  if (lower == "user_annotation") return EventKind::kUserAnnotation;
  if (lower == "gpu_user_annotation") return EventKind::kGpuUserAnnotation;
  if (lower == "python_function" || lower == "python")
    return EventKind::kPythonFunction;
  if (lower == "cuda_runtime" || lower == "runtime" || lower == "hip_runtime" ||
      lower == "mtia_runtime" || lower == "xpu_runtime" ||
      lower == "privateuse1_runtime") {
    return EventKind::kRuntime;
  }
  if (lower == "cuda_driver" || lower == "hip_driver" ||
      lower == "privateuse1_driver") {
    return EventKind::kDriver;
  }
  if (lower == "cuda_sync") return EventKind::kSync;
  if (lower == "kernel") return EventKind::kKernel;
  if (lower == "gpu_memcpy" || lower == "memcpy") return EventKind::kMemcpy;
  if (lower == "gpu_memset" || lower == "memset") return EventKind::kMemset;
  if (lower == "overhead") return EventKind::kOverhead;
  if (lower == "trace") return EventKind::kTraceSpan;
  if (lower == "cpu_instant_event" || lower == "memory")
    return EventKind::kInstant;
  return EventKind::kOther;
}

EventKind KindOfCategorizedEvent(EventKind category_kind,
                                 std::string_view name) {
  if ((category_kind == EventKind::kCpuOp ||
       category_kind == EventKind::kUserAnnotation) &&
      name.starts_with(kProfilerStepPrefix)) {
    return EventKind::kProfilerStep;
  }
  if (category_kind == EventKind::kPythonFunction &&
      name.starts_with(kModulePrefix)) {
    return EventKind::kModule;
  }
  return category_kind;
}

EventKind KindOfUncategorizedEvent(std::string_view name) {
  // examples/workloads records its steps and modules this way.
  if (name.starts_with(kProfilerStepPrefix)) return EventKind::kProfilerStep;
  if (name.starts_with(kModulePrefix)) return EventKind::kUserAnnotation;
  return EventKind::kCpuOp;
}

EventKind KindOfInstantEvent(std::string_view name) {
  return name == kMemoryEventName ? EventKind::kMemory : EventKind::kInstant;
}

std::optional<EventPhase> PhaseOfLetter(char letter) {
  switch (letter) {
    case 'X':
      return EventPhase::kComplete;
    case 'i':
    case 'I':
      return EventPhase::kInstant;
    case 's':
      return EventPhase::kFlowStart;
    case 't':
      return EventPhase::kFlowStep;
    case 'f':
      return EventPhase::kFlowEnd;
    case 'C':
      return EventPhase::kCounter;
    case 'M':
      return EventPhase::kMetadata;
    default:
      return std::nullopt;
  }
}

}  // namespace profdiff::trace
