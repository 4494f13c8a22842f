// Checks the names that become folder names in the store (run ids, worker names, span ids), so
// no upload can escape its run's folder or make an unbounded path.
#ifndef PROFDIFF_AGGREGATOR_STORE_IDS_H_
#define PROFDIFF_AGGREGATOR_STORE_IDS_H_

#include <string_view>

#include <absl/status/status.h>

namespace profdiff::aggregator {

inline constexpr size_t kMaxIdBytes = 128;

// OK when `id` matches [A-Za-z0-9._-]{1,128} and is not "." or "..". Otherwise
// InvalidArgument: `<what> "<id, escaped>": <rule broken>`.
absl::Status ValidateStoreId(std::string_view what, std::string_view id);

}  // namespace profdiff::aggregator

#endif  // PROFDIFF_AGGREGATOR_STORE_IDS_H_
