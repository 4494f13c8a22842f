// Compares two Traces the way a round trip (EventBatch, upload, export) must
// preserve them.
#ifndef PROFDIFF_TESTS_SUPPORT_TRACE_COMPARISON_H_
#define PROFDIFF_TESTS_SUPPORT_TRACE_COMPARISON_H_

#include <cstdint>
#include <string>

#include "trace/trace.h"

namespace profdiff::test_support {

// A pid/tid/flow id as text when it names a string (the reader's -1 -
// StringId), else the number.
std::string IdText(const trace::Trace& trace, int64_t value);

// Every event column and argument row of `a` and `b` is equal; strings (and
// named ids) compare by text, since string ids differ between pools. Fails the
// test at the first difference.
void ExpectSameEvents(const trace::Trace& a, const trace::Trace& b);

// What an export carries besides the events: the worker's metadata.
void ExpectSameMetadata(const trace::Trace& a, const trace::Trace& b);

}  // namespace profdiff::test_support

#endif  // PROFDIFF_TESTS_SUPPORT_TRACE_COMPARISON_H_
