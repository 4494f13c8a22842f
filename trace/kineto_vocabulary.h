// The words of the Kineto/Chrome-trace format the reader knows: event field
// keys, argument keys (every spelling PyTorch has used), categories, phase
// letters and the event names that carry a meaning. A new PyTorch spelling of
// an id, shape or category is added here; a new typed argument is an ArgKey
// with its JSON name in event_kind.cc (the writer writes it too), which
// ArgNameTable picks up.
//
// Design:
// 1. Lookups take raw key text in place in simdjson's padded input (see
// json_text.h): escaped spellings never match, as intended.
// 2. Categories are matched in any case; everything else exactly.
#ifndef PROFDIFF_TRACE_KINETO_VOCABULARY_H_
#define PROFDIFF_TRACE_KINETO_VOCABULARY_H_

#include <array>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <optional>
#include <string_view>
#include <vector>

#include <absl/base/attributes.h>

#include "trace/event_kind.h"
#include "trace/json_text.h"

namespace profdiff::trace {

// Names that make an event what it is.
inline constexpr std::string_view kProfilerStepPrefix = "ProfilerStep#";
inline constexpr std::string_view kModulePrefix = "nn.Module: ";
inline constexpr std::string_view kMemoryEventName = "[memory]";
// A pid or tid written "stream 7" is the number after it.
inline constexpr std::string_view kStreamPrefix = "stream ";

// The keys of an event object the reader reads; any other key is kUnknown.
enum class EventField : uint8_t {
  kUnknown,
  kPh,
  kCat,
  kName,
  kPid,
  kTid,
  kTs,
  kDur,
  kId,
  kBp,
  kArgs
};

// The EventField the raw key text at `raw` spells. Reads up to 5 bytes.
ABSL_ATTRIBUTE_ALWAYS_INLINE inline EventField ClassifyEventField(
    const char* raw);

// The JSON spelling of `field` ("ph", "args"), for messages; "" for kUnknown.
inline std::string_view EventFieldName(EventField field);

// Where an argument goes: a dedicated column, or a typed row of the ArgTable.
enum class ArgSlot : uint8_t {
  kNone,
  kCorrelation,
  kExternalId,
  kSequenceNumber,
  kForwardThreadId,
  kPythonId,
  kPythonParentId,
  kInputShapes,
  kTyped,
};

// One known argument key.
struct ArgName {
  std::string_view json;  // the key as written, e.g. "External id"
  ArgSlot slot;
  ArgKey key;  // the typed key, for slot kTyped; kUnspecified otherwise
  // The first 8 bytes of the raw key text `json` + '"' (masked when shorter):
  // most keys that are not this name differ there, so one load and compare
  // rejects them without a memcmp call.
  uint64_t head = 0;
  uint64_t head_mask = 0;
};

// Every argument key the reader keeps, in every spelling: the id columns
// ("External id" and 2021's "external id", "Sequence number", ...), input
// shapes, and the typed arguments of ArgJsonName (all but "bp", an event
// field). Bucketed by first byte, and each candidate's first 8 bytes are
// compared in one load, so a lookup costs a handful of integer compares.
// Immutable after construction: may be shared by threads.
class ArgNameTable {
 public:
  ArgNameTable();

  // The known name that the raw key text at `raw` spells, or nullptr. Reads 8
  // bytes from `raw`, and the name's length + 1 on a first-8-bytes match.
  // The result lives as long as the table.
  inline const ArgName* Find(const char* raw) const;

 private:
  void Add(ArgName name);
  std::array<std::vector<ArgName>, 256> buckets_;  // by first byte
};

// The kind of a complete ("X") event in `category` (any case): cpu_op,
// cuda_runtime, kernel, gpu_memcpy, ... and their older and other-backend
// spellings (operator, hip_runtime, memcpy, ...). kOther when unknown.
EventKind KindOfCategory(std::string_view category);

// The kind a name gives an event whose category made it `category_kind`:
// "ProfilerStep#N" cpu ops and user annotations are profiler steps,
// "nn.Module: " python functions are modules; otherwise `category_kind`.
EventKind KindOfCategorizedEvent(EventKind category_kind,
                                 std::string_view name);

// The kind of an event with no category (the legacy profiler): every event is
// an op, except the record_function ranges that stand in for what Kineto
// writes itself ("ProfilerStep#N" steps, "nn.Module: " annotations).
EventKind KindOfUncategorizedEvent(std::string_view name);

// The kind of an instant ("i") event: "[memory]" events are memory records.
EventKind KindOfInstantEvent(std::string_view name);

// The phase the "ph" letter `letter` names, or nullopt for the phases PyTorch
// does not write (begin/end pairs, async and object events).
std::optional<EventPhase> PhaseOfLetter(char letter);

// Inline below: the reader looks up every key of every event and of its args,
// and out of line the lookups cost it 3% more instructions (callgrind,
// bench/reader_bench BM_Read/2/1). ClassifyEventField must be inlined into the
// reader's switch on its result, which then jumps straight to the field's case.

inline EventField ClassifyEventField(const char* raw) {
  // Dispatched on the first byte: one compare rejects most keys.
  switch (raw[0]) {
    case 'p':
      if (RawKeyIsLiteral(raw, "ph")) return EventField::kPh;
      if (RawKeyIsLiteral(raw, "pid")) return EventField::kPid;
      break;
    case 'c':
      if (RawKeyIsLiteral(raw, "cat")) return EventField::kCat;
      break;
    case 'n':
      if (RawKeyIsLiteral(raw, "name")) return EventField::kName;
      break;
    case 't':
      if (RawKeyIsLiteral(raw, "ts")) return EventField::kTs;
      if (RawKeyIsLiteral(raw, "tid")) return EventField::kTid;
      break;
    case 'd':
      if (RawKeyIsLiteral(raw, "dur")) return EventField::kDur;
      break;
    case 'a':
      if (RawKeyIsLiteral(raw, "args")) return EventField::kArgs;
      break;
    case 'i':
      if (RawKeyIsLiteral(raw, "id")) return EventField::kId;
      break;
    case 'b':
      if (RawKeyIsLiteral(raw, "bp")) return EventField::kBp;
      break;
    default:
      break;
  }
  return EventField::kUnknown;
}

// The JSON spelling of each EventField, indexed by it.
inline constexpr std::string_view kEventFieldNames[] = {
    "", "ph", "cat", "name", "pid", "tid", "ts", "dur", "id", "bp", "args"};
static_assert(std::size(kEventFieldNames) ==
              static_cast<size_t>(EventField::kArgs) + 1);

inline std::string_view EventFieldName(EventField field) {
  return kEventFieldNames[static_cast<int>(field)];
}

inline const ArgName* ArgNameTable::Find(const char* raw) const {
  uint64_t head;
  std::memcpy(&head, raw, sizeof(head));
  for (const ArgName& candidate :
       buckets_[static_cast<unsigned char>(raw[0])]) {
    if ((head & candidate.head_mask) == candidate.head &&
        RawKeyIs(raw, candidate.json))
      return &candidate;
  }
  return nullptr;
}

}  // namespace profdiff::trace

#endif  // PROFDIFF_TRACE_KINETO_VOCABULARY_H_
