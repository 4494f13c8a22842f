// The one rule for names that become folder names and keys (run ids, span ids,
// worker names): [A-Za-z0-9._-]{1,128}, not "." or "..". The agent checks it
// before uploading, the aggregator before storing, the CLI to tell a run id
// from a path.
#ifndef PROFDIFF_BASE_ID_RULES_H_
#define PROFDIFF_BASE_ID_RULES_H_

#include <cstddef>
#include <string_view>

#include <absl/status/status.h>

namespace profdiff::base {

inline constexpr size_t kMaxIdBytes = 128;

// True for the characters an id may hold: [A-Za-z0-9._-].
bool IsIdChar(char c);

// True when `id` follows the rule above.
bool IsValidId(std::string_view id);

// OK when IsValidId(id); else InvalidArgument `<what> "<id, escaped>": <rule
// broken>`.
absl::Status ValidateId(std::string_view what, std::string_view id);

}  // namespace profdiff::base

#endif  // PROFDIFF_BASE_ID_RULES_H_
