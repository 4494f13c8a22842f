// absl::StrCat / StrAppend that also take std::string_view. Debian's Abseil
// 20220623 is built with its own absl::string_view
// (ABSL_OPTION_USE_STD_STRING_VIEW 0), which std::string_view does not convert
// to; these forward everything else unchanged.
#ifndef PROFDIFF_BASE_STR_CAT_H_
#define PROFDIFF_BASE_STR_CAT_H_

#include <string>
#include <string_view>

#include <absl/strings/str_cat.h>
#include <absl/strings/string_view.h>

namespace profdiff::base {
namespace internal {
inline absl::string_view AlphaNumArg(std::string_view v) {
  return {v.data(), v.size()};
}
template <typename T>
const T& AlphaNumArg(const T& v) {
  return v;
}
}  // namespace internal

// Views as Abseil wants them.
inline absl::string_view ToAbsl(std::string_view v) {
  return {v.data(), v.size()};
}

template <typename... Args>
std::string StrCat(const Args&... args) {
  return absl::StrCat(internal::AlphaNumArg(args)...);
}

template <typename... Args>
void StrAppend(std::string* out, const Args&... args) {
  absl::StrAppend(out, internal::AlphaNumArg(args)...);
}

}  // namespace profdiff::base

#endif  // PROFDIFF_BASE_STR_CAT_H_
