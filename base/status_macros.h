// Propagation macros for absl::Status / absl::StatusOr (Abseil 20220623 has
// none public).
#ifndef PROFDIFF_BASE_STATUS_MACROS_H_
#define PROFDIFF_BASE_STATUS_MACROS_H_

#include <utility>

#include <absl/status/status.h>
#include <absl/status/statusor.h>

#define PD_INTERNAL_CONCAT_IMPL(a, b) a##b
#define PD_INTERNAL_CONCAT(a, b) PD_INTERNAL_CONCAT_IMPL(a, b)

// Returns the status from the enclosing function when `expr` is not OK.
#define PD_RETURN_IF_ERROR(expr)             \
  do {                                       \
    ::absl::Status pd_status_ = (expr);      \
    if (!pd_status_.ok()) return pd_status_; \
  } while (false)

// `PD_ASSIGN_OR_RETURN(auto x, F())`: evaluates F(); on error returns its
// status, else moves the value into `x`.
#define PD_ASSIGN_OR_RETURN(lhs, expr)                                     \
  PD_INTERNAL_ASSIGN_OR_RETURN(PD_INTERNAL_CONCAT(pd_statusor_, __LINE__), \
                               lhs, expr)

// `statusor` names a variable and `lhs` may be a declaration: neither can be
// parenthesised.
// NOLINTBEGIN(bugprone-macro-parentheses)
#define PD_INTERNAL_ASSIGN_OR_RETURN(statusor, lhs, expr)  \
  auto statusor = (expr);                                  \
  if (!statusor.ok()) return std::move(statusor).status(); \
  lhs = std::move(statusor).value()
// NOLINTEND(bugprone-macro-parentheses)

#endif  // PROFDIFF_BASE_STATUS_MACROS_H_
