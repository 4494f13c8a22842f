// Fuzzes the public entry point users hit: trace bytes (JSON or gzip) into the
// reader. Any input must give a Trace or a Status; never a crash, hang or
// sanitizer report. Each input is also read in parts on several threads (cut
// wherever the text allows, however small) and, when it is gzip, streamed in
// windows of 256 bytes; both must give the very same result or the very same
// error as one pass, also at small limits chosen by the input. An input that is
// not gzip is also gzipped here and read both ways, so that every mutation of
// the text reaches the stream (mutated gzip mostly fails its CRC).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <string>
#include <string_view>

#include "tests/support/gzip_text.h"
#include "trace/gzip_stream.h"
#include "trace/kineto_reader.h"

namespace {

using profdiff::trace::Trace;

// Everything the reader fills, with string ids compared as ids (the parts must
// intern in the one-pass order). Argument doubles compare with ==: JSON has no
// NaN to read.
bool SameTrace(const Trace& a, const Trace& b) {
  if (a.strings.size() != b.strings.size()) return false;
  for (uint32_t k = 0; k < a.strings.size(); ++k) {
    if (a.strings.Get({k}) != b.strings.Get({k})) return false;
  }
  return a.events == b.events && a.args == b.args && a.metadata == b.metadata &&
         a.counters == b.counters && a.span_begin == b.span_begin &&
         a.left_out_frames == b.left_out_frames;
}

// The first byte picks small limits for some inputs, so the limits' edges are
// fuzzed too.
profdiff::trace::ReaderLimits LimitsFor(std::string_view bytes) {
  profdiff::trace::ReaderLimits limits;
  if (bytes.size() < 2 || (bytes[0] & 0x80) == 0) return limits;
  const auto knob = static_cast<unsigned char>(bytes[1]);
  limits.max_events = 1 + knob % 16;
  limits.max_string_bytes = 1 + knob % 64;
  limits.max_depth = 2 + knob % 8;
  return limits;
}

// Reads `bytes` in one pass and with each of `others`; aborts when one of them
// differs.
void ExpectSameReads(
    std::string_view bytes, profdiff::trace::KinetoReader& one_pass,
    std::initializer_list<profdiff::trace::KinetoReader*> others) {
  const absl::StatusOr<Trace> a = one_pass.ReadBytes(bytes, "fuzz");
  for (profdiff::trace::KinetoReader* other : others) {
    const absl::StatusOr<Trace> b = other->ReadBytes(bytes, "fuzz");
    const bool same =
        a.ok() ? b.ok() && SameTrace(*a, *b) : a.status() == b.status();
    if (!same) {
      std::fprintf(
          stderr, "one pass and %zu parts (streamed: %d) disagree: %s / %s\n",
          other->last_read_parts(), other->last_read_streamed(),
          a.status().ToString().c_str(), b.status().ToString().c_str());
      std::abort();
    }
  }
}

// The same limits read every way: one pass; in parts on several threads,
// however small; gzip streamed in windows of 256 bytes; gzip parsed in two
// parts while it inflates, windows of 256 bytes.
struct Readers {
  explicit Readers(const profdiff::trace::ReaderLimits& limits)
      : one_pass(limits, {.threads = 1, .in_turn_part_bytes = 0}),
        in_parts(limits, {.threads = 3, .min_part_bytes = 1}),
        streamed(limits, {.threads = 1, .in_turn_part_bytes = 256}),
        inflating(
            limits,
            {.threads = 2, .min_part_bytes = 1, .in_turn_part_bytes = 256}) {}
  profdiff::trace::KinetoReader one_pass;
  profdiff::trace::KinetoReader in_parts;
  profdiff::trace::KinetoReader streamed;
  profdiff::trace::KinetoReader inflating;
};

// `bytes` read every way `readers` read (and `gzipped`, its gzip when it is
// not gzip, empty otherwise) must give one pass's result.
void ExpectSameReadsEveryWay(std::string_view bytes, std::string_view gzipped,
                             Readers& readers) {
  ExpectSameReads(bytes, readers.one_pass,
                  {&readers.in_parts, &readers.streamed});
  if (!gzipped.empty()) {
    ExpectSameReads(gzipped, readers.one_pass,
                    {&readers.streamed, &readers.inflating});
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  const profdiff::trace::ReaderLimits limits = LimitsFor(bytes);
  const std::string gzipped = profdiff::trace::IsGzip(bytes)
                                  ? std::string()
                                  : profdiff::test_support::Gzip(bytes);
  // As the CLI reads: plain Python frames left out, their extent kept; at the
  // input's small limits too (the frame filter must respect them).
  profdiff::trace::ReaderLimits cli_limits = limits;
  cli_limits.keep_python_frames = false;
  // Default limits: readers reused from input to input, as a run folder reuses
  // one; small limits: fresh readers.
  if (limits.max_events != profdiff::trace::ReaderLimits{}.max_events) {
    Readers fresh(limits);
    Readers fresh_cli(cli_limits);
    ExpectSameReadsEveryWay(bytes, gzipped, fresh);
    ExpectSameReadsEveryWay(bytes, gzipped, fresh_cli);
  } else {
    static Readers reused(limits);
    static Readers reused_cli(cli_limits);
    ExpectSameReadsEveryWay(bytes, gzipped, reused);
    ExpectSameReadsEveryWay(bytes, gzipped, reused_cli);
  }
  return 0;
}
