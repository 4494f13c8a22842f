#include "trace/trace_file_name.h"

#include <algorithm>
#include <string_view>

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
  if (dot != std::string::npos && dot + 1 < name.size()) {
    const std::string_view digits = std::string_view(name).substr(dot + 1);
    if (std::all_of(digits.begin(), digits.end(),
                    [](char c) { return c >= '0' && c <= '9'; })) {
      name.resize(dot);
    }
  }
  return name;
}

}  // namespace profdiff::trace
