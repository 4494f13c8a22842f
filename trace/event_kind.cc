#include "trace/event_kind.h"

#include <array>

namespace profdiff::trace {
namespace {

struct ArgSpec {
  ArgType type;
  std::string_view json_name;
};

// Indexed by ArgKey. The JSON names are Kineto's (docs/semantics.md §1).
constexpr std::array<ArgSpec, kArgKeyCount> kArgSpecs = {{
    {ArgType::kInt, ""},
    {ArgType::kString, "grid"},
    {ArgType::kString, "block"},
    {ArgType::kInt, "registers per thread"},
    {ArgType::kInt, "shared memory"},
    {ArgType::kDouble, "blocks per SM"},
    {ArgType::kDouble, "warps per SM"},
    {ArgType::kDouble, "est. achieved occupancy %"},
    {ArgType::kInt, "bytes"},
    {ArgType::kDouble, "memory bandwidth (GB/s)"},
    {ArgType::kInt, "Total Allocated"},
    {ArgType::kInt, "Total Reserved"},
    {ArgType::kInt, "Device Type"},
    {ArgType::kInt, "Device Id"},
    {ArgType::kString, "Collective name"},
    {ArgType::kString, "dtype"},
    {ArgType::kInt, "In msg nelems"},
    {ArgType::kInt, "Out msg nelems"},
    {ArgType::kInt, "Group size"},
    {ArgType::kString, "Process Group Name"},
    {ArgType::kString, "name"},
    {ArgType::kString, "labels"},
    {ArgType::kInt, "sort_index"},
    {ArgType::kInt, "device"},
    {ArgType::kInt, "stream"},
    {ArgType::kString, "Input type"},
    {ArgType::kInt, "Python module id"},
    {ArgType::kInt, "bp"},
    {ArgType::kString, "Process Group Ranks"},
    {ArgType::kInt, "Addr"},
    // Not Kineto's: examples/workloads/train.py's spelling of the legacy
    // profiler's FunctionEvent.self_cpu_memory_usage (bytes), for traces
    // without "[memory]" events.
    {ArgType::kInt, "Self CPU Memory Usage"},
}};

}  // namespace

ArgType ArgTypeOf(ArgKey key) { return kArgSpecs[static_cast<int>(key)].type; }
std::string_view ArgJsonName(ArgKey key) {
  return kArgSpecs[static_cast<int>(key)].json_name;
}

}  // namespace profdiff::trace
