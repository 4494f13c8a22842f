#include "differ/findings/name_lists.h"

#include <absl/strings/str_format.h>

namespace profdiff::differ {

std::string Calls(double calls) { return absl::StrFormat("%g", calls); }

}  // namespace profdiff::differ
