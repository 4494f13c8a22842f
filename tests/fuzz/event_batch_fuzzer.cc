// Fuzzes what the aggregator does with a received chunk: bytes parsed as an
// EventBatch, then AppendEventBatch. Any input must give a Status or a Trace,
// never a crash or sanitizer report; a batch that is accepted must come back
// unchanged through EncodeEventBatch and a second AppendEventBatch, and
// re-encode to the same bytes. A mismatch aborts.
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "profdiff/v1/trace.pb.h"
#include "trace/event_batch.h"
#include "trace/trace.h"

namespace {

using profdiff::trace::StringId;
using profdiff::trace::Trace;

[[noreturn]] void Fail(const char* what, size_t index) {
  std::fprintf(stderr, "event_batch_fuzzer: round trip changed %s at %zu\n",
               what, index);
  std::abort();
}

// A pid/tid/flow id that names a string (-1 - StringId) compares by text,
// others by value.
bool SameId(const Trace& a, int64_t x, const Trace& b, int64_t y) {
  const bool x_names =
      x < 0 && static_cast<uint64_t>(-1 - x) < a.strings.size();
  const bool y_names =
      y < 0 && static_cast<uint64_t>(-1 - y) < b.strings.size();
  if (x_names != y_names) return false;
  if (!x_names) return x == y;
  return a.strings.Get(StringId{static_cast<uint32_t>(-1 - x)}) ==
         b.strings.Get(StringId{static_cast<uint32_t>(-1 - y)});
}

void CheckSame(const Trace& a, const Trace& b) {
  const auto& x = a.events;
  const auto& y = b.events;
  if (x.size() != y.size()) Fail("the event count", x.size());
  if (x.arg_begin != y.arg_begin) Fail("arg_begin", 0);
  auto text = [](const Trace& t, StringId id) { return t.strings.Get(id); };
  for (size_t i = 0; i < x.size(); ++i) {
    if (x.kind[i] != y.kind[i]) Fail("kind", i);
    if (x.phase[i] != y.phase[i]) Fail("phase", i);
    if (text(a, x.name[i]) != text(b, y.name[i])) Fail("name", i);
    if (text(a, x.category[i]) != text(b, y.category[i])) Fail("category", i);
    if (text(a, x.input_shapes[i]) != text(b, y.input_shapes[i]))
      Fail("input_shapes", i);
    if (x.start_ns[i] != y.start_ns[i]) Fail("start_ns", i);
    if (x.duration_ns[i] != y.duration_ns[i]) Fail("duration_ns", i);
    if (!SameId(a, x.pid[i], b, y.pid[i])) Fail("pid", i);
    if (!SameId(a, x.tid[i], b, y.tid[i])) Fail("tid", i);
    if (!SameId(a, x.flow_id[i], b, y.flow_id[i])) Fail("flow_id", i);
    if (x.correlation[i] != y.correlation[i]) Fail("correlation", i);
    if (x.external_id[i] != y.external_id[i]) Fail("external_id", i);
    if (x.sequence_number[i] != y.sequence_number[i])
      Fail("sequence_number", i);
    if (x.forward_thread_id[i] != y.forward_thread_id[i])
      Fail("forward_thread_id", i);
    if (x.python_id[i] != y.python_id[i]) Fail("python_id", i);
    if (x.python_parent_id[i] != y.python_parent_id[i])
      Fail("python_parent_id", i);
  }
  if (a.args.size() != b.args.size()) Fail("the argument count", a.args.size());
  for (size_t r = 0; r < a.args.size(); ++r) {
    if (a.args.key[r] != b.args.key[r]) Fail("arg key", r);
    if (a.args.int_value[r] != b.args.int_value[r]) Fail("arg int", r);
    // Bitwise: NaN payloads and -0.0 must survive too.
    if (std::bit_cast<uint64_t>(a.args.double_value[r]) !=
        std::bit_cast<uint64_t>(b.args.double_value[r])) {
      Fail("arg double", r);
    }
    if (text(a, a.args.string_value[r]) != text(b, b.args.string_value[r]))
      Fail("arg string", r);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  profdiff::v1::EventBatch batch;
  if (!batch.ParseFromArray(data, static_cast<int>(size))) return 0;
  Trace decoded;
  if (!profdiff::trace::AppendEventBatch(batch, {}, decoded).ok()) return 0;
  if (decoded.events.size() != static_cast<size_t>(batch.kind_size())) {
    Fail("the event count", decoded.events.size());
  }

  profdiff::v1::EventBatch encoded;
  profdiff::trace::EncodeEventBatch(decoded, 0, decoded.events.size(), encoded);
  Trace again;
  if (!profdiff::trace::AppendEventBatch(encoded, {}, again).ok())
    Fail("validity", 0);
  CheckSame(decoded, again);

  profdiff::v1::EventBatch reencoded;
  profdiff::trace::EncodeEventBatch(again, 0, again.events.size(), reencoded);
  if (reencoded.SerializeAsString() != encoded.SerializeAsString())
    Fail("the encoding", 0);
  return 0;
}
