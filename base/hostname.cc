#include "base/hostname.h"

#include <unistd.h>

#include <climits>

namespace profdiff::base {

std::string LocalHostname() {
  char name[HOST_NAME_MAX + 1] = {};
  if (::gethostname(name, sizeof(name)) != 0) return "unknown-host";
  name[HOST_NAME_MAX] = '\0';  // POSIX leaves a truncated name unterminated
  return name;
}

}  // namespace profdiff::base
