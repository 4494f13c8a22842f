// Reading closed spans back, whichever store holds their batches: the merged
// trace of a worker's spans and the WorkerProfile built from it, as `profdiff
// show` builds it from files.
#ifndef PROFDIFF_AGGREGATOR_STORE_STORED_SPANS_H_
#define PROFDIFF_AGGREGATOR_STORE_STORED_SPANS_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <absl/functional/function_ref.h>
#include <absl/status/status.h>
#include <absl/status/statusor.h>

#include "aggregator/store/batch_cursor.h"
#include "aggregator/store/store.h"
#include "analysis/worker_profile.h"
#include "profdiff/v1/profile.pb.h"
#include "profdiff/v1/run_store.pb.h"
#include "trace/event_batch.h"
#include "trace/trace.h"

namespace profdiff::aggregator {

// A closed span to read back: its id, who wrote it, and how to read its stored
// EventBatches (serialized) in sequence order.
struct StoredSpan {
  std::string id;
  v1::WorkerInfo worker;
  std::function<absl::StatusOr<std::unique_ptr<BatchCursor>>()> open_batches;
};

// All of a worker's spans, merged as `profdiff show` merges a worker's files.
// DataLoss when a stored batch does not parse.
absl::StatusOr<trace::Trace> LoadSpans(const std::vector<StoredSpan>& spans,
                                       const trace::EventBatchLimits& limits);

// The worker's profile from its closed spans (`spans` not empty), with what
// only the agent knows (the host) from the latest span's header.
absl::StatusOr<v1::WorkerProfile> BuildProfile(
    const std::string& run, const std::vector<StoredSpan>& spans,
    const trace::EventBatchLimits& limits,
    const analysis::ProfileOptions& options);

// The Chrome-trace export of `spans` (not empty), merged as LoadSpans merges
// them, produced a stored chunk at a time: byte for byte
// trace::WriteChromeTrace(LoadSpans(spans)).
std::unique_ptr<TraceExport> ExportSpans(std::vector<StoredSpan> spans,
                                         const trace::EventBatchLimits& limits);

}  // namespace profdiff::aggregator

#endif  // PROFDIFF_AGGREGATOR_STORE_STORED_SPANS_H_
