// Fuzzes the public entry point users hit: trace bytes (JSON or gzip) into the reader. Any input
// must give a Trace or a Status; never a crash, hang or sanitizer report. Each input is also read
// in parts on several threads (cut wherever the text allows, however small), which must give the
// very same result or the very same error as one pass.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include <string_view>

#include "trace/kineto_reader.h"

namespace {

bool SameTrace(const profdiff::trace::Trace& a, const profdiff::trace::Trace& b) {
  if (a.events.size() != b.events.size() || a.args.size() != b.args.size() ||
      a.strings.size() != b.strings.size()) {
    return false;
  }
  for (uint32_t k = 0; k < a.strings.size(); ++k) {
    if (a.strings.Get({k}) != b.strings.Get({k})) return false;
  }
  const auto& x = a.events;
  const auto& y = b.events;
  return x.kind == y.kind && x.name == y.name && x.category == y.category && x.start_ns == y.start_ns &&
         x.duration_ns == y.duration_ns && x.pid == y.pid && x.tid == y.tid && x.flow_id == y.flow_id &&
         x.input_shapes == y.input_shapes && x.arg_begin == y.arg_begin && a.args.key == b.args.key &&
         a.args.string_value == b.args.string_value && a.args.int_value == b.args.int_value &&
         a.metadata.trace_name == b.metadata.trace_name && a.metadata.rank == b.metadata.rank &&
         a.counters.unknown_category_events == b.counters.unknown_category_events;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  static profdiff::trace::KinetoReader one_pass;
  static profdiff::trace::KinetoReader in_parts({}, {.threads = 3, .min_part_bytes = 1});
  absl::StatusOr<profdiff::trace::Trace> a = one_pass.ReadBytes(bytes, "fuzz");
  absl::StatusOr<profdiff::trace::Trace> b = in_parts.ReadBytes(bytes, "fuzz");
  const bool same = a.ok() ? b.ok() && SameTrace(*a, *b) : a.status() == b.status();
  if (!same) {
    std::fprintf(stderr, "one pass and %zu parts disagree: %s / %s\n", in_parts.last_read_parts(),
                 a.status().ToString().c_str(), b.status().ToString().c_str());
    std::abort();
  }
  return 0;
}
