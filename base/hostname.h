// This machine's host name, for worker names and agent ids.
#ifndef PROFDIFF_BASE_HOSTNAME_H_
#define PROFDIFF_BASE_HOSTNAME_H_

#include <string>

namespace profdiff::base {

// gethostname(), or "unknown-host" when it fails.
std::string LocalHostname();

}  // namespace profdiff::base

#endif  // PROFDIFF_BASE_HOSTNAME_H_
