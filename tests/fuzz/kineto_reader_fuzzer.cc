// Fuzzes the public entry point users hit: trace bytes (JSON or gzip) into the reader. Any input
// must give a Trace or a Status; never a crash, hang or sanitizer report. Each input is also read
// in parts on several threads (cut wherever the text allows, however small), which must give the
// very same result or the very same error as one pass, also at small limits chosen by the input.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "trace/kineto_reader.h"

namespace {

using profdiff::trace::Trace;

bool SameEvents(const Trace& a, const Trace& b) {
  const auto& x = a.events;
  const auto& y = b.events;
  return x.kind == y.kind && x.phase == y.phase && x.name == y.name && x.category == y.category &&
         x.start_ns == y.start_ns && x.duration_ns == y.duration_ns && x.pid == y.pid && x.tid == y.tid &&
         x.correlation == y.correlation && x.external_id == y.external_id &&
         x.sequence_number == y.sequence_number && x.forward_thread_id == y.forward_thread_id &&
         x.python_id == y.python_id && x.python_parent_id == y.python_parent_id && x.flow_id == y.flow_id &&
         x.input_shapes == y.input_shapes && x.arg_begin == y.arg_begin && a.args.key == b.args.key &&
         a.args.int_value == b.args.int_value && a.args.string_value == b.args.string_value &&
         // Bitwise, so that NaN equals NaN.
         a.args.double_value.size() == b.args.double_value.size() &&
         (a.args.double_value.empty() || std::memcmp(a.args.double_value.data(), b.args.double_value.data(),
                                                     a.args.double_value.size() * sizeof(double)) == 0);
}

bool SameMetadata(const Trace& a, const Trace& b) {
  const auto& m = a.metadata;
  const auto& n = b.metadata;
  if (m.devices.size() != n.devices.size()) return false;
  for (size_t d = 0; d < m.devices.size(); ++d) {
    const auto& p = m.devices[d];
    const auto& q = n.devices[d];
    if (p.id != q.id || p.name != q.name || p.total_global_mem_bytes != q.total_global_mem_bytes ||
        p.num_sms != q.num_sms || p.compute_major != q.compute_major || p.compute_minor != q.compute_minor ||
        p.max_threads_per_multiprocessor != q.max_threads_per_multiprocessor || p.warp_size != q.warp_size) {
      return false;
    }
  }
  return m.has_distributed_info == n.has_distributed_info && m.backend == n.backend && m.rank == n.rank &&
         m.world_size == n.world_size && m.base_time_ns == n.base_time_ns && m.trace_name == n.trace_name &&
         m.source_format == n.source_format && m.source == n.source &&
         a.counters.unknown_category_events == b.counters.unknown_category_events &&
         a.counters.unsupported_phase_events == b.counters.unsupported_phase_events && a.span_begin == b.span_begin;
}

bool SameTrace(const Trace& a, const Trace& b) {
  if (a.strings.size() != b.strings.size()) return false;
  for (uint32_t k = 0; k < a.strings.size(); ++k) {
    if (a.strings.Get({k}) != b.strings.Get({k})) return false;
  }
  return SameEvents(a, b) && SameMetadata(a, b);
}

// The first byte picks small limits for some inputs, so the limits' edges are fuzzed too.
profdiff::trace::ReaderLimits LimitsFor(std::string_view bytes) {
  profdiff::trace::ReaderLimits limits;
  if (bytes.size() < 2 || (bytes[0] & 0x80) == 0) return limits;
  const auto knob = static_cast<unsigned char>(bytes[1]);
  limits.max_events = 1 + knob % 16;
  limits.max_string_bytes = 1 + knob % 64;
  limits.max_depth = 2 + knob % 8;
  return limits;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  const profdiff::trace::ReaderLimits limits = LimitsFor(bytes);
  constexpr profdiff::trace::ReadParallelism kParts{.threads = 3, .min_part_bytes = 1};
  // Default limits: readers reused from input to input, as a run folder reuses one; small
  // limits: fresh readers.
  static profdiff::trace::KinetoReader reused_one_pass;
  static profdiff::trace::KinetoReader reused_in_parts({}, kParts);
  const bool small_limits = limits.max_events != profdiff::trace::ReaderLimits{}.max_events;
  profdiff::trace::KinetoReader fresh_one_pass(limits);
  profdiff::trace::KinetoReader fresh_in_parts(limits, kParts);
  profdiff::trace::KinetoReader& one_pass = small_limits ? fresh_one_pass : reused_one_pass;
  profdiff::trace::KinetoReader& in_parts = small_limits ? fresh_in_parts : reused_in_parts;
  absl::StatusOr<Trace> a = one_pass.ReadBytes(bytes, "fuzz");
  absl::StatusOr<Trace> b = in_parts.ReadBytes(bytes, "fuzz");
  const bool same = a.ok() ? b.ok() && SameTrace(*a, *b) : a.status() == b.status();
  if (!same) {
    std::fprintf(stderr, "one pass and %zu parts disagree: %s / %s\n", in_parts.last_read_parts(),
                 a.status().ToString().c_str(), b.status().ToString().c_str());
    std::abort();
  }
  return 0;
}
