#include "trace/trace_file_name.h"

#include <algorithm>

namespace profdiff::trace {

bool IsTraceFileName(std::string_view file_name) {
  return file_name.ends_with(".json") || file_name.ends_with(".json.gz");
}

std::string WorkerNameOf(std::string_view file_name) {
  std::string name(file_name);
  for (const char* suffix : {".gz", ".json", ".pt.trace"}) {
    if (name.ends_with(suffix))
      name.resize(name.size() - std::string_view(suffix).size());
  }
  // "<worker>.<digits>" -> "<worker>": the digits are the profiler's timestamp.
  const size_t dot = name.rfind('.');
  if (dot != std::string::npos && dot + 1 < name.size() &&
      std::all_of(name.begin() + dot + 1, name.end(),
                  [](char c) { return c >= '0' && c <= '9'; })) {
    name.resize(dot);
  }
  return name;
}

}  // namespace profdiff::trace
