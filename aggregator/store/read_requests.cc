#include "aggregator/store/read_requests.h"

#include "base/str_cat.h"

namespace profdiff::aggregator {

absl::StatusOr<int> ListRunsPageSize(const v1::ListRunsRequest& request) {
  constexpr int kDefaultPageSize = 100;
  constexpr int kMaxPageSize = 1000;
  if (request.page_size() < 0 || request.page_size() > kMaxPageSize) {
    return absl::InvalidArgumentError(base::StrCat(
        "page_size ", request.page_size(), ": must be 0..", kMaxPageSize));
  }
  return request.page_size() == 0 ? kDefaultPageSize : request.page_size();
}

RequestedProfile ProfileOptionsOf(const v1::GetProfileRequest& request) {
  analysis::ProfileOptions options;
  if (request.operator_grouping() == v1::GROUPING_NAME_AND_SHAPE) {
    options.operator_grouping = analysis::OperatorGrouping::kNameAndShape;
  }
  if (request.kernel_grouping() == v1::GROUPING_NAME_AND_OP) {
    options.kernel_grouping = analysis::KernelGrouping::kNameAndOp;
  }
  const bool stored =
      options.operator_grouping == analysis::OperatorGrouping::kName &&
      options.kernel_grouping == analysis::KernelGrouping::kName;
  return {options, stored};
}

}  // namespace profdiff::aggregator
