// A fingerprint of a Trace's content: what tells two trace files apart when
// their names agree (two ranks' "trace.json.gz" in one run), and the same for
// the same events however the file was compressed or cut into chunks.
#ifndef PROFDIFF_TRACE_TRACE_FINGERPRINT_H_
#define PROFDIFF_TRACE_TRACE_FINGERPRINT_H_

#include <cstdint>
#include <string>

#include "trace/trace.h"

namespace profdiff::trace {

// XXH3 (64 bits) over every event and argument column, the strings in id order
// and the metadata that travels with a span (rank, world size, base time,
// devices). Stable across processes, builds and machines (XXH3's output is
// specified); not cryptographic.
uint64_t TraceFingerprint(const Trace& trace);

// TraceFingerprint as 16 lowercase hex digits.
std::string TraceFingerprintHex(const Trace& trace);

}  // namespace profdiff::trace

#endif  // PROFDIFF_TRACE_TRACE_FINGERPRINT_H_
