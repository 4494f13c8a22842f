#include "aggregator/stored_spans.h"

#include "base/status_annotate.h"
#include "base/status_macros.h"
#include "base/str_cat.h"
#include "trace/span_merge.h"
#include "trace/worker_info.h"

namespace profdiff::aggregator {
namespace {

absl::Status LoadSpan(const StoredSpan& span, const trace::EventBatchLimits& limits,
                      trace::Trace& trace) {
  v1::EventBatch batch;
  PD_RETURN_IF_ERROR(base::Annotate(
      span.read_batches([&](uint64_t sequence, std::string_view bytes) -> absl::Status {
        if (!batch.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
          return absl::DataLossError(base::StrCat("chunk ", sequence, " does not parse as EventBatch"));
        }
        return trace::AppendEventBatch(batch, limits, trace);
      }),
      base::StrCat("span ", span.id)));
  trace::ApplyWorkerInfo(span.worker, trace);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<trace::Trace> LoadSpans(const std::vector<StoredSpan>& spans,
                                       const trace::EventBatchLimits& limits) {
  std::vector<trace::Trace> traces(spans.size());
  for (size_t i = 0; i < spans.size(); ++i) PD_RETURN_IF_ERROR(LoadSpan(spans[i], limits, traces[i]));
  return trace::MergeSpans(std::move(traces));
}

absl::StatusOr<v1::WorkerProfile> BuildProfile(const std::string& run,
                                               const std::vector<StoredSpan>& spans,
                                               const trace::EventBatchLimits& limits,
                                               const analysis::ProfileOptions& options) {
  PD_ASSIGN_OR_RETURN(trace::Trace merged, LoadSpans(spans, limits));
  const v1::WorkerInfo& latest = spans.back().worker;
  v1::WorkerProfile profile = analysis::BuildWorkerProfile(
      merged, {run, latest.worker_name(), static_cast<int32_t>(spans.size())}, options);
  profile.mutable_worker()->set_hostname(latest.hostname());
  return profile;
}

analysis::ProfileOptions ProfileOptionsOf(const v1::GetProfileRequest& request, bool& stored) {
  analysis::ProfileOptions options;
  if (request.operator_grouping() == v1::GROUPING_NAME_AND_SHAPE) {
    options.operator_grouping = analysis::OperatorGrouping::kNameAndShape;
  }
  if (request.kernel_grouping() == v1::GROUPING_NAME_AND_OP) {
    options.kernel_grouping = analysis::KernelGrouping::kNameAndOp;
  }
  stored = options.operator_grouping == analysis::OperatorGrouping::kName &&
           options.kernel_grouping == analysis::KernelGrouping::kName;
  return options;
}

bool Selected(const v1::WorkerSelector& selector, const v1::WorkerInfo& info) {
  if (selector.has_rank() && selector.rank() != info.rank()) return false;
  return selector.worker_name().empty() || selector.worker_name() == info.worker_name();
}

std::string DescribeSelector(const v1::WorkerSelector& selector) {
  std::string text;
  if (selector.has_rank()) text = base::StrCat("rank ", selector.rank());
  if (!selector.worker_name().empty()) {
    base::StrAppend(&text, text.empty() ? "" : " ", "name ", selector.worker_name());
  }
  return text.empty() ? "all workers" : text;
}

}  // namespace profdiff::aggregator
