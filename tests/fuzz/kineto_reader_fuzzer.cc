// Fuzzes the public entry point users hit: trace bytes (JSON or gzip) into ReadKinetoTrace.
// Any input must give a Trace or a Status; never a crash, hang or sanitizer report.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "trace/kineto_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<profdiff::trace::Trace> trace = profdiff::trace::ReadKinetoTrace(bytes, "fuzz");
  if (trace.ok()) {
    // Touch the result so the reader's output is fully materialised.
    volatile size_t events = trace->events.size();
    (void)events;
  }
  return 0;
}
