#include "base/status_annotate.h"

#include <absl/strings/cord.h>
#include <absl/strings/escaping.h>

#include "base/str_cat.h"

namespace profdiff::base {
namespace {
// Long enough to recognise the culprit, short enough to keep one error on one
// line.
constexpr size_t kMaxQuotedBytes = 64;
}  // namespace

absl::Status Annotate(const absl::Status& status, std::string_view context) {
  if (status.ok()) return status;
  absl::Status annotated(status.code(),
                         base::StrCat(context, ": ", status.message()));
  // Payloads say what kind of failure it is (trace::IsNotATrace): they stay.
  status.ForEachPayload(
      [&annotated](absl::string_view type, const absl::Cord& payload) {
        annotated.SetPayload(type, payload);
      });
  return annotated;
}

std::string QuoteBytes(std::string_view bytes) {
  const bool cut = bytes.size() > kMaxQuotedBytes;
  if (cut) bytes = bytes.substr(0, kMaxQuotedBytes);
  return base::StrCat("\"", absl::CHexEscape(ToAbsl(bytes)),
                      cut ? "...\"" : "\"");
}

}  // namespace profdiff::base
