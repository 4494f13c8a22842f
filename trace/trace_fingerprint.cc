#include "trace/trace_fingerprint.h"

#include <xxhash.h>

#include <type_traits>
#include <vector>

#include <absl/strings/str_format.h>

namespace profdiff::trace {
namespace {

// Streams values into one XXH3 state; owns it.
class Hasher {
 public:
  Hasher() : state_(XXH3_createState()) { XXH3_64bits_reset(state_); }
  ~Hasher() { XXH3_freeState(state_); }
  Hasher(const Hasher&) = delete;
  Hasher& operator=(const Hasher&) = delete;

  void Bytes(const void* data, size_t size) {
    XXH3_64bits_update(state_, data, size);
  }
  template <typename T>
  void Value(const T& value) {
    static_assert(std::is_trivially_copyable_v<T>);
    Bytes(&value, sizeof(value));
  }
  template <typename T>
  void Column(const std::vector<T>& column) {
    static_assert(std::is_trivially_copyable_v<T>);
    Value(column.size());
    Bytes(column.data(), column.size() * sizeof(T));
  }
  void Text(std::string_view text) {
    Value(text.size());
    Bytes(text.data(), text.size());
  }
  uint64_t Digest() const { return XXH3_64bits_digest(state_); }

 private:
  XXH3_state_t* state_;
};

}  // namespace

uint64_t TraceFingerprint(const Trace& trace) {
  Hasher hash;
  trace.events.ForEachColumn(
      [&hash](const auto& column) { hash.Column(column); });
  hash.Column(trace.events.arg_begin);
  hash.Column(trace.args.key);
  hash.Column(trace.args.int_value);
  hash.Column(trace.args.double_value);
  hash.Column(trace.args.string_value);
  hash.Value(trace.strings.size());
  for (uint32_t id = 0; id < trace.strings.size(); ++id)
    hash.Text(trace.strings.Get(StringId{id}));
  const TraceMetadata& m = trace.metadata;
  hash.Value(m.has_distributed_info);
  hash.Value(m.rank);
  hash.Value(m.world_size);
  hash.Value(m.base_time_ns);
  hash.Text(m.backend);
  hash.Text(m.trace_name);
  for (const DeviceInfo& d : m.devices) {
    hash.Value(d.id);
    hash.Text(d.name);
    hash.Value(d.total_global_mem_bytes);
  }
  hash.Column(trace.span_begin);
  // Only where frames were left out: an agent keeps them, and a fingerprint
  // of a span it sent before stays what it was.
  for (size_t span = 0; span < trace.left_out_frames.size(); ++span) {
    const FrameExtent& extent = trace.left_out_frames[span];
    if (extent.empty()) continue;
    hash.Value(span);
    hash.Value(extent.first_start_ns);
    hash.Value(extent.last_end_ns);
  }
  return hash.Digest();
}

std::string TraceFingerprintHex(const Trace& trace) {
  return absl::StrFormat("%016x", TraceFingerprint(trace));
}

}  // namespace profdiff::trace
