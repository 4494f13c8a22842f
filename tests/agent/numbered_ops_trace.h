// A small trace for upload tests: `n` operators "op<i>" at ts = i us on one
// thread, so order and completeness are visible per event.
#ifndef PROFDIFF_TESTS_AGENT_NUMBERED_OPS_TRACE_H_
#define PROFDIFF_TESTS_AGENT_NUMBERED_OPS_TRACE_H_

#include "trace/trace.h"

namespace profdiff::agent {

trace::Trace NumberedOpsTrace(int n);

}  // namespace profdiff::agent

#endif  // PROFDIFF_TESTS_AGENT_NUMBERED_OPS_TRACE_H_
