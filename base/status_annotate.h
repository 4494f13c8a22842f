// Adds context to a Status while keeping its code (each layer annotates once).
#ifndef PROFDIFF_BASE_STATUS_ANNOTATE_H_
#define PROFDIFF_BASE_STATUS_ANNOTATE_H_

#include <string>
#include <string_view>

#include <absl/status/status.h>

namespace profdiff::base {

// Returns `status` with its message prefixed by "`context`: "; OK stays OK.
absl::Status Annotate(const absl::Status& status, std::string_view context);

// Escapes `bytes` for a Status message (C escapes, cut to 64 bytes with "..."),
// so the message stays valid UTF-8 whatever the input held.
std::string QuoteBytes(std::string_view bytes);

}  // namespace profdiff::base

#endif  // PROFDIFF_BASE_STATUS_ANNOTATE_H_
