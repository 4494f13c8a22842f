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

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  const profdiff::trace::ReaderLimits limits = LimitsFor(bytes);
  using profdiff::trace::KinetoReader;
  using profdiff::trace::ReadParallelism;
  constexpr ReadParallelism kOnePass{.threads = 1, .in_turn_part_bytes = 0};
  constexpr ReadParallelism kParts{.threads = 3, .min_part_bytes = 1};
  constexpr ReadParallelism kStreamed{.threads = 1, .in_turn_part_bytes = 256};
  // Gzip parsed in two parts while it inflates, windows of 256 bytes.
  constexpr ReadParallelism kInflating{
      .threads = 2, .min_part_bytes = 1, .in_turn_part_bytes = 256};
  // Default limits: readers reused from input to input, as a run folder reuses
  // one; small limits: fresh readers.
  static KinetoReader reused_one_pass({}, kOnePass);
  static KinetoReader reused_in_parts({}, kParts);
  static KinetoReader reused_streamed({}, kStreamed);
  static KinetoReader reused_inflating({}, kInflating);
  const bool small_limits =
      limits.max_events != profdiff::trace::ReaderLimits{}.max_events;
  KinetoReader fresh_one_pass(limits, kOnePass);
  KinetoReader fresh_in_parts(limits, kParts);
  KinetoReader fresh_streamed(limits, kStreamed);
  KinetoReader fresh_inflating(limits, kInflating);
  KinetoReader& one_pass = small_limits ? fresh_one_pass : reused_one_pass;
  KinetoReader& in_parts = small_limits ? fresh_in_parts : reused_in_parts;
  KinetoReader& streamed = small_limits ? fresh_streamed : reused_streamed;
  KinetoReader& inflating = small_limits ? fresh_inflating : reused_inflating;
  // As the CLI reads: plain Python frames left out, their extent kept; at the
  // input's small limits too (the frame filter must respect them).
  constexpr profdiff::trace::ReaderLimits kAsTheCli{.keep_python_frames =
                                                        false};
  static KinetoReader reused_cli_one_pass(kAsTheCli, kOnePass);
  static KinetoReader reused_cli_in_parts(kAsTheCli, kParts);
  static KinetoReader reused_cli_streamed(kAsTheCli, kStreamed);
  static KinetoReader reused_cli_inflating(kAsTheCli, kInflating);
  profdiff::trace::ReaderLimits cli_limits = limits;
  cli_limits.keep_python_frames = false;
  KinetoReader fresh_cli_one_pass(cli_limits, kOnePass);
  KinetoReader fresh_cli_in_parts(cli_limits, kParts);
  KinetoReader fresh_cli_streamed(cli_limits, kStreamed);
  KinetoReader fresh_cli_inflating(cli_limits, kInflating);
  KinetoReader& cli_one_pass =
      small_limits ? fresh_cli_one_pass : reused_cli_one_pass;
  KinetoReader& cli_in_parts =
      small_limits ? fresh_cli_in_parts : reused_cli_in_parts;
  KinetoReader& cli_streamed =
      small_limits ? fresh_cli_streamed : reused_cli_streamed;
  KinetoReader& cli_inflating =
      small_limits ? fresh_cli_inflating : reused_cli_inflating;
  ExpectSameReads(bytes, one_pass, {&in_parts, &streamed});
  ExpectSameReads(bytes, cli_one_pass, {&cli_in_parts, &cli_streamed});
  if (!profdiff::trace::IsGzip(bytes)) {
    const std::string gzipped = profdiff::test_support::Gzip(bytes);
    ExpectSameReads(gzipped, one_pass, {&streamed, &inflating});
    ExpectSameReads(gzipped, cli_one_pass, {&cli_streamed, &cli_inflating});
  }
  return 0;
}
