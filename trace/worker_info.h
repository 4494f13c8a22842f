// Converts what a Trace knows about its worker (TraceMetadata, ReadCounters) to
// and from the WorkerInfo proto that travels with an uploaded span.
#ifndef PROFDIFF_TRACE_WORKER_INFO_H_
#define PROFDIFF_TRACE_WORKER_INFO_H_

#include "profdiff/v1/trace.pb.h"
#include "trace/trace.h"

namespace profdiff::trace {

// The WorkerInfo of `trace`: rank, world size, backend, devices, base time,
// trace name, source format and path, counters. Run, worker name, hostname and
// pid are left for the caller.
v1::WorkerInfo WorkerInfoOf(const Trace& trace);

// Sets `trace.metadata` and `trace.counters` from `info`: the inverse of
// WorkerInfoOf.
void ApplyWorkerInfo(const v1::WorkerInfo& info, Trace& trace);

}  // namespace profdiff::trace

#endif  // PROFDIFF_TRACE_WORKER_INFO_H_
